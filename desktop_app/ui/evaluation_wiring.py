"""The evaluation side of the window: the runs beside the samples, each shown run's answer on the canvas
(markers) and beside it (cards), and the dashboard below the canvas when asked for (View > Dashboard);
a click on one of its bars lists the samples behind it. Only wiring: the numbers come from evaluation/."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QWidget

from desktop_app.api.projects import is_connection_lost
from desktop_app.evaluation.step_predictions import step_prediction_rows
from desktop_app.ui.eval.prediction_layer import marks_from_rows
from desktop_app.ui.open_project import Change, OpenProject

if TYPE_CHECKING:
    from desktop_app.ui.main_window import MainWindow



class EvaluationWiring(QObject):
    def __init__(self, window: MainWindow):
        super().__init__(window)
        self.window = window
        self._dashboard_added = False  # the dashboard's dock is docked only when first shown

    def open(self, opened: OpenProject) -> None:
        """A project opened: its runs panel, the dashboard and the answers' cards. Its signals carry the
        open project to the handlers, which therefore never meet a closed one."""
        window, runs = self.window, opened.runs
        runs.set_selection_provider(lambda: (
            opened.browser.current_filter(),
            [opened.ws.episode.id] if opened.ws.episode is not None else None))
        runs.predictionsChanged.connect(lambda run_id: self._predictions_changed(opened, run_id))
        runs.runFinished.connect(lambda _run_id: (opened.browser.reload_outcomes(), self._refresh(opened)))
        runs.runsVisibilityChanged.connect(lambda _ids: (self._refresh(opened), window.suggestions.refresh()))
        opened.changed.connect(lambda reason: reason is Change.VERDICTS and self._verdicts_changed(opened))
        window.left_tabs.addTab(runs, "Runs")
        if self._dashboard_added:  # shown for the project before: it is there for this one too
            self._make_dashboard(opened)
        window.right_tabs.addTab(opened.prediction_panel, "Predictions")
        window.scene.markClicked.connect(lambda _run: window.step_view.canvas_selection())
        self._refresh(opened)
        window.judge.set_project(opened.project)

    def close(self) -> None:
        """The project closes (its OpenProject stops its runs and deletes the panels): the dashboard's dock
        lets go of this project's dashboard."""
        self.window.dashboard_dock.setWidget(QWidget())  # an empty dock, never the closed project's numbers

    def refresh_predictions(self) -> None:
        """The shown step changed (ui/step_view.py): each visible run's answer on it."""
        self._refresh_predictions(self.window.opened)

    def _refresh(self, opened: OpenProject) -> None:
        self._refresh_predictions(opened)
        if opened.dashboard is not None and self.window.dashboard_dock.isVisible():
            runs = opened.runs.visible_runs()
            if runs:
                opened.dashboard.refresh(opened.project, runs)

    def _refresh_predictions(self, opened: OpenProject) -> None:
        """Each visible run's answer for the current step: markers on the canvas, cards beside it (both keep
        what they show when nothing changed)."""
        window = self.window
        if window.scene.predictions is None:  # the scene's layer is made with its first image
            return
        step = opened.ws.step
        rows = step_prediction_rows(opened.project, step.id, opened.runs.visible_runs()) if step is not None else []
        window.scene.predictions.set_predictions(marks_from_rows(rows, opened.runs.colour_of))
        opened.prediction_panel.show_predictions(rows)
        window.view.viewport().update()

    def _predictions_changed(self, opened: OpenProject, run_id: int) -> None:
        if run_id in opened.runs.visible_runs():
            self._refresh_predictions(opened)
        opened.browser.model.invalidate_rows()

    def _verdicts_changed(self, opened: OpenProject) -> None:
        """The re-scoring after an edit finished (off the UI thread): the answers' cards, markers, the list's
        outcome column and the dashboard show the verdicts as they now are."""
        opened.browser.model.invalidate_rows()
        try:
            self._refresh(opened)
        except Exception as exc:  # it arrives later than the edit: the server may have gone meanwhile
            if not is_connection_lost(exc):
                raise
            # the banner says so; the verdicts show on the next step shown once it is back

    def _make_dashboard(self, opened: OpenProject) -> None:
        """The dashboard, made when first shown: its plotting library (pyqtgraph) costs a quarter of a second to
        import, which start-up does not wait for."""
        dashboard = opened.make_dashboard()
        dashboard.barClicked.connect(lambda info: self._bar_clicked(opened, info))
        self.window.dashboard_dock.setWidget(dashboard)

    def show_dashboard(self, on: bool = True) -> None:
        """View > Dashboard: the dock below the canvas (empty until a project is open)."""
        window, opened = self.window, self.window.opened
        if on and opened is not None and opened.dashboard is None:
            self._make_dashboard(opened)
        first = on and not self._dashboard_added
        if first:
            window.addDockWidget(Qt.BottomDockWidgetArea, window.dashboard_dock)
            window.dashboard_dock.visibilityChanged.connect(window.dashboard_action.setChecked)
            self._dashboard_added = True
        if self._dashboard_added:
            window.dashboard_dock.setVisible(on)
        if first:  # docked at its smallest its plots hardly showed: it takes half the window's height
            window.resizeDocks([window.dashboard_dock], [window.height() // 2], Qt.Vertical)
        if on and opened is not None:
            self._refresh(opened)

    def _bar_clicked(self, opened: OpenProject, info: dict) -> None:
        parts = [info.get(k) for k in ("agent", "pattern", "scenario", "class", "verdict") if info.get(k)]
        rules = f" ({info['rules']} rules)" if info.get("rules") else ""
        opened.browser.show_ids(list(info.get("episode_ids") or []),
                                "dashboard: " + " / ".join(map(str, parts)) + rules)
        self.window.left_tabs.setCurrentWidget(opened.browser)  # the samples it lists are what the click asked for
