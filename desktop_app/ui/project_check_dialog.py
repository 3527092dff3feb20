"""File > Check project…: what `screenlab check` says (api.check_project), with a Repair button that removes
the images no screen names. The check runs off the UI thread (ui/tasks.run_in_background): it reads every
page of the database and waits for the media lock while an import commits. Only wiring."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout

from desktop_app import api
from desktop_app.ui.tasks import run_in_background


class ProjectCheckDialog(QDialog):
    checked = Signal(object)  # the ProjectCheck shown (tests wait on it)

    def __init__(self, project, parent=None):  # the open project (api.Project)
        super().__init__(parent)
        self.setWindowTitle("Check project")
        self.project = project
        self.report = None
        self.state = QLabel("Checking the database and the media folder…")
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.FixedFont))
        self.text.setMinimumSize(560, 140)
        self.buttons = QDialogButtonBox(QDialogButtonBox.Close)
        self.repair_button = QPushButton("Repair")
        self.repair_button.setToolTip("Remove the image files no screen names (what a stopped import left)")
        self.repair_button.setEnabled(False)
        self.buttons.addButton(self.repair_button, QDialogButtonBox.ActionRole)
        self.buttons.rejected.connect(self.reject)
        self.repair_button.clicked.connect(lambda: self.run(repair=True))
        layout = QVBoxLayout(self)
        for widget in (self.state, self.text, self.buttons):
            layout.addWidget(widget)

    def run(self, repair: bool = False) -> None:
        self.repair_button.setEnabled(False)
        self.state.setText("Removing the images no screen names…" if repair else
                           "Checking the database and the media folder…")
        project = self.project
        run_in_background(self, lambda: api.check_project(project, repair=repair), self._shown, self._failed,
                          wait="Checking the project")

    def _shown(self, report) -> None:
        self.report = report
        self.text.setPlainText("\n".join(report.lines()).replace("repairing removes them", "Repair removes them"))
        self.state.setText("Nothing to repair." if report.ok else
                           "The database is damaged." if report.problems else "Images no screen names were found.")
        self.repair_button.setEnabled(bool(report.orphans_left) and not report.problems)
        self.checked.emit(report)

    def _failed(self, exc: Exception) -> None:
        self.state.setText(f"The check could not finish: {exc}")
        self.checked.emit(None)
