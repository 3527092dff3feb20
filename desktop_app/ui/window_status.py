"""The main window's status bar: OCR's state, where the list and the step stand, the mode and the next
box's label, the cursor and the zoom, whether the last change was saved, and who is annotating."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QPointF, Qt
from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton

from desktop_app.ui.fit import ElidedLabel
from desktop_app.ui.waits import waits

if TYPE_CHECKING:
    from desktop_app.ui.main_window import MainWindow


class WindowStatus(QObject):
    def __init__(self, window: MainWindow):
        super().__init__(window)
        self.window = window
        self.position = QLabel("x -, y -")
        self.zoom = QLabel("100 %")
        # the texts that grow with the data (a long login, OCR's figures, where the list stands) give way on a
        # narrow window: elided, whole in their tooltips; the status bar never sets the window's width
        self.counts = ElidedLabel(mode=Qt.ElideRight)
        self.mode = ElidedLabel(mode=Qt.ElideRight)
        self.saved = QLabel()
        self.annotator = ElidedLabel(mode=Qt.ElideRight)
        self.ocr = ElidedLabel(mode=Qt.ElideRight)
        self.ocr_progress = QProgressBar()
        self.ocr_progress.setRange(0, 0)  # busy indicator: one screen takes about 0.75 s of one core
        self.ocr_progress.setMaximumWidth(80)
        self.ocr_cancel = QPushButton("Cancel OCR")
        self.ocr_cancel.setFlat(True)
        self.ocr_cancel.clicked.connect(lambda: window.ocr.cancel())
        # a folder's screenshots coming in behind the first (ui/folder_wiring.py)
        self.folder_import = ElidedLabel(mode=Qt.ElideRight)
        self.folder_progress = QProgressBar()
        self.folder_progress.setMaximumWidth(120)
        self.folder_progress.setTextVisible(False)
        self.folder_cancel = QPushButton("Cancel import")
        self.folder_cancel.setFlat(True)
        self.folder_cancel.setToolTip("Stop importing; the screenshots already in stay, and opening the folder "
                                      "again imports the rest")
        self.folder_cancel.clicked.connect(lambda: window.projects.folders.cancel())
        # what the user has waited on for over half a second (ui/waits.py): its words and a busy bar
        self.waiting = ElidedLabel(mode=Qt.ElideRight)
        self.waiting_bar = QProgressBar()
        self.waiting_bar.setRange(0, 0)
        self.waiting_bar.setMaximumWidth(80)
        for widget in (self.ocr_progress, self.ocr_cancel, self.folder_import, self.folder_progress,
                       self.folder_cancel, self.waiting, self.waiting_bar):
            widget.hide()
        waits().changed.connect(self.show_waits)
        for widget in (self.waiting, self.waiting_bar, self.folder_import, self.folder_progress, self.folder_cancel, self.ocr, self.ocr_progress,
                       self.ocr_cancel, self.counts, self.mode, self.position, self.zoom, self.saved, self.annotator):
            window.statusBar().addPermanentWidget(widget)
        window.view.zoomChanged.connect(lambda z: self.zoom.setText(f"{z * 100:.0f} %"))
        window.scene.cursorMoved.connect(self.cursor_moved)

    def show_waits(self, words: list[str]) -> None:
        """The oldest wait's words ("Counting samples..."), all of them in the tooltip; hidden when none."""
        self.waiting.setVisible(bool(words))
        self.waiting_bar.setVisible(bool(words))
        if words:
            more = f" (+{len(words) - 1})" if len(words) > 1 else ""
            self.waiting.setText(f"{words[0]}…{more}")
            self.waiting.setToolTip("Working on: " + "; ".join(words))

    def show_identity(self, identity, on_server: bool) -> None:
        """Who is working: on a server the login and its team role, on a local project the annotator's name."""
        if on_server:
            self.annotator.setText(f"{identity.user} ({identity.role})")
            self.annotator.setToolTip("Logged in to the project's server as this login; the server enforces what "
                                      "this role may see and change")
        else:
            self.annotator.setText(f"Annotator: {identity.user}")
            self.annotator.setToolTip("The name written next to your edits (Settings)")

    def project_closed(self, keep_import: bool = False) -> None:
        """What was about the closed project goes: where the list stood, who worked, OCR's figures, the last
        message, and (unless its import goes on into the next) the folder's "N screenshots"."""
        for label in (self.counts, self.annotator, self.saved, self.ocr):
            label.clear()
            label.setToolTip("")
        self.window.statusBar().clearMessage()
        if not keep_import:
            self.folder_imported("", "")

    def show_message(self, text: str, timeout_ms: int = 0) -> None:
        self.window.statusBar().showMessage(text, timeout_ms)

    def update_mode(self) -> None:
        scene = self.window.scene
        mode = "Reviewing" if self.window.review_mode else "Drawing" if scene.mode == "draw" else "Select"
        self.mode.setText(f"{mode} · next box: {scene.next_label}")

    def set_saved(self, ok: bool, message: str = "") -> None:
        if ok:
            self.saved.setStyleSheet("color: #2e8b57")
            self.saved.setText("All changes saved")
        else:
            self.saved.setStyleSheet("color: #d9534f; font-weight: bold")
            self.saved.setText("Last change NOT saved")
            self.show_message(message, 15000)

    def update_counts(self) -> None:
        ws, browser = self.window.ws, self.window.browser
        if ws is None or ws.episode is None:
            self.counts.setText("")
            return
        labels = [b.label for b in ws.boxes.values()]
        text = " · ".join(f"{labels.count(k)} {k}" for k in ("gold", "distracted", "other"))
        step = f"step {ws.step_index + 1}/{len(ws.steps)} · " if len(ws.steps) > 1 else ""
        row = browser.current_row() + 1 if browser else 0
        total = browser.model.stored_rows if browser else 0
        self.counts.setText(f"{row:,}/{total:,} · {step}{len(labels)} actions: {text}")

    def cursor_moved(self, pos: QPointF) -> None:
        self.position.setText(f"x {pos.x():.0f}, y {pos.y():.0f}")

    def ocr_busy(self, on: bool) -> None:
        self.ocr_progress.setVisible(on)
        self.ocr_cancel.setVisible(on)

    def folder_importing(self, text: str, done: int, total: int) -> None:
        """A folder's import under way: "Importing screenshots: 2,300 / 10,000", a bar and Cancel."""
        self.folder_import.setText(text)
        self.folder_import.setToolTip("")
        self.folder_progress.setRange(0, max(total, 1))
        self.folder_progress.setValue(done)
        for widget in (self.folder_import, self.folder_progress, self.folder_cancel):
            widget.show()

    def folder_imported(self, text: str, details: str) -> None:
        """The import ended: what came in stays said (the details, bad files by name, in the tooltip)."""
        self.folder_progress.hide()
        self.folder_cancel.hide()
        self.folder_import.setText(text)
        self.folder_import.setToolTip(details)
        self.folder_import.setVisible(bool(text))
