"""teams: per-annotator assignments and states, private copies for double annotation, adjudications

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

from desktop_app.store.types import UTCDateTime

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('episode', schema=None) as batch_op:
        batch_op.drop_constraint('ck_episode_kind', type_='check')
        batch_op.create_check_constraint('ck_episode_kind',
                                         "kind IN ('sample', 'trajectory', 'probe', 'variant', 'copy')")
        batch_op.add_column(sa.Column('updated_by', sa.String(length=64), nullable=False, server_default=''))
    op.create_table(
        'assignment',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('episode_id', sa.Integer(), nullable=False),
        sa.Column('annotator', sa.String(length=64), nullable=False),
        sa.Column('state', sa.String(length=16), nullable=False),
        sa.Column('reason', sa.String(), nullable=False),
        sa.Column('copy_id', sa.Integer(), nullable=True),
        sa.Column('assigned_by', sa.String(length=64), nullable=False),
        sa.Column('seconds', sa.Float(), nullable=False),
        sa.Column('created_at', UTCDateTime(), nullable=False),
        sa.Column('updated_at', UTCDateTime(), nullable=False),
        sa.Column('done_at', UTCDateTime(), nullable=True),
        sa.Column('version', sa.Integer(), nullable=False),
        sa.CheckConstraint("state IN ('todo', 'in_progress', 'done', 'skipped')", name='ck_assignment_state'),
        sa.ForeignKeyConstraint(['episode_id'], ['episode.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['copy_id'], ['episode.id'], ondelete='SET NULL'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('episode_id', 'annotator', name='uq_assignment_episode_annotator'),
    )
    with op.batch_alter_table('assignment', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_assignment_episode_id'), ['episode_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_assignment_copy_id'), ['copy_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_assignment_annotator'), ['annotator'], unique=False)
        batch_op.create_index(batch_op.f('ix_assignment_state'), ['state'], unique=False)
    op.create_table(
        'adjudication',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('episode_id', sa.Integer(), nullable=False),
        sa.Column('lead', sa.String(length=64), nullable=False),
        sa.Column('choice', sa.JSON(), nullable=False),
        sa.Column('created_at', UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(['episode_id'], ['episode.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('episode_id'),
    )


def downgrade() -> None:
    op.drop_table('adjudication')
    op.drop_table('assignment')
    op.execute("DELETE FROM episode WHERE kind = 'copy'")
    with op.batch_alter_table('episode', schema=None) as batch_op:
        batch_op.drop_constraint('ck_episode_kind', type_='check')
        batch_op.create_check_constraint('ck_episode_kind', "kind IN ('sample', 'trajectory', 'probe', 'variant')")
        batch_op.drop_column('updated_by')
