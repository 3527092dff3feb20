"""The annotation scene: screenshot, boxes, and the mouse gestures that edit them.

The scene never writes to the database. It reports finished gestures (a box
drawn, boxes moved or resized) as signals; the workspace turns each into an
undoable command that writes the edit.

It also lays out the boxes' captions (the view paints them, the prediction layer's
tags keep clear of them): each goes where it hides least, measured against the
other boxes, the captions already placed, the handles of selected boxes, the
agents' markers and the screenshot's own content (placement.InkMap).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage, QPen
from PySide6.QtWidgets import QGraphicsRectItem, QGraphicsScene, QGraphicsSceneMouseEvent, QToolTip

from desktop_app.ui.canvas.items import (
    CURSORS,
    HANDLE_OUTSET_PX,
    HANDLES,
    BoxesLayer,
    BoxItem,
    BoxStyle,
    ImageItem,
    MissingImageItem,
    handle_points,
    handle_rects,
)
from desktop_app.ui.canvas.placement import (
    InkMap,
    Obstacles,
    Rect,
    caption_candidates,
    cheapest,
    outside,
    overlap,
)
from desktop_app.ui.canvas.prefetch import Decoded, halved, ink_of
from desktop_app.ui.canvas.suggestions import SuggestionLayer
from desktop_app.ui.eval.prediction_layer import PredictionLayer

MIN_SIZE = 2.0  # px; smaller drags are clicks, not boxes
CAPTION_MODES = ("always", "hover", "never")  # Settings.box_captions: "hover" = hovered and selected boxes
CAPTION_LIMIT = 400  # with more boxes in view, captions would be unreadable clutter anyway
CAPTION_MIN_BOX_PX = 10  # boxes smaller than this on screen get no caption
CAPTION_MIN_TEXT_PX = 80  # a caption may be wider than a narrow box, up to this
CAPTION_CLASS_PX = 220  # ... and to show the box's class whole ("Traffic light · …"), up to this
# what covering one square view pixel costs a caption (placement.cheapest picks the lowest total)
COVER_CAPTION = 8.0  # another caption: text on text is unreadable
COVER_HANDLE = 8.0  # a selected box's handle
COVER_MARK = 8.0  # an agent's marker
COVER_INK = 3.0  # page content under the caption (text, icons, borders)
COVER_BOX = 1.0  # another box's area
COVER_OWN = 0.5  # the captioned box itself (the inside places)
COVER_OUTSIDE = 2.0  # off the screenshot: may be out of view
CAPTION_GOOD_ENOUGH = 0.05  # a place costing this much per square pixel of caption hides next to nothing


@dataclass(frozen=True)
class CaptionPlace:
    box_id: int
    label: str
    text: str  # elided to fit
    rect: Rect  # in layout pixels: scene units times the zoom (the view adds its scroll offset)


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
        # ("draw", start) | ("move", start, {id: rect}) | ("resize", id, handle, rect, grab offset)
        self._gesture = None
        self._preview: QGraphicsRectItem | None = None
        self.caption_mode = "always"  # Settings.box_captions
        self.captions_on = True  # View > Show captions
        self.caption_font = QFont()
        self.caption_font.setPixelSize(11)
        self.caption_metrics = QFontMetrics(self.caption_font)
        self._ink: InkMap | None = None  # the screenshot's content, for placing labels
        self._awaiting_ink: Decoded | None = None  # the screen shown, whose ink map comes after it (set_ink)
        self._captions: tuple[tuple, list[CaptionPlace]] | None = None  # (key, layout)
        self._captioned: tuple[tuple, list[BoxItem]] | None = None  # (key, boxes in reading order)
        self.setItemIndexMethod(QGraphicsScene.BspTreeIndex)

    # loading ----------------------------------------------------------------
    def load(self, image: QImage | Decoded | None, width: int, height: int, boxes, missing_reason: str = "") -> None:
        """Show a screen: an image (decoded here), or one decoded ahead (prefetch.Decoded), or None."""
        self.reset()
        if isinstance(image, QImage) and not image.isNull():
            image = Decoded("", image, halved(image), ink_of(image))
        if isinstance(image, Decoded) and image.image is not None:
            self.background = ImageItem(image.levels)
            self._ink = image.ink
            self._awaiting_ink = image if image.ink is None else None
            width, height = image.image.width(), image.image.height()
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
        self._ink, self._captions, self._captioned = None, None, None
        self._awaiting_ink = None
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
            item = BoxItem(box.id, rect, box.label, box.element_text, self.style, box.category)
            self.items_by_id[box.id] = item
            self.addItem(item)
            self.layer.invalidate()
        else:
            item.set_rect(rect)
            item.set_label(box.label, box.element_text, box.category)

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

    # captions ---------------------------------------------------------------
    def set_caption_mode(self, mode: str) -> None:
        """always, hover (only hovered and selected boxes) or never; anything else reads as always."""
        self.caption_mode = mode if mode in CAPTION_MODES else "always"
        self.update()

    def set_ink(self, shown: Decoded, ink: InkMap | None) -> None:
        """The ink map of a screen loaded without it, computed after it was painted (step_view.py): its captions,
        held back until now, are placed clear of its content. None (it could not be made): placed without it.
        A map for a screen no longer shown is dropped."""
        if self._awaiting_ink is not shown:
            return
        self._ink, self._awaiting_ink, self._captions = ink, None, None
        if self.predictions is not None:
            self.predictions.ink_changed()
        self.update()

    def set_captions_on(self, on: bool) -> None:
        self.captions_on = on
        self.update()

    def caption_places(self, scale: float) -> list[CaptionPlace]:
        """The captions shown at zoom `scale`, placed, in layout pixels (scene units x scale).

        Laid out over the whole screenshot when it holds at most CAPTION_LIMIT captions, so the
        layout holds still while panning; else over the boxes in view (none if still too many)."""
        if not self.captions_on or self.caption_mode == "never" or self.layer is None:
            return []
        if self._awaiting_ink is not None:  # placed once the screen's ink map is in: they do not jump when it lands
            return []
        scale = round(scale, 9)  # 1 / (1 / zoom) from a click must find the layout the paint made
        boxes = self._captioned_boxes()
        visible = None
        if len(boxes) > CAPTION_LIMIT:
            visible = self._visible_rect()
            boxes = _first_in_view(boxes, visible, CAPTION_LIMIT + 1)
            if len(boxes) > CAPTION_LIMIT:
                return []
        key = (scale, self._boxes_key(), self._marks_key(), visible.getCoords() if visible is not None else None)
        if self._captions is None or self._captions[0] != key:
            self._captions = (key, self._layout_captions(boxes, scale))
        return self._captions[1]

    def _captioned_boxes(self) -> list[BoxItem]:
        """Boxes with a caption in the current mode, in reading order (a stable layout). Cached until a
        box changes: with thousands of boxes, sorting them every frame would cost more than painting."""
        key = self._boxes_key()
        if self._captioned is None or self._captioned[0] != key:
            hover_only = self.caption_mode == "hover"
            boxes = [b for b in self.items_by_id.values()
                     if b.caption and (not hover_only or b.hovered or b.isSelected())]
            boxes.sort(key=lambda b: (b._rect.top(), b._rect.left(), b.box_id))
            self._captioned = (key, boxes)
        return self._captioned[1]

    def _boxes_key(self) -> tuple:
        """What the captions depend on in the boxes. Hovering only matters in the "hover" mode: in the
        others, moving the mouse over thousands of boxes must not lay the captions out again."""
        hover = self.layer.hover_version if self.caption_mode == "hover" else 0
        return (self.caption_mode, id(self.layer), self.layer.version, hover)

    def _visible_rect(self) -> QRectF:
        views = self.views()
        if not views:
            return QRectF(self.image_rect)
        return views[0].mapToScene(views[0].viewport().rect()).boundingRect()

    def _marks_key(self) -> tuple:
        return tuple(self.predictions.marker_rects(1.0)) if self.predictions is not None else ()

    def _caption_obstacles(self, scale: float) -> Obstacles:
        """What captions keep off, in layout pixels: boxes, the handles of selected ones, markers."""
        obstacles = Obstacles()
        obstacles.add_all((_scaled(b._rect, scale) for b in self.items_by_id.values()), COVER_BOX, is_area=True)
        for item in self.items_by_id.values():
            if item.isSelected():
                handles = handle_rects(item._rect, 1.0 / scale).values()
                obstacles.add_all((_scaled(h, scale) for h in handles), COVER_HANDLE)
        if self.predictions is not None:
            obstacles.add_all(self.predictions.marker_rects(scale), COVER_MARK)
        return obstacles

    def _layout_captions(self, boxes: list[BoxItem], scale: float) -> list[CaptionPlace]:
        """Each caption, in reading order, at its cheapest place; placed captions are obstacles too."""
        bounds = _scaled(self.image_rect, scale)
        ink = self.ink_map()
        obstacles = self._caption_obstacles(scale)
        metrics = self.caption_metrics
        height = metrics.height() + 2
        places = []
        for item in boxes:
            box = _scaled(item._rect, scale)
            if box[2] - box[0] < CAPTION_MIN_BOX_PX or box[3] - box[1] < CAPTION_MIN_BOX_PX:
                continue
            room = max(box[2] - box[0], CAPTION_MIN_TEXT_PX)
            if item.category:  # the class is what a glance looks for: whole, when it is not too long
                room = max(room, min(metrics.horizontalAdvance(f"{item.category} · …"), CAPTION_CLASS_PX))
            text = metrics.elidedText(item.caption, Qt.ElideRight, int(room))
            width = metrics.horizontalAdvance(text) + 6
            # a selected box's handles sit just outside it: its caption keeps clear of them
            lift = HANDLE_OUTSET_PX if item.isSelected() else 0.0
            outer, inner = caption_candidates(box, width, height, lift)

            def cost(rect: Rect, box=box) -> float:
                value = obstacles.cost(rect, owner=box) + COVER_OUTSIDE * outside(rect, bounds)
                value += COVER_OWN * overlap(rect, box)
                if ink is not None:
                    value += COVER_INK * ink.pixels_scaled(rect, scale)
                return value

            candidates = outer + inner
            rect = candidates[cheapest(candidates, cost, good_enough=CAPTION_GOOD_ENOUGH * width * height)]
            obstacles.add(rect, COVER_CAPTION)
            places.append(CaptionPlace(item.box_id, item.label, text, rect))
        return places

    def ink_map(self) -> InkMap | None:
        """The screenshot's drawn content, for placing labels; None when the image is missing."""
        return self._ink

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
            # handles are drawn outside the box: the edge follows the mouse from where it was grabbed
            grabbed = pos - handle_points(item.rect())[handle]
            self._gesture = ("resize", item.box_id, handle, item.rect(), grabbed)
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

    def helpEvent(self, event) -> None:
        """Tooltips of the agents' markers (e.g. where an answer outside the screenshot pointed)."""
        text = self.predictions.tooltip_at(event.scenePos(), self.px) if self.predictions is not None else ""
        if text:
            QToolTip.showText(event.screenPos(), text, event.widget())
            event.accept()
            return
        super().helpEvent(event)

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
            _, box_id, handle, rect, grabbed = gesture
            left, top, right, bottom = HANDLES[handle]
            edge = pos - grabbed
            x = min(max(round(edge.x()), 0), self.image_rect.right())
            y = min(max(round(edge.y()), 0), self.image_rect.bottom())
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


def _first_in_view(boxes: list[BoxItem], visible: QRectF, limit: int) -> list[BoxItem]:
    """The boxes that intersect `visible`, stopping at `limit` (more means: too many to caption)."""
    out = []
    for box in boxes:
        if box._rect.intersects(visible):
            out.append(box)
            if len(out) >= limit:
                break
    return out


def _scaled(rect: QRectF, scale: float) -> Rect:
    """A scene rect in layout pixels."""
    return (rect.left() * scale, rect.top() * scale, rect.right() * scale, rect.bottom() * scale)
