"""Where a project's images live, chosen once when it is created and recorded in the project itself, so
everyone who opens it gets the same answer: a media folder (the default; a shared folder for a team), or
the database (a team with a server and no shared folder)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from sqlalchemy import column, select, table
from sqlalchemy.engine import Engine

from desktop_app.paths import user_data_dir

MEDIA = "media"
IN_FOLDER = "folder"
IN_DATABASE = "database"

# read as a plain SQL table: opening a project needs no ORM model (store/counts.py says why)
_SETTING = table("project_setting", column("key"), column("value"))


def stored_choice(engine: Engine) -> str:
    """Projects made before the choice existed have their images in a folder."""
    return _recorded(engine) or IN_FOLDER


def has_choice(engine: Engine) -> bool:
    """init records one; a project created before the choice existed has none (its images are in a folder)."""
    return _recorded(engine) is not None


def _recorded(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return conn.execute(select(_SETTING.c.value).where(_SETTING.c.key == MEDIA)).scalar()


def record_choice(engine: Engine, choice: str) -> None:
    from desktop_app.store.models import ProjectSetting

    with engine.begin() as conn:
        conn.execute(ProjectSetting.__table__.insert().values(key=MEDIA, value=choice))


def cache_root(public_url: str) -> Path:
    """This machine's cache of a database-media project's images: one folder per project URL (no password)."""
    return user_data_dir() / "media-cache" / hashlib.sha256(public_url.encode()).hexdigest()[:16]
