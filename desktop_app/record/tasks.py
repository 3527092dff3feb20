"""The two core functions the three doors (CLI, API, window) call: record a task, replay one."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from desktop_app.store.project import Project


def record_task(project: Project, url_or_flow: str, goal: str, actions: Sequence[Callable] | None = None,
                headed: bool = False, browser_path: str = "", should_stop: Callable[[], bool] = lambda: False) -> int:
    """Record a task on a URL, a saved page or a flow site (flow:NAME) and store it as an episode; its id.
    `actions`: callables given the Playwright page (a script or a test driving it); without them a person
    acts in a headed window until Stop, closing the window, or should_stop()."""
    from desktop_app.record.episode import save_recording
    from desktop_app.record.recorder import record

    if not goal.strip():
        raise ValueError("the task needs a goal (--goal \"...\"): what the recorded steps do")
    recording = record(url_or_flow, goal.strip(), actions=actions, headed=headed, browser_path=browser_path,
                       should_stop=should_stop)
    return save_recording(project, recording)


def replay_task(project: Project, episode_id: int, start: str | None = None, browser_path: str = ""):
    """Replay a recorded episode; a ReplayReport (steps that no longer match, the evaluator's verdict)."""
    from desktop_app.record.replay import replay

    return replay(project, episode_id, start=start, browser_path=browser_path)
