"""media in the database: project-wide settings (where the images live) and a table of image bytes

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

from desktop_app.store.types import UTCDateTime

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'project_setting',
        sa.Column('key', sa.String(length=64), nullable=False),
        sa.Column('value', sa.String(), nullable=False),
        sa.PrimaryKeyConstraint('key'),
    )
    op.create_table(
        'media_blob',
        sa.Column('sha256', sa.String(length=64), nullable=False),
        sa.Column('ext', sa.String(length=8), nullable=False),
        sa.Column('size', sa.Integer(), nullable=False),
        sa.Column('data', sa.LargeBinary(), nullable=False),
        sa.Column('created_at', UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint('sha256'),
    )


def downgrade() -> None:
    op.drop_table('media_blob')
    op.drop_table('project_setting')
