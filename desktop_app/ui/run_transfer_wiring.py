"""Runs > Export run… and Import run…: a run carried to another project as a folder (its answers, and a live
run's trajectories), what `screenlab export-run` / `import-run` do. The work is api.export_run / api.import_run
on a Task (ui/tasks.py); the status bar says where it went, or why not. Only wiring."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog

from desktop_app import api
from desktop_app.ui.tasks import Task

if TYPE_CHECKING:
    from desktop_app.ui.main_window import MainWindow

SHOWN_MS = 30000


class RunTransferWiring(QObject):
    def __init__(self, window: MainWindow):
        super().__init__(window)
        self.window = window
        self.dialog: QFileDialog | None = None  # the folder being chosen
        self.task: Task | None = None

    def _say(self, text: str, ms: int = SHOWN_MS) -> None:
        self.window.status.show_message(text, ms)

    def _ask_folder(self, title: str, accept: str, then) -> None:
        """A folder, asked without blocking the window; then(folder) once chosen."""
        project = self.window.project
        dialog = QFileDialog(self.window, title)
        dialog.setFileMode(QFileDialog.Directory)
        dialog.setOption(QFileDialog.ShowDirsOnly)
        dialog.setLabelText(QFileDialog.Accept, accept)
        if project.folder is not None:
            dialog.setDirectory(str(Path(project.folder).parent))
        dialog.fileSelected.connect(then)
        dialog.finished.connect(lambda _result: setattr(self, "dialog", None))
        self.dialog = dialog
        dialog.open()

    def choose_export(self) -> None:
        """The run selected in the Runs tab, into a folder chosen next (a run<ID> folder is made in it)."""
        chosen = self.window.runs.selected_runs()
        if len(chosen) != 1:
            self._say("Select one run in the Runs tab to export it.", 6000)
            return
        self._ask_folder(f"Export run {chosen[0]} into a folder (a folder run{chosen[0]} is made in it)",
                         "Export here", lambda folder: self.export(chosen[0], Path(folder) / f"run{chosen[0]}"))

    def choose_import(self) -> None:
        self._ask_folder("Import a run folder (made by Export run… or screenlab export-run)", "Import",
                         lambda folder: self.import_(folder))

    def export(self, run_id: int, out: str | Path) -> Task | None:
        project = self.window.project
        if project is None or self.task is not None:
            return None
        return self._start(lambda _progress: api.export_run(project, run_id, Path(out)), "written to")

    def import_(self, folder: str | Path) -> Task | None:
        project = self.window.project
        if project is None or self.task is not None:
            return None
        return self._start(lambda _progress: api.import_run(project, Path(folder)), "imported from", reload=True)

    def _start(self, work, verb: str, reload: bool = False) -> Task:
        task = self.task = Task(work, self, name="run transfer", wait=None)
        task.finished.connect(lambda done: self._ended(done.summary(verb), reload))
        task.failed.connect(lambda exc: self._ended(f"Not done: {exc}", False))
        task.start()
        return task

    def _ended(self, message: str, reload: bool) -> None:
        self.task = None
        if reload and self.window.project is not None:
            self.window.runs.reload()  # the new run in the Runs tab
        self._say(message)
