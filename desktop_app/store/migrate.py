"""Create and upgrade project databases with Alembic."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Engine

_MIGRATIONS = Path(__file__).resolve().parent / "migrations"


class SchemaTooNew(RuntimeError):
    pass


def _config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(_MIGRATIONS))
    return cfg


def head_revision() -> str:
    return ScriptDirectory.from_config(_config()).get_current_head()


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(engine: Engine) -> bool:
    """Bring the schema to head. Returns True when anything ran."""
    cfg = _config()
    script = ScriptDirectory.from_config(cfg)
    current = current_revision(engine)
    head = script.get_current_head()
    if current == head:
        return False
    if current is not None and current not in {rev.revision for rev in script.walk_revisions()}:
        raise SchemaTooNew(
            f"this project's schema ({current}) is newer than this ScreenLab knows ({head}); "
            "update ScreenLab to open it"
        )
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
    return True
