"""Opening and creating projects in the Python API: the one way every door (the window, the command line,
scripts) opens a project, so each opening says what follows an edit on it (store/box_listeners.py):
the agents' stored answers are judged again against the changed boxes (evaluation/rescore.py, ADR 0024).

A script that opens here and then edits through `desktop_app.store.edits` directly gets the re-scoring too.
`desktop_app.store.project.Project.open` is the store's bare opening, without it: for the store's own tests
and for readers that never edit.

Also what choosing a project needs before one is open (is this a project folder, a database URL, a server's
URL with its password) and where to start once it is (`last_edited`): the window asks these here, never the
store (tests/layers.py, rule 6).
"""

from __future__ import annotations

from pathlib import Path

from desktop_app.evaluation.rescore import keep_verdicts_current
from desktop_app.store import queries as _queries
from desktop_app.store.db import SERVER_URL_EXAMPLE, server_url, store_password
from desktop_app.store.project import Project, ProjectError, is_connection_lost, is_project_folder, is_url

__all__ = ["SERVER_URL_EXAMPLE", "Project", "ProjectError", "init_project", "is_connection_lost",
           "is_project_folder", "is_url", "last_edited", "open_project", "server_url", "store_password"]


def open_project(location: str | Path, media: str | Path | None = None, user: str | None = None) -> Project:
    """A project folder, or a database URL with its media folder. Use it as a context manager to close it.
    `user`: who works on a folder project (default SCREENLAB_USER or the OS login); on a server it is
    always the login the URL or the environment names."""
    return keep_verdicts_current(Project.open(location, media, user=user))


def init_project(location: str | Path, media: str | Path | None = None, media_in_database: bool = False) -> Project:
    """A new project: a folder, or a database URL with the team's media folder, or with its images kept in the
    database (`media_in_database=True`; `media` is then where this machine caches them)."""
    return keep_verdicts_current(Project.init(location, media, media_in_database=media_in_database))


def last_edited(project: Project, actor: str) -> int | None:
    """The episode `actor` changed last (None when they changed none): where the window reopens a project."""
    with project.reading() as s:
        return _queries.last_edited_by(s, actor)
