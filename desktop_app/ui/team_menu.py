"""The team's part of the window: marking the current screen done / skipped (then the next one), and the
Team menu (assign, progress and agreement, adjudication). Only wiring: the rules live in teams/ and
the workspace."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QInputDialog

from desktop_app.teams.assignment import SKIP_REASONS

if TYPE_CHECKING:
    from desktop_app.ui.main_window import MainWindow


class TeamWiring(QObject):
    def __init__(self, window: MainWindow):
        super().__init__(window)
        self.window = window
        self.skip_dialog: QInputDialog | None = None
        self._open: dict[str, object] = {}

    # marking work ---------------------------------------------------------------
    def _after_mark(self) -> None:
        browser = self.window.browser
        if browser is None:
            return
        row, marked = browser.current_row(), self.window.ws.episode.id
        browser.refresh()
        # a state filter may have dropped the marked row: then the next one already stands at its place
        still_there = browser.model.episode_id_at(row) == marked
        browser.select_row(row + 1 if still_there else row)

    def done_and_next(self) -> None:
        ws = self.window.ws
        if ws is not None and ws.mark("done"):
            self._after_mark()

    def reopen(self) -> None:
        ws = self.window.ws
        if ws is not None and ws.mark("in_progress") and self.window.browser is not None:
            self.window.browser.model.invalidate_rows()

    def skip_and_next(self) -> None:
        """Ask why (a list to pick from, or typed), without blocking the window; then skip and move on."""
        if self.window.ws is None or self.window.ws.episode is None:
            return
        dialog = QInputDialog(self.window)
        dialog.setWindowTitle("Skip this screen")
        dialog.setLabelText("Why skip it? (the reason is kept with the screen)")
        dialog.setComboBoxItems(list(SKIP_REASONS))
        dialog.setComboBoxEditable(True)
        dialog.textValueSelected.connect(self._skip_with)
        dialog.finished.connect(lambda _r: setattr(self, "skip_dialog", None))
        self.skip_dialog = dialog
        dialog.open()

    def _skip_with(self, reason: str) -> None:
        ws = self.window.ws
        if reason.strip() and ws is not None and ws.mark("skipped", reason):
            self._after_mark()

    # the Team menu --------------------------------------------------------------
    def add_menu(self, menubar) -> None:
        a = self.window.actions_by_id
        menu = menubar.addMenu("&Team")
        for key in ("work.done", "work.skip", "work.reopen"):
            menu.addAction(a[key])
        menu.addSeparator()
        menu.addAction("Assign samples…").triggered.connect(self.show_assign)
        menu.addAction("Progress and agreement…").triggered.connect(self.show_progress)
        menu.addAction("Adjudicate double annotations…").triggered.connect(self.show_adjudication)

    def _show(self, name: str, make) -> None:
        project = self.window.project
        if project is None:
            return
        widget = self._open.get(name)
        if widget is None or getattr(widget, "project", None) is not project:
            widget = make(project, self.window)
            self._open[name] = widget
            widget.destroyed.connect(lambda *_: self._open.pop(name, None))
        widget.show()
        widget.raise_()

    def show_assign(self) -> None:
        from desktop_app.ui.team.assign_dialog import AssignDialog

        self._show("assign", AssignDialog)

    def show_progress(self) -> None:
        from desktop_app.ui.team.progress_dialog import ProgressDialog

        self._show("progress", ProgressDialog)

    def show_adjudication(self) -> None:
        from desktop_app.ui.team.adjudication_window import AdjudicationWindow

        self._show("adjudication", AdjudicationWindow)
