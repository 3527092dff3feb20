"""The main window: sample browser (left), canvas and filmstrip (centre),
properties (right), menus, keyboard actions and the status bar."""

from __future__ import annotations

import base64
import json
import math
from pathlib import Path

import shiboken6
from PySide6.QtCore import QByteArray, QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QAction, QImageReader, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_app import api
from desktop_app.evaluation.rescore import rescore
from desktop_app.evaluation.step_predictions import step_prediction_rows
from desktop_app.prelabel import proposals_for_step
from desktop_app.secrets import redact
from desktop_app.settings import Settings, annotator_name, save_settings
from desktop_app.store.label_set import labels
from desktop_app.store.models import ACTION_TYPES
from desktop_app.store.project import Project, ProjectError, is_project_folder
from desktop_app.store.queries import EpisodeFilter, last_edited_by
from desktop_app.ui.a11y_panel import A11yPanel
from desktop_app.ui.browser import SampleBrowser
from desktop_app.ui.canvas.scene import AnnotationScene
from desktop_app.ui.canvas.suggestions import Suggestion
from desktop_app.ui.canvas.view import CanvasView
from desktop_app.ui.capability_view import CapabilityView
from desktop_app.ui.commands import NUDGE_ID
from desktop_app.ui.connection_banner import ConnectionBanner
from desktop_app.ui.eval.background import run_in_background
from desktop_app.ui.eval.dashboard import DashboardWidget
from desktop_app.ui.eval.prediction_layer import marks_from_rows
from desktop_app.ui.eval.prediction_panel import PredictionPanel
from desktop_app.ui.eval.runs_panel import RunsPanel
from desktop_app.ui.filmstrip import Filmstrip
from desktop_app.ui.grounding_review import GroundingReviewPanel
from desktop_app.ui.judge.pages import JudgePages
from desktop_app.ui.navi_review import NaviReviewPanel
from desktop_app.ui.observation_view import ObservationView
from desktop_app.ui.ocr_assist import OcrAssistant
from desktop_app.ui.probe_editor import ProbeEditor
from desktop_app.ui.properties import PropertiesPanel
from desktop_app.ui.render_service import RenderService
from desktop_app.ui.review_panel import ReviewPanel
from desktop_app.ui.settings_dialog import SettingsDialog, ShortcutsDialog
from desktop_app.ui.shortcuts import ACTIONS, NUDGES, WINDOW_GROUPS, keys_for, review_keys
from desktop_app.ui.task_panel import TaskPanel
from desktop_app.ui.team_menu import TeamWiring
from desktop_app.ui.theme import apply_theme
from desktop_app.ui.transfer_dialogs import ExportDialog, ImportDialog
from desktop_app.ui.vaf.window import VafWindow
from desktop_app.ui.workspace import Workspace

CLIPBOARD_KEY = "screenlab/boxes"
BOX_KEYS = ("x1", "y1", "x2", "y2", "label", "action_type", "element_text", "type_text", "meta")
# keys that mean something else in lists and text fields
CANVAS_SCOPED = {"edit.next_box", "edit.prev_box", "ocr.accept", *NUDGES}
DUPLICATE_OFFSET = 10


def boxes_from_clipboard(text: str) -> list[dict] | None:
    """Boxes copied by any ScreenLab window; None for anything else on the clipboard (the
    clipboard is shared with every program, so its content is checked like a file's)."""
    if not text.lstrip().startswith("{") or len(text) > 10_000_000:
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    boxes = data.get(CLIPBOARD_KEY) if isinstance(data, dict) else None
    if not isinstance(boxes, list) or not all(isinstance(b, dict) for b in boxes):
        return None
    valid = []
    for box in boxes:
        coords = [box.get(k) for k in ("x1", "y1", "x2", "y2")]
        if all(c is None for c in coords):
            pass  # a box without a place (text-only target)
        elif not all(isinstance(c, int | float) and not isinstance(c, bool) and math.isfinite(c) for c in coords) \
                or coords[0] > coords[2] or coords[1] > coords[3]:
            return None
        # any label name: the store refuses one this project lacks, and says which it has
        if not isinstance(box.get("label"), str) or not box["label"] or box.get("action_type", "click") not in \
                ACTION_TYPES:
            return None
        texts = [box.get(k, "") for k in ("element_text", "type_text")]
        if not all(isinstance(t, str) for t in texts) or not isinstance(box.get("meta", {}), dict):
            return None
        valid.append({"x1": coords[0], "y1": coords[1], "x2": coords[2], "y2": coords[3],
                      "label": box["label"], "action_type": box.get("action_type", "click"),
                      "element_text": texts[0], "type_text": texts[1], "meta": box.get("meta", {})})
    return valid


class MainWindow(QMainWindow):
    def __init__(self, settings: Settings):
        super().__init__()
        self.settings = settings
        self.project: Project | None = None
        self.ws: Workspace | None = None
        self.browser: SampleBrowser | None = None
        self.properties: PropertiesPanel | None = None
        self._clipboard: list[dict] = []
        self.review_mode = False
        self._review_panels: dict[str, QWidget] = {}  # "screens" and "navi" panels while reviewing
        self._review_stack: QStackedWidget | None = None
        self._render_service: RenderService | None = None
        self.setWindowTitle("ScreenLab")
        self.resize(1500, 900)

        self.scene = AnnotationScene(self)
        self.scene.set_palette(settings.palette)
        self.scene.show_suggestions = settings.show_suggestions
        self.scene.set_caption_mode(settings.box_captions)
        self.view = CanvasView(self.scene)
        self.filmstrip_host = QVBoxLayout()
        centre = QWidget()
        layout = QVBoxLayout(centre)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.connection_banner = ConnectionBanner(self)
        self.connection_banner.restored.connect(lambda: self.ws and self.ws.reload())
        layout.addWidget(self.connection_banner)
        layout.addWidget(self.view, 1)
        layout.addLayout(self.filmstrip_host)
        self.setCentralWidget(centre)
        self.filmstrip: Filmstrip | None = None

        # Each side is one dock holding a tab widget: QMainWindow's own tabified docks left a
        # second, stale tab bar on screen (Qt 6.11).
        self.left = QDockWidget("Samples", self)
        self.left.setObjectName("samples-dock")
        self.right = QDockWidget("Properties", self)
        self.right.setObjectName("properties-dock")
        self.left_tabs = QTabWidget()
        self.right_tabs = QTabWidget()
        self.left_tabs.setDocumentMode(True)
        self.right_tabs.setDocumentMode(True)
        self.left.setWidget(self.left_tabs)
        self.right.setWidget(self.right_tabs)
        for dock, area in ((self.left, Qt.LeftDockWidgetArea), (self.right, Qt.RightDockWidgetArea)):
            dock.setFeatures(QDockWidget.DockWidgetMovable | QDockWidget.DockWidgetFloatable)
            self.addDockWidget(area, dock)
        # evaluation: runs beside the samples, each agent's answer beside the properties, and the
        # dashboard below the canvas when asked for (View > Dashboard): the canvas keeps its room
        self.dashboard_dock = QDockWidget("Dashboard", self)
        self.dashboard_dock.setObjectName("dashboard-dock")
        self.dashboard_dock.hide()  # not docked yet: it would sit on top of the window as a plain child
        self._dashboard_added = False  # docked only when first shown
        self.resizeDocks([self.left, self.right], [400, 320], Qt.Horizontal)
        # the screen's accessibility tree: a tab beside the properties (tabbed when a project opens), brought
        # forward for the first screen that has one; linked with the canvas while it shows
        self.a11y = A11yPanel(self.scene, self.view, self)
        self.a11y.hide()
        self.capability_view: CapabilityView | None = None  # the profile window, when open
        self.probe_editor: ProbeEditor | None = None  # the knowledge-probe editor, when open
        self.observation_view: ObservationView | None = None  # what the agent reads of a screen, when open
        self.vaf_window: VafWindow | None = None  # Variants > Page variants…, when open
        self.task_panel = TaskPanel(self)  # a recorded task's evaluators and completion labels (a tab)
        self.task_panel.hide()
        self.a11y.set_selection_provider(lambda: self.selected_ids())
        self.a11y.wanted.connect(self.show_a11y)
        self.a11y.message.connect(self.statusBar().showMessage)  # text, timeout in ms
        self.runs: RunsPanel | None = None
        self.dashboard: DashboardWidget | None = None
        self.prediction_panel: PredictionPanel | None = None

        self._make_status_bar()
        self.actions_by_id: dict[str, QAction] = {}
        self._make_actions()
        self._make_menus()
        self.judge = JudgePages(self)  # Trajectories menu: label trajectories, judge agreement

        self.ocr = OcrAssistant(settings, self)
        self.ocr.suggestionsReady.connect(self._suggestions_ready)
        self._ocr_items: list = []  # the current screen's OCR suggestions, to add a run's answers to
        self.ocr.status.connect(self.ocr_label.setText)
        self.ocr.busy.connect(self._ocr_busy)
        self.scene.suggestionActivated.connect(lambda i: self._accept_suggestions([i]))
        self.scene.boxDrawn.connect(self._box_drawn)
        self.scene.boxesChanged.connect(self._boxes_moved)
        self.scene.selectionChanged.connect(self._canvas_selection)
        self.scene.cursorMoved.connect(self._cursor_moved)
        self.view.zoomChanged.connect(lambda z: self.zoom_label.setText(f"{z * 100:.0f} %"))
        self._restore_geometry()

    # status bar -------------------------------------------------------------
    def _make_status_bar(self) -> None:
        bar = self.statusBar()
        self.position_label = QLabel("x -, y -")
        self.zoom_label = QLabel("100 %")
        self.counts_label = QLabel()
        self.mode_label = QLabel()
        self.saved_label = QLabel()
        self.annotator_label = QLabel()
        self.ocr_label = QLabel()
        self.ocr_progress = QProgressBar()
        self.ocr_progress.setRange(0, 0)  # busy indicator: one screen takes about a second
        self.ocr_progress.setMaximumWidth(80)
        self.ocr_cancel = QPushButton("Cancel OCR")
        self.ocr_cancel.setFlat(True)
        self.ocr_cancel.clicked.connect(lambda: self.ocr.cancel())
        for widget in (self.ocr_progress, self.ocr_cancel):
            widget.hide()
        for widget in (self.ocr_label, self.ocr_progress, self.ocr_cancel, self.counts_label, self.mode_label,
                       self.position_label, self.zoom_label, self.saved_label, self.annotator_label):
            bar.addPermanentWidget(widget)
        self._update_mode_label()

    def _update_mode_label(self) -> None:
        mode = "Reviewing" if self.review_mode else "Drawing" if self.scene.mode == "draw" else "Select"
        self.mode_label.setText(f"{mode} · next box: {self.scene.next_label}")

    def _set_saved(self, ok: bool, message: str = "") -> None:
        if ok:
            self.saved_label.setStyleSheet("color: #2e8b57")
            self.saved_label.setText("All changes saved")
        else:
            self.saved_label.setStyleSheet("color: #d9534f; font-weight: bold")
            self.saved_label.setText("Last change NOT saved")
            self.statusBar().showMessage(message, 15000)

    # actions ----------------------------------------------------------------
    def _make_actions(self) -> None:
        self.team = TeamWiring(self)
        handlers = {
            "file.open": self.choose_project, "file.new": self.new_project, "file.import": self.import_dialog,
            "file.export": self.export_dialog, "file.quit": self.close,
            "edit.undo": lambda: self.ws and self.ws.undo_stack.undo(),
            "edit.redo": lambda: self.ws and self.ws.undo_stack.redo(),
            "edit.draw": self.toggle_draw, "edit.select_mode": self.escape,
            "edit.delete": self.delete_selected, "edit.duplicate": self.duplicate_selected,
            "edit.copy": self.copy_selected, "edit.paste": self.paste,
            "edit.select_all": lambda: self.scene.select_ids(self.scene.items_by_id),
            "edit.next_box": lambda: self.cycle_box(1), "edit.prev_box": lambda: self.cycle_box(-1),
            "label.gold": lambda: self.set_label("gold"), "label.distracted": lambda: self.set_label("distracted"),
            "label.other": lambda: self.set_label("other"),
            **{f"label.{n}": lambda _checked=False, n=n: self.set_own_label(n) for n in range(4, 10)},
            "nav.prev": lambda: self.browser and self.browser.step(-1),
            "nav.next": lambda: self.browser and self.browser.step(1),
            "nav.prev_step": lambda: self.go_step(-1), "nav.next_step": lambda: self.go_step(1),
            "nav.search": lambda: self.browser and self.browser.search.setFocus(),
            "work.done": self.team.done_and_next, "work.skip": self.team.skip_and_next,
            "work.reopen": self.team.reopen,
            "edit.snap": self.snap_selected, "ocr.toggle": self.toggle_suggestions,
            "ocr.run": lambda: self.ocr.run(refresh=True), "ocr.accept": self.accept_suggestions,
            "view.zoom_in": self.view.zoom_in, "view.zoom_out": self.view.zoom_out, "view.fit": self.view.fit,
            "view.actual": self.view.actual_size, "help.shortcuts": self.show_shortcuts,
            "review.mode": self.toggle_review_mode,
            "review.accept": lambda: self.review and self.review.accept_current(),
            "review.reject": lambda: self.review and self.review.reject_current(),
            "review.edit": lambda: self.review and self.review.focus_texts(),
            "review.apply": lambda: self.review and self.review.apply_texts(),
            "review.regenerate": lambda: self.review and self.review.regenerate(),
            "judge.label": lambda: self.judge.toggle("label"),
            "judge.agreement": lambda: self.judge.toggle("agreement"),
            "tree.snap": self.a11y.snap_selected, "tree.promote": self.a11y.promote_selected,
            "tree.flag": self.a11y.flag_current,
        }
        for direction, (dx, dy) in NUDGES.items():
            handlers[direction] = lambda _checked=False, dx=dx, dy=dy: self.nudge(dx, dy)
        for spec in ACTIONS:
            action = QAction(spec.text, self)
            action.triggered.connect(handlers[spec.id])
            if spec.id in CANVAS_SCOPED:
                action.setShortcutContext(Qt.WidgetWithChildrenShortcut)
                self.view.addAction(action)
            else:
                action.setShortcutContext(Qt.WindowShortcut)
                self.addAction(action)
            self.actions_by_id[spec.id] = action
        self.apply_shortcuts()

    def annotator_name(self) -> str:
        return annotator_name(self.settings)

    def apply_shortcuts(self) -> None:
        """In the verification queue the review keys (Y, N, E, G, Ctrl+Enter) take over; elsewhere they are off.
        While a trajectory page hides the canvas, only the window's own keys (File, Help, Trajectories) stay:
        Ctrl+Z or Ctrl+D must not edit boxes nobody sees."""
        taken = review_keys(self.settings.shortcuts) if self.review_mode else set()
        judge = getattr(self, "judge", None)
        canvas_hidden = judge is not None and judge.current() != "annotate"
        for spec in ACTIONS:
            keys = keys_for(spec.id, self.settings.shortcuts)
            if spec.mode == "review":
                keys = keys if self.review_mode else ()
            else:
                keys = tuple(k for k in keys if k.lower() not in taken)
            if canvas_hidden and spec.group not in WINDOW_GROUPS:
                keys = ()
            self.actions_by_id[spec.id].setShortcuts([QKeySequence(k) for k in keys])

    def _make_menus(self) -> None:
        a = self.actions_by_id
        menu = self.menuBar().addMenu("&File")
        for key in ("file.open", "file.new"):
            menu.addAction(a[key])
        menu.addAction("Open project on a server…").triggered.connect(self.open_server_project)
        self.recent_menu = menu.addMenu("Recent projects")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        menu.addSeparator()
        menu.addAction(a["file.import"])
        menu.addAction(a["file.export"])
        menu.addSeparator()
        menu.addAction(a["file.quit"])
        menu = self.menuBar().addMenu("&Edit")
        for key in ("edit.undo", "edit.redo", None, "edit.draw", "edit.select_mode", "edit.delete",
                    "edit.duplicate", "edit.copy", "edit.paste", "edit.select_all", "edit.snap", None,
                    "label.gold", "label.distracted", "label.other", *(f"label.{n}" for n in range(4, 10))):
            menu.addSeparator() if key is None else menu.addAction(a[key])
        move = menu.addMenu("Move selected boxes")  # the arrow keys, findable like every other key
        for key in NUDGES:
            move.addAction(a[key])
        menu.addSeparator()
        menu.addAction("Labels of this project…").triggered.connect(self.labels_dialog)
        settings_action = menu.addAction("Settings...")
        settings_action.triggered.connect(self.settings_dialog)
        llm_action = menu.addAction("LLM endpoint and browser...")
        llm_action.triggered.connect(lambda: self.settings_dialog(tab="LLM && browser"))
        menu = self.menuBar().addMenu("&View")
        for key in ("view.zoom_in", "view.zoom_out", "view.fit", "view.actual"):
            menu.addAction(a[key])
        self.captions_action = menu.addAction("Show captions")
        self.captions_action.setCheckable(True)
        self.captions_action.setChecked(True)
        self.captions_action.toggled.connect(self._toggle_captions)
        menu.addSeparator()
        ocr_toggle = a["ocr.toggle"]
        ocr_toggle.setCheckable(True)
        ocr_toggle.setChecked(self.scene.show_suggestions)
        menu.addAction(ocr_toggle)
        menu.addAction(a["ocr.run"])
        menu.addAction(a["ocr.accept"])
        self.model_suggestions_action = menu.addAction("Suggestions from the shown runs' answers")
        self.model_suggestions_action.setCheckable(True)
        self.model_suggestions_action.setToolTip("Pre-labelling: run your grounding model on the samples (Runs > "
                                                 "New run…), tick its run, and its answers are offered here as "
                                                 "boxes to accept (Enter) or dismiss (Backspace)")
        self.model_suggestions_action.toggled.connect(lambda _on: self._suggestions_ready(self._ocr_items))
        menu.addSeparator()
        menu.addAction(self.left.toggleViewAction())
        menu.addAction(self.right.toggleViewAction())
        self.dashboard_action = menu.addAction("Dashboard")
        self.dashboard_action.setCheckable(True)
        self.dashboard_action.toggled.connect(self.show_dashboard)
        menu = self.menuBar().addMenu("&Navigate")
        for key in ("nav.prev", "nav.next", "nav.prev_step", "nav.next_step", "nav.search",
                    "edit.next_box", "edit.prev_box"):
            menu.addAction(a[key])
        menu = self.menuBar().addMenu("&Capability")  # recorded app screens (Sphinx)
        menu.addAction("Show accessibility tree").triggered.connect(self.show_a11y)
        self.observe_action = menu.addAction("What the agent reads…")
        self.observe_action.triggered.connect(self.show_observation)
        menu.addSeparator()
        for key in ("tree.snap", "tree.promote", "tree.flag"):
            menu.addAction(a[key])
        menu.addSeparator()
        menu.addAction("Make grounding tasks from recorded tasks").triggered.connect(self.extract_grounding)
        menu.addAction("Write grounding instructions with the LLM").triggered.connect(self.write_instructions)
        self.probes_action = menu.addAction("Knowledge probes…")
        self.probes_action.triggered.connect(self.show_probes)
        menu.addSeparator()
        self.profile_action = menu.addAction("Capability profile…")
        self.profile_action.triggered.connect(self.show_capability_profile)
        menu = self.menuBar().addMenu("&Review")
        review_toggle = a["review.mode"]
        review_toggle.setCheckable(True)
        menu.addAction(review_toggle)
        menu.addSeparator()
        for key in ("review.accept", "review.reject", "review.edit", "review.apply", "review.regenerate"):
            menu.addAction(a[key])
        self.team.add_menu(self.menuBar())
        menu = self.menuBar().addMenu("&Variants")  # page variants and browsing agents (VAF)
        self.variants_action = menu.addAction("Page variants…")
        self.variants_action.setToolTip("Restyle one item of a web page, verify the variants, see how browsing "
                                        "agents react")
        self.variants_action.triggered.connect(self.show_page_variants)
        menu = self.menuBar().addMenu("&Help")
        menu.addAction(a["help.shortcuts"])
        welcome = menu.addAction("Welcome...")
        welcome.triggered.connect(self._welcome)
        about = menu.addAction("About ScreenLab")
        about.triggered.connect(self._about)

    def extract_grounding(self) -> None:
        """One pending grounding task per distinct element action of the recorded tasks (off the UI thread)."""
        if self.project is None:
            return
        project = self.project
        self.statusBar().showMessage("Making grounding tasks…")
        run_in_background(self, lambda: api.extract_grounding_tasks(project),
                          lambda report: self._grounding_done(report.summary()),
                          lambda exc: self.statusBar().showMessage(f"Could not make grounding tasks: {exc}", 10000))

    def write_instructions(self) -> None:
        """The LLM of Settings writes the instruction of every grounding task without one (off the UI thread)."""
        from desktop_app.synth.llm import LlmEndpoint

        endpoint = LlmEndpoint.from_settings(self.settings)
        if self.project is None:
            return
        if endpoint is None:
            self.statusBar().showMessage("Set an LLM endpoint first (Edit > LLM endpoint and browser)", 10000)
            return
        project = self.project
        self.statusBar().showMessage(f"Writing grounding instructions with {endpoint.model}…")
        run_in_background(self, lambda: api.write_grounding_instructions(project, endpoint),
                          lambda report: self._grounding_done(report.summary()),
                          lambda exc: self.statusBar().showMessage(f"Could not write instructions: {exc}", 10000))

    def _grounding_done(self, text: str) -> None:
        self.statusBar().showMessage(text + " · Review > Verification queue shows them", 10000)
        if self.browser is not None:
            self.browser.refresh()
        if self.ws is not None:
            self.ws.reload()  # the job wrote goals: the episode on screen must not keep a stale copy

    def _open_beside(self, attr: str, make) -> None:
        """A window of its own beside the main one (not modal), closed and freed by the user."""
        window = make()
        window.setAttribute(Qt.WA_DeleteOnClose)
        window.show()
        setattr(self, attr, window)

    def show_observation(self) -> None:
        if self.ws is None or self.ws.step is None:
            self.statusBar().showMessage("Select a screen first", 4000)
            return
        self._open_beside("observation_view", lambda: ObservationView(self.project, self.ws.step.id, self))

    def show_probes(self) -> None:
        if self.project is None or self.ws is None:
            self.statusBar().showMessage("Open a project first", 4000)
            return
        self._open_beside("probe_editor", lambda: ProbeEditor(self.project, self.ws.actor, self))

    def show_capability_profile(self) -> None:
        if self.project is None:
            self.statusBar().showMessage("Open a project first", 4000)
            return
        self._open_beside("capability_view", lambda: CapabilityView(self.project, self))

    def show_page_variants(self) -> None:
        if self.project is None:
            self.statusBar().showMessage("Open a project first", 4000)
            return
        if self.vaf_window is not None and shiboken6.isValid(self.vaf_window):
            self.vaf_window.raise_()  # one per project: a study being generated keeps its progress bar
            self.vaf_window.activateWindow()
            return
        self._open_beside("vaf_window", lambda: VafWindow(self.project, self.render_service,
                                                          self.annotator_name(), self))

    def show_a11y(self) -> None:
        if self.right_tabs.indexOf(self.a11y) >= 0:
            self.right.show()
            self.right_tabs.setCurrentWidget(self.a11y)

    def _toggle_captions(self, on: bool) -> None:
        self.view.show_captions = on
        self.view.viewport().update()

    # projects ---------------------------------------------------------------
    def open_project(self, location: str | Path, media: str | None = None) -> bool:
        media = media or self.settings.server_media.get(str(location))  # a server project from Recent
        try:
            project = Project.open(location, media)
        except (ProjectError, Exception) as exc:  # a bad folder or database must not take the window down
            QMessageBox.warning(self, "Cannot open project", redact(f"{location}\n\n{exc}"))
            return False
        self.close_project()
        self.project = project
        self.ws = Workspace(project, self.annotator_name(), self)
        self.scene.set_own_labels(labels(project.engine)[3:])
        self.browser = SampleBrowser(project, annotator=self.ws.actor)
        self.properties = PropertiesPanel(self.ws, self.settings.palette)
        self.filmstrip = Filmstrip(self.ws)
        self.left_tabs.insertTab(0, self.browser, "Samples")
        self.right_tabs.insertTab(0, self.properties, "Properties")
        self.left_tabs.setCurrentIndex(0)
        self.right_tabs.setCurrentIndex(0)
        self.filmstrip_host.addWidget(self.filmstrip)
        self.ws.stepLoaded.connect(self._show_step)
        self.ws.boxesPut.connect(self._boxes_put)
        self.ws.boxesRemoved.connect(self._boxes_removed)
        self.ws.written.connect(lambda: self._set_saved(True))
        self.ws.written.connect(self._after_write)
        self.ws.writeFailed.connect(self._write_failed)
        self.ws.connectionLost.connect(lambda message: self.connection_banner.lost(project, message))
        self.ws.navigated.connect(self.browser.select_episode)
        self.ws.stateChanged.connect(lambda *_: self.browser and self.browser.reload_queues())
        self.ws.undo_stack.canUndoChanged.connect(self.actions_by_id["edit.undo"].setEnabled)
        self.ws.undo_stack.canRedoChanged.connect(self.actions_by_id["edit.redo"].setEnabled)
        self.actions_by_id["edit.undo"].setEnabled(False)
        self.actions_by_id["edit.redo"].setEnabled(False)
        self._open_evaluation(project)
        # short tab titles: four tabs share the dock's width; the tooltips say what they are
        self.right_tabs.addTab(self.a11y, "Tree")
        self.right_tabs.setTabToolTip(self.right_tabs.indexOf(self.a11y), "The screen's accessibility tree")
        self.right_tabs.addTab(self.task_panel, "Task")
        self.right_tabs.setTabToolTip(self.right_tabs.indexOf(self.task_panel),
                                      "A recorded task's evaluators and the step's completion label")
        self.browser.episodeSelected.connect(self.ws.load_episode)
        self.browser.boxStep.connect(lambda step: (self.view.setFocus(), self.cycle_box(step)))
        self.properties.boxesSelected.connect(self._list_selection)
        self.filmstrip.stepChosen.connect(self.ws.load_step)
        self.a11y.set_workspace(self.ws)
        self.task_panel.set_workspace(self.ws)
        location = str(project.folder or project.url)  # a URL without its password (store/db.py)
        if project.folder is None and not project.media.in_database:
            self.settings.server_media[location] = str(project.media.root)
        self.settings.add_recent(location)
        save_settings(self.settings)
        self.setWindowTitle(f"{project.name} - ScreenLab")
        self.annotator_label.setText(f"Annotator: {self.ws.actor}")
        self._set_saved(True)
        with project.reading() as session:  # back to the screen this annotator changed last
            last = last_edited_by(session, self.ws.actor)
        row = self.browser.model.row_of(last) if last is not None else None
        self.browser.select_row(row or 0)
        if self.browser.model.rowCount() == 0:
            self.ws.load_episode(None)
        return True

    def _open_evaluation(self, project: Project) -> None:
        self.runs = RunsPanel(project)
        self.runs.set_selection_provider(lambda: (
            self.browser.current_filter() if self.browser else None,
            [self.ws.episode.id] if self.ws is not None and self.ws.episode is not None else None))
        self.runs.predictionsChanged.connect(self._predictions_changed)
        self.runs.runFinished.connect(self._run_finished)
        self.runs.runsVisibilityChanged.connect(lambda _ids: (self._refresh_evaluation(),
                                                              self._suggestions_ready(self._ocr_items)))
        self.dashboard = DashboardWidget()
        self.dashboard.barClicked.connect(self._bar_clicked)
        self.prediction_panel = PredictionPanel()
        self.left_tabs.addTab(self.runs, "Runs")
        self.dashboard_dock.setWidget(self.dashboard)
        self.right_tabs.addTab(self.prediction_panel, "Predictions")
        self.scene.markClicked.connect(lambda _run: self._canvas_selection())
        self._refresh_evaluation()
        self.judge.set_project(project)

    def _refresh_evaluation(self) -> None:
        self.refresh_predictions()
        if (self.dashboard is not None and self.runs is not None and self.project is not None
                and self.dashboard_dock.isVisible()):
            runs = self.runs.visible_runs()
            if runs:
                self.dashboard.refresh(self.project, runs)

    def refresh_predictions(self) -> None:
        """Each visible run's answer for the current step: markers on the canvas, cards beside it."""
        if self.runs is None or self.scene.predictions is None:
            return
        rows = []
        if self.ws is not None and self.ws.step is not None:
            rows = step_prediction_rows(self.project, self.ws.step.id, self.runs.visible_runs())
        self.scene.predictions.set_predictions(marks_from_rows(rows, self.runs.colour_of))
        self.prediction_panel.show_predictions(rows)
        self.view.viewport().update()

    def _predictions_changed(self, run_id: int) -> None:
        if self.runs is not None and run_id in self.runs.visible_runs():
            self.refresh_predictions()
        if self.browser is not None:
            self.browser.model.invalidate_rows()

    def _run_finished(self, run_id: int) -> None:
        if self.browser is not None:
            self.browser.reload_outcomes()
        self._refresh_evaluation()

    def show_dashboard(self, on: bool = True) -> None:
        if on and not self._dashboard_added:
            self.addDockWidget(Qt.BottomDockWidgetArea, self.dashboard_dock)
            self.dashboard_dock.visibilityChanged.connect(self.dashboard_action.setChecked)
            self._dashboard_added = True
        if self._dashboard_added:
            self.dashboard_dock.setVisible(on)
        if on:
            self._refresh_evaluation()

    def _bar_clicked(self, info: dict) -> None:
        if self.browser is None:
            return
        parts = [info.get(k) for k in ("agent", "pattern", "scenario", "verdict") if info.get(k)]
        rules = f" ({info['rules']} rules)" if info.get("rules") else ""
        self.browser.show_ids(list(info.get("episode_ids") or []),
                              "dashboard: " + " / ".join(map(str, parts)) + rules)
        self.left_tabs.setCurrentWidget(self.browser)  # the samples it lists are what the click asked for

    def close_project(self) -> None:
        if self.project is None:
            return
        self.set_review_mode(False)
        self.connection_banner.stop()
        if self.ws is not None:
            self.ws.end_visit()  # the time on the last screen counts too
        if self.runs is not None:
            self.runs.shutdown()
        for widget in (self.runs, self.dashboard, self.prediction_panel):
            if widget is not None:
                widget.deleteLater()
        self.runs = self.dashboard = self.prediction_panel = None
        self.scene.reset()
        self.left_tabs.clear()
        self.right_tabs.clear()
        for widget in (self.browser, self.properties):
            if widget is not None:
                widget.deleteLater()
        if self.filmstrip is not None:
            self.filmstrip.deleteLater()
            self.filmstrip = None
        if self.ws is not None:
            self.ws.undo_stack.clear()
            self.ws.deleteLater()
        self.judge.set_project(None)
        self.a11y.set_workspace(None)
        self.task_panel.set_workspace(None)
        if self.vaf_window is not None and shiboken6.isValid(self.vaf_window):
            self.vaf_window.close()  # it reads and writes this project
        self.vaf_window = None
        self.ocr_label.clear()  # the figures were about this project's screens
        self.project.close()
        self.project = self.ws = self.browser = self.properties = None

    def choose_project(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Open a ScreenLab project folder")
        if folder:
            self.open_project(folder)

    def open_server_project(self) -> None:
        from desktop_app.ui.server_dialog import ServerDialog

        dialog = ServerDialog(self.settings, self)
        dialog.chosen.connect(lambda url, media: self.open_project(url, media))
        dialog.createRequested.connect(self.new_server_project)
        dialog.open()

    def new_server_project(self, url: str, media: str, in_database: bool) -> None:
        try:
            Project.init(url, media or None, media_in_database=in_database).close()
        except Exception as exc:  # a server that refuses, a database that already holds a project
            QMessageBox.warning(self, "New project on a server", redact(str(exc)))
            return
        self.open_project(url, media or None)

    def new_project(self) -> None:
        """Choose an empty folder or type the name of a new one (it is created)."""
        dialog = QFileDialog(self, "New project: choose an empty folder or type a new name")
        dialog.setAcceptMode(QFileDialog.AcceptSave)  # a name that does not exist yet is allowed
        dialog.setFileMode(QFileDialog.AnyFile)
        dialog.setOption(QFileDialog.DontConfirmOverwrite)
        dialog.setLabelText(QFileDialog.Accept, "Create")
        dialog.fileSelected.connect(self.create_project)
        self.new_project_dialog = dialog
        dialog.open()

    def create_project(self, folder: str) -> None:
        path = Path(folder)
        if path.exists() and (not path.is_dir() or is_project_folder(path) or any(path.iterdir())):
            QMessageBox.warning(self, "New project", f"{path} is not an empty folder; choose an empty one or type "
                                                     "a new name.")
            return
        try:
            Project.init(path).close()
        except Exception as exc:
            QMessageBox.warning(self, "New project", str(exc))
            return
        self.open_project(path)

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for location in self.settings.recent_projects:
            action = self.recent_menu.addAction(location)
            action.triggered.connect(lambda _=False, loc=location: self.open_project(loc))
        if not self.settings.recent_projects:
            self.recent_menu.addAction("(none)").setEnabled(False)

    def import_dialog(self) -> None:
        if self.project is None:
            return
        dialog = ImportDialog(self.project, self)
        dialog.exec()
        if dialog.report is not None and self.browser is not None:
            self.browser.reload_choices()
            self.browser.apply_filter()

    def export_dialog(self) -> None:
        if self.project is not None and self.browser is not None:
            ExportDialog(self.project, self.browser.current_filter(), self).exec()

    def settings_dialog(self, tab: str = "") -> None:
        dialog = SettingsDialog(self.settings, self)
        for index in range(dialog.tabs.count()):
            if dialog.tabs.tabText(index) == tab:
                dialog.tabs.setCurrentIndex(index)
        browser = self.settings.browser_path
        if dialog.exec():
            dialog.apply_to(self.settings)
            if self.settings.browser_path != browser and self._render_service is not None:
                self._render_service.shutdown()  # the next render starts the browser chosen now
                self._render_service = None
            save_settings(self.settings)
            self.apply_shortcuts()
            apply_theme(QApplication.instance(), self.settings.theme)
            self.scene.set_palette(self.settings.palette)
            self.scene.set_caption_mode(self.settings.box_captions)
            if self.ws is not None:
                self.ws.actor = self.annotator_name()
                self.annotator_label.setText(f"Annotator: {self.ws.actor}")
            if self.properties is not None:
                self.properties.palette = self.settings.palette
                self.properties.refresh()
            self.judge.settings_changed()

    def _welcome(self) -> None:
        from desktop_app.ui.welcome import WelcomeDialog, should_show_welcome

        dialog = WelcomeDialog(self.settings.shortcuts, self)
        dialog.dont_show.setChecked(not should_show_welcome(self.settings))
        dialog.exec()
        dialog.apply_to(self.settings)
        save_settings(self.settings)

    def show_shortcuts(self) -> None:
        ShortcutsDialog(self.settings.shortcuts, self).exec()

    def _about(self) -> None:
        from desktop_app import __version__

        QMessageBox.about(self, "About ScreenLab", f"ScreenLab {__version__}\nLabel screens, synthesize "
                          "distracting screens and evaluate GUI agents.")

    # verification queue -------------------------------------------------------
    def render_service(self) -> RenderService:
        if self._render_service is None:
            self._render_service = RenderService(self.settings.browser_path)
        return self._render_service

    @property
    def review(self):
        """The verification panel for the current sample: ambiguous tasks have their own."""
        if not self._review_panels:
            return None
        episode = self.ws.episode if self.ws else None
        scenario = episode.scenario if episode is not None else ""
        kind = {"ambiguous": "navi", "grounding": "grounding"}.get(scenario, "screens")
        return self._review_panels[kind]

    def _show_review_panel(self) -> None:
        if self._review_stack is not None and self.review is not None:
            self._review_stack.setCurrentWidget(self.review)
            self.review.show_queue(self.browser.model.rowCount())

    def toggle_review_mode(self) -> None:
        self.set_review_mode(not self.review_mode)

    def set_review_mode(self, on: bool) -> None:
        if self.ws is None or on == self.review_mode:
            return
        self.review_mode = on
        self.actions_by_id["review.mode"].setChecked(on)
        if on:
            from desktop_app.synth.llm import LlmEndpoint

            endpoint = LlmEndpoint.from_settings(self.settings)
            self._review_panels = {"screens": ReviewPanel(self.ws, self.render_service(), endpoint),
                                   "navi": NaviReviewPanel(self.ws, endpoint,
                                                           problem_policy=self.settings.ambiguous_problems),
                                   "grounding": GroundingReviewPanel(self.ws)}
            self._review_stack = QStackedWidget()
            for panel in self._review_panels.values():
                panel.reviewed.connect(self._after_review)
                panel.unreviewed.connect(self._after_unreview)
                panel.replaced.connect(self._after_regenerate)
                panel.navigate.connect(lambda d: self.browser.step(d))
                panel.message.connect(lambda t: self.statusBar().showMessage(t, 8000))
                self._review_stack.addWidget(panel)
            self.ws.stepLoaded.connect(self._show_review_panel)
            self._show_review_panel()
            self.right_tabs.addTab(self._review_stack, "Verify")
            self.right_tabs.setCurrentWidget(self._review_stack)
            self.browser.status.setCurrentIndex(self.browser.status.findData("pending"))
            self._show_review_panel()  # the queue's count once the list holds the pending samples
        else:
            self.ws.stepLoaded.disconnect(self._show_review_panel)
            self.right_tabs.removeTab(self.right_tabs.indexOf(self._review_stack))
            self._review_stack.deleteLater()
            self._review_panels, self._review_stack = {}, None
            self.browser.status.setCurrentIndex(0)
            self.right_tabs.setCurrentWidget(self.properties)  # back where the annotator edits boxes
        self.apply_shortcuts()
        self._update_mode_label()

    def _after_review(self, episode_id: int) -> None:
        """The sample left the pending list: show the one that took its row."""
        row = max(self.browser.current_row(), 0)
        self.browser.refresh()
        self.browser.select_row(row)
        if self.browser.model.rowCount() == 0:
            self.ws.load_episode(None)
        if self.review is not None:
            self.review.update_progress()
            self.review.show_queue(self.browser.model.rowCount())

    def _after_unreview(self, episode_id: int) -> None:
        """An undone verdict: the sample is back in the pending list, and shown (the undo went to it)."""
        self.browser.refresh()
        self.browser.select_episode(episode_id)
        if self.review is not None:
            self.review.update_progress()
            self.review.show_queue(self.browser.model.rowCount())

    def _after_regenerate(self, new_id: int) -> None:
        self.browser.refresh()
        row = self.browser.model.row_of(new_id)
        self.browser.select_row(row if row is not None else 0)

    # showing a step ---------------------------------------------------------
    def _show_step(self) -> None:
        ws = self.ws
        if ws is None or ws.screen is None:
            self.scene.load(None, 1280, 800, [], self._nothing_shown_text())
            self._update_counts()
            self.a11y.show_step()
            return
        path = ws.image_path()
        reader = QImageReader(str(path))
        image = reader.read()
        reason = ""
        if image.isNull():
            where = "the project's database" if ws.project.media.in_database else f"the media folder:\n{path}"
            reason = (f"Image missing from {where}" if not path.exists() else
                      f"Cannot read image {path.name}: {reader.errorString()}")
        self.scene.load(image if not image.isNull() else None, ws.screen.width, ws.screen.height,
                        list(ws.boxes.values()), reason)
        self.view.fit()
        self._update_counts()
        self.ocr.show_screen(self.project, ws.screen, run_if_missing=self.scene.show_suggestions)
        self.refresh_predictions()
        self.a11y.show_step()

    def _nothing_shown_text(self) -> str:
        """What the empty canvas says: how to go on from an empty project, a filter or a finished queue."""
        if self.ws is not None and self.ws.episode is not None:
            return "This episode has no screens"
        if self.browser is None or self.browser.model.rowCount() > 0:
            return "No episode selected"
        if self.review_mode:
            return "Queue done: no sample waits for review (Ctrl+Shift+V leaves the queue)"
        if self.browser.current_filter() == EpisodeFilter():
            return "This project is empty.\nFile > Import… (Ctrl+I) adds screenshots or a dataset."
        return "No sample matches the list's filter"

    # OCR suggestions ----------------------------------------------------------
    def _suggestions_ready(self, items) -> None:
        self._ocr_items = list(items)
        if self.scene.suggestions is not None:
            self.scene.suggestions.set_items(self._ocr_items + self._model_suggestions())

    def _model_suggestions(self) -> list[Suggestion]:
        """The shown runs' answers on this screen as suggestions (desktop_app/prelabel.py), when asked for."""
        if (not self.model_suggestions_action.isChecked() or self.runs is None or self.ws is None
                or self.ws.step is None):
            return []
        found = proposals_for_step(self.project, self.ws.step.id, self.runs.visible_runs())
        return [Suggestion(p.box, p.text, p.kind) for p in found]

    def _ocr_busy(self, on: bool) -> None:
        self.ocr_progress.setVisible(on)
        self.ocr_cancel.setVisible(on)

    def toggle_suggestions(self) -> None:
        on = not self.scene.show_suggestions
        self.scene.set_suggestions_visible(on)
        self.settings.show_suggestions = on
        self.actions_by_id["ocr.toggle"].setChecked(on)
        if on and self.ocr.outcome is None:
            self.ocr.run()

    def accept_suggestions(self) -> None:
        if self.scene.suggestions is not None and self.scene.suggestions.selected:
            self._accept_suggestions(sorted(self.scene.suggestions.selected))

    def _accept_suggestions(self, indices) -> None:
        layer = self.scene.suggestions
        if self.ws is None or layer is None:
            return
        chosen = [layer.items[i] for i in indices if 0 <= i < len(layer.items)]
        layer.take_selected()
        values = self.ocr.box_for(chosen)
        if values is not None:
            self.ws.add_boxes([{**values, "label": self.scene.next_label}],
                              f"Accept {len(chosen)} suggestion{'s' if len(chosen) > 1 else ''}")

    def snap_selected(self) -> None:
        if self.ws is None:
            return
        after, rules = {}, set()
        for box_id in self.scene.selected_ids():
            b = self.ws.boxes[box_id]
            (x1, y1, x2, y2), rule = self.ocr.snap((b.x1, b.y1, b.x2, b.y2), self._placed_boxes(box_id))
            rules.add(rule)
            after[box_id] = {"x1": float(x1), "y1": float(y1), "x2": float(x2), "y2": float(y2)}
        if after:
            self.ws.change_boxes(after, "Snap")
            self.statusBar().showMessage(f"Snapped to: {', '.join(sorted(rules))}", 3000)

    def _placed_boxes(self, leave_out: int | None = None) -> list[tuple]:
        """The screen's boxes with geometry, as (x1, y1, x2, y2): siblings for snapping."""
        return [(b.x1, b.y1, b.x2, b.y2) for i, b in self.ws.boxes.items()
                if i != leave_out and b.x1 is not None]

    def _boxes_put(self, boxes, select: bool) -> None:
        for box in boxes:
            self.scene.put_box(box)
        if select:
            self.scene.select_ids([b.id for b in boxes if b.x1 is not None])
        self._update_counts()
        self._canvas_selection()

    def _boxes_removed(self, ids) -> None:
        for box_id in ids:
            self.scene.remove_box(box_id)
        self._update_counts()
        self._canvas_selection()

    def _after_write(self) -> None:
        if self.browser is not None:
            self.browser.model.invalidate_rows()
        # a fixed label or box re-scores the agents' answers on this step at once
        if (self.ws is not None and self.ws.step is not None and self.runs is not None
                and rescore(self.project, step_ids=[self.ws.step.id])):
            self.refresh_predictions()

    def _write_failed(self, message: str) -> None:
        self._set_saved(False, message)
        box = QMessageBox(QMessageBox.Warning, "Not saved", message, QMessageBox.Ok, self)
        box.setAttribute(Qt.WA_DeleteOnClose)
        box.open()  # window-modal but non-blocking: the app keeps running

    def _update_counts(self) -> None:
        ws = self.ws
        if ws is None or ws.episode is None:
            self.counts_label.setText("")
            return
        labels = [b.label for b in ws.boxes.values()]
        text = " · ".join(f"{labels.count(k)} {k}" for k in ("gold", "distracted", "other"))
        step = f"step {ws.step_index + 1}/{len(ws.steps)} · " if len(ws.steps) > 1 else ""
        row = self.browser.current_row() + 1 if self.browser else 0
        total = self.browser.model.rowCount() if self.browser else 0
        self.counts_label.setText(f"{row:,}/{total:,} · {step}{len(labels)} actions: {text}")

    def _cursor_moved(self, pos: QPointF) -> None:
        self.position_label.setText(f"x {pos.x():.0f}, y {pos.y():.0f}")

    # selection sync -----------------------------------------------------------
    def _canvas_selection(self) -> None:
        self.a11y.boxes_selected(self.scene.selected_ids())
        if self.properties is not None:
            ids = self.scene.selected_ids()
            # text-only actions have no canvas item: keep their list selection
            keep = [i for i in self.properties.selected if i in self.ws.boxes and self.ws.boxes[i].x1 is None]
            self.properties.show_selection(ids or keep)

    def _list_selection(self, ids) -> None:
        self.scene.select_ids(ids)
        drawn = [self.scene.items_by_id[i] for i in ids if i in self.scene.items_by_id]
        if len(drawn) == 1:
            self.view.ensureVisible(drawn[0].rect(), 40, 40)

    def selected_ids(self) -> list[int]:
        if self.properties is not None and self.properties.selected:
            return list(self.properties.selected)
        return self.scene.selected_ids()

    # editing ----------------------------------------------------------------
    def toggle_draw(self) -> None:
        self.view.set_mode("select" if self.scene.mode == "draw" else "draw")
        self.view.setFocus()
        self._update_mode_label()

    def escape(self) -> None:
        if self.scene.mode == "draw":
            self.view.set_mode("select")
        else:
            self.scene.clearSelection()
            if self.scene.suggestions is not None:  # a selected suggestion is a selection too
                self.scene.suggestions.take_selected()
        self._update_mode_label()

    def _box_drawn(self, rect: QRectF) -> None:
        if self.ws is None:
            return
        box = (rect.left(), rect.top(), rect.right(), rect.bottom())
        if self.settings.snap_on_draw:
            box = tuple(float(v) for v in self.ocr.snap(box, self._placed_boxes())[0])
        # auto text: a new box gets the OCR words inside it (empty when the screen has no OCR yet)
        self.ws.add_boxes([{"x1": box[0], "y1": box[1], "x2": box[2], "y2": box[3], "label": self.scene.next_label,
                            "source": "manual", "action_type": "click", "element_text": self.ocr.text_in(box)}])

    def _boxes_moved(self, changes) -> None:
        if self.ws is None:
            return
        after = {i: {"x1": r.left(), "y1": r.top(), "x2": r.right(), "y2": r.bottom()} for i, _, r in changes}
        verb = "Move" if all(o.size() == r.size() for _, o, r in changes) else "Resize"
        self.ws.change_boxes(after, f"{verb} box{'es' if len(changes) > 1 else ''}")

    def set_label(self, label: str) -> None:
        ids = self.selected_ids()
        if ids and self.ws is not None:
            self.ws.change_boxes({i: {"label": label} for i in ids}, f"Label {label}")
        else:
            self.scene.next_label = label
            self._update_mode_label()

    def labels_dialog(self) -> None:
        from desktop_app.ui.labels_dialog import LabelsDialog

        if self.project is None:
            return
        dialog = LabelsDialog(self.project, self.settings.palette, self)
        dialog.changed.connect(self._labels_changed)
        dialog.open()

    def _labels_changed(self) -> None:
        if self.properties is not None:
            self.properties.reload_labels()
            self.properties.refresh_boxes()
        self.scene.set_own_labels(labels(self.project.engine)[3:])

    def set_own_label(self, number: int) -> None:
        """Keys 4-9: the project's own labels, in the order it added them."""
        own = labels(self.project.engine) if self.project is not None else ()
        if number - 1 < len(own):
            self.set_label(own[number - 1])
        else:
            self.statusBar().showMessage(f"This project has no label no. {number} (Edit > Labels of this "
                                         "project…)", 5000)

    def delete_selected(self) -> None:
        layer = self.scene.suggestions
        if layer is not None and layer.selected:  # Backspace on suggestions dismisses them
            layer.dismiss_selected()
        elif self.ws is not None:
            self.ws.delete_boxes(self.selected_ids())

    def nudge(self, dx: int, dy: int) -> None:
        if self.ws is None:
            return
        image = self.scene.image_rect
        after = {}
        for box_id in self.scene.selected_ids():
            box = self.ws.boxes[box_id]
            ddx = min(max(dx, -box.x1), image.right() - box.x2)
            ddy = min(max(dy, -box.y1), image.bottom() - box.y2)
            after[box_id] = {"x1": box.x1 + ddx, "y1": box.y1 + ddy, "x2": box.x2 + ddx, "y2": box.y2 + ddy}
        self.ws.change_boxes(after, "Nudge", merge=NUDGE_ID)

    def _box_payload(self, ids) -> list[dict]:
        return [{k: getattr(self.ws.boxes[i], k) for k in BOX_KEYS} for i in ids if i in self.ws.boxes]

    def _clamped(self, values: dict, dx: float, dy: float) -> dict:
        values = dict(values, source="manual")
        if values["x1"] is None:
            return values
        image = self.scene.image_rect
        w, h = values["x2"] - values["x1"], values["y2"] - values["y1"]
        x1 = min(max(values["x1"] + dx, 0), max(image.right() - w, 0))
        y1 = min(max(values["y1"] + dy, 0), max(image.bottom() - h, 0))
        values.update(x1=x1, y1=y1, x2=min(x1 + w, image.right()), y2=min(y1 + h, image.bottom()))
        return values

    def duplicate_selected(self) -> None:
        if self.ws is None:
            return
        payload = self._box_payload(self.selected_ids())
        if payload:
            self.ws.add_boxes([self._clamped(v, DUPLICATE_OFFSET, DUPLICATE_OFFSET) for v in payload],
                              "Duplicate boxes")

    def copy_selected(self) -> None:
        if self.ws is None:
            return
        payload = self._box_payload(self.selected_ids())
        if payload:
            self._clipboard = payload
            # Plain text, not a Python-made QMimeData: the clipboard outlives the interpreter
            # and deleting a Python-owned QMimeData at process exit crashes PySide6.
            QApplication.clipboard().setText(json.dumps({CLIPBOARD_KEY: payload}))
            self.statusBar().showMessage(f"Copied {len(payload)} box(es)", 3000)

    def paste(self) -> None:
        if self.ws is None:
            return
        payload = boxes_from_clipboard(QApplication.clipboard().text()) or self._clipboard
        if payload:
            self.ws.add_boxes([self._clamped(v, 0, 0) for v in payload], "Paste boxes")

    def cycle_box(self, delta: int) -> None:
        order = self.scene.ordered_ids()
        if not order:
            return
        current = self.scene.selected_ids()
        index = order.index(current[0]) if current and current[0] in order else (-1 if delta > 0 else 0)
        chosen = order[(index + delta) % len(order)]
        self.scene.select_ids([chosen])
        self.view.ensureVisible(self.scene.items_by_id[chosen].rect(), 40, 40)

    def go_step(self, delta: int) -> None:
        if self.ws is not None and self.ws.steps:
            index = min(max(self.ws.step_index + delta, 0), len(self.ws.steps) - 1)
            if index != self.ws.step_index:
                self.ws.load_step(index)

    # window state -----------------------------------------------------------
    def _restore_geometry(self) -> None:
        if self.settings.window_geometry:
            self.restoreGeometry(QByteArray(base64.b64decode(self.settings.window_geometry)))
        if self.settings.window_state:
            self.restoreState(QByteArray(base64.b64decode(self.settings.window_state)))

    def closeEvent(self, event) -> None:
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

    def showEvent(self, event) -> None:
        super().showEvent(event)
        QTimer.singleShot(0, self.view.fit)
