"""Run a short blocking call (an HTTP test request, a count query) off the UI thread.

The Task is kept alive here, not by the widget that asked: a dialog closed while its request is
in flight must not destroy a running QThread (Qt aborts the process when that happens). The
callbacks are skipped once the widget that asked is gone.
"""

from __future__ import annotations

from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QObject

from desktop_app.ui.tasks import Task

_alive: set[Task] = set()


def run_in_background(owner: QObject, fn: Callable[[], object], on_done: Callable[[object], None],
                      on_error: Callable[[Exception], None]) -> Task:
    task = Task(lambda _progress: fn())

    def finished(result) -> None:
        _alive.discard(task)
        if shiboken6.isValid(owner):
            on_done(result)

    def failed(exc) -> None:
        _alive.discard(task)
        if shiboken6.isValid(owner):
            on_error(exc)

    task.finished.connect(finished)
    task.failed.connect(failed)
    _alive.add(task)
    task.start()
    return task


def wait_all() -> None:
    """Let every background call end (tests, application exit)."""
    for task in list(_alive):
        task.wait()
