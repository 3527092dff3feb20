"""screen trees: a screen's accessibility tree (uiautomator XML) and annotators' corrections to it

Recorded app screens (the Sphinx benchmark) come with the accessibility tree the agent reads in text
modes; the tree belongs to the screen (one per image), like its captions.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

from desktop_app.store.types import UTCDateTime

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('screen_tree',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('screen_id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('xml', sa.String(), nullable=False),
    sa.Column('nodes', sa.Integer(), nullable=False),
    sa.Column('flags', sa.JSON(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['screen_id'], ['screen.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('screen_id')
    )


def downgrade() -> None:
    op.drop_table('screen_tree')
