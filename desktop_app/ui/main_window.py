"""The main window: sample browser (left), canvas and filmstrip (centre), properties and the other panels
(right), menus and the status bar.

The window lays these out and holds what the open project shows (project, ws, browser, properties, runs,
...); what they do together is wired by one object per concern, each in a module named for it:

    status        window_status.py       the status bar
    editing       canvas_editing.py      the Edit and Navigate keys on the canvas's boxes
    step_view     step_view.py           the workspace's step on screen, one selection for all views
    suggestions   suggestions_wiring.py  OCR's and the shown runs' suggestions
    evaluation    evaluation_wiring.py   runs, predictions on the canvas and beside it, the dashboard
    reviewing     review_mode.py         the verification queue
    projects      project_wiring.py      opening and closing projects, the File menu
    dialogs       window_dialogs.py      settings, help, the side windows and jobs the menus open
    team          team_menu.py           done / skip / reopen and the Team menu
    reports       report_wiring.py       Runs > Write report (what `screenlab report` writes)
    run_transfer  run_transfer_wiring.py Runs > Export run / Import run (a run as a folder)
    judge         judge/pages.py         the trajectory pages
    (actions)     window_menus.py        what each action does, its keys, the menus

No rules live here or there: edits go through the workspace to the core (ADR 0007, ADR 0024).
"""

from __future__ import annotations

import base64
import sys
from pathlib import Path

from PySide6.QtCore import QByteArray, Qt, QTimer
from PySide6.QtWidgets import QApplication, QDockWidget, QMainWindow, QVBoxLayout, QWidget

from desktop_app.api.projects import Project
from desktop_app.settings import Settings, annotator_name, save_settings
from desktop_app.ui import window_menus
from desktop_app.ui.a11y_panel import A11yPanel
from desktop_app.ui.browser import SampleBrowser
from desktop_app.ui.canvas.scene import AnnotationScene
from desktop_app.ui.canvas.view import CanvasView
from desktop_app.ui.canvas_editing import CanvasEditing
from desktop_app.ui.connection_banner import ConnectionBanner
from desktop_app.ui.evaluation_wiring import EvaluationWiring
from desktop_app.ui.fit import CurrentPageTabs, open_at
from desktop_app.ui.judge.pages import JudgePages
from desktop_app.ui.ocr_assist import OcrAssistant
from desktop_app.ui.open_project import OpenProject
from desktop_app.ui.project_wiring import ProjectWiring
from desktop_app.ui.properties import PropertiesPanel
from desktop_app.ui.render_service import RenderService
from desktop_app.ui.report_wiring import ReportWiring
from desktop_app.ui.review_mode import ReviewMode
from desktop_app.ui.run_transfer_wiring import RunTransferWiring
from desktop_app.ui.step_view import StepView
from desktop_app.ui.suggestions_wiring import SuggestionsWiring
from desktop_app.ui.task_panel import TaskPanel
from desktop_app.ui.team.review_banner import ReviewBanner
from desktop_app.ui.team_menu import TeamWiring
from desktop_app.ui.window_dialogs import WindowDialogs
from desktop_app.ui.window_status import WindowStatus
from desktop_app.ui.workspace import Workspace


class MainWindow(QMainWindow):
    def __init__(self, settings: Settings):
        super().__init__()
        self.settings = settings
        self._render_service: RenderService | None = None
        self.remove_data_with_projects: bool | None = None  # Help > About > Remove my data…: done once closed
        self.data_removed = None  # its report (uninstall.RemovalReport)
        self.setWindowTitle("ScreenLab")
        open_at(self, 1500, 900)
        self._lay_out()

        self.status = WindowStatus(self)
        # the status bar's labels tests and docs read
        self.saved_label, self.ocr_label, self.annotator_label = (self.status.saved, self.status.ocr,
                                                                  self.status.annotator)
        self.ocr = OcrAssistant(settings, self)
        self.step_view = StepView(self)
        self.editing = CanvasEditing(self)
        self.suggestions = SuggestionsWiring(self)
        self.evaluation = EvaluationWiring(self)
        self.reviewing = ReviewMode(self)
        self.projects = ProjectWiring(self)
        self.dialogs = WindowDialogs(self)
        self.team = TeamWiring(self)
        self.reports = ReportWiring(self)
        self.run_transfer = RunTransferWiring(self)
        self.actions_by_id = window_menus.make_actions(self)
        self.apply_shortcuts()
        self.menu_actions = window_menus.make_menus(self)  # the menus' own actions, by name
        (self.captions_action, self.model_suggestions_action, self.dashboard_action, self.observe_action,
         self.probes_action, self.profile_action, self.variants_action) = (
            self.menu_actions[k] for k in ("captions", "model_suggestions", "dashboard", "observe", "probes",
                                           "profile", "variants"))
        window_menus.project_shown(self, False)  # nothing to act on yet
        self.judge = JudgePages(self)  # Trajectories menu: label trajectories, judge agreement
        self.status.update_mode()
        self._restore_geometry()

    def _lay_out(self) -> None:
        self.scene = AnnotationScene(self)
        self.scene.set_palette(self.settings.palette)
        self.scene.show_suggestions = self.settings.show_suggestions
        self.scene.set_caption_mode(self.settings.box_captions)
        self.view = CanvasView(self.scene)
        self.filmstrip_host = QVBoxLayout()
        centre = QWidget()
        layout = QVBoxLayout(centre)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.connection_banner = ConnectionBanner(self)
        self.connection_banner.restored.connect(lambda: self.ws and self.ws.reload())
        layout.addWidget(self.connection_banner)
        self.review_banner = ReviewBanner(self)  # a reviewer's comment on returned work (ui/team_menu.py)
        layout.addWidget(self.review_banner)
        layout.addWidget(self.view, 1)
        layout.addLayout(self.filmstrip_host)
        self.setCentralWidget(centre)

        # Each side is one dock holding a tab widget: QMainWindow's own tabified docks left a
        # second, stale tab bar on screen (Qt 6.11).
        self.left = QDockWidget("Samples", self)
        self.left.setObjectName("samples-dock")
        self.right = QDockWidget("Properties", self)
        self.right.setObjectName("properties-dock")
        # each as small as the tab shown: a panel a tab away never holds the side wide (ADR 0035)
        self.left_tabs = CurrentPageTabs()
        self.right_tabs = CurrentPageTabs()
        for dock, tabs, area in ((self.left, self.left_tabs, Qt.LeftDockWidgetArea),
                                 (self.right, self.right_tabs, Qt.RightDockWidgetArea)):
            tabs.setDocumentMode(True)
            # five tabs in a narrow side: their names shortened ("Predic…"), none scrolled half out of view
            tabs.setElideMode(Qt.ElideRight)
            tabs.setUsesScrollButtons(False)
            dock.setWidget(tabs)
            # closable: View > Samples / Properties (their toggle actions) hide and show them; without it Qt
            # greys those toggles out
            dock.setFeatures(QDockWidget.DockWidgetMovable | QDockWidget.DockWidgetFloatable
                             | QDockWidget.DockWidgetClosable)
            self.addDockWidget(area, dock)
        # evaluation: runs beside the samples, each agent's answer beside the properties, and the
        # dashboard below the canvas when asked for (View > Dashboard): the canvas keeps its room
        self.dashboard_dock = QDockWidget("Dashboard", self)
        self.dashboard_dock.setObjectName("dashboard-dock")
        self.dashboard_dock.hide()  # not docked yet: it would sit on top of the window as a plain child
        # the side panels keep the window's full height and the dashboard docks below the canvas, between them:
        # under them too, its height and theirs added up past a 720 px screen (ADR 0035)
        self.setCorner(Qt.BottomLeftCorner, Qt.LeftDockWidgetArea)
        self.setCorner(Qt.BottomRightCorner, Qt.RightDockWidgetArea)
        self.resizeDocks([self.left, self.right], [400, 320], Qt.Horizontal)
        # the screen's accessibility tree: a tab beside the properties (tabbed when a project opens), brought
        # forward for the first screen that has one; linked with the canvas while it shows
        self.a11y = A11yPanel(self.scene, self.view, self)
        self.a11y.hide()
        self.task_panel = TaskPanel(self)  # a recorded task's evaluators and completion labels (a tab)
        self.task_panel.hide()
        self.a11y.set_selection_provider(lambda: self.selected_ids())
        self.a11y.wanted.connect(self.show_a11y)
        self.a11y.message.connect(self.statusBar().showMessage)  # text, timeout in ms

    # the open project and everything that shows it (ui/open_project.py): made by `projects` on open and
    # disposed as one unit on close; these read it, None while no project is open (read-only: no part of
    # the window can set one, or leave one behind)
    @property
    def opened(self) -> OpenProject | None:
        projects = getattr(self, "projects", None)  # None while the window is being built
        return projects.current if projects is not None else None

    @property
    def project(self) -> Project | None:
        return self.opened.project if self.opened else None

    @property
    def ws(self) -> Workspace | None:
        return self.opened.ws if self.opened else None

    @property
    def browser(self) -> SampleBrowser | None:
        return self.opened.browser if self.opened else None

    @property
    def properties(self) -> PropertiesPanel | None:
        return self.opened.properties if self.opened else None

    @property
    def filmstrip(self):
        return self.opened.filmstrip if self.opened else None

    @property
    def grid(self):
        """The thumbnail grid of the samples (a tab beside the list)."""
        return self.opened.grid if self.opened else None

    @property
    def runs(self):
        return self.opened.runs if self.opened else None

    @property
    def prediction_panel(self):
        return self.opened.prediction_panel if self.opened else None

    @property
    def dashboard(self):
        return self.opened.dashboard if self.opened else None

    # side windows about the open project, while open (window_dialogs.py opens them)
    def _beside(self, name: str):
        return self.opened.beside(name) if self.opened else None

    capability_view = property(lambda self: self._beside("capability_view"))
    probe_editor = property(lambda self: self._beside("probe_editor"))
    observation_view = property(lambda self: self._beside("observation_view"))
    vaf_window = property(lambda self: self._beside("vaf_window"))

    # what other parts and the tests ask of the window ----------------------------------------------
    def annotator_name(self) -> str:
        """Who works in this window: the open project's user (on a server, the login), else Settings' name."""
        return self.project.user if self.project is not None else annotator_name(self.settings)

    def apply_shortcuts(self) -> None:
        window_menus.apply_shortcuts(self)

    def project_shown(self, on: bool) -> None:
        """A project opened or closed: the actions on one become usable or greyed out."""
        window_menus.project_shown(self, on)

    def selected_ids(self) -> list[int]:
        return self.editing.selected_ids()

    def open_project(self, location: str | Path, media: str | None = None) -> bool:
        return self.projects.open(location, media)

    def close_project(self) -> None:
        self.projects.close()

    def open_server_project(self) -> None:
        self.projects.open_server()

    def new_project(self) -> None:
        self.projects.new()

    @property
    def new_project_dialog(self):
        return self.projects.new_project_dialog

    def create_project(self, folder: str) -> None:
        self.projects.create(folder)

    def classes_dialog(self) -> None:
        self.editing.classes_dialog()

    def go_step(self, delta: int) -> None:
        self.editing.go_step(delta)

    @property
    def review_mode(self) -> bool:
        return self.reviewing.on

    def set_review_mode(self, on: bool) -> None:
        self.reviewing.set(on)

    @property
    def review(self):
        """The verification panel for the current sample: ambiguous tasks have their own."""
        return self.reviewing.panel

    @property
    def _review_stack(self):
        return self.reviewing.stack

    def show_a11y(self) -> None:
        if self.right_tabs.indexOf(self.a11y) >= 0:
            self.right.show()
            self.right_tabs.setCurrentWidget(self.a11y)

    def show_captions(self, on: bool) -> None:
        self.view.show_captions = on
        self.view.viewport().update()

    def render_service(self) -> RenderService:
        """One warm browser for the window (re-render in the queue, page variants), started when first asked."""
        if self._render_service is None:
            self._render_service = RenderService(self.settings.browser_path)
        return self._render_service

    def stop_render_service(self) -> None:
        if self._render_service is not None:
            self._render_service.shutdown()
            self._render_service = None

    # window state -----------------------------------------------------------
    def _restore_geometry(self) -> None:
        if self.settings.window_geometry:
            self.restoreGeometry(QByteArray(base64.b64decode(self.settings.window_geometry)))
        if self.settings.window_state:
            self.restoreState(QByteArray(base64.b64decode(self.settings.window_state)))

    def closeEvent(self, event) -> None:
        if not self.projects.may_quit():  # a run under way: asked first
            event.ignore()
            return
        # commit a goal being typed: focus-out is what saves it
        focused = QApplication.focusWidget()
        if focused is not None:
            focused.clearFocus()
        self.ocr.shutdown()
        if self.runs is not None:
            self.runs.shutdown()
        if self._render_service is not None:
            self._render_service.shutdown()
        self.settings.window_geometry = base64.b64encode(bytes(self.saveGeometry())).decode()
        self.settings.window_state = base64.b64encode(bytes(self.saveState())).decode()
        save_settings(self.settings)
        self.close_project()
        super().closeEvent(event)
        if self.remove_data_with_projects is not None:  # Help > About > Remove my data…, now nothing is open
            from desktop_app.uninstall import plan_removal, remove_data

            self.data_removed = remove_data(plan_removal(projects=self.remove_data_with_projects))
            print(f"ScreenLab: {self.data_removed.summary()}", file=sys.stderr)

    def close_and_remove_data(self, projects: bool) -> None:
        """Close the window, then remove this user's data (with the projects in the data folder when asked)."""
        self.remove_data_with_projects = projects
        if not self.close():  # a run under way and the user chose to stay
            self.remove_data_with_projects = None

    def showEvent(self, event) -> None:
        super().showEvent(event)
        QTimer.singleShot(0, self.view.fit)
