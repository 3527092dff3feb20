"""Create and upgrade project databases with Alembic.

Opening a project whose schema is already at head (nearly every time) is decided without Alembic: the
stored revision read with one SELECT against the head read from the migration files as text. Importing
Alembic and loading every migration takes longer than the rest of `screenlab info` on 100,000 screens.
Anything else (a new database, an older or newer schema, a migration file written another way) goes
through Alembic as before.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import inspect, text
from sqlalchemy.engine import Engine

if TYPE_CHECKING:
    from alembic.config import Config

_MIGRATIONS = Path(__file__).resolve().parent / "migrations"
_VERSION_TABLE = "alembic_version"  # Alembic's default; env.py keeps it
# `revision = '0011'`, `down_revision = '0010'` (or None), as script.py.mako writes them
_ASSIGNED = re.compile(r"^(revision|down_revision)\s*(?::[^=\n]*)?=\s*(.*?)\s*$", re.MULTILINE)
_QUOTED = re.compile(r"""^(['"])([^'"]+)\1$""")


class SchemaTooNew(RuntimeError):
    pass


class SchemaNeedsOwner(RuntimeError):
    """A server project's schema is older than this ScreenLab, and the login opening it is not its owner:
    only the owner may change tables, grants and policies (ADR 0029)."""


def _may_migrate(engine: Engine) -> bool:
    """On PostgreSQL: a superuser, the owner of the project's tables, or anyone on an empty database."""
    if engine.dialect.name != "postgresql":
        return True
    with engine.connect() as conn:
        return bool(conn.execute(text(
            "SELECT r.rolsuper OR coalesce(pg_has_role(current_user, c.relowner, 'MEMBER'), true) FROM pg_roles r "
            "LEFT JOIN pg_class c ON c.oid = to_regclass('public.episode') WHERE r.rolname = current_user")).scalar())


def _config() -> Config:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(_MIGRATIONS))
    return cfg


def head_revision() -> str:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(_config()).get_current_head()


def current_revision(engine: Engine) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def head_on_disk() -> str | None:
    """The head revision as the migration files write it; None unless every file names one revision and one
    parent (a string or None) in that plain way and they form one line (Alembic then decides)."""
    versions = _MIGRATIONS / "versions"
    paths = sorted(path for path in versions.glob("*.py") if path.name != "__init__.py")
    return _head_of(versions, tuple((path.name, stat.st_size, stat.st_mtime_ns)
                                    for path in paths for stat in [path.stat()]))


# kept for the files as they were (name, size, modification time), which head_on_disk reads again at every call:
# reading and matching the 15 files was a third of opening a project (1.3 of 4.1 ms)
@lru_cache(maxsize=1)
def _head_of(versions: Path, files: tuple[tuple[str, int, int], ...]) -> str | None:
    revisions, parents = set(), set()
    for name, _, _ in files:
        path = versions / name
        assigned = _ASSIGNED.findall(path.read_text(encoding="utf-8"))
        names = [name for name, _ in assigned]
        if sorted(names) != ["down_revision", "revision"]:
            return None
        values = dict(assigned)
        revision = _QUOTED.match(values["revision"])
        parent = _QUOTED.match(values["down_revision"])
        if revision is None or (parent is None and values["down_revision"] != "None"):
            return None
        revisions.add(revision.group(2))
        if parent is not None:
            parents.add(parent.group(2))
    heads = revisions - parents
    return heads.pop() if len(heads) == 1 and parents <= revisions else None


def _stored_revision(engine: Engine) -> str | None:
    """The one revision in the version table; None without the table or unless it holds exactly one."""
    with engine.connect() as conn:
        if not inspect(conn).has_table(_VERSION_TABLE):
            return None
        rows = conn.execute(text(f"SELECT version_num FROM {_VERSION_TABLE}")).all()
    return rows[0][0] if len(rows) == 1 else None


def upgrade(engine: Engine) -> bool:
    """Bring the schema to head. Returns True when anything ran."""
    on_disk = head_on_disk()
    if on_disk is not None and _stored_revision(engine) == on_disk:
        return False
    if on_disk is not None and _copy_empty_at_head(engine, on_disk):
        return True
    from alembic import command
    from alembic.script import ScriptDirectory

    cfg = _config()
    script = ScriptDirectory.from_config(cfg)
    current = current_revision(engine)
    head = script.get_current_head()
    if current == head:
        return False
    empty = current is None and _is_empty_sqlite(engine)
    if current is not None and current not in {rev.revision for rev in script.walk_revisions()}:
        raise SchemaTooNew(
            f"this project's schema ({current}) is newer than this ScreenLab knows ({head}); "
            "update ScreenLab to open it"
        )
    if not _may_migrate(engine):
        raise SchemaNeedsOwner(
            f"this project's schema ({current}) is older than this ScreenLab's ({head}); only its owner can "
            "upgrade it: they run `screenlab migrate <project URL>` with their own login, then you open it again")
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
    if empty and head == on_disk:
        _keep_empty_at_head(engine, head)
    return True


# A new SQLite project's database as Alembic made it, empty at head, kept by this process (ADR 0063): the next new
# project of the process gets a copy of its pages (about 4 ms) instead of every migration run again (about 250 ms,
# most of them batch table rebuilds; the suite made 4,000 projects). The copy is taken from what Alembic wrote in
# this process, from these migration files, so it cannot go stale as a file shipped beside them could.
_EMPTY_AT_HEAD: dict[str, bytes] = {}


def _is_empty_sqlite(engine: Engine) -> bool:
    """A SQLite database with nothing in it (no table, index, view or trigger)."""
    if engine.dialect.name != "sqlite":
        return False
    with engine.connect() as conn:
        return conn.execute(text("SELECT count(*) FROM sqlite_schema")).scalar() == 0


def _keep_empty_at_head(engine: Engine, head: str) -> None:
    raw = engine.raw_connection()
    try:
        serialize = getattr(raw.driver_connection, "serialize", None)  # a SQLite built without it: nothing kept
        if serialize is None:
            return
        pages = bytearray(serialize())
    finally:
        raw.close()
    pages[18] = pages[19] = 1  # the header's journal mode: rollback, as a database in memory cannot be in WAL mode
    _EMPTY_AT_HEAD[head] = bytes(pages)


def _copy_empty_at_head(engine: Engine, head: str) -> bool:
    """Fill an empty SQLite database with the kept one at `head`; False (nothing done) unless there is one and the
    database is empty. The destination keeps its own journal mode (WAL, store/db.py)."""
    import sqlite3

    pages = _EMPTY_AT_HEAD.get(head)
    if pages is None or not _is_empty_sqlite(engine):
        return False
    raw = engine.raw_connection()
    try:
        source = sqlite3.connect(":memory:")
        try:
            source.deserialize(pages)
            source.backup(raw.driver_connection)
        finally:
            source.close()
    finally:
        raw.close()
    return True
