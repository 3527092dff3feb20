"""browse trials: page variants (VAF) are episodes of kind "variant"; a browsing run's trials

A browsing trial is many answers (scrolls, then a click) on screens the trial itself reaches, repeated
N times per variant, so it is a row of its own rather than one prediction per step.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

from desktop_app.store.types import UTCDateTime

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('episode', schema=None) as batch_op:
        batch_op.drop_constraint('ck_episode_kind', type_='check')
        batch_op.create_check_constraint('ck_episode_kind', "kind IN ('sample', 'trajectory', 'probe', 'variant')")
    op.create_table(
        'browse_trial',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('run_id', sa.Integer(), nullable=False),
        sa.Column('episode_id', sa.Integer(), nullable=False),
        sa.Column('trial', sa.Integer(), nullable=False),
        sa.Column('steps', sa.JSON(), nullable=False),
        sa.Column('ended', sa.String(length=16), nullable=False),
        sa.Column('error', sa.String(), nullable=False),
        sa.Column('click_x', sa.Float(), nullable=True),
        sa.Column('click_y', sa.Float(), nullable=True),
        sa.Column('hit_item', sa.Integer(), nullable=True),
        sa.Column('target_click', sa.Boolean(), nullable=False),
        sa.Column('mention', sa.Integer(), nullable=True),
        sa.Column('judge', sa.JSON(), nullable=False),
        sa.Column('prompt_tokens', sa.Integer(), nullable=False),
        sa.Column('completion_tokens', sa.Integer(), nullable=False),
        sa.Column('created_at', UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(['episode_id'], ['episode.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['run_id'], ['run.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('run_id', 'episode_id', 'trial', name='uq_browse_trial'),
    )
    with op.batch_alter_table('browse_trial', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_browse_trial_episode_id'), ['episode_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_browse_trial_run_id'), ['run_id'], unique=False)


def downgrade() -> None:
    op.drop_table('browse_trial')
    op.execute("DELETE FROM episode WHERE kind = 'variant'")
    with op.batch_alter_table('episode', schema=None) as batch_op:
        batch_op.drop_constraint('ck_episode_kind', type_='check')
        batch_op.create_check_constraint('ck_episode_kind', "kind IN ('sample', 'trajectory', 'probe')")
