"""A ScreenLab project: a database plus a media folder.

Either a folder holding `screenlab.sqlite` and `media/`, or a SQLAlchemy URL plus a
media root. There is no in-memory document: every edit is its own short
transaction, so nothing is ever "unsaved".
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError
from sqlmodel import Session

from desktop_app.store import migrate
from desktop_app.store.db import make_engine, public_url
from desktop_app.store.media import LOCK_FILE, MediaStore

DB_FILE = "screenlab.sqlite"
MEDIA_DIR = "media"


class ProjectError(RuntimeError):
    """The project cannot be created or opened; the message says what to do."""


def is_url(location: str | Path) -> bool:
    return "://" in str(location)


def is_project_folder(path: Path) -> bool:
    return (Path(path) / DB_FILE).is_file()


class Project:
    def __init__(self, url: str, media_root: Path, folder: Path | None = None):
        self.url = public_url(url)  # never the password (store/db.py says where it comes from)
        self.folder = folder
        self.media = MediaStore(media_root)
        self.engine: Engine = make_engine(url)

    def __repr__(self) -> str:
        return f"Project({self.folder or self.url!s})"

    @property
    def name(self) -> str:
        return self.folder.name if self.folder else self.url.rsplit("/", 1)[-1]

    # -- creating and opening -------------------------------------------------
    @classmethod
    def _at_url(cls, url: str | Path, media_root: str | Path | None) -> Project:
        if media_root is None:
            raise ProjectError("a database URL needs a media folder (--media DIR)")
        return cls(str(url), Path(media_root))

    @classmethod
    def init(cls, location: str | Path, media_root: str | Path | None = None) -> Project:
        if is_url(location):
            project = cls._at_url(location, media_root)
        else:
            folder = Path(location).expanduser().resolve()
            if is_project_folder(folder):
                raise ProjectError(f"{folder} already holds a ScreenLab project")
            if folder.exists() and not folder.is_dir():
                raise ProjectError(f"{folder} exists and is not a folder")
            folder.mkdir(parents=True, exist_ok=True)
            project = cls(f"sqlite:///{folder / DB_FILE}", folder / MEDIA_DIR, folder)
        project.media.root.mkdir(parents=True, exist_ok=True)
        (project.media.root / LOCK_FILE).touch()  # imports lock it (MediaStore.locked)
        migrate.upgrade(project.engine)
        return project

    @classmethod
    def open(cls, location: str | Path, media_root: str | Path | None = None) -> Project:
        if is_url(location):
            project = cls._at_url(location, media_root)
        else:
            folder = Path(location).expanduser().resolve()
            if not is_project_folder(folder):
                raise ProjectError(
                    f"{folder} is not a ScreenLab project (no {DB_FILE}); create one with: screenlab init {folder}"
                )
            project = cls(f"sqlite:///{folder / DB_FILE}", Path(media_root or folder / MEDIA_DIR), folder)
        try:
            migrate.upgrade(project.engine)
        except Exception:
            project.close()
            raise
        return project

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- database access -------------------------------------------------------
    @contextmanager
    def transaction(self, wait_s: float | None = None) -> Iterator[Session]:
        """One unit of work: committed when the block ends, rolled back on error. `wait_s`: give up after
        this long waiting for another writer's lock (a statistic written from the window must not freeze
        it behind a long import), instead of the connection's usual patience."""
        with Session(self.engine, expire_on_commit=False) as session:
            sqlite = self.url.startswith("sqlite")
            if wait_s is not None:
                ms = max(int(wait_s * 1000), 1)
                session.execute(text(f"PRAGMA busy_timeout={ms}" if sqlite else f"SET LOCAL lock_timeout = {ms}"))
            try:
                yield session
                session.commit()
            except BaseException:
                session.rollback()
                raise
            finally:
                if wait_s is not None and sqlite:  # the pooled connection keeps its usual patience
                    session.execute(text("PRAGMA busy_timeout=10000"))

    def retrying(self, fn, *args, patience_s: float = 900.0):
        """fn(self, *args), a short write, tried again while another process holds the database's write lock
        (a large import commits in one transaction and can hold it for minutes): a run waits instead of
        failing with "database is locked". Raises the lock error after `patience_s` seconds."""
        deadline = time.monotonic() + patience_s
        pause = 0.2
        while True:
            try:
                return fn(self, *args)
            except OperationalError as exc:
                if not is_locked(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(pause)
                pause = min(pause * 2, 5.0)

    @contextmanager
    def reading(self) -> Iterator[Session]:
        with Session(self.engine, expire_on_commit=False) as session:
            yield session

    def ping(self) -> None:
        """Raises when the database cannot be reached (a server that went away)."""
        with self.engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")

    def image_path(self, screen) -> Path:
        return self.media.path_for(screen.sha256, screen.ext)


def is_locked(exc: Exception) -> bool:
    """The database is busy with another process's write (SQLite) or a lock wait ran out (PostgreSQL)."""
    text = str(exc).lower()
    return "database is locked" in text or "database table is locked" in text or "lock timeout" in text


def is_connection_lost(exc: BaseException) -> bool:
    """The server could not be reached or dropped the connection (not a refused or conflicting write)."""
    from sqlalchemy.exc import DBAPIError

    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    text = str(exc).lower()
    return isinstance(exc, OperationalError) and any(
        s in text for s in ("connection refused", "server closed the connection", "could not connect",
                            "connection failed", "terminating connection", "connection timeout", "timeout expired"))
