"""Opening and creating projects in the Python API: `open_project` / `init_project` are desktop_app/opening.py's,
the one way every door (the window, the command line, scripts) opens a project, so each opening says what
follows an edit on it: the agents' stored answers are judged again against the changed boxes (ADR 0024).

Also what choosing a project needs before one is open (is this a project folder, a database URL, a server's
URL with its password) and where to start once it is (`last_edited`): the window asks these here, never the
store (tests/layers.py, rule 6).
"""

from __future__ import annotations

from desktop_app.opening import init_project, keep_verdicts_current, open_project
from desktop_app.store import queries as _queries
from desktop_app.store.db import SERVER_URL_EXAMPLE, server_url, store_password
from desktop_app.store.project import Project, ProjectError, is_connection_lost, is_project_folder, is_url

__all__ = ["SERVER_URL_EXAMPLE", "Project", "ProjectError", "init_project", "is_connection_lost",
           "is_project_folder", "is_url", "keep_verdicts_current", "last_edited", "open_project", "server_url",
           "store_password"]


def last_edited(project: Project, actor: str) -> int | None:
    """The episode `actor` changed last (None when they changed none): where the window reopens a project."""
    with project.reading() as s:
        return _queries.last_edited_by(s, actor)
