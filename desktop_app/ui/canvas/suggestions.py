"""The suggestions layer: OCR words and element proposals as faint dashed boxes.

Suggestions never change annotations by themselves; the annotator turns selected ones
into boxes (Enter, or a double click) or dismisses them (Backspace). One item paints
them all, like BoxesLayer.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem


@dataclass
class Suggestion:
    box: tuple[float, float, float, float]
    text: str
    kind: str  # word, line, button, input, icon, card, text

    @property
    def rect(self) -> QRectF:
        x1, y1, x2, y2 = self.box
        return QRectF(x1, y1, x2 - x1, y2 - y1)


def _pen(color: str, alpha: int, width: float, style=Qt.DashLine) -> QPen:
    c = QColor(color)
    c.setAlpha(alpha)
    pen = QPen(c, width, style)
    pen.setCosmetic(True)
    return pen


class SuggestionLayer(QGraphicsItem):
    def __init__(self, size: QRectF):
        super().__init__()
        self.size = QRectF(size)
        self.items: list[Suggestion] = []
        self.selected: set[int] = set()
        self.dismissed: set[tuple] = set()  # boxes the annotator rejected on this screen
        self.word_pen = _pen("#00a3d9", 150, 1)
        self.element_pen = _pen("#b455d6", 170, 1.5)
        # Under each dashed outline, a light line of its width: the gaps between the dashes show it. Cyan and
        # purple on their own vanish on a mid-tone fill of the same luminance (white "Save changes" on green
        # showed no outline at all, issue 33); on white the light line is unseen and the dashes look as before.
        self.word_halo = _pen("#ffffff", 210, 1, Qt.SolidLine)
        self.element_halo = _pen("#ffffff", 210, 1.5, Qt.SolidLine)
        self.selected_pen = _pen("#ffb000", 255, 2, Qt.SolidLine)
        self.selected_fill = QBrush(QColor(255, 176, 0, 45))
        self.setZValue(4)  # under the boxes: annotations stay on top
        self.setAcceptedMouseButtons(Qt.NoButton)

    def boundingRect(self) -> QRectF:
        return self.size.adjusted(-4, -4, 4, 4)

    def set_items(self, items: list[Suggestion]) -> None:
        self.items = [s for s in items if s.box not in self.dismissed]
        self.selected.clear()
        self.update()

    def hit(self, pos: QPointF) -> int | None:
        """Index of the smallest suggestion under the point (words win over the button around them); of two the
        same size, a model's answer (it was asked for)."""
        hits = [i for i, s in enumerate(self.items) if s.rect.contains(pos)]
        return min(hits, key=lambda i: (self.items[i].rect.width() * self.items[i].rect.height(),
                                        self.items[i].kind != "model")) if hits else None

    def toggle(self, index: int, add: bool) -> None:
        if not add:
            self.selected = {index} if index not in self.selected or len(self.selected) > 1 else set()
        elif index in self.selected:
            self.selected.discard(index)
        else:
            self.selected.add(index)
        self.update()

    def take_selected(self) -> list[Suggestion]:
        chosen = [self.items[i] for i in sorted(self.selected)]
        self.selected.clear()
        self.update()
        return chosen

    def dismiss_selected(self) -> int:
        chosen = self.take_selected()
        self.dismissed |= {s.box for s in chosen}
        self.items = [s for s in self.items if s.box not in self.dismissed]
        self.update()
        return len(chosen)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        words = [s.rect for i, s in enumerate(self.items) if s.kind in ("word", "line") and i not in self.selected]
        elements = [s.rect for i, s in enumerate(self.items)
                    if s.kind not in ("word", "line") and i not in self.selected]
        painter.setBrush(Qt.NoBrush)
        for rects, halo, pen in ((words, self.word_halo, self.word_pen), (elements, self.element_halo,
                                                                          self.element_pen)):
            if rects:
                painter.setPen(halo)
                painter.drawRects(rects)
                painter.setPen(pen)
                painter.drawRects(rects)
        if self.selected:
            painter.setPen(self.selected_pen)
            painter.setBrush(self.selected_fill)
            painter.drawRects([self.items[i].rect for i in self.selected])
