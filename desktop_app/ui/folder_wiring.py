"""Opening a folder of screenshots in the window (File > Open Screenshots Folder…).

formats/folder_open.py does the work, on a Task's thread: it lists the folder, stores the first screen, then
imports the rest in batches. Here the folder's project is opened in the window as soon as its first screen
is stored (at once when the folder was opened before; the import waits for that screen's first paint, whose
Python its own would slow), the sample list lists the pictures still to import after the screens, greyed, and
takes in each batch as it lands (the selection and the scroll stay), the status bar counts with a Cancel, and
opening another project, closing this one or closing the window stops the import (what is in stays; opening
the folder again imports the rest). Only wiring.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog, QMessageBox

from desktop_app.api.projects import is_project_folder, is_url
from desktop_app.priority import background_priority
from desktop_app.ui import busy_worker
from desktop_app.ui.first_paint import after_first_paint
from desktop_app.ui.tasks import Task

if TYPE_CHECKING:
    from desktop_app.formats.folder_open import FolderReport
    from desktop_app.ui.main_window import MainWindow

# the rest of the folder waits for the window to paint the first screen (ProjectWiring.open and the paint, on the
# UI thread): the next batch's Python would take the GIL from them half the time. The window lets it go on at
# the paint, or this long after opening the project when nothing paints (a hidden window); the import's own
# bound, from its report on, is only for a window that never answers
FIRST_PAINT_WAIT_S = 2.0
IMPORT_WAITS_AT_MOST_S = 10.0
STOP_WAIT_S = 30.0  # a stop takes one picture's check or one batch's commit; this is only a bound


class _Shared:
    """The worker's live report, read on the UI thread when a progress signal says it changed."""

    report: FolderReport | None = None
    # the ids still to import when the report was last sent: taken on the worker's thread, where it is exact
    # (the batch committed and counted); the list shows them after the project's rows
    waiting: Sequence[str] = ()


def _same(a: str | Path | None, b: str | Path | None) -> bool:
    if a is None or b is None or is_url(a) or is_url(b):
        return False
    return Path(a).expanduser().resolve() == Path(b).expanduser().resolve()


class FolderWiring(QObject):
    def __init__(self, window: MainWindow):
        super().__init__(window)
        self.window = window
        self.task: Task | None = None
        self.stopping: threading.Event | None = None
        self.first_painted = threading.Event()  # set: the import may go on past its first screen
        self.shared = _Shared()
        self.folder: Path | None = None
        self.target: Path | None = None  # the project the import fills
        self.shown = False  # that project is the one open in the window

    # starting --------------------------------------------------------------------------------------------
    def choose(self) -> None:
        folder = QFileDialog.getExistingDirectory(self.window, "Open a folder of screenshots")
        if folder:
            self.open(folder)

    def open(self, folder: str | Path) -> bool:
        # the importers on the first folder opened: they are most of a second of imports the start does without
        from desktop_app.formats.folder_open import checked_folder, folder_project, open_folder
        from desktop_app.formats.records import FormatError

        window = self.window
        if is_project_folder(Path(folder)):  # a project chosen here is simply opened
            return window.projects.open(folder)
        try:
            folder = checked_folder(folder)
        except FormatError as exc:
            QMessageBox.warning(window, "Cannot open folder", str(exc))
            return False
        self.stop()
        self.folder, self.target = folder, folder_project(folder)
        if is_project_folder(self.target) and self._shown_project() is None:
            window.projects.open(self.target)  # opened before: what is in shows at once, the folder is read behind
        self.shown = self._shown_project() is not None
        shared = self.shared = _Shared()
        stopping = self.stopping = threading.Event()
        painted = self.first_painted = threading.Event()
        if self.shown:  # on screen already (opened before): nothing to wait for
            painted.set()

        def work(tick):
            # drawing and editing come first: the import and the threads it decodes pictures on
            # (formats/image_lookahead.py, started from this one) yield the cores to the window's thread
            background_priority()

            def progress(report: FolderReport) -> None:
                shared.waiting = report.waiting()
                shared.report = report
                tick("importing", report.done, report.total)
                if report.screens and not painted.is_set():  # the window opens the project now (_show)
                    painted.wait(IMPORT_WAITS_AT_MOST_S)
                    painted.set()

            return open_folder(folder, None, progress, stopping)

        task = self.task = Task(work, self, name="open-folder", wait=None)  # the status bar counts it
        task.progress.connect(lambda *_: self._landed(task))
        task.finished.connect(lambda report: self._finished(task, report))
        task.failed.connect(lambda exc: self._failed(task, exc))
        window.status.folder_importing(f"Opening {folder.name}…", 0, 0)
        busy_worker.started()  # no full collection in the worker between two batches (a 150 ms stall)
        done = []

        def ended(*_) -> None:  # once per task, however it ends
            if not done:
                done.append(True)
                busy_worker.ended()

        task.finished.connect(ended)
        task.failed.connect(ended)
        task.start()
        return True

    def _shown_project(self):
        """The open project when it is the one this import fills (the user may have opened another)."""
        opened = self.window.opened
        return opened if opened is not None and _same(opened.project.folder, self.target) else None

    def fills(self, location: str | Path) -> bool:
        """Whether `location` is the project an import under way is filling."""
        return self.task is not None and _same(location, self.target)

    # landing ---------------------------------------------------------------------------------------------
    def _landed(self, task: Task) -> None:
        report = self.shared.report
        if task is not self.task or report is None:
            return
        self._show(report)
        bad = f" · {len(report.bad):,} unreadable" if report.bad else ""
        self.window.status.folder_importing(f"Importing screenshots: {report.done:,} / {report.total:,}{bad}",
                                            report.done, report.total)

    def _show(self, report: FolderReport) -> None:
        """The project in the window once it has a screen; then each batch into the list."""
        window = self.window
        if not self.shown:
            if report.screens == 0:
                return
            self.shown = True
            window.projects.open(self.target)
            after_first_paint(window, self.first_painted.set, at_most_ms=int(FIRST_PAINT_WAIT_S * 1000))
            busy_worker.freeze_heap()  # what the open made (list, scene, panels) is long-lived too
        opened = self._shown_project()
        if opened is not None:
            before = opened.browser.model.stored_rows
            opened.browser.grow(self.shared.waiting if self.task is not None else [])
            if opened.browser.model.stored_rows != before:
                window.status.update_counts()  # "12/2,315": where the list stands
                opened.grid.source.forget_rows()  # its last page of screens was short

    def _finished(self, task: Task, report: FolderReport) -> None:
        if task is not self.task:
            return
        self.task = None
        window = self.window
        if report.screens == 0:
            window.status.folder_imported("", "")
            QMessageBox.warning(window, "Nothing to show", report.summary())
            return
        self._show(report)
        parts = [f"{report.screens:,} screenshots"]
        if report.repeated:
            parts.append(f"{report.repeated:,} repeated")
        if report.bad:
            parts.append(f"{len(report.bad):,} unreadable")
        if report.cancelled:
            parts.append(f"stopped at {report.done:,} / {report.total:,}")
        window.status.folder_imported(f"{Path(report.folder).name}: {' · '.join(parts)}", report.summary())
        window.status.show_message(report.summary().splitlines()[0], 10000)

    def _failed(self, task: Task, exc: Exception) -> None:
        if task is not self.task:
            return
        self.task = None
        opened = self._shown_project()
        if opened is not None:
            opened.browser.grow([])  # what was still to import will not be: its rows go
        self.window.status.folder_imported("", "")
        QMessageBox.warning(self.window, "Cannot open folder", str(exc))

    # stopping --------------------------------------------------------------------------------------------
    def cancel(self) -> None:
        """The status bar's Cancel: the import stops within a picture and reports what it did."""
        if self.stopping is not None:
            self.stopping.set()
            self.first_painted.set()  # at once, not once the first screen's paint is waited for

    def stop(self) -> None:
        """Another project opens, this one or the window closes: stop and wait, so nothing writes after."""
        task, self.task = self.task, None
        if task is None:
            return
        self.stopping.set()
        self.first_painted.set()
        task.wait(STOP_WAIT_S)
        self.window.status.folder_imported("", "")
