"""The annotation scene: screenshot, boxes, and the mouse gestures that edit them.

The scene never writes to the database. It reports finished gestures (a box
drawn, boxes moved or resized) as signals; the workspace turns each into an
undoable command that writes the edit.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QImage, QPen
from PySide6.QtWidgets import QGraphicsRectItem, QGraphicsScene, QGraphicsSceneMouseEvent

from desktop_app.ui.canvas.items import (
    CURSORS,
    HANDLES,
    BoxesLayer,
    BoxItem,
    BoxStyle,
    ImageItem,
    MissingImageItem,
)
from desktop_app.ui.canvas.suggestions import SuggestionLayer
from desktop_app.ui.eval.prediction_layer import PredictionLayer

MIN_SIZE = 2.0  # px; smaller drags are clicks, not boxes


class AnnotationScene(QGraphicsScene):
    boxDrawn = Signal(QRectF)
    boxesChanged = Signal(list)  # [(box_id, old QRectF, new QRectF)] after a move or resize
    cursorMoved = Signal(QPointF)
    suggestionActivated = Signal(int)  # double click on an OCR/element suggestion
    markClicked = Signal(int)  # run id of the prediction marker clicked

    def __init__(self, parent=None):
        super().__init__(parent)
        self.style = BoxStyle()
        self.px = 1.0  # scene units per screen pixel, set by the view on zoom
        self.mode = "select"  # or "draw"
        self.next_label = "gold"  # label of the next drawn box (keys 1/2/3 with nothing selected)
        self.image_rect = QRectF()
        self.background = None
        self.layer: BoxesLayer | None = None
        self.suggestions: SuggestionLayer | None = None
        self.show_suggestions = True
        self.predictions: PredictionLayer | None = None  # agents' answers on this step
        self.items_by_id: dict[int, BoxItem] = {}
        self._gesture = None  # ("draw", start) | ("move", start, {id: rect}) | ("resize", id, handle, rect)
        self._preview: QGraphicsRectItem | None = None
        self.setItemIndexMethod(QGraphicsScene.BspTreeIndex)

    # loading ----------------------------------------------------------------
    def load(self, image: QImage | None, width: int, height: int, boxes, missing_reason: str = "") -> None:
        self.reset()
        if image is not None and not image.isNull():
            self.background = ImageItem(image)
            width, height = image.width(), image.height()
        else:
            self.background = MissingImageItem(width, height, missing_reason or "image missing")
        self.addItem(self.background)
        self.image_rect = QRectF(0, 0, width, height)
        self.setSceneRect(self.image_rect)
        self.layer = BoxesLayer(self.items_by_id, self.style, self.image_rect)
        self.addItem(self.layer)
        self.suggestions = SuggestionLayer(self.image_rect)
        self.suggestions.setVisible(self.show_suggestions)
        self.addItem(self.suggestions)
        self.predictions = PredictionLayer(self.image_rect)
        self.addItem(self.predictions)
        for box in boxes:
            self.put_box(box)

    def reset(self) -> None:
        self.layer = None  # first: items being removed must not repaint a deleted layer
        self.suggestions = None
        self.predictions = None
        self.items_by_id.clear()
        self._preview = None
        self._gesture = None
        self.background = None
        self.clear()

    def put_box(self, box) -> None:
        """Add or refresh the item of an ActionBox (boxes without coordinates are not drawn)."""
        item = self.items_by_id.get(box.id)
        if box.x1 is None:
            if item is not None:
                self.remove_box(box.id)
            return
        rect = QRectF(QPointF(box.x1, box.y1), QPointF(box.x2, box.y2))
        if item is None:
            item = BoxItem(box.id, rect, box.label, box.element_text, self.style)
            self.items_by_id[box.id] = item
            self.addItem(item)
            self.layer.invalidate()
        else:
            item.set_rect(rect)
            item.set_label(box.label, box.element_text)

    def remove_box(self, box_id: int) -> None:
        item = self.items_by_id.pop(box_id, None)
        if item is not None:
            self.removeItem(item)
            self.layer.invalidate()

    def set_palette(self, palette: str) -> None:
        self.style.set_palette(palette)
        if self.layer is not None:
            self.layer.invalidate()
        self.update()

    # selection --------------------------------------------------------------
    def selected_ids(self) -> list[int]:
        return sorted(i.box_id for i in self.selectedItems() if isinstance(i, BoxItem))

    def select_ids(self, ids) -> None:
        wanted = set(ids)
        self.blockSignals(True)
        for box_id, item in self.items_by_id.items():
            item.setSelected(box_id in wanted)
        self.blockSignals(False)
        self.selectionChanged.emit()

    def ordered_ids(self) -> list[int]:
        """Boxes in reading order (top to bottom, left to right), for Tab cycling."""
        return [i.box_id for i in sorted(self.items_by_id.values(), key=lambda i: (i.rect().top(), i.rect().left()))]

    def set_px(self, px: float) -> None:
        self.px = px
        for item in self.selectedItems():
            item.prepareGeometryChange()

    # gestures ---------------------------------------------------------------
    def _clamp(self, rect: QRectF) -> QRectF:
        return rect.normalized().intersected(self.image_rect)

    def _box_at(self, pos: QPointF) -> BoxItem | None:
        # the smallest box under the cursor wins: nested elements stay reachable
        hits = [i for i in self.items(pos) if isinstance(i, BoxItem) and i.rect().contains(pos)]
        return min(hits, key=lambda i: i.rect().width() * i.rect().height()) if hits else None

    def _handle_at(self, pos: QPointF):
        for item in self.selectedItems():
            if isinstance(item, BoxItem):
                handle = item.handle_at(pos, self.px)
                if handle:
                    return item, handle
        return None, None

    def mousePressEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if event.button() != Qt.LeftButton:
            event.ignore()
            return
        pos = event.scenePos()
        if self.mode == "draw":
            start = QPointF(round(pos.x()), round(pos.y()))
            self._gesture = ("draw", start)
            pen = QPen(self.style.colors.get(self.next_label, QColor("white")), 1, Qt.DashLine)
            pen.setCosmetic(True)
            self._preview = self.addRect(QRectF(start, start), pen)
            self._preview.setZValue(100)
            event.accept()
            return
        item, handle = self._handle_at(pos)
        if item is not None:
            self._gesture = ("resize", item.box_id, handle, item.rect())
            event.accept()
            return
        mark = self.predictions.mark_at(pos, self.px) if self.predictions is not None else None
        if mark is not None:  # an agent's marker: select the box its answer matched
            self.markClicked.emit(mark.run_id)
            if mark.box_id in self.items_by_id:
                self.select_ids([mark.box_id])
            event.accept()
            return
        item = self._box_at(pos)
        add = bool(event.modifiers() & (Qt.ControlModifier | Qt.ShiftModifier))
        hit = self._suggestion_at(pos)
        if hit is not None and item is not None and not item.isSelected():
            # the smallest thing under the cursor wins, so a word inside a box stays clickable;
            # a selected box keeps the click, so it can still be dragged by its text
            word = self.suggestions.items[hit].rect
            if word.width() * word.height() < item.rect().width() * item.rect().height():
                item = None
        if item is None:
            if hit is not None:
                if not add:
                    self.clearSelection()
                self.suggestions.toggle(hit, add)
                event.accept()
                return
            if not add:
                self.clearSelection()
                if self.suggestions is not None:
                    self.suggestions.take_selected()
            event.ignore()  # empty space: the view starts a rubber-band selection
            return
        if event.modifiers() & Qt.ControlModifier:
            item.setSelected(not item.isSelected())
        elif not item.isSelected():
            self.clearSelection()
            item.setSelected(True)
        moving = {i.box_id: i.rect() for i in self.selectedItems() if isinstance(i, BoxItem)}
        self._gesture = ("move", pos, moving)
        event.accept()

    def _suggestion_at(self, pos: QPointF) -> int | None:
        if self.suggestions is None or not self.suggestions.isVisible():
            return None
        return self.suggestions.hit(pos)

    def mouseDoubleClickEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        hit = self._suggestion_at(event.scenePos()) if self._box_at(event.scenePos()) is None else None
        if hit is not None and self.mode == "select":
            self.suggestionActivated.emit(hit)
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    def set_suggestions_visible(self, on: bool) -> None:
        self.show_suggestions = on
        if self.suggestions is not None:
            self.suggestions.setVisible(on)

    def mouseMoveEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        pos = event.scenePos()
        self.cursorMoved.emit(pos)
        gesture = self._gesture
        if gesture is None:
            if self.mode == "select" and event.buttons() == Qt.NoButton:
                _, handle = self._handle_at(pos)
                view = self.views()[0] if self.views() else None
                if view is not None:
                    view.viewport().setCursor(CURSORS[handle] if handle else Qt.ArrowCursor)
            super().mouseMoveEvent(event)
            return
        if gesture[0] == "draw":
            end = QPointF(round(pos.x()), round(pos.y()))
            self._preview.setRect(self._clamp(QRectF(gesture[1], end)))
        elif gesture[0] == "move":
            dx, dy = round(pos.x() - gesture[1].x()), round(pos.y() - gesture[1].y())
            for rect in gesture[2].values():
                # keep the whole selection inside the image
                dx = min(max(dx, -rect.left()), self.image_rect.right() - rect.right())
                dy = min(max(dy, -rect.top()), self.image_rect.bottom() - rect.bottom())
            for box_id, rect in gesture[2].items():
                self.items_by_id[box_id].set_rect(rect.translated(dx, dy))
        elif gesture[0] == "resize":
            _, box_id, handle, rect = gesture
            left, top, right, bottom = HANDLES[handle]
            x = min(max(round(pos.x()), 0), self.image_rect.right())
            y = min(max(round(pos.y()), 0), self.image_rect.bottom())
            new = QRectF(rect)
            if left:
                new.setLeft(x)
            if right:
                new.setRight(x)
            if top:
                new.setTop(y)
            if bottom:
                new.setBottom(y)
            self.items_by_id[box_id].set_rect(new.normalized())
        event.accept()

    def mouseReleaseEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        gesture, self._gesture = self._gesture, None
        if gesture is None:
            super().mouseReleaseEvent(event)
            return
        if gesture[0] == "draw":
            rect = self._preview.rect()
            self.removeItem(self._preview)
            self._preview = None
            if rect.width() >= MIN_SIZE and rect.height() >= MIN_SIZE:
                self.boxDrawn.emit(rect)
        elif gesture[0] == "move":
            changes = [(i, old, self.items_by_id[i].rect()) for i, old in gesture[2].items()
                       if self.items_by_id[i].rect() != old]
            if changes:
                self.boxesChanged.emit(changes)
        elif gesture[0] == "resize":
            box_id, old = gesture[1], gesture[3]
            new = self.items_by_id[box_id].rect()
            if new.width() < MIN_SIZE or new.height() < MIN_SIZE:
                self.items_by_id[box_id].set_rect(old)  # a resize to nothing is undone on the spot
            elif new != old:
                self.boxesChanged.emit([(box_id, old, new)])
        event.accept()
