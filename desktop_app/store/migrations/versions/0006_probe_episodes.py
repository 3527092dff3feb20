"""probe episodes: knowledge-probe questions (Sphinx) are episodes of kind "probe" whose steps (the
multiple-choice question and one yes/no question per option) have no screen

A prediction belongs to a step, so a question asked of an agent needs steps; a knowledge probe shows no
screen, so step.screen_id may now be empty (only for probe episodes: ingest refuses a screenless step
anywhere else).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('episode', schema=None) as batch_op:
        batch_op.drop_constraint('ck_episode_kind', type_='check')
        batch_op.create_check_constraint('ck_episode_kind', "kind IN ('sample', 'trajectory', 'probe')")
    with op.batch_alter_table('step', schema=None) as batch_op:
        batch_op.alter_column('screen_id', existing_type=sa.Integer(), nullable=True)


def downgrade() -> None:
    op.execute("DELETE FROM episode WHERE kind = 'probe'")
    with op.batch_alter_table('step', schema=None) as batch_op:
        batch_op.alter_column('screen_id', existing_type=sa.Integer(), nullable=False)
    with op.batch_alter_table('episode', schema=None) as batch_op:
        batch_op.drop_constraint('ck_episode_kind', type_='check')
        batch_op.create_check_constraint('ck_episode_kind', "kind IN ('sample', 'trajectory')")
