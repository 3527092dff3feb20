"""A ScreenLab project: a database plus a media folder.

Either a folder holding `screenlab.sqlite` and `media/`, or a SQLAlchemy URL plus a
media root. There is no in-memory document: every edit is its own short
transaction, so nothing is ever "unsaved".
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError

from desktop_app.store import box_listeners, media_choice, migrate
from desktop_app.store.db import make_engine, public_url
from desktop_app.store.db_errors import is_connection_lost, is_locked  # noqa: F401  (callers import them here)
from desktop_app.store.media import LOCK_FILE, MediaStore

if TYPE_CHECKING:  # imported when used: opening a project for `screenlab info` needs neither (store/counts.py)
    from desktop_app.store.media_db import DatabaseMedia
    from desktop_app.store.orm import Session
    from desktop_app.store.server_roles import Identity

DB_FILE = "screenlab.sqlite"
MEDIA_DIR = "media"
NEEDS_MEDIA = ("a project on a database URL keeps its images in a folder the team shares: give it with --media DIR "
               "(or create the project with --media-in-database to keep them in the database)")


class ProjectError(RuntimeError):
    """The project cannot be created or opened; the message says what to do."""


class NotAllowed(PermissionError):
    """The server refused a write this login's team role may not make (a grant or a row-level security
    policy: ADR 0029), or the client saw it would; nothing of it was written."""


def refused_by_server(exc: BaseException) -> str | None:
    """The server's reason when `exc` is PostgreSQL refusing for lack of rights (SQLSTATE 42501: a missing
    grant, a row-level security check) or one of our rules' own refusals; else None."""
    orig = getattr(exc, "orig", None)
    state = getattr(orig, "sqlstate", None)
    if state != "42501" and not (state == "23503" and "add the person" in str(orig)):
        return None
    return str(orig).splitlines()[0] if str(orig) else "permission denied"


def is_url(location: str | Path) -> bool:
    return "://" in str(location)


def is_project_folder(path: Path) -> bool:
    return (Path(path) / DB_FILE).is_file()


class Project:
    def __init__(self, url: str, media_root: Path | None, folder: Path | None = None):
        self.url = public_url(url)  # never the password (store/db.py says where it comes from)
        self.folder = folder
        # the images: a folder, or the database (chosen at init; _choose_media sets it once the schema is known)
        self.media: MediaStore | DatabaseMedia | None = MediaStore(media_root) if media_root else None
        self.engine: Engine = make_engine(url)
        self._identity: Identity | None = None
        self.local_user: str | None = None  # a SQLite project's user when given (Project.open(user=))
        # what follows a committed change of boxes (store/box_listeners.py): added by whoever opened the
        # project (api.open_project adds the re-scoring), run by `run_after_edit` (the window: off its UI thread)
        self.after_edit: list[box_listeners.Listener] = []
        self.run_after_edit: Callable[[Callable[[], object]], object] = box_listeners.call_now
        # what had to follow a committed edit but met a lost server: done when it is back
        self.pending_after_edit: list = []

    def follow_edits(self, listener: box_listeners.Listener) -> None:
        """Call `listener(project, step_ids)` after every committed change of boxes (once per listener)."""
        if listener not in self.after_edit:
            self.after_edit.append(listener)

    def __repr__(self) -> str:
        return f"Project({self.folder or self.url!s})"

    @property
    def name(self) -> str:
        return self.folder.name if self.folder else self.url.rsplit("/", 1)[-1]

    # -- creating and opening -------------------------------------------------
    @classmethod
    def _located(cls, location: str | Path, media_root: str | Path | None) -> Project:
        if is_url(location):
            return cls(str(location), Path(media_root) if media_root else None)
        folder = Path(location).expanduser().resolve()
        return cls(f"sqlite:///{folder / DB_FILE}", Path(media_root or folder / MEDIA_DIR), folder)

    @classmethod
    def init(cls, location: str | Path, media_root: str | Path | None = None,
             media_in_database: bool = False) -> Project:
        """A new, empty project. `media_in_database`: keep the images in the database rather than a folder
        (a team on a server with no shared folder); `media_root` is then this machine's cache of them."""
        if is_url(location):
            if media_root is None and not media_in_database:
                raise ProjectError(NEEDS_MEDIA)
        else:
            folder = Path(location).expanduser().resolve()
            if is_project_folder(folder):
                raise ProjectError(f"{folder} already holds a ScreenLab project")
            if folder.exists() and not folder.is_dir():
                raise ProjectError(f"{folder} exists and is not a folder")
            folder.mkdir(parents=True, exist_ok=True)
        project = cls._located(location, media_root)
        try:
            migrate.upgrade(project.engine)
            if media_choice.has_choice(project.engine):
                raise ProjectError(f"{project.url} already holds a ScreenLab project; open it instead")
            media_choice.record_choice(project.engine, media_choice.IN_DATABASE if media_in_database
                                       else media_choice.IN_FOLDER)
            project._choose_media(media_root)
        except Exception:
            project.close()
            raise
        if not project.media.in_database:
            project.media.root.mkdir(parents=True, exist_ok=True)
            (project.media.root / LOCK_FILE).touch()  # imports lock it (MediaStore.locked)
        return project

    @classmethod
    def open(cls, location: str | Path, media_root: str | Path | None = None, user: str | None = None) -> Project:
        """`user`: who works on a SQLite project (the window's annotator name; default SCREENLAB_USER or the
        OS login). A server project's user is always the login it was opened with."""
        if not is_url(location):
            folder = Path(location).expanduser().resolve()
            if not is_project_folder(folder):
                raise ProjectError(
                    f"{folder} is not a ScreenLab project (no {DB_FILE}); create one with: screenlab init {folder}"
                )
        project = cls._located(location, media_root)
        project.local_user = (user or "").strip()[:64] or None
        try:
            migrate.upgrade(project.engine)
            project._choose_media(media_root)
        except Exception:
            project.close()
            raise
        return project

    def _choose_media(self, media_root: str | Path | None) -> None:
        """The store the project recorded at init. For images in the database, a media folder given is where
        this machine caches them (default: one under the user's data folder)."""
        if media_choice.stored_choice(self.engine) == media_choice.IN_DATABASE:
            from desktop_app.store.media_db import DatabaseMedia

            cache = Path(media_root) if media_root and is_url(self.url) else media_choice.cache_root(self.url)
            self.media = DatabaseMedia(self.engine, cache)
        elif self.media is None:
            raise ProjectError(NEEDS_MEDIA)

    def close(self) -> None:
        self.engine.dispose()

    def release_connections(self) -> None:
        """Closes the idle pooled connections (the next use opens one again). Before a fork: no connection of
        this process is then carried into the child, as SQLite and SQLAlchemy both ask (evaluation/work_split.py)."""
        self.engine.dispose()

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- who is working -----------------------------------------------------------
    @property
    def identity(self) -> Identity:
        """Who opened the project and their team role (store/server_roles.py): on a server the login the
        server authenticated, asked once per opening."""
        from desktop_app.store.server_roles import OWNER, Identity, identity

        if not self.on_server:  # asked each time: SCREENLAB_USER may change within a script
            from desktop_app.store.audit import current_actor

            return Identity(self.local_user or current_actor(), OWNER)
        if self._identity is None:
            self._identity = identity(self.engine)
        return self._identity

    @property
    def user(self) -> str:
        return self.identity.user

    @property
    def on_server(self) -> bool:
        return not self.url.startswith("sqlite")

    def actor(self, given: str | None = None) -> str:
        """Who an edit is recorded as. On a server it is the login (the server writes it whatever is sent),
        so naming anyone else is refused rather than silently replaced; on SQLite, `given` or the local
        user (SCREENLAB_USER, else the OS login)."""
        if not self.on_server:
            return given or self.user
        if given and given != self.user:
            raise ValueError(f"on a server project you act as your own login ({self.user}), not as '{given}'; "
                             "open the project with their login to act as them")
        return self.user

    # -- database access -------------------------------------------------------
    @contextmanager
    def transaction(self, wait_s: float | None = None) -> Iterator[Session]:
        """One unit of work: committed when the block ends, rolled back on error. `wait_s`: give up after
        this long waiting for another writer's lock (a statistic written from the window must not freeze
        it behind a long import), instead of the connection's usual patience."""
        from desktop_app.store.orm import Session

        with Session(self.engine, expire_on_commit=False) as session:
            sqlite = self.url.startswith("sqlite")
            if wait_s is not None:
                ms = max(int(wait_s * 1000), 1)
                session.execute(text(f"PRAGMA busy_timeout={ms}" if sqlite else f"SET LOCAL lock_timeout = {ms}"))
            try:
                yield session
                session.commit()
                changed = box_listeners.take(session)
            except BaseException as exc:
                session.rollback()
                reason = refused_by_server(exc)
                if reason is not None:
                    who = self.identity
                    raise NotAllowed(f"the server refused this for {who.user} ({who.role}): {reason}") from exc
                raise
            finally:
                if wait_s is not None and sqlite:  # the pooled connection keeps its usual patience
                    session.execute(text("PRAGMA busy_timeout=10000"))
        if self.pending_after_edit:  # this transaction reached the server: it is back
            box_listeners.retry_pending(self)
        if changed:  # after the session let its connection go: a listener may write (re-scoring)
            box_listeners.notify(self, changed)

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
        from desktop_app.store.orm import Session

        with Session(self.engine, expire_on_commit=False) as session:
            yield session

    def ping(self) -> None:
        """Raises when the database cannot be reached (a server that went away)."""
        with self.engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
        if self.pending_after_edit:
            box_listeners.retry_pending(self)

    def image_path(self, screen) -> Path:
        return self.media.path_for(screen.sha256, screen.ext)
