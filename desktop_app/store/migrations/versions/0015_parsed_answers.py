"""answers parsed once: the prediction's answer as the envdistraction rules read it, in typed columns (ADR 0052).
answer_x / answer_y: the point CogAgent's and SeeClick's rules read from the raw answer, in pixels;
answer_tokens: a text answer's normalised tokens (space-separated); answer_flags: the parse version and what
else it found (evaluation/parsed_answers.py). NULL flags: not parsed yet; the first evaluation parses such rows
(old runs) once, and scoring reads the raw answer for any row it finds unparsed.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

from desktop_app.store.server_roles import group_name

revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None

COLUMNS = ("answer_x", "answer_y", "answer_tokens", "answer_flags")


def upgrade() -> None:
    # ADD COLUMN in place, never Alembic's batch rebuild on SQLite: dropping the old prediction table is not
    # needed and a rebuild of a table is what 0014 warns against. Nullable, no default: NULL means "not parsed".
    op.add_column('prediction', sa.Column('answer_x', sa.Float(), nullable=True))
    op.add_column('prediction', sa.Column('answer_y', sa.Float(), nullable=True))
    op.add_column('prediction', sa.Column('answer_tokens', sa.String(), nullable=True))
    op.add_column('prediction', sa.Column('answer_flags', sa.Integer(), nullable=True))
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        _grant_parse_writes(bind)


def _grant_parse_writes(bind) -> None:
    """A reviewer re-judges answers (UPDATE of verdict, matched_box_id, parsed: migration 0013) and reads results,
    whose first read parses old rows: they may write the parse too. A lead's table-wide grant covers the new
    columns already; an annotator writes no prediction (their evaluation reads unparsed rows' raw answers)."""
    database = bind.execute(sa.text("SELECT current_database()")).scalar_one()
    group = group_name(database, "reviewer")
    if bind.execute(sa.text("SELECT 1 FROM pg_roles WHERE rolname = :g"), {"g": group}).first():
        op.execute(f'GRANT UPDATE ({", ".join(COLUMNS)}) ON prediction TO "{group.replace(chr(34), chr(34) * 2)}"')


def downgrade() -> None:
    for column in reversed(COLUMNS):
        op.execute(f"ALTER TABLE prediction DROP COLUMN {column}")  # in place on SQLite too (3.35+): no rebuild
