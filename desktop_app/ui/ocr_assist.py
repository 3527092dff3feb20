"""OCR for the window: cached words show at once, missing ones are computed off the UI
thread by the OCR process (ocr/process.py), and snapping/auto-text use whatever is known for the
current screen (`reading()`)."""

from __future__ import annotations

import functools
import threading
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QTimer, Signal

from desktop_app.ocr.base import OcrOutcome, OcrUnavailable
from desktop_app.ocr.cache import cached_outcome, load_rgb, ocr_screen
from desktop_app.ocr.process import shared_ocr_process
from desktop_app.ocr.screen_reading import ScreenReading
from desktop_app.ocr.suggested_box import offered
from desktop_app.priority import background_priority
from desktop_app.settings import Settings
from desktop_app.ui.canvas.suggestions import Suggestion
from desktop_app.ui.tasks import Task

if TYPE_CHECKING:  # numpy is imported by the functions that use it: a launch paints its first screen without it
    import numpy as np  # (50 ms; ADR 0071)

SETTLE_MS = 250  # how long a screen is shown before its OCR starts


def _read_in_background(project, screen, engine, language, refresh, options, cancelled):
    """On a worker thread, which reads the cache and stores the result; the reading itself happens in the
    OCR process (ocr/process.py), so the engines' memory never joins the window's."""
    background_priority()
    analyse = functools.partial(shared_ocr_process().analyse, cancelled=cancelled)
    return ocr_screen(project, screen, engine, language, refresh, analyse=analyse, **options)


class OcrAssistant(QObject):
    suggestionsReady = Signal(list)  # [Suggestion] for the current screen
    status = Signal(str)  # "OCR: rapidocr, 212 words (cached)" or why it could not run
    busy = Signal(bool)
    screenRead = Signal()  # the current screen's words are known now (from the cache or just read): reading()

    def __init__(self, settings: Settings, parent=None):
        super().__init__(parent)
        self.settings = settings
        self.project = None
        self.screen = None
        self.outcome: OcrOutcome | None = None
        self._image: np.ndarray | None = None
        self._task: Task | None = None
        self._cancelled = threading.Event()  # the running task's: shutdown() abandons its reading
        self._wanted = None  # screen id the running task is for
        self._queued: tuple | None = None  # (screen id, refresh) to run when the current task ends
        # A screen's OCR starts once it has been shown for a moment: the first screen is painted before the
        # OCR models load, and paging through screens quickly reads none of those only passed over.
        self._settle = QTimer(self, singleShot=True, interval=SETTLE_MS)
        self._settle.timeout.connect(self.run)
        # ... and the moment counts from its paint: on a loaded machine the first screen's paint came more than
        # SETTLE_MS after it was handed over, and the OCR process started before the user saw anything
        self._viewport = None
        self._unpainted = False  # a screen waits for its paint before its settle time starts
        self._held = False  # hold(): wait for a paint even while the window is not shown yet (the launch)

    def watch_painting(self, viewport) -> None:
        """The widget the screens are painted on (the canvas's viewport)."""
        self._viewport = viewport
        viewport.installEventFilter(self)

    def hold(self) -> None:
        """Until release() or a paint: a screen's settle wait does not start, even in a window not shown yet. The
        launch loads its first screen before it shows the window (ui/app.py), and starting the OCR worker (its
        imports, its process) competed with that paint for the CPU, on a busy machine even before it (ADR 0060)."""
        self._held = True

    def release(self) -> None:
        """The launch's first screen is painted (or the launch gave up waiting for it)."""
        self._held = False
        if self._unpainted:
            self._unpainted = False
            self._settle.start()

    def eventFilter(self, watched, event):  # noqa: N802 (Qt's name)
        if self._unpainted and watched is self._viewport and event.type() == QEvent.Type.Paint:
            self._unpainted = False
            self._settle.start()
        return False

    def _settle_after_paint(self) -> None:
        if self._held or (self._viewport is not None and self._viewport.isVisible()):
            self._unpainted = True  # eventFilter (or release) starts the settle time at the paint
        else:  # nothing will be painted (a window never shown): the settle time starts now
            self._settle.start()

    def _options(self) -> dict:
        if self.settings.ocr_engine == "easyocr":
            return {"model_dir": self.settings.easyocr_model_dir or None,
                    "allow_downloads": self.settings.allow_downloads}
        return {}

    def show_screen(self, project, screen, run_if_missing: bool) -> None:
        """A new current screen: cached words at once; OCR in the background when asked for."""
        self.project, self.screen, self.outcome, self._image = project, screen, None, None
        self._settle.stop()  # a screen passed over is not read
        self._unpainted = False
        if screen is None:
            self.suggestionsReady.emit([])
            return
        try:
            self.outcome = cached_outcome(project, screen, self.settings.ocr_engine, self.settings.ocr_language,
                                          **self._options())
        except OcrUnavailable as exc:
            self.status.emit(f"OCR unavailable: {exc}")
            self.suggestionsReady.emit([])
            return
        if self.outcome is not None:
            self._publish()
        else:
            self.suggestionsReady.emit([])
            if run_if_missing:
                self._settle_after_paint()

    def run(self, refresh: bool = False) -> None:
        self._settle.stop()
        self._unpainted = False
        if self.screen is None:
            return
        if self._task is not None:
            # one OCR at a time (the engine is shared); the newest screen's turn comes next
            self._queued = (self.screen.id, refresh)
            return
        project, screen, engine = self.project, self.screen, self.settings.ocr_engine
        language, options = self.settings.ocr_language, self._options()
        self._wanted = screen.id
        self.busy.emit(True)
        self.status.emit(f"OCR: {engine} running...")
        self._cancelled = cancelled = threading.Event()
        # the status bar has its own OCR progress (wait=None)
        task = Task(lambda _progress: _read_in_background(project, screen, engine, language, refresh, options,
                                                          cancelled), self, wait=None)
        task.finished.connect(lambda outcome, sid=screen.id: self._done(sid, outcome))
        task.failed.connect(lambda exc, sid=screen.id: self._failed(sid, exc))
        self._task = task
        task.start()

    def cancel(self) -> None:
        """The engine cannot be interrupted mid-image; its result is simply not shown."""
        self._settle.stop()
        self._unpainted = False
        self._queued = None
        if self._task is not None:
            self._wanted = None
            self.busy.emit(False)
            self.status.emit("OCR cancelled")

    def wait_idle(self) -> None:
        """Block until OCR is done, queued screens included (scripts and tests)."""
        from PySide6.QtWidgets import QApplication

        if self._settle.isActive() or self._unpainted:  # a screen waiting for its moment: read it now
            self.run()
        while self._task is not None:
            self._task.wait()
            QApplication.processEvents()  # delivers the result, which may start the queued screen

    def shutdown(self) -> None:
        """Stop a running OCR and wait for its thread before the window goes away (a thread must not outlive its
        owner). The reading is abandoned, not waited for: on a busy machine it took minutes, and so did closing."""
        self._settle.stop()
        self._unpainted = False
        self._queued = None
        if self._task is not None:
            self._wanted = None
            shared_ocr_process().abandon(self._cancelled)
            self._task.wait()
            self._task = None

    def _done(self, screen_id: int, outcome: OcrOutcome) -> None:
        self._task = None
        self.busy.emit(False)
        if self._wanted == screen_id and self.screen is not None and self.screen.id == screen_id:
            self.outcome = outcome
            self._publish()
        self._wanted = None
        self._next()

    def _failed(self, screen_id: int, exc: Exception) -> None:
        self._task = None
        self._wanted = None
        self.busy.emit(False)
        self.status.emit(f"OCR failed: {exc}")
        self._next()

    def _next(self) -> None:
        queued, self._queued = self._queued, None
        if queued and self.screen is not None and self.screen.id == queued[0] and self.outcome is None:
            self.run(refresh=queued[1])

    def _publish(self) -> None:
        o = self.outcome
        items = [Suggestion(w.xyxy, w.text, w.kind) for w in o.words]
        # a cached outcome may hold a page-sized proposal from before suggested_box.offered existed
        elements = offered(o.elements, self.screen.width, self.screen.height) if self.screen else o.elements
        items += [Suggestion(p.box, p.text, p.kind) for p in elements if p.kind != "text"]
        self.suggestionsReady.emit(items)
        self.status.emit(f"OCR: {o.engine}, {len(o.words)} words, {len(o.elements)} elements"
                         + (" (cached)" if o.cached else f" ({o.duration_ms:.0f} ms)"))
        self.screenRead.emit()

    # helpers for editing ------------------------------------------------------
    def image(self) -> np.ndarray | None:
        if self._image is None and self.screen is not None:
            try:
                self._image = load_rgb(self.project.image_path(self.screen))
            except OSError:
                return None
        return self._image

    def reading(self) -> ScreenReading:
        """What OCR knows of the current screen, for the workspace's edits (ocr/screen_reading.py)."""
        return ScreenReading(self.outcome, self.image)
