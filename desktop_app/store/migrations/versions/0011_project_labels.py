"""a project's own box labels: the label column is checked by the project's label set (store/label_set.py),
not by a fixed list in the schema

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-24
"""

from alembic import op

revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('action_box', schema=None) as batch_op:
        batch_op.drop_constraint('ck_box_label', type_='check')


def downgrade() -> None:
    with op.batch_alter_table('action_box', schema=None) as batch_op:
        batch_op.create_check_constraint('ck_box_label', "label IN ('gold', 'distracted', 'other')")
