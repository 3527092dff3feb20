"""Suggestions on the canvas: OCR's words and elements of the screen shown (ui/ocr_assist.py), and, when
asked for, the shown runs' answers (pre-labelling, desktop_app/prelabel.py); accepting some makes one box
through the workspace (the rule is ocr/screen_reading.py's)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from desktop_app.ocr.suggested_box import Piece
from desktop_app.prelabel import proposals_for_step
from desktop_app.ui.canvas.suggestions import Suggestion

if TYPE_CHECKING:
    from desktop_app.ui.main_window import MainWindow


class SuggestionsWiring(QObject):
    def __init__(self, window: MainWindow):
        super().__init__(window)
        self.window = window
        self.scene = window.scene
        self.ocr_items: list = []  # the current screen's OCR suggestions, to add a run's answers to
        window.ocr.suggestionsReady.connect(self.suggestions_ready)
        window.ocr.status.connect(window.status.ocr.setText)
        window.ocr.busy.connect(window.status.ocr_busy)
        self.scene.suggestionActivated.connect(lambda i: self._accept([i]))

    def suggestions_ready(self, items) -> None:
        self.ocr_items = list(items)
        if self.scene.suggestions is not None:
            self.scene.suggestions.set_items(self.ocr_items + self.model_suggestions())

    def refresh(self) -> None:
        """The shown runs or the model-suggestions switch changed: the same OCR items, new answers."""
        self.suggestions_ready(self.ocr_items)

    def model_suggestions(self) -> list[Suggestion]:
        """The shown runs' answers on this screen as suggestions, when asked for (View menu)."""
        opened = self.window.opened
        if not self.window.model_suggestions_action.isChecked() or opened is None or opened.ws.step is None:
            return []
        found = proposals_for_step(opened.project, opened.ws.step.id, opened.runs.visible_runs())
        return [Suggestion(p.box, p.text, p.kind) for p in found]

    def toggle(self) -> None:
        on = not self.scene.show_suggestions
        self.scene.set_suggestions_visible(on)
        self.window.settings.show_suggestions = on
        self.window.actions_by_id["ocr.toggle"].setChecked(on)
        if on and self.window.ocr.outcome is None:
            self.window.ocr.run()

    def accept_selected(self) -> None:
        if self.scene.suggestions is not None and self.scene.suggestions.selected:
            self._accept(sorted(self.scene.suggestions.selected))

    def _accept(self, indices) -> None:
        layer, opened = self.scene.suggestions, self.window.opened
        if opened is None or layer is None:
            return
        ws = opened.ws
        chosen = [layer.items[i] for i in indices if 0 <= i < len(layer.items)]
        layer.take_selected()
        ws.accept_suggestions([Piece(s.box, s.text, s.kind) for s in chosen], self.scene.next_label,
                              self.window.ocr.reading())
