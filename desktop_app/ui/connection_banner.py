"""A bar over the canvas when the database server cannot be reached: it says the last change was not
saved, and tries the connection again every few seconds off the UI thread until it is back. Nothing is
queued: an edit made while the server is away is refused and said so, never reported saved."""

from __future__ import annotations

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from desktop_app.api.projects import Project
from desktop_app.ui.tasks import Task

RETRY_MS = 3000


class ConnectionBanner(QWidget):
    restored = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("connectionBanner")
        self.setStyleSheet("#connectionBanner { background: #f8d7a3; } QLabel { color: #4a3000; }")
        self.setAutoFillBackground(True)
        self.label = QLabel()
        self.label.setWordWrap(True)
        retry = QPushButton("Retry now")
        retry.clicked.connect(self._try)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.addWidget(self.label, 1)
        layout.addWidget(retry)
        self.project: Project | None = None
        self._task: Task | None = None
        self._timer = QTimer(self, interval=RETRY_MS)
        self._timer.timeout.connect(self._try)
        self.hide()

    def lost(self, project: Project, message: str) -> None:
        self.project = project
        self.label.setText("The connection to the database server is lost: your last change was NOT saved. "
                           f"Trying again every {RETRY_MS // 1000} s… ({message[:160]})")
        self.show()
        self._timer.start()

    def _try(self) -> None:
        if self.project is None or self._task is not None:
            return
        project = self.project
        self._task = Task(lambda _progress: project.ping(), self, wait=None)  # the banner says it
        self._task.finished.connect(self._back)
        self._task.failed.connect(self._still_away)
        self._task.start()

    def _still_away(self, _exc) -> None:
        self._task = None

    def _back(self, _result) -> None:
        self._task = None
        self._timer.stop()
        self.hide()
        self.restored.emit()

    def stop(self) -> None:
        self._timer.stop()
        self.project = None
        self.hide()
