"""Opening and closing projects (the File menu: open a folder or a server, new, recent, import, export; a
folder of screenshots through folder_wiring.py):
an opened project gets its workspace, sample list, properties, filmstrip and evaluation panels, all
connected; closing it ends the visit, stops its runs and lets every one of them go. Only wiring:
projects are store/project.py's."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog, QMessageBox

from desktop_app import api
from desktop_app.api.projects import Project, ProjectError, is_project_folder, is_url
from desktop_app.secrets import redact
from desktop_app.settings import annotator_name, save_settings
from desktop_app.ui.browser import SampleBrowser
from desktop_app.ui.folder_wiring import FolderWiring
from desktop_app.ui.open_project import Change, OpenProject
from desktop_app.ui.waits import blocking
from desktop_app.ui.workspace import Workspace

if TYPE_CHECKING:
    from desktop_app.ui.main_window import MainWindow


class ProjectWiring(QObject):
    def __init__(self, window: MainWindow):
        super().__init__(window)
        self.window = window
        self.new_project_dialog: QFileDialog | None = None
        self.folders = FolderWiring(window)  # File > Open Screenshots Folder…: its import in the background
        self.current: OpenProject | None = None  # the open project (MainWindow.opened reads it)
        self.quit_box: QMessageBox | None = None  # "a run is still running: quit?" while it asks

    # opening ----------------------------------------------------------------------------------------
    def open(self, location: str | Path, media: str | None = None) -> bool:
        """Open a project in the window. It runs on the UI thread (every view is built from it), so the busy
        cursor and "Opening ..." are painted first: a server far away or a busy laptop takes seconds."""
        settings = self.window.settings
        media = media or settings.server_media.get(str(location))  # a server project from Recent
        name = "the server's project" if is_url(str(location)) else Path(str(location)).name
        words = f"Opening {name}…"
        with blocking(words, say=self.window.status.show_message):
            try:
                project = api.open_project(location, media, user=annotator_name(settings))
            except (ProjectError, Exception) as exc:  # a bad folder or database must not take the window down
                failure = exc
            else:
                failure = None
                self._show(project, location)
        if self.window.statusBar().currentMessage() == words:  # unless opening had something else to say
            self.window.status.show_message("")
        if failure is not None:
            QMessageBox.warning(self.window, "Cannot open project", redact(f"{location}\n\n{failure}"))
            return False
        return True

    def _show(self, project: Project, location: str | Path) -> None:
        window, settings = self.window, self.window.settings
        self.close(keep_import=self.folders.fills(location))  # a folder's first screen landed: its import goes on
        self.current = opened = OpenProject(project, settings, window)
        ws, browser = opened.ws, opened.browser
        opened.changed.connect(self._changed)
        window.left_tabs.insertTab(0, browser, "Samples")
        window.left_tabs.insertTab(1, opened.grid, "Thumbnails")
        opened.grid.opened.connect(lambda _id: window.view.setFocus())
        window.right_tabs.insertTab(0, opened.properties, "Properties")
        window.left_tabs.setCurrentIndex(0)
        window.right_tabs.setCurrentIndex(0)
        window.filmstrip_host.addWidget(opened.filmstrip)
        self._connect(project, ws, browser)
        window.evaluation.open(opened)
        # short tab titles: four tabs share the dock's width; the tooltips say what they are
        tabs = window.right_tabs
        tabs.addTab(window.a11y, "Tree")
        tabs.setTabToolTip(tabs.indexOf(window.a11y), "The screen's accessibility tree")
        tabs.addTab(window.task_panel, "Task")
        tabs.setTabToolTip(tabs.indexOf(window.task_panel), "A recorded task's evaluators and the step's completion "
                                                            "label")
        browser.episodeSelected.connect(ws.load_episode)
        browser.model.counted.connect(window.status.update_counts)  # "1/200" becomes "1/400,000" once counted
        browser.model.counted.connect(window.reviewing.counted)  # and the review queue's "200+" its size
        browser.boxStep.connect(lambda step: (window.view.setFocus(), window.editing.cycle_box(step)))
        opened.properties.boxesSelected.connect(window.step_view.list_selection)
        opened.filmstrip.stepChosen.connect(ws.load_step)
        window.a11y.set_workspace(ws)
        window.task_panel.set_workspace(ws)
        self._remember(project)
        window.setWindowTitle(f"{project.name} - ScreenLab")
        window.project_shown(True)
        window.status.show_identity(project.identity, project.on_server)
        window.status.set_saved(True)
        last = api.last_edited(project, ws.actor)  # back to the screen this annotator changed last
        row = browser.model.row_of(last) if last is not None else None
        browser.select_row(row or 0)
        if browser.model.stored_rows == 0:
            ws.load_episode(None)

    def _connect(self, project: Project, ws: Workspace, browser: SampleBrowser) -> None:
        window, undo, redo = self.window, self.window.actions_by_id["edit.undo"], self.window.actions_by_id["edit.redo"]
        window.step_view.connect_workspace(ws)
        ws.connectionLost.connect(lambda message: window.connection_banner.lost(project, message))
        ws.navigated.connect(browser.select_episode)
        grid = self.current.grid
        ws.navigated.connect(lambda _id: grid.follow_browser())  # select_episode is quiet
        ws.stateChanged.connect(lambda *_: browser.reload_queues())
        window.team.project_opened(project, ws)
        ws.undo_stack.canUndoChanged.connect(undo.setEnabled)
        ws.undo_stack.canRedoChanged.connect(redo.setEnabled)
        undo.setEnabled(False)
        redo.setEnabled(False)

    def _remember(self, project: Project) -> None:
        settings = self.window.settings
        location = str(project.folder or project.url)  # a URL without its password (store/db.py)
        if project.folder is None and not project.media.in_database:
            settings.server_media[location] = str(project.media.root)
        settings.add_recent(location)
        save_settings(settings)

    # closing ----------------------------------------------------------------------------------------
    def may_quit(self) -> bool:
        """Quitting stops the runs under way (their answers so far are kept; Resume goes on later): asked
        first, never done silently. True when nothing runs or the user said to stop them."""
        running = self.current.runs.running_ids() if self.current is not None else []
        if not running:
            return True
        names = ", ".join(self.current.runs.label_of(i) for i in running)
        box = QMessageBox(QMessageBox.Question, "Quit ScreenLab",
                          f"{len(running)} run{'s are' if len(running) > 1 else ' is'} still running ({names}).\n\n"
                          "Quit and stop it? The answers it has so far are kept, and Resume in the Runs tab goes on from "
                          "there later.", QMessageBox.NoButton, self.window)
        stop = box.addButton("Stop and quit", QMessageBox.DestructiveRole)
        box.addButton("Keep working", QMessageBox.RejectRole)
        box.setDefaultButton(box.buttons()[-1])
        self.quit_box = box
        box.exec()
        self.quit_box = None
        return box.clickedButton() is stop

    def close(self, keep_import: bool = False) -> None:
        window, opened = self.window, self.current
        if not keep_import:
            self.folders.stop()  # nothing writes into a project after it closed (what is in stays)
        if opened is None:
            return
        window.set_review_mode(False)
        window.connection_banner.stop()
        window.review_banner.show_for(None, 0, window.scene, {})
        window.evaluation.close()
        window.scene.reset()
        window.step_view.prefetch.clear()  # screens decoded ahead for this project
        window.left_tabs.clear()
        window.right_tabs.clear()
        window.judge.set_project(None)
        window.team.project_closed()
        window.a11y.set_workspace(None)
        window.task_panel.set_workspace(None)
        self.current = None  # from here the window shows no project (MainWindow.opened)
        opened.dispose()
        window.setWindowTitle("ScreenLab")
        window.project_shown(False)
        # counts, identity, OCR figures and a finished folder import's "N screenshots": about that project
        window.status.project_closed(keep_import=keep_import)

    def _changed(self, reason: Change) -> None:
        """The open project's one change channel, for the views the window holds across projects (the
        evaluation side subscribes itself: ui/evaluation_wiring.py)."""
        if reason is Change.WORKER:
            self.window.status.show_identity(self.current.project.identity, self.current.project.on_server)

    # the File menu ----------------------------------------------------------------------------------
    def choose(self) -> None:
        folder = QFileDialog.getExistingDirectory(self.window, "Open a ScreenLab project folder")
        if folder:
            self.open(folder)

    def open_server(self) -> None:
        from desktop_app.ui.server_dialog import ServerDialog

        dialog = ServerDialog(self.window.settings, self.window)
        dialog.chosen.connect(lambda url, media: self.open(url, media))
        dialog.createRequested.connect(self.new_server_project)
        dialog.open()

    def new_server_project(self, url: str, media: str, in_database: bool) -> None:
        try:
            api.init_project(url, media or None, media_in_database=in_database).close()
        except Exception as exc:  # a server that refuses, a database that already holds a project
            QMessageBox.warning(self.window, "New project on a server", redact(str(exc)))
            return
        self.open(url, media or None)

    def new(self) -> None:
        """Choose an empty folder or type the name of a new one (it is created)."""
        dialog = QFileDialog(self.window, "New project: choose an empty folder or type a new name")
        dialog.setAcceptMode(QFileDialog.AcceptSave)  # a name that does not exist yet is allowed
        dialog.setFileMode(QFileDialog.AnyFile)
        dialog.setOption(QFileDialog.DontConfirmOverwrite)
        dialog.setLabelText(QFileDialog.Accept, "Create")
        dialog.fileSelected.connect(self.create)
        self.new_project_dialog = dialog
        dialog.open()

    def create(self, folder: str) -> None:
        path = Path(folder)
        if path.exists() and (not path.is_dir() or is_project_folder(path) or any(path.iterdir())):
            QMessageBox.warning(self.window, "New project", f"{path} is not an empty folder; choose an empty one or "
                                                            "type a new name.")
            return
        try:
            api.init_project(path).close()
        except Exception as exc:
            QMessageBox.warning(self.window, "New project", str(exc))
            return
        self.open(path)

    def fill_recent(self, menu) -> None:
        from desktop_app.formats.folder_open import source_folder  # the importers' modules: when first asked

        menu.clear()
        for location in self.window.settings.recent_projects:
            folder = source_folder(location)  # a screenshots folder's own project: opening it again goes on
            if folder is not None and folder.is_dir():
                action = menu.addAction(f"{folder}  (screenshots folder)")
                action.triggered.connect(lambda _=False, folder=folder: self.folders.open(folder))
                continue
            action = menu.addAction(location)
            action.triggered.connect(lambda _=False, loc=location: self.open(loc))
        if not self.window.settings.recent_projects:
            menu.addAction("(none)").setEnabled(False)

    # File > Import and Export act on the open project (greyed out while none is: window_menus.NEEDS_PROJECT)
    def import_dialog(self) -> None:
        from desktop_app.ui.transfer_dialogs import ImportDialog  # the formats on first use (ADR 0057)

        opened = self.current
        dialog = ImportDialog(opened.project, self.window)
        dialog.exec()
        if dialog.report is not None:
            opened.browser.reload_choices()
            opened.browser.reload_classes()  # an import may add classes (its "Add the classes the file names")
            opened.properties.reload_classes()
            opened.browser.apply_filter()

    def export_dialog(self) -> None:
        from desktop_app.ui.transfer_dialogs import ExportDialog

        ExportDialog(self.current.project, self.current.browser.current_filter(), self.window).exec()
