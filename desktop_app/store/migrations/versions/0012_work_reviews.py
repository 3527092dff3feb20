"""work reviews: a reviewer accepts an annotator's finished work or returns it with a pinned comment; a
person's assignments read from one covering index; the audit log indexed by entity; steps waiting to be
re-scored after an annotator's edit; the logins a server project created

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

from desktop_app.store.types import UTCDateTime

revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'work_review',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('assignment_id', sa.Integer(), nullable=False),
        sa.Column('annotator', sa.String(length=64), nullable=False),
        sa.Column('reviewer', sa.String(length=64), nullable=False),
        sa.Column('decision', sa.String(length=16), nullable=False),
        sa.Column('comment', sa.String(), nullable=False),
        sa.Column('step_index', sa.Integer(), nullable=True),
        sa.Column('box_id', sa.Integer(), nullable=True),
        sa.Column('x', sa.Float(), nullable=True),
        sa.Column('y', sa.Float(), nullable=True),
        sa.Column('created_at', UTCDateTime(), nullable=False),
        sa.CheckConstraint("decision IN ('accept', 'return')", name='ck_work_review_decision'),
        sa.ForeignKeyConstraint(['assignment_id'], ['assignment.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('work_review', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_work_review_assignment_id'), ['assignment_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_work_review_annotator'), ['annotator'], unique=False)
    with op.batch_alter_table('assignment', schema=None) as batch_op:
        batch_op.drop_index('ix_assignment_annotator')
        batch_op.create_index('ix_assignment_work', ['annotator', 'state', 'copy_id', 'episode_id'], unique=False)
    with op.batch_alter_table('audit_log', schema=None) as batch_op:
        batch_op.create_index('ix_audit_log_entity', ['entity', 'entity_id'], unique=False)
    op.create_table(
        'rescore_due',
        sa.Column('step_id', sa.Integer(), nullable=False),
        sa.Column('created_at', UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(['step_id'], ['step.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('step_id'),
    )
    op.create_table(
        'team_login',
        sa.Column('login', sa.String(length=64), nullable=False),
        sa.Column('created_at', UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint('login'),
    )


def downgrade() -> None:
    op.drop_table('team_login')
    op.drop_table('rescore_due')
    with op.batch_alter_table('audit_log', schema=None) as batch_op:
        batch_op.drop_index('ix_audit_log_entity')
    with op.batch_alter_table('assignment', schema=None) as batch_op:
        batch_op.drop_index('ix_assignment_work')
        batch_op.create_index('ix_assignment_annotator', ['annotator'], unique=False)
    op.drop_table('work_review')
