"""The evaluation side of the window: the runs beside the samples, each shown run's answer on the canvas
(markers) and beside it (cards), and the dashboard below the canvas when asked for (View > Dashboard);
a click on one of its bars lists the samples behind it. Only wiring: the numbers come from evaluation/."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QWidget

from desktop_app.evaluation.step_predictions import step_prediction_rows
from desktop_app.ui.eval.prediction_layer import marks_from_rows

if TYPE_CHECKING:
    from desktop_app.ui.main_window import MainWindow
    from desktop_app.ui.open_project import OpenProject


class EvaluationWiring(QObject):
    def __init__(self, window: MainWindow):
        super().__init__(window)
        self.window = window
        self._dashboard_added = False  # the dashboard's dock is docked only when first shown

    def open(self, opened: OpenProject) -> None:
        """A project opened: its runs panel, the dashboard and the answers' cards."""
        window, runs = self.window, opened.runs
        runs.set_selection_provider(lambda: (
            window.browser.current_filter() if window.browser else None,
            [window.ws.episode.id] if window.ws is not None and window.ws.episode is not None else None))
        runs.predictionsChanged.connect(self.predictions_changed)
        runs.runFinished.connect(self.run_finished)
        runs.runsVisibilityChanged.connect(lambda _ids: (self.refresh(), window.suggestions.refresh()))
        window.left_tabs.addTab(runs, "Runs")
        if self._dashboard_added:  # shown for the project before: it is there for this one too
            self._make_dashboard()
        window.right_tabs.addTab(opened.prediction_panel, "Predictions")
        window.scene.markClicked.connect(lambda _run: window.step_view.canvas_selection())
        self.refresh()
        window.judge.set_project(opened.project)

    def close(self) -> None:
        """The project closes (its OpenProject stops its runs and deletes the panels): the dashboard's dock
        lets go of this project's dashboard."""
        self.window.dashboard_dock.setWidget(QWidget())  # an empty dock, never the closed project's numbers

    def refresh(self) -> None:
        window = self.window
        self.refresh_predictions()
        if (window.dashboard is not None and window.runs is not None and window.project is not None
                and window.dashboard_dock.isVisible()):
            runs = window.runs.visible_runs()
            if runs:
                window.dashboard.refresh(window.project, runs)

    def refresh_predictions(self) -> None:
        """Each visible run's answer for the current step: markers on the canvas, cards beside it (both keep
        what they show when nothing changed)."""
        window = self.window
        if window.runs is None or window.scene.predictions is None:
            return
        rows = []
        if window.ws is not None and window.ws.step is not None:
            rows = step_prediction_rows(window.project, window.ws.step.id, window.runs.visible_runs())
        window.scene.predictions.set_predictions(marks_from_rows(rows, window.runs.colour_of))
        window.prediction_panel.show_predictions(rows)
        window.view.viewport().update()

    def predictions_changed(self, run_id: int) -> None:
        window = self.window
        if window.runs is not None and run_id in window.runs.visible_runs():
            self.refresh_predictions()
        if window.browser is not None:
            window.browser.model.invalidate_rows()

    def verdicts_changed(self) -> None:
        """The re-scoring after an edit finished (off the UI thread): the answers' cards, markers, the list's
        outcome column and the dashboard show the verdicts as they now are."""
        if self.window.browser is not None:
            self.window.browser.model.invalidate_rows()
        self.refresh()

    def run_finished(self, run_id: int) -> None:
        if self.window.browser is not None:
            self.window.browser.reload_outcomes()
        self.refresh()

    def _make_dashboard(self) -> None:
        """The dashboard, made when first shown: its plotting library (pyqtgraph) costs a quarter of a second to
        import, which start-up does not wait for."""
        dashboard = self.window.opened.make_dashboard()
        dashboard.barClicked.connect(self.bar_clicked)
        self.window.dashboard_dock.setWidget(dashboard)

    def show_dashboard(self, on: bool = True) -> None:
        window = self.window
        if on and window.dashboard is None and window.runs is not None:
            self._make_dashboard()
        if on and not self._dashboard_added:
            window.addDockWidget(Qt.BottomDockWidgetArea, window.dashboard_dock)
            window.dashboard_dock.visibilityChanged.connect(window.dashboard_action.setChecked)
            self._dashboard_added = True
        if self._dashboard_added:
            window.dashboard_dock.setVisible(on)
        if on:
            self.refresh()

    def bar_clicked(self, info: dict) -> None:
        browser = self.window.browser
        if browser is None:
            return
        parts = [info.get(k) for k in ("agent", "pattern", "scenario", "verdict") if info.get(k)]
        rules = f" ({info['rules']} rules)" if info.get("rules") else ""
        browser.show_ids(list(info.get("episode_ids") or []), "dashboard: " + " / ".join(map(str, parts)) + rules)
        self.window.left_tabs.setCurrentWidget(browser)  # the samples it lists are what the click asked for
