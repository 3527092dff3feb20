"""What waits for the first screen to be painted: the launch's own work that must not delay it.

The canvas's first paint with a screen's picture in the scene is the moment a user sees the project (the
start-up probe, ui/startup_probe.py, times launches to it). The callback runs on the event loop's next turn,
after that paint has reached the screen; or after `at_most_ms` if there is no such paint by then (a project
with no screens, a window that was never shown), so that what waits is never left waiting.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer


class FirstPaint(QObject):
    def __init__(self, window, callback: Callable[[], None], at_most_ms: int | None = None):
        super().__init__(window)
        self.window, self.callback = window, callback
        self.painted = self.done = False
        window.view.viewport().installEventFilter(self)
        if at_most_ms is not None:
            QTimer.singleShot(at_most_ms, self, self._run)

    def eventFilter(self, watched, event):  # noqa: N802 (Qt's name)
        if (not self.painted and event.type() == QEvent.Type.Paint
                and getattr(self.window.scene, "background", None) is not None):
            self.painted = True
            QTimer.singleShot(0, self, self._run)  # after this paint has reached the screen
        return False

    def _run(self) -> None:
        if self.done:
            return
        self.done = True
        self.window.view.viewport().removeEventFilter(self)
        self.callback()
        self.deleteLater()  # one a folder opened: none is kept


def after_first_paint(window, callback: Callable[[], None], at_most_ms: int | None = None) -> FirstPaint:
    return FirstPaint(window, callback, at_most_ms)
