"""The steps of a multi-step episode as a strip of thumbnails under the canvas."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QIcon, QImageReader, QPixmap
from PySide6.QtWidgets import QListView, QListWidget, QListWidgetItem

from desktop_app.api.samples import screens_by_id
from desktop_app.ui.workspace import Workspace

THUMB = QSize(120, 80)


class Filmstrip(QListWidget):
    stepChosen = Signal(int)

    def __init__(self, ws: Workspace, parent=None):
        super().__init__(parent)
        self.setObjectName("filmstrip")
        self.ws = ws
        self.setViewMode(QListView.IconMode)
        self.setFlow(QListView.LeftToRight)
        self.setWrapping(False)
        self.setIconSize(THUMB)
        self.setFixedHeight(THUMB.height() + 44)
        self.setMovement(QListView.Static)
        self.setFocusPolicy(Qt.ClickFocus)
        self._episode = None
        self.currentRowChanged.connect(self._chosen)
        ws.stepLoaded.connect(self.refresh)

    def refresh(self) -> None:
        # every change of the list below would report a "chosen" row and reload a step from
        # inside a step load; the strip only follows the workspace here
        self.blockSignals(True)
        try:
            self._refresh()
        finally:
            self.blockSignals(False)

    def _refresh(self) -> None:
        episode = self.ws.episode
        self.setVisible(len(self.ws.steps) > 1)
        if episode is None or len(self.ws.steps) <= 1:
            self._episode = None
            self.clear()
            return
        if self._episode != episode.id:
            self._episode = episode.id
            self.clear()
            for step in self.ws.steps:
                item = QListWidgetItem(f"Step {step.index + 1}")
                item.setToolTip(step.instruction or f"Step {step.index + 1}")
                self.addItem(item)
            self._load_thumbs()
        self.setCurrentRow(self.ws.step_index)

    def _load_thumbs(self) -> None:
        screens = screens_by_id(self.ws.project, [step.screen_id for step in self.ws.steps])
        for row, step in enumerate(self.ws.steps):
            screen = screens.get(step.screen_id)
            if screen is not None:
                reader = QImageReader(str(self.ws.project.image_path(screen)))
                size = reader.size()
                if size.isValid():
                    reader.setScaledSize(size.scaled(THUMB, Qt.KeepAspectRatio))
                image = reader.read()
                if not image.isNull():
                    self.item(row).setIcon(QIcon(QPixmap.fromImage(image)))

    def _chosen(self, row: int) -> None:
        if row >= 0 and row != self.ws.step_index:
            self.stepChosen.emit(row)
