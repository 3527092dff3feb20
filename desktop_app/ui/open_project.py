"""The project open in the window, as one object: made when a project opens, disposed as one unit when it
closes. It owns the project (the store's handle), the workspace (the shown sample and its undo stack), the
sample list and its thumbnails, the properties, the filmstrip, the runs, the answers' cards and the
dashboard: everything that shows this project and nothing else. The window holds one reference to it
(`MainWindow.opened`), so closing leaves no field pointing at an old project, and no wiring object assigns
the window's per-project fields (there are none to assign).

Changes that several views show go through one channel, `changed(Change)`, with an enumerated reason
(as CVAT's canvas model does with `notify(UpdateReasons.X)`): the views subscribe and redraw what that
reason touches, rather than each caller knowing every view that shows it.
"""

from __future__ import annotations

import enum
import logging

import shiboken6
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from desktop_app.api.projects import Project
from desktop_app.settings import Settings, save_settings
from desktop_app.ui.browser import SampleBrowser
from desktop_app.ui.eval.prediction_panel import PredictionPanel
from desktop_app.ui.eval.runs_panel import RunsPanel
from desktop_app.ui.filmstrip import Filmstrip
from desktop_app.ui.properties import PropertiesPanel
from desktop_app.ui.tasks import after_edit_runner
from desktop_app.ui.thumbnail_grid import ThumbnailGrid
from desktop_app.ui.workspace import Workspace

log = logging.getLogger(__name__)


def _remember(settings: Settings, **values) -> None:
    """A choice the window keeps for next time (the list's columns, the New run dialog's last choices): saved
    at once, so a window that is killed keeps it too."""
    for name, value in values.items():
        setattr(settings, name, value)
    save_settings(settings)


class Change(enum.Enum):
    """Why the open project's views should look again."""

    VERDICTS = "verdicts"  # the agents' verdicts were judged again (after an edit, a finished run)
    WORKER = "worker"  # who works in this window changed name (Settings, on a folder project)
    CLOSING = "closing"  # the project is about to be disposed: views drop what they show of it


class OpenProject(QObject):
    changed = Signal(object)  # a Change

    def __init__(self, project: Project, settings: Settings, parent: QObject):
        super().__init__(parent)
        self.project = project
        # what follows an edit (re-scoring) runs off the UI thread; the views look again when it ends
        project.run_after_edit = after_edit_runner(self, lambda: self.notify(Change.VERDICTS))
        self.ws = Workspace(project, project.user, self)
        self.browser = SampleBrowser(project, annotator=self.ws.actor, columns=settings.list_columns)
        self.browser.columnsChosen.connect(lambda names: _remember(settings, list_columns=names))
        self.properties = PropertiesPanel(self.ws, settings.palette)
        self.filmstrip = Filmstrip(self.ws)
        # the same samples as thumbnails: the list's own model and selection, so either one moves the other
        self.grid = ThumbnailGrid(self.browser, settings.palette)
        self.runs = RunsPanel(project)
        self.runs.last_choices = dict(settings.new_run)  # the New run dialog offers the last choices again
        self.runs.runChosen.connect(lambda choices: _remember(settings, new_run=choices))
        self.runs.browser_path = lambda: settings.browser_path  # read when chosen: Settings may change it meanwhile
        self.prediction_panel = PredictionPanel()
        self.dashboard = None  # made when first shown (make_dashboard): pyqtgraph is slow to import
        self.side_windows: dict[str, QWidget] = {}  # windows beside the main one that read this project
        self.disposed = False

    def make_dashboard(self):
        if self.dashboard is None:
            from desktop_app.ui.eval.dashboard import DashboardWidget

            self.dashboard = DashboardWidget()
        return self.dashboard

    def keep_beside(self, name: str, window: QWidget) -> None:
        """A window of its own about this project (page variants, capability profile, ...): closed with it."""
        self.side_windows[name] = window

    def beside(self, name: str) -> QWidget | None:
        """That side window while the user has not closed it."""
        window = self.side_windows.get(name)
        return window if window is not None and shiboken6.isValid(window) else None

    def notify(self, reason: Change) -> None:
        if not self.disposed:
            self.changed.emit(reason)

    def settings_changed(self, settings: Settings) -> None:
        """Settings were saved: the views' palette, and on a folder project who works (Settings' name)."""
        from desktop_app.settings import annotator_name

        self.grid.set_palette(settings.palette)
        self.properties.palette = settings.palette
        self.properties.refresh()
        self.worker_renamed(annotator_name(settings))

    def worker_renamed(self, name: str) -> None:
        """Settings changed the annotator's name (a folder project: on a server the login is who works)."""
        if self.project.on_server or name == self.project.local_user:
            return
        self.project.local_user = name
        self.ws.actor = self.project.user
        self.browser.set_annotator(self.ws.actor)
        self.notify(Change.WORKER)

    def dispose(self) -> None:
        """Everything of this project goes: its runs stop (writing what they have), its views are deleted,
        the connection is closed. Called once; the window then holds nothing of it."""
        if self.disposed:
            return
        self.notify(Change.CLOSING)
        self.disposed = True
        self.ws.end_visit()  # the time on the last screen counts too
        self.runs.shutdown()
        self.grid.shutdown()  # its decodes in flight are dropped, not delivered to a deleted widget
        self.ws.undo_stack.clear()
        for name in list(self.side_windows):
            if self.beside(name) is not None:
                self.side_windows[name].close()  # it reads and writes this project
        self.side_windows.clear()
        for widget in (self.grid, self.browser, self.properties, self.filmstrip, self.runs, self.prediction_panel,
                       self.dashboard):
            if widget is not None:
                widget.setParent(None)  # off the window's docks now, deleted when the event loop next runs
                widget.deleteLater()
        self.ws.deleteLater()
        self.project.close()
        self.deleteLater()
