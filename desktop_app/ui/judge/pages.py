"""The trajectory pages of the main window. Trajectories > Label trajectories (Ctrl+Shift+J) and Judge
agreement (Ctrl+Shift+K) take the window's centre, and the annotation docks and the dashboard step aside (the
pages have their own queue and panels); the same key again, or Trajectories > Annotate screens, brings the canvas
and the docks back. Opening a disagreement in the agreement page shows it in the labeller with the
judge's verdict to review.

The main window makes one (`JudgePages(window)`, after its menus), hands it each project it opens and
None when it closes one, and tells it when the settings changed (the annotator's name).
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu

from desktop_app.ui.fit import CurrentPageStack
from desktop_app.ui.tasks import wait_all as wait_background

PAGES = ("annotate", "label", "agreement")


class JudgePages(QObject):
    def __init__(self, window):
        super().__init__(window)
        self.window = window
        # the two pages are built when first shown (or asked for): a start that never opens them neither imports
        # them nor reads the project's trajectories for them before the first screen is painted (ADR 0057)
        self._labeller = self._agreement = None
        self._project = None
        self.stack = CurrentPageStack()  # the pages not shown never hold the window wider or taller
        self.stack.addWidget(window.takeCentralWidget())
        window.setCentralWidget(self.stack)
        self._docks: dict = {}  # dock -> visible, while a trajectory page is shown

        annotate = QAction("Annotate screens", self)
        annotate.triggered.connect(lambda: self.show("annotate"))
        self.actions = {"annotate": annotate, "label": window.actions_by_id["judge.label"],
                        "agreement": window.actions_by_id["judge.agreement"]}
        group = QActionGroup(self)
        menu = QMenu("&Trajectories", window)
        for action in self.actions.values():
            action.setCheckable(True)
            group.addAction(action)
            menu.addAction(action)
        annotate.setChecked(True)
        menu.addSeparator()
        self.import_verdicts = menu.addAction("Import judge verdicts…")
        self.import_verdicts.setToolTip("Another judge's verdicts (the authors' rm_results.json, or evals lines) "
                                        "as a judge run in the agreement")
        self.import_verdicts.triggered.connect(self._import_verdicts)
        bar = window.menuBar()
        help_menu = next((a for a in bar.actions() if a.text().replace("&", "") == "Help"), None)
        bar.insertMenu(help_menu, menu) if help_menu is not None else bar.addMenu(menu)
        self.menu = menu

    @property
    def labeller(self):
        """Trajectories > Label trajectories' page (ui/judge/trajectory_view.py)."""
        self._build()
        return self._labeller

    @property
    def agreement(self):
        """Trajectories > Judge agreement's page (ui/judge/agreement_view.py)."""
        self._build()
        return self._agreement

    def _build(self) -> None:
        if self._labeller is not None:
            return
        from desktop_app.ui.judge.agreement_view import AgreementView
        from desktop_app.ui.judge.trajectory_view import TrajectoryView

        window = self.window
        self._labeller, self._agreement = TrajectoryView(), AgreementView()
        self.stack.addWidget(self._labeller)  # at PAGES' indexes: the canvas's page is 0
        self.stack.addWidget(self._agreement)
        self._agreement.open_requested.connect(self.open_trajectory)
        self._labeller.reviewed.connect(
            lambda _run, _episode: self._agreement.isVisible() and self._agreement.refresh())
        for view in (self._labeller, self._agreement):
            view.message.connect(lambda text: window.statusBar().showMessage(text, 8000))
        self._labeller.set_project(self._project)
        self._agreement.set_project(self._project)

    def current(self) -> str:
        return PAGES[self.stack.currentIndex()]

    def toggle(self, name: str) -> None:
        """The page's key: show it, or go back to annotating when it is already shown."""
        self.show("annotate" if self.current() == name else name)

    def show(self, name: str) -> None:
        if name != "annotate":
            self._build()
        window, was = self.window, self.current()
        if was == "annotate" and name != "annotate":
            # the dashboard too: its screen runs' rates are the canvas's, and below a page it squeezed both
            self._docks = {dock: dock.isVisible() for dock in (window.left, window.right, window.dashboard_dock)}
            for dock in self._docks:
                dock.hide()
        elif name == "annotate" and was != "annotate":
            for dock, visible in self._docks.items():
                dock.setVisible(visible)
        self.stack.setCurrentIndex(PAGES.index(name))
        self.actions[name].setChecked(True)
        if (was == "annotate") != (name == "annotate"):
            window.apply_shortcuts()  # the canvas's keys off while it is hidden, back with it
        if name == "label":
            self.labeller.set_annotator(window.annotator_name())
            self.labeller.setFocus()
        elif name == "agreement":
            self.agreement.refresh()
            self.agreement.runs_table.setFocus()

    def _import_verdicts(self) -> None:
        if self.agreement.project is not None:
            self.show("agreement")
            self.agreement.import_verdicts()

    def open_trajectory(self, episode_id: int, run_id: int) -> None:
        self.show("label")
        self.labeller.open_trajectory(episode_id, run_id)

    def set_project(self, project) -> None:
        """A project was opened (or closed: None)."""
        self._project = project
        if self._labeller is None:  # not built yet: they are given the project when they are
            return
        if project is None:
            from desktop_app.ui.judge.filmstrip_frames import wait_all

            wait_all()  # frame decoding and agreement queries of the project being closed
            wait_background()
        self._labeller.set_project(project)
        self._agreement.set_project(project)

    def settings_changed(self) -> None:
        if self.current() == "label":
            self.labeller.set_annotator(self.window.annotator_name())
