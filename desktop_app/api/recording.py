"""Recording tasks in a real browser and replaying them (issue 37), for scripts and notebooks.

    eid = api.record(project, "flow:account", "Sign in and save a profile",
                     actions=[lambda p: p.fill("#email", "a@b.c"), lambda p: p.click("#signin")])
    report = api.replay(project, eid)           # report.changed: the steps that no longer match
    print("\\n".join(report.lines()))

Without `actions`, api.record(..., headed=True) opens a window for a person to act in, until Stop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from desktop_app.record.tasks import record_task, replay_task
from desktop_app.store.project import Project

__all__ = ["record", "replay", "flow_sites", "can_record_headed", "recorded_tasks"]


def record(project: Project, url_or_flow: str, goal: str, actions: Sequence[Callable] | None = None,
           headed: bool = False, browser_path: str = "", should_stop: Callable[[], bool] = lambda: False) -> int:
    """Record a task on a URL, a saved page or a flow site (flow:NAME); the new episode's id. Headed, the
    recording ends on the page bar's Stop, the window closing, or should_stop() turning true."""
    return record_task(project, url_or_flow, goal, actions=actions, headed=headed, browser_path=browser_path,
                       should_stop=should_stop)


def replay(project: Project, episode_id: int, start: str | None = None, browser_path: str = ""):
    """Replay a recorded episode (on its own start, or `start`: another copy of the site); a ReplayReport."""
    return replay_task(project, episode_id, start=start, browser_path=browser_path)


def flow_sites() -> list[str]:
    """The flow sites a recording can start on, as flow:NAME takes them."""
    from desktop_app.record.site import flow_sites as names

    return names()


def can_record_headed() -> bool:
    """Whether a browser window can open here for a person to record in (a display on Linux)."""
    from desktop_app.record.browser import has_display

    return has_display()


def recorded_tasks(project: Project, where=None) -> int:
    """How many recorded tasks a selection holds (what a live run can do; the New run dialog offers it then)."""
    from desktop_app.api.selection import filter_of
    from desktop_app.runs.protocols.live import recorded_tasks as count

    return count(project, filter_of(where))
