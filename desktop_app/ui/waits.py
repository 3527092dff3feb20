"""What the user is waiting on, shown once a wait passes half a second (issue 33: "the window shows progress
for every wait over 0.5 s", on a busy laptop as on an idle one).

Background work (ui/tasks.py) says, when it starts, whether the user waits on it and in which words
("Counting samples"): `wait=` is a required argument of every Task, so no new call can forget it. Work that
has its own progress display (a run, a folder import, OCR, a report) or that nobody waits on (decoding the
next screen ahead, a ping) passes `wait=None`. Once a wait is older than WAIT_SHOWN_MS, every window shows
Qt's busy cursor (the arrow with an hourglass: still clickable) and the main window's status bar a busy bar
with the words; both go when the last wait ends.

The few waits on the UI thread itself (opening a project; the launch, which has its splash in ui/app.py)
use `blocking(...)`: the busy cursor and the words are painted before the call, since nothing can paint
during it.
"""

from __future__ import annotations

import contextlib
import itertools
import time

from PySide6.QtCore import QEventLoop, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QApplication

WAIT_SHOWN_MS = 500


class Waits(QObject):
    """The waits in progress (one object for the process, on the UI thread)."""

    changed = Signal(list)  # the words of every wait shown now, oldest first; [] when none

    def __init__(self):
        super().__init__()
        self._tokens = itertools.count(1)
        self._started: dict[int, tuple[str, float]] = {}  # token -> (words, monotonic start)
        self._shown: list[int] = []
        self._cursor = False

    def begin(self, words: str) -> int:
        token = next(self._tokens)
        self._started[token] = (words, time.monotonic())
        QTimer.singleShot(WAIT_SHOWN_MS, self, lambda: self._show(token))
        return token

    def end(self, token: int) -> None:
        self._started.pop(token, None)
        if token in self._shown:
            self._shown.remove(token)
            self._publish()

    def in_progress(self) -> int:
        """The waits begun and not ended, shown or not yet."""
        return len(self._started)

    def shown(self) -> list[str]:
        return [self._started[t][0] for t in self._shown]

    def _show(self, token: int) -> None:
        if token in self._started and token not in self._shown:
            self._shown.append(token)
            self._publish()

    def _publish(self) -> None:
        busy = bool(self._shown)
        if busy != self._cursor and QApplication.instance() is not None:
            if busy:
                QApplication.setOverrideCursor(Qt.CursorShape.BusyCursor)
            else:
                QApplication.restoreOverrideCursor()
            self._cursor = busy
        self.changed.emit(self.shown())


_waits: Waits | None = None


def waits() -> Waits:
    global _waits
    if _waits is None:
        _waits = Waits()
    return _waits


@contextlib.contextmanager
def blocking(words: str, say=None):
    """A wait on the UI thread: the busy cursor, and `say(words)` (a status bar's message), painted before
    the call blocks; both undone after it."""
    app = QApplication.instance()
    QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
    if say is not None:
        say(words)
    if app is not None:  # paint the cursor and the words now; the user's clicks wait for the call
        app.processEvents(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents)
    try:
        yield
    finally:
        QApplication.restoreOverrideCursor()
