"""screen trees per dump: one screenshot can come with different accessibility trees (real Sphinx data has
235 screenshots shared by steps whose dumps differ, 4 in content), so a tree is identified by its screen
and the SHA-256 of its XML, and a step names its tree (step.meta["tree"] = that hash)

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24
"""

import hashlib

import sqlalchemy as sa
from alembic import op

from desktop_app.store.types import UTCDateTime

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def _create(name: str, unique: list[str]) -> None:
    op.create_table(name,
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('screen_id', sa.Integer(), nullable=False),
    *([sa.Column('sha256', sa.String(length=64), nullable=False)] if 'sha256' in unique else []),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('xml', sa.String(), nullable=False),
    sa.Column('nodes', sa.Integer(), nullable=False),
    sa.Column('flags', sa.JSON(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['screen_id'], ['screen.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint(*unique, name=f'uq_{name}_' + '_'.join(unique)),
    )


# The table is rebuilt rather than altered: 0005's unique constraint has no name to drop on every back end.
COLUMNS = "id, screen_id, kind, xml, nodes, flags, created_at"


def upgrade() -> None:
    _create('screen_tree_new', ['screen_id', 'sha256'])
    conn = op.get_bind()
    rows = conn.execute(sa.text(f"SELECT {COLUMNS} FROM screen_tree")).mappings().all()
    table = sa.table('screen_tree_new', *(sa.column(c) for c in [*COLUMNS.split(", "), "sha256"]))
    if rows:
        conn.execute(sa.insert(table), [{**row, "sha256": hashlib.sha256(row["xml"].encode("utf-8")).hexdigest()}
                                        for row in rows])
    op.drop_table('screen_tree')
    op.rename_table('screen_tree_new', 'screen_tree')
    op.create_index('ix_screen_tree_screen_id', 'screen_tree', ['screen_id'], unique=False)


def downgrade() -> None:
    _create('screen_tree_old', ['screen_id'])
    conn = op.get_bind()
    conn.execute(sa.text(f"INSERT INTO screen_tree_old ({COLUMNS}) SELECT {COLUMNS} FROM screen_tree WHERE id IN "
                         "(SELECT MIN(id) FROM screen_tree GROUP BY screen_id)"))
    op.drop_index('ix_screen_tree_screen_id', table_name='screen_tree')
    op.drop_table('screen_tree')
    op.rename_table('screen_tree_old', 'screen_tree')
