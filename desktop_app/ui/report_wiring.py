"""Runs > Write report…: what `screenlab report` writes (summary.md, the tables, the plots) of every run of
the open project, into a folder the user picks. The work is api.write_report's, on a Task (ui/tasks.py); the
status bar shows how far it is and then where the files went. Only wiring."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog, QProgressBar

from desktop_app import api
from desktop_app.ui.tasks import Task

if TYPE_CHECKING:
    from desktop_app.ui.main_window import MainWindow

SHOWN_MS = 30000  # how long "written to <folder>" stays in the status bar


class ReportWiring(QObject):
    def __init__(self, window: MainWindow):
        super().__init__(window)
        self.window = window
        self.dialog: QFileDialog | None = None  # the folder being chosen
        self.task: Task | None = None  # the report being written
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(120)
        self.progress.setTextVisible(False)
        self.progress.hide()
        window.statusBar().insertPermanentWidget(0, self.progress)  # a plain widget would hide under the message

    def choose(self) -> None:
        """Ask for the folder (without blocking the window); the report is written once one is chosen."""
        project = self.window.project  # the menu item is greyed out while no project is open
        if self.task is not None:
            self.window.status.show_message("A report is being written; wait for it to finish.", 6000)
            return
        dialog = QFileDialog(self.window, "Write the report of every run (summary.md, tables, plots) into a folder")
        dialog.setFileMode(QFileDialog.Directory)
        dialog.setOption(QFileDialog.ShowDirsOnly)
        dialog.setLabelText(QFileDialog.Accept, "Write report")
        if project.folder is not None:  # beside the project, as the CLI run there would write it
            dialog.setDirectory(str(Path(project.folder).parent))
        dialog.fileSelected.connect(lambda folder: self.write(folder))
        dialog.finished.connect(lambda _result: setattr(self, "dialog", None))
        self.dialog = dialog
        dialog.open()

    def write(self, folder: str | Path) -> Task | None:
        """Write the report into `folder` off the UI thread; the status bar follows it."""
        project, folder = self.window.project, Path(folder)
        if project is None or self.task is not None:
            return None
        task = self.task = Task(lambda progress: api.write_report(project, folder, on_progress=progress), self,
                                name="report", wait=None)  # its own progress dialog
        task.progress.connect(self._progressed)
        task.finished.connect(lambda files: self._ended(f"Report written to {folder} ({len(files)} files, "
                                                        "summary.md first)"))
        task.failed.connect(lambda exc: self._ended(f"No report written: {exc}"))
        self._progressed("runs", 0, 1)
        task.start()
        return task

    def _progressed(self, what: str, done: int, total: int) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        self.progress.show()
        self.window.status.show_message(f"Writing the report: {what} ({done}/{total})…")

    def _ended(self, message: str) -> None:
        self.task = None
        self.progress.hide()
        self.window.status.show_message(message, SHOWN_MS)
