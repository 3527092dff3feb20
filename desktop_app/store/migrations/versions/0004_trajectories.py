"""trajectories: episode kind, human trajectory labels, judge reviews, screen captions

An agent's trajectory is stored as an episode of kind "trajectory" (its steps' screens and, in
step.meta, the agent's actions); people label it as a whole, judges (runs of the `judge` protocol)
give a verdict, and disagreements are reviewed.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

from desktop_app.store.types import UTCDateTime

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


OLD_VERDICTS = ("gold", "distracted", "other", "invalid", "error")
NEW_VERDICTS = OLD_VERDICTS + ("success", "failure", "impossible", "reached", "towards", "not_sure", "away")


def _verdict_check(values) -> str:
    return "verdict = '' OR verdict IN (" + ", ".join(f"'{v}'" for v in values) + ")"


def upgrade() -> None:
    with op.batch_alter_table('prediction', schema=None) as batch_op:
        batch_op.drop_constraint('ck_prediction_verdict', type_='check')
        batch_op.create_check_constraint('ck_prediction_verdict', _verdict_check(NEW_VERDICTS))
    with op.batch_alter_table('episode', schema=None) as batch_op:
        batch_op.add_column(sa.Column('kind', sa.String(length=16), nullable=False, server_default='sample'))
        batch_op.create_index(batch_op.f('ix_episode_kind'), ['kind'], unique=False)
        batch_op.create_check_constraint('ck_episode_kind', "kind IN ('sample', 'trajectory')")

    op.create_table('trajectory_label',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('episode_id', sa.Integer(), nullable=False),
    sa.Column('annotator', sa.String(length=64), nullable=False),
    sa.Column('outcome', sa.String(length=16), nullable=False),
    sa.Column('step_labels', sa.JSON(), nullable=False),
    sa.Column('comment', sa.String(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.CheckConstraint("outcome IN ('success', 'failure', 'impossible', 'unsure', 'emulator_error')",
                       name='ck_trajectory_label_outcome'),
    sa.ForeignKeyConstraint(['episode_id'], ['episode.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('episode_id', 'annotator', name='uq_trajectory_label_annotator')
    )
    with op.batch_alter_table('trajectory_label', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_trajectory_label_episode_id'), ['episode_id'], unique=False)

    op.create_table('judge_review',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('run_id', sa.Integer(), nullable=False),
    sa.Column('episode_id', sa.Integer(), nullable=False),
    sa.Column('reviewer', sa.String(length=64), nullable=False),
    sa.Column('decision', sa.String(length=16), nullable=False),
    sa.Column('judged', sa.String(length=16), nullable=False),
    sa.Column('tags', sa.JSON(), nullable=False),
    sa.Column('note', sa.String(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.CheckConstraint("decision IN ('accept', 'override')", name='ck_judge_review_decision'),
    sa.ForeignKeyConstraint(['episode_id'], ['episode.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['run_id'], ['run.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('run_id', 'episode_id', name='uq_judge_review_run_episode')
    )
    with op.batch_alter_table('judge_review', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_judge_review_run_id'), ['run_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_judge_review_episode_id'), ['episode_id'], unique=False)

    op.create_table('screen_caption',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('screen_id', sa.Integer(), nullable=False),
    sa.Column('captioner', sa.String(length=128), nullable=False),
    sa.Column('text', sa.String(), nullable=False),
    sa.Column('source', sa.String(length=16), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['screen_id'], ['screen.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('screen_id', 'captioner', name='uq_screen_caption_captioner')
    )
    with op.batch_alter_table('screen_caption', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_screen_caption_screen_id'), ['screen_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('prediction', schema=None) as batch_op:
        batch_op.drop_constraint('ck_prediction_verdict', type_='check')
        batch_op.create_check_constraint('ck_prediction_verdict', _verdict_check(OLD_VERDICTS))
    op.drop_table('screen_caption')
    op.drop_table('judge_review')
    op.drop_table('trajectory_label')
    with op.batch_alter_table('episode', schema=None) as batch_op:
        batch_op.drop_constraint('ck_episode_kind', type_='check')
        batch_op.drop_index(batch_op.f('ix_episode_kind'))
        batch_op.drop_column('kind')
