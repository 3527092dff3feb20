"""The page-variants window (Variants > Page variants…): a window of its own beside the main one, with a
tab per stage of a VAF study: Page & target, Variant table (and Generate), Verify, Results.

It renders with the main window's browser thread (render_service: the RenderService, or the main window's
function that gives the current one) and only wires the tabs together:
a study generated is selected in Verify, a verdict given refreshes nothing else, Results reads the
runs again each time it is shown. The Verify keys, the verification queue's (Y accept, N reject, A / D
previous / next), work while the Verify tab is shown.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QLabel, QTabWidget, QVBoxLayout, QWidget

from desktop_app.ui.fit import open_at
from desktop_app.ui.shortcuts import default_key, hint
from desktop_app.ui.tool_window import EscapeCloses
from desktop_app.ui.vaf.page_tab import PageTargetTab
from desktop_app.ui.vaf.results_tab import ResultsTab
from desktop_app.ui.vaf.variant_table import VariantTableTab
from desktop_app.ui.vaf.verify_tab import VerifyTab

PAGE, TABLE, VERIFY, RESULTS = range(4)


class VafWindow(EscapeCloses, QWidget):
    def __init__(self, project, render_service, reviewer: str = "", parent=None):
        super().__init__(parent, Qt.Window)
        self.setWindowTitle("Page variants (VAF)")
        self.project = project
        self.page = PageTargetTab(render_service)
        self.table = VariantTableTab(project, render_service, self.page.spec)
        self.verify = VerifyTab(project, reviewer)
        self.results = ResultsTab(project)
        self.tabs = QTabWidget()
        for tab, title, tip in ((self.page, "1 · Page && target", "The page, its target item and the prompt's words"),
                                (self.table, "2 · Variant table", "The settings to generate, and Generate variants"),
                                (self.verify, "3 · Verify", "Accept or reject each variant ("
                                 + hint(("review.accept", "accept"), ("review.reject", "reject"), ("nav.prev", "previous"),
                                        ("nav.next", "next")) + ")"),
                                (self.results, "4 · Results", "Browse runs: TCR / TMR, heatmap, click map, replay")):
            self.tabs.addTab(tab, title)
            self.tabs.setTabToolTip(self.tabs.indexOf(tab), tip)
        self.status = QLabel()
        self.status.setTextFormat(Qt.PlainText)
        self.status.setWordWrap(True)  # a long message (no browser: the advice) wraps, never widens the window
        self.status.setStyleSheet("color: gray")
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.status)

        for tab in (self.page, self.table, self.verify, self.results):
            tab.message.connect(self.status.setText)
        self.page.changed.connect(self._page_changed)
        self.table.generated.connect(self._generated)
        self.tabs.currentChanged.connect(self._tab_changed)
        # the queue's keys, on while the Verify tab is shown (its buttons show them too)
        self.verify_keys: list[QAction] = []
        for action_id, slot in (("review.accept", self.verify.accept_current),
                                ("review.reject", lambda: self.verify.reject_current()),
                                ("nav.next", lambda: self.verify.step(1)), ("nav.prev", lambda: self.verify.step(-1))):
            action = QAction(self)
            action.setShortcut(QKeySequence(default_key(action_id)))  # the main window's keys, one meaning each
            action.setShortcutContext(Qt.WindowShortcut)
            action.triggered.connect(slot)
            self.addAction(action)
            self.verify_keys.append(action)
        self._page_changed()
        self._tab_changed(self.tabs.currentIndex())
        open_at(self, 1400, 880)

    def _page_changed(self) -> None:
        self.table.page_line.setText(self.page.describe())

    def _generated(self, study: str) -> None:
        self.verify.reload_studies(study)

    def _tab_changed(self, index: int) -> None:
        self.status.setText("")  # the last tab's news
        for action in self.verify_keys:
            action.setEnabled(index == VERIFY)
        if index == VERIFY:
            self.verify.refresh()
            self.verify.focus_queue()
        elif index == RESULTS:
            self.results.refresh()

    def show_tab(self, index: int) -> None:
        self.tabs.setCurrentIndex(index)

    def closeEvent(self, event) -> None:
        self.table.cancel()  # a generation still going stops after the variant being rendered
        super().closeEvent(event)
