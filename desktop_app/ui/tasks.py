"""Run a slow core function (import, export) off the UI thread, with progress."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, QThread, Signal


class _Worker(QObject):
    progress = Signal(str, int, int)
    finished = Signal(object)
    failed = Signal(object)

    def __init__(self, fn: Callable):
        super().__init__()
        self.fn = fn

    def run(self) -> None:
        try:
            result = self.fn(lambda stage, done, total: self.progress.emit(stage, done, total))
        except Exception as exc:  # reported to the UI thread, never raised into Qt's event loop
            self.failed.emit(exc)
        else:
            self.finished.emit(result)


class Task(QObject):
    """`fn(progress)` runs in its own thread; signals arrive on the UI thread."""

    progress = Signal(str, int, int)
    finished = Signal(object)
    failed = Signal(object)

    def __init__(self, fn: Callable, parent=None):
        super().__init__(parent)
        self._thread = QThread()
        self._worker = _Worker(fn)
        self._worker.moveToThread(self._thread)
        self._thread.started.connect(self._worker.run)
        # the thread ends as soon as the work does, even if the UI thread is blocked in wait()
        self._worker.finished.connect(self._thread.quit, Qt.DirectConnection)
        self._worker.failed.connect(self._thread.quit, Qt.DirectConnection)
        self._worker.progress.connect(self.progress)
        self._worker.finished.connect(self._done)
        self._worker.failed.connect(self._fail)

    def start(self) -> None:
        self._thread.start()

    def _stop(self) -> None:
        self._thread.quit()
        self._thread.wait()

    def _done(self, result) -> None:
        self._stop()
        self.finished.emit(result)

    def _fail(self, exc) -> None:
        self._stop()
        self.failed.emit(exc)

    def wait(self) -> None:
        self._thread.wait()
