"""The workspace's step on screen: its image and boxes on the canvas (or what the empty canvas says), the
OCR, the agents' answers and the tree for it, boxes put and removed by edits, and one selection shared by
the canvas, the properties' list and the tree. Only wiring: what a step holds comes from the workspace."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QMessageBox

from desktop_app.api.projects import is_connection_lost
from desktop_app.api.samples import EpisodeFilter
from desktop_app.ui.canvas.prefetch import Decoded, Prefetch, decode, ink_is_cheap, ink_of
from desktop_app.ui.first_paint import after_first_paint
from desktop_app.ui.shortcuts import key_name
from desktop_app.ui.tasks import run_in_background
from desktop_app.ui.workspace import AFTER_SHOWN_MS

log = logging.getLogger(__name__)
INK_AFTER_PAINT_AT_MOST_MS = 300  # a window not shown (or hidden) still gets its captions
DECODE_AHEAD_LOCAL_MS = 30  # after the paint this screen's show_step asked for

if TYPE_CHECKING:
    from desktop_app.ui.main_window import MainWindow


class StepView(QObject):
    def __init__(self, window: MainWindow):
        super().__init__(window)
        self.window = window
        self.scene, self.view = window.scene, window.view
        self.scene.selectionChanged.connect(self.canvas_selection)
        self.prefetch = Prefetch(self)  # the next screens, decoded while this one shows
        window.ocr.watch_painting(self.view.viewport())  # a screen's OCR waits for it to be painted

    def connect_workspace(self, ws) -> None:
        """A project opened: follow its workspace."""
        ws.stepLoaded.connect(self.show_step)
        ws.boxesPut.connect(self.boxes_put)
        ws.boxesRemoved.connect(self.boxes_removed)
        ws.written.connect(lambda: self.window.status.set_saved(True))
        ws.written.connect(self.after_write)
        ws.writeFailed.connect(self.write_failed)

    def show_step(self) -> None:
        window, ws = self.window, self.window.ws
        if ws is None or ws.screen is None:
            self.scene.load(None, 1280, 800, [], self.nothing_shown_text())
            window.status.update_counts()
            window.a11y.show_step()
            return
        path = ws.image_path()
        # decoded ahead while the last screen showed; else here, its ink map later when it would wait for numpy
        decoded = self.prefetch.take(path) or decode(path, ink=ink_is_cheap())
        reason = ""
        if decoded.image is None:
            where = "the project's database" if ws.project.media.in_database else f"the media folder:\n{path}"
            reason = (f"Image missing from {where}" if not path.exists() else
                      f"Cannot read image {path.name}: {decoded.error}")
        self.scene.load(decoded if decoded.image is not None else None, ws.screen.width, ws.screen.height,
                        list(ws.boxes.values()), reason)
        self.view.fit()
        if decoded.image is not None and decoded.ink is None:
            self._map_ink_later(decoded)
        window.status.update_counts()
        window.ocr.show_screen(window.project, ws.screen, run_if_missing=self.scene.show_suggestions)
        window.evaluation.refresh_predictions()
        window.a11y.show_step()
        shown = ws.step
        # on a server the screen's own reads must end first (one pooled connection: workspace.AFTER_SHOWN_MS); a
        # local project's reads run side by side, so decoding ahead starts once this screen is painted: an
        # annotator paging quickly (a look of 0.15 s) then finds the next screen decoded
        delay = AFTER_SHOWN_MS if ws.project.on_server else DECODE_AHEAD_LOCAL_MS
        QTimer.singleShot(delay, lambda: self._decode_ahead(shown))

    def _map_ink_later(self, decoded: Decoded) -> None:
        """The shown screen's ink map, off the UI thread (with numpy's first import) once the screen is painted:
        begun before, that import held the interpreter while the paint waited. Its captions wait for it."""
        scene = self.scene

        def start() -> None:
            run_in_background(self, lambda: ink_of(decoded.image), lambda ink: scene.set_ink(decoded, ink),
                              lambda exc: (log.warning("no ink map for %s: %s", decoded.path, exc),
                                           scene.set_ink(decoded, None)), wait=None)

        after_first_paint(self.window, start, at_most_ms=INK_AFTER_PAINT_AT_MOST_MS)

    def _decode_ahead(self, shown) -> None:
        """The screens likely next: this episode's next step, and the next sample in the list."""
        window, ws = self.window, self.window.ws
        if ws is None or ws.step is not shown:  # moved on meanwhile
            return
        if ws.step_index + 1 < len(ws.steps):
            self.prefetch.want(ws.project, ws.episode.id, ws.step_index + 1)
        browser = window.browser
        if browser is not None and ws.step_index == 0:
            row = browser.current_row()
            if 0 <= row < browser.model.stored_rows - 1:
                try:  # the next row may need a page read from the server
                    following = browser.model.episode_id_at(row + 1)
                except Exception as exc:
                    if not is_connection_lost(exc):
                        raise
                    return  # the server went away (the banner says so): decoding ahead can wait
                self.prefetch.want(ws.project, following, 0)

    def nothing_shown_text(self) -> str:
        """What the empty canvas says: how to go on from an empty project, a filter or a finished queue."""
        ws, browser = self.window.ws, self.window.browser
        if ws is not None and ws.episode is not None:
            return "This episode has no screens"
        if browser is None or browser.model.stored_rows > 0:
            return "No episode selected"
        if self.window.review_mode:
            keys = self.window.settings.shortcuts
            return f"Queue done: no sample waits for review ({key_name('review.mode', keys)} leaves the queue)"
        if browser.current_filter() == EpisodeFilter():
            return (f"This project is empty.\nFile > Import… ({key_name('file.import', self.window.settings.shortcuts)}) "
                    "adds screenshots or a dataset.")
        return "No sample matches the list's filter"

    # edits landing --------------------------------------------------------------------------------
    def boxes_put(self, boxes, select: bool) -> None:
        for box in boxes:
            self.scene.put_box(box)
        if select:
            self.scene.select_ids([b.id for b in boxes if b.x1 is not None])
        self.window.status.update_counts()
        self.canvas_selection()

    def boxes_removed(self, ids) -> None:
        for box_id in ids:
            self.scene.remove_box(box_id)
        self.window.status.update_counts()
        self.canvas_selection()

    def after_write(self) -> None:  # the open project's workspace wrote: its list shows the new counts
        self.window.browser.model.invalidate_rows()
        # the agents' answers on the edited step are re-scored off the UI thread (ADR 0024); the evaluation
        # wiring shows the new verdicts when that is done (EvaluationWiring.verdicts_changed)

    def write_failed(self, message: str) -> None:
        self.window.status.set_saved(False, message)
        box = QMessageBox(QMessageBox.Warning, "Not saved", message, QMessageBox.Ok, self.window)
        box.setAttribute(Qt.WA_DeleteOnClose)
        box.open()  # window-modal but non-blocking: the app keeps running

    # one selection ----------------------------------------------------------------------------------
    def canvas_selection(self) -> None:
        window = self.window
        window.a11y.boxes_selected(self.scene.selected_ids())
        if window.opened is not None:  # the scene also selects while no project is open (its reset)
            ids = self.scene.selected_ids()
            # text-only actions have no canvas item: keep their list selection
            keep = [i for i in window.properties.selected if i in window.ws.boxes and window.ws.boxes[i].x1 is None]
            window.properties.show_selection(ids or keep)

    def list_selection(self, ids) -> None:
        self.scene.select_ids(ids)
        drawn = [self.scene.items_by_id[i] for i in ids if i in self.scene.items_by_id]
        if len(drawn) == 1:
            self.view.ensureVisible(drawn[0].rect(), 40, 40)
