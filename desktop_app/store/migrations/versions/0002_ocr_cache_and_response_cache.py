"""ocr cache and response cache

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21
"""

import sqlalchemy as sa
from alembic import op

from desktop_app.store.types import UTCDateTime

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('ocr_result',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('sha256', sa.String(length=64), nullable=False),
    sa.Column('engine', sa.String(length=32), nullable=False),
    sa.Column('settings', sa.String(), nullable=False),
    sa.Column('words', sa.JSON(), nullable=False),
    sa.Column('elements', sa.JSON(), nullable=False),
    sa.Column('duration_ms', sa.Float(), nullable=True),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('sha256', 'engine', 'settings', name='uq_ocr_image_engine_settings')
    )
    with op.batch_alter_table('ocr_result', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_ocr_result_sha256'), ['sha256'], unique=False)

    op.create_table('response_cache',
    sa.Column('key', sa.String(length=64), nullable=False),
    sa.Column('model', sa.String(), nullable=False),
    sa.Column('response', sa.JSON(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('key')
    )


def downgrade() -> None:
    op.drop_table('response_cache')
    with op.batch_alter_table('ocr_result', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_ocr_result_sha256'))

    op.drop_table('ocr_result')
