"""The one way the window runs work off the UI thread: a Task.

    task = Task(lambda progress: import_path(project, path, fmt, on_progress=progress), parent_widget,
                wait=None)       # the words the user waits on ("Counting samples"), or None (ui/waits.py)
    task.progress.connect(...)   # (stage, done, total)
    task.finished.connect(...)   # the result
    task.failed.connect(...)     # the exception
    task.start()

    run_in_background(owner, fn, on_done, on_error, wait="Counting")   # a short call (a count, a test request): the
                                                      # callbacks are skipped once `owner` is gone

`fn(progress)` runs on a thread of its own; the signals arrive on the UI thread. The thread is a daemon
Python thread, not a QThread: a QThread still running when its owner or the application goes away aborts
the process ("Destroyed while thread is still running"), and some work cannot be stopped on time (a test
request waiting for its timeout, an OCR engine inside one image, a run writing what it has). A daemon
thread is simply dropped when the program exits. The worker never touches the Task: it reports through
one relay object that lives on the UI thread for the whole process, and a Task is kept alive here until
its last report arrives, so a widget closed while its work runs frees nothing the worker still uses, and
its callbacks are just not called.

Runs (eval/run_controller.py) are Tasks as well; they report by being polled rather than per answer.

Two exceptions, each for a reason a Task cannot meet:
- render_service.py: Playwright's sync API is tied to the thread that started the browser, so the GUI keeps
  one long-lived browser thread (an executor of one worker) that owns it, warm between re-renders; each
  render it is asked for reports back on the UI thread the same way.
- thumbnail_grid.py: thousands of small decodes (a thumbnail each) queued and dropped as the grid scrolls,
  on Qt's global thread pool; a thread per decode would cost more than the decode (benchmarks/thumbnail_grid.py).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import threading
from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QObject, Signal

from desktop_app.ui.waits import waits

log = logging.getLogger(__name__)

_tokens = itertools.count(1)
_running: dict[int, Task] = {}  # token -> the task, until its last report (its owner may go first)
_calls: dict[int, threading.Thread] = {}  # run_in_background's calls still running (wait_all)
_waiting: dict[int, int] = {}  # token -> its wait (ui/waits.py), until its last report


class _Relay(QObject):
    """Carries the workers' reports to the UI thread; made by the first Task, never deleted."""

    report = Signal(int, str, object)  # token, "progress" / "finished" / "failed", payload


_relay: _Relay | None = None


def _the_relay() -> _Relay:
    global _relay
    if _relay is None:
        _relay = _Relay()
        _relay.report.connect(_deliver)
    return _relay


def _deliver(token: int, what: str, payload: object) -> None:
    if what != "progress" and token in _waiting:  # ended, whether or not anyone still listens
        waits().end(_waiting.pop(token))
    task = _running.get(token) if what == "progress" else _running.pop(token, None)
    if task is None or not shiboken6.isValid(task):  # its owner was deleted: nobody is waiting for it
        return
    if what == "progress":
        task.progress.emit(*payload)
    elif what == "finished":
        task.finished.emit(payload)
    else:
        task.failed.emit(payload)


class Task(QObject):
    """`fn(progress)` runs on its own thread; progress, finished and failed arrive on the UI thread.
    Start it from the UI thread. `wait`: the words shown once the user has waited on it for half a second
    ("Counting samples"), or None for work nobody waits on or that shows its own progress (ui/waits.py)."""

    progress = Signal(str, int, int)
    finished = Signal(object)
    failed = Signal(object)

    def __init__(self, fn: Callable, parent=None, name: str = "task", *, wait: str | None):
        super().__init__(parent)
        self._fn = fn
        self._wait = wait
        self._name = name
        self._token = next(_tokens)
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        relay, token, fn = _the_relay(), self._token, self._fn  # the worker holds no reference to self

        def report(what: str, payload: object) -> None:
            # RuntimeError: the relay went with the application; the program is ending and nobody listens
            with contextlib.suppress(RuntimeError):
                relay.report.emit(token, what, payload)

        def work() -> None:
            try:
                result = fn(lambda stage, done, total: report("progress", (stage, done, total)))
            except Exception as exc:  # reported to the UI thread, never raised into Qt's event loop
                report("failed", exc)
            else:
                report("finished", result)

        _running[token] = self
        if self._wait is not None:
            _waiting[token] = waits().begin(self._wait)
        self._thread = threading.Thread(target=work, name=f"{self._name}-{token}", daemon=True)
        self._thread.start()

    def is_running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the work is done (its signals still arrive through the event loop); False when
        `timeout` seconds passed first."""
        if self._thread is not None:
            self._thread.join(timeout)
        return not self.is_running()


def run_in_background(owner: QObject, fn: Callable[[], object], on_done: Callable[[object], None],
                      on_error: Callable[[Exception], None], *, wait: str | None) -> Task:
    """A short blocking call (an HTTP test request, a count query) off the UI thread; `on_done(result)` or
    `on_error(exc)` on the UI thread, unless `owner` was deleted meanwhile. `wait` as for Task."""
    task = Task(lambda _progress: fn(), name="call", wait=wait)

    def finished(result) -> None:
        _calls.pop(task._token, None)
        if shiboken6.isValid(owner):
            on_done(result)

    def failed(exc) -> None:
        _calls.pop(task._token, None)
        if shiboken6.isValid(owner):
            on_error(exc)

    task.finished.connect(finished)
    task.failed.connect(failed)
    task.start()
    _calls[task._token] = task._thread
    return task


def wait_all() -> None:
    """Let every run_in_background call end (tests, closing a project)."""
    for thread in list(_calls.values()):
        thread.join()


def after_edit_runner(owner: QObject, on_done: Callable[[], None]) -> Callable[[Callable[[], object]], None]:
    """What a project opened in the window runs after each committed change of boxes (re-scoring the
    agents' answers: store/box_listeners.py), run here instead of inside the undo command's redo(): on a
    background call, then `on_done()` on the UI thread so the views show the new verdicts. Work that follows
    an edit made on a worker thread (an import, a Task) simply runs there: it is off the UI thread already."""
    def run(work: Callable[[], object]) -> None:
        if threading.current_thread() is not threading.main_thread():
            work()
            return
        run_in_background(owner, work, lambda _result: on_done(),
                          lambda exc: log.error("after an edit: %s", exc, exc_info=exc), wait="Updating verdicts")

    return run
