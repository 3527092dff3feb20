"""the envdistraction rules' flags of an answer scored in Python (a text answer's token F1), stored once an
evaluation has scored it, so that the next evaluation counts it with the database (ADR 0066,
evaluation/flag_cache.py). NULL: never stored. On SQLite, triggers mark the answers whose inputs change (its
step's boxes, its episode's scenario or EnvDistraction target, its screen's size, its run's output convention,
the answer and its parse), whichever process or program makes the change: stored flags become -1, and a mark
goes one lower at each change, so that an evaluation can tell that an answer changed after it read it. Servers
keep scoring every answer at each evaluation: the column is added there for one schema, and never written.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

revision = '0016'
down_revision = '0015'
branch_labels = None
depends_on = None

# stored flags (>= 0) or none (NULL) -> -1; a mark -k -> -k - 1
_MARK = "UPDATE prediction SET cached_flags = CASE WHEN cached_flags < 0 THEN cached_flags - 1 ELSE -1 END WHERE "
# what the envdistraction rules read of an answer (evaluation/columns.scoring_columns)
_ANSWER = "run_id, step_id, raw_text, parsed, verdict, x, y, wrong_format, answer_x, answer_y, answer_tokens, answer_flags"
TRIGGERS = {
    "flags_box_insert": f"AFTER INSERT ON action_box BEGIN {_MARK} step_id = NEW.step_id; END",
    "flags_box_delete": f"AFTER DELETE ON action_box BEGIN {_MARK} step_id = OLD.step_id; END",
    "flags_box_update": f"AFTER UPDATE ON action_box BEGIN {_MARK} step_id IN (OLD.step_id, NEW.step_id); END",
    "flags_answer_update": f"AFTER UPDATE OF {_ANSWER} ON prediction BEGIN {_MARK} id = NEW.id; END",
    "flags_step_update": f"AFTER UPDATE OF screen_id, episode_id ON step BEGIN {_MARK} step_id = NEW.id; END",
    "flags_episode_update": (f"AFTER UPDATE OF scenario, meta ON episode BEGIN {_MARK} "
                             "step_id IN (SELECT id FROM step WHERE episode_id = NEW.id); END"),
    "flags_screen_update": (f"AFTER UPDATE OF width, height ON screen BEGIN {_MARK} "
                            "step_id IN (SELECT id FROM step WHERE screen_id = NEW.id); END"),
    "flags_run_update": f"AFTER UPDATE OF convention ON run BEGIN {_MARK} run_id = NEW.id; END",
}


def upgrade() -> None:
    # ADD COLUMN in place (no batch rebuild: 0014 and 0015 say why); nullable, no default: NULL is "never stored"
    op.add_column('prediction', sa.Column('cached_flags', sa.Integer(), nullable=True))
    if op.get_bind().dialect.name == "sqlite":
        for name, body in TRIGGERS.items():
            op.execute(f"CREATE TRIGGER {name} {body}")


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for name in TRIGGERS:
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
    op.execute("ALTER TABLE prediction DROP COLUMN cached_flags")  # in place on SQLite too (3.35+)
