"""The verification queue (Review > Verification queue, Ctrl+Shift+V): the list shows the pending samples,
a Verify tab beside the properties holds the panel for the sample shown (generated screens, ambiguous
tasks, grounding tasks each have their own), and the review keys take over. After a verdict the sample
that took its row is shown; an undone verdict brings its sample back. Only wiring: verdicts are
store/review.py's, undoable through the workspace."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QStackedWidget, QWidget

from desktop_app.ui.fit import CurrentPageStack, scrolled
from desktop_app.ui.grounding_review import GroundingReviewPanel
from desktop_app.ui.navi_review import NaviReviewPanel
from desktop_app.ui.review_panel import ReviewPanel

if TYPE_CHECKING:
    from desktop_app.ui.main_window import MainWindow

PANEL_OF_SCENARIO = {"ambiguous": "navi", "grounding": "grounding"}  # any other scenario: "screens"


class ReviewMode(QObject):
    def __init__(self, window: MainWindow):
        super().__init__(window)
        self.window = window
        self.on = False
        self.panels: dict[str, QWidget] = {}  # while reviewing: "screens", "navi" and "grounding" panels
        self.stack: QStackedWidget | None = None
        self.tab: QWidget | None = None  # the Verify tab: the stack, scrolling up and down

    @property
    def panel(self):
        """The verification panel for the current sample (None outside the queue)."""
        if not self.panels:
            return None
        episode = self.window.ws.episode  # panels exist only in the queue, on an open project
        scenario = episode.scenario if episode is not None else ""
        return self.panels[PANEL_OF_SCENARIO.get(scenario, "screens")]

    def toggle(self) -> None:
        self.set(not self.on)

    def set(self, on: bool) -> None:
        window = self.window
        if on == self.on:  # Review > Verification queue is greyed out while no project is open
            return
        self.on = on
        window.actions_by_id["review.mode"].setChecked(on)
        if on:
            self._enter()
        else:
            window.ws.stepLoaded.disconnect(self.show_panel)
            window.right_tabs.removeTab(window.right_tabs.indexOf(self.tab))
            self.tab.deleteLater()
            self.panels, self.stack, self.tab = {}, None, None
            window.browser.status.setCurrentIndex(0)
            window.right_tabs.setCurrentWidget(window.properties)  # back where the annotator edits boxes
        window.apply_shortcuts()
        window.status.update_mode()

    def _enter(self) -> None:
        from desktop_app.synth.llm import LlmEndpoint

        window, ws = self.window, self.window.ws
        endpoint = LlmEndpoint.from_settings(window.settings)
        self.panels = {"screens": ReviewPanel(ws, window.render_service(), endpoint),
                       "navi": NaviReviewPanel(ws, endpoint, problem_policy=window.settings.ambiguous_problems),
                       "grounding": GroundingReviewPanel(ws)}
        self.stack = CurrentPageStack()  # as wide as the panel shown: the ambiguous tasks' is the widest
        for panel in self.panels.values():
            panel.reviewed.connect(self.after_review)
            panel.unreviewed.connect(self.after_unreview)
            panel.replaced.connect(self.after_regenerate)
            panel.navigate.connect(lambda d: window.browser.step(d))
            panel.message.connect(lambda t: window.status.show_message(t, 8000))
            self.stack.addWidget(panel)
        ws.stepLoaded.connect(self.show_panel)
        self.show_panel()
        # a panel taller than a 720 px screen leaves (the ambiguous tasks') scrolls rather than hold the window tall
        self.tab = scrolled(self.stack)
        window.right_tabs.addTab(self.tab, "Verify")
        window.right_tabs.setCurrentWidget(self.tab)
        window.browser.status.setCurrentIndex(window.browser.status.findData("pending"))
        self.show_panel()  # the queue's count once the list holds the pending samples

    def show_panel(self) -> None:
        if self.stack is not None and self.panel is not None:
            self.stack.setCurrentWidget(self.panel)
            self._show_queue()

    def _show_queue(self) -> None:
        model = self.window.browser.model  # a big project's list shows its first page while the rest is counted
        self.panel.show_queue(model.stored_rows, counting=model.counting)

    def counted(self) -> None:
        """The list's count arrived (a big project): the queue's size with it."""
        if self.on and self.panel is not None:
            self._show_queue()

    def _queue_changed(self) -> None:
        if self.panel is not None:
            self.panel.update_progress()
            self._show_queue()

    def after_review(self, episode_id: int) -> None:
        """The sample left the pending list: show the one that took its row."""
        browser = self.window.browser
        row = max(browser.current_row(), 0)
        browser.refresh()
        browser.select_row(row)
        if browser.model.stored_rows == 0:
            self.window.ws.load_episode(None)
        self._queue_changed()

    def after_unreview(self, episode_id: int) -> None:
        """An undone verdict: the sample is back in the pending list, and shown (the undo went to it)."""
        self.window.browser.refresh()
        self.window.browser.select_episode(episode_id)
        self._queue_changed()

    def after_regenerate(self, new_id: int) -> None:
        browser = self.window.browser
        browser.refresh()
        row = browser.model.row_of(new_id)
        browser.select_row(row if row is not None else 0)
