"""Opening and creating projects: the one way every door (the window, the command line, scripts through
`desktop_app.api.open_project`) opens a project, so each opening says what follows an edit on it (store/box_listeners.py):
the agents' stored answers are judged again against the changed boxes (evaluation/rescore.py, ADR 0024).

A script that opens here and then edits through `desktop_app.store.edits` directly gets the re-scoring too.
`desktop_app.store.project.Project.open` is the store's bare opening, without it: for the store's own tests
and for readers that never edit."""

from __future__ import annotations

from pathlib import Path

from desktop_app.store.project import Project

__all__ = ["init_project", "keep_verdicts_current", "open_project"]


def _judge_again(project: Project, step_ids: list[int]) -> int:
    """evaluation.rescore.rescore_after_edit, imported on the first edit rather than on opening: a command
    that only reads (`screenlab info`) starts without the scoring code and the ORM models behind it."""
    from desktop_app.evaluation.rescore import rescore_after_edit

    return rescore_after_edit(project, step_ids)


def keep_verdicts_current(project: Project) -> Project:
    """From now on, every committed change of boxes on `project` re-scores the answers on its steps."""
    project.follow_edits(_judge_again)
    return project


def open_project(location: str | Path, media: str | Path | None = None, user: str | None = None) -> Project:
    """A project folder, or a database URL with its media folder. Use it as a context manager to close it.
    `user`: who works on a folder project (default SCREENLAB_USER or the OS login); on a server it is
    always the login the URL or the environment names."""
    return keep_verdicts_current(Project.open(location, media, user=user))


def init_project(location: str | Path, media: str | Path | None = None, media_in_database: bool = False) -> Project:
    """A new project: a folder, or a database URL with the team's media folder, or with its images kept in the
    database (`media_in_database=True`; `media` is then where this machine caches them)."""
    return keep_verdicts_current(Project.init(location, media, media_in_database=media_in_database))
