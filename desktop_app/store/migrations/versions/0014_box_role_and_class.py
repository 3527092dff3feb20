"""a box's role and its class are two things: the label column keeps the role scoring reads (gold, distracted,
other, checked by the schema again), the new category column the class from the project's vocabulary of any
size, case kept (ADR 0047). A box a project had labelled with one of its own labels becomes role "other" with
that label as its class: "other" is what scoring read for it before, so no verdict changes.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

from desktop_app.store.server_roles import group_name

revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None

ROLES = "('gold', 'distracted', 'other')"


def upgrade() -> None:
    # No table rebuild (Alembic's batch mode on SQLite): dropping the old action_box would fire its foreign
    # keys' ON DELETE SET NULL and unlink every prediction from the box it hit. A plain ADD COLUMN, and the role
    # rule as a check constraint on PostgreSQL, a trigger on SQLite (which cannot add a CHECK in place).
    op.add_column('action_box', sa.Column('category', sa.String(length=64), nullable=False, server_default=''))
    op.execute(f"UPDATE action_box SET category = label, label = 'other' WHERE label NOT IN {ROLES}")
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        op.create_check_constraint('ck_box_label', 'action_box', f"label IN {ROLES}")
    else:
        for event in ("INSERT", "UPDATE OF label"):
            op.execute(f"""CREATE TRIGGER ck_box_label_{event.split()[0].lower()} BEFORE {event} ON action_box
                           WHEN NEW.label NOT IN {ROLES}
                           BEGIN SELECT RAISE(ABORT, 'CHECK constraint failed: ck_box_label'); END""")
    # the project's own labels were its vocabulary already: under the new key, in the same order
    op.execute("UPDATE project_setting SET key = 'classes' WHERE key = 'labels'")
    if bind.dialect.name == "postgresql":
        _grant_class_edits(bind)


def _grant_class_edits(bind) -> None:
    """Whoever may change a box's label may change its class (migration 0013 grants UPDATE column by column to
    reviewers and annotators; a lead's table-wide grant covers the new column already)."""
    database = bind.execute(sa.text("SELECT current_database()")).scalar_one()
    for role in ("reviewer", "annotator"):
        group = group_name(database, role)
        if bind.execute(sa.text("SELECT 1 FROM pg_roles WHERE rolname = :g"), {"g": group}).first():
            op.execute(f'GRANT UPDATE (category) ON action_box TO "{group.replace(chr(34), chr(34) * 2)}"')


def downgrade() -> None:
    bind = op.get_bind()
    op.execute("UPDATE project_setting SET key = 'labels' WHERE key = 'classes'")
    if bind.dialect.name == "postgresql":
        op.drop_constraint('ck_box_label', 'action_box', type_='check')
    else:
        op.execute("DROP TRIGGER ck_box_label_insert")
        op.execute("DROP TRIGGER ck_box_label_update")
    # a class that fits the old label column becomes the label again (the old schema had one of them per box)
    op.execute("UPDATE action_box SET label = category WHERE category <> '' AND label = 'other' "
               "AND length(category) <= 16")
    op.execute("ALTER TABLE action_box DROP COLUMN category")  # in place on SQLite too (3.35+): no rebuild
