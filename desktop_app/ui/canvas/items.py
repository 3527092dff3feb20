"""Graphics items of the canvas: the screenshot and the action boxes.

A BoxItem is geometry only: it lives in the scene's index for hit-testing,
selection and rubber bands, but paints nothing. One BoxesLayer paints every
box with a handful of drawRects calls per label. A Python paint() per box
cost ~15 us, i.e. 60 ms per frame with 4,000 boxes in view; the layer keeps a
frame of 5,000 boxes to a few milliseconds. Captions are laid out by the scene
(scene.py) and painted by the view (view.py) in one pass over the visible boxes.

Handles of a selected box are small and sit outside it (corner squares overlapping the corner
by a pixel, short ticks along the edge middles), so they never cover the box's own text.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QImage, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem

from desktop_app.ui.palette import label_color

HANDLE_PX = 8  # how far outside the box a handle still takes the mouse, on screen, whatever the zoom
HANDLE_INSIDE_PX = 3  # ... and how far inside: the rest of the box moves it, even when small
HANDLE_DRAWN_PX = 8  # a corner handle's side on screen; drawn outside the box
TICK_LONG_PX, TICK_THICK_PX = 12, 4  # an edge handle: a short tick outside the edge's middle
HANDLE_OUTSET_PX = HANDLE_DRAWN_PX  # what the handles add around a box: captions keep clear of it
THIN_BELOW = 0.75  # zoom under which unselected outlines are drawn 1 px wide
# handle name -> which edges it moves (left, top, right, bottom)
HANDLES = {"tl": (1, 1, 0, 0), "t": (0, 1, 0, 0), "tr": (0, 1, 1, 0), "r": (0, 0, 1, 0),
           "br": (0, 0, 1, 1), "b": (0, 0, 0, 1), "bl": (1, 0, 0, 1), "l": (1, 0, 0, 0)}
CURSORS = {"tl": Qt.SizeFDiagCursor, "br": Qt.SizeFDiagCursor, "tr": Qt.SizeBDiagCursor,
           "bl": Qt.SizeBDiagCursor, "t": Qt.SizeVerCursor, "b": Qt.SizeVerCursor,
           "l": Qt.SizeHorCursor, "r": Qt.SizeHorCursor}


def handle_points(rect: QRectF) -> dict[str, QPointF]:
    c = rect.center()
    return {"tl": rect.topLeft(), "t": QPointF(c.x(), rect.top()), "tr": rect.topRight(),
            "r": QPointF(rect.right(), c.y()), "br": rect.bottomRight(), "b": QPointF(c.x(), rect.bottom()),
            "bl": rect.bottomLeft(), "l": QPointF(rect.left(), c.y())}


def handle_rects(rect: QRectF, px: float) -> dict[str, QRectF]:
    """Where each handle of a selected box is drawn, in scene units (px: scene units per screen pixel).

    Corners: squares outside the corner, overlapping it by one pixel so they read as attached. Edge
    middles: ticks outside the edge, left out when the box is too small on screen to hold them apart
    from the corners (its edges still take the mouse)."""
    side, inset = HANDLE_DRAWN_PX * px, 1 * px  # inset: the overlap with the corner, the gap at edges
    out: dict[str, QRectF] = {}
    for name, point in handle_points(rect).items():
        left, top, right, bottom = HANDLES[name]
        if left + top + right + bottom == 2:  # a corner
            x = point.x() - side + inset if left else point.x() - inset
            y = point.y() - side + inset if top else point.y() - inset
            out[name] = QRectF(x, y, side, side)
    long_, thick = TICK_LONG_PX * px, TICK_THICK_PX * px
    if rect.width() >= 3 * long_:
        cx = rect.center().x() - long_ / 2
        out["t"] = QRectF(cx, rect.top() - thick - inset, long_, thick)  # clear of the selected outline
        out["b"] = QRectF(cx, rect.bottom() + inset, long_, thick)
    if rect.height() >= 3 * long_:
        cy = rect.center().y() - long_ / 2
        out["l"] = QRectF(rect.left() - thick - inset, cy, thick, long_)
        out["r"] = QRectF(rect.right() + inset, cy, thick, long_)
    return out


def _handle_reach(name: str, point: QPointF, px: float) -> QRectF:
    """Where a handle takes the mouse: mostly outside the box, where it is drawn, and a few pixels in."""
    left, top, right, bottom = HANDLES[name]
    out, inside = HANDLE_PX * px, HANDLE_INSIDE_PX * px
    x1 = point.x() - (out if left else inside if right else out)
    x2 = point.x() + (out if right else inside if left else out)
    y1 = point.y() - (out if top else inside if bottom else out)
    y2 = point.y() + (out if bottom else inside if top else out)
    return QRectF(QPointF(x1, y1), QPointF(x2, y2))


class BoxStyle:
    """Pens and brushes per role, built once per palette instead of per paint."""

    def __init__(self, palette: str = "default"):
        self.set_palette(palette)

    def of(self, label: str) -> str:
        """The role a box is drawn as (anything else as "other")."""
        return label if label in self.colors else "other"

    def set_palette(self, palette: str) -> None:
        self.palette = palette
        self.pens: dict[tuple[str, bool], QPen] = {}
        self.thin: dict[str, QPen] = {}
        self.fills: dict[str, QBrush] = {}
        self.colors: dict[str, QColor] = {}
        for label in ("gold", "distracted", "other"):
            color = label_color(label, palette)
            self.colors[label] = color
            for selected in (False, True):
                pen = QPen(color, 3 if selected else 2)
                pen.setCosmetic(True)
                pen.setJoinStyle(Qt.MiterJoin)
                self.pens[(label, selected)] = pen
            thin = QPen(color, 1)
            thin.setCosmetic(True)
            self.thin[label] = thin
            fill = QColor(color)
            fill.setAlpha(48)
            self.fills[label] = QBrush(fill)
        self.handle_pen = QPen(QColor("white"), 1)
        self.handle_pen.setCosmetic(True)


def caption_of(category: str, text: str) -> str:
    """What a box's caption says: its class first (the caption is cut at its end when long), then its
    element text, "Car · Send"; either alone when the other is empty."""
    return " · ".join(part for part in (category, text) if part)


class BoxItem(QGraphicsItem):
    """One action box. Its geometry is image pixels; item position stays (0, 0). `label` is its role (its
    colour), `category` its class, `text` its element text."""

    def __init__(self, box_id: int, rect: QRectF, label: str, text: str, style: BoxStyle, category: str = ""):
        super().__init__()
        self.box_id = box_id
        self._rect = QRectF(rect)
        self.label = label
        self.text = text
        self.category = category
        self.caption = caption_of(category, text)
        self.style = style
        self.hovered = False
        self.setFlag(QGraphicsItem.ItemIsSelectable, True)
        self.setFlag(QGraphicsItem.ItemHasNoContents, True)  # the BoxesLayer paints it
        self.setAcceptHoverEvents(True)
        self.setZValue(10)

    def _changed(self, hover: bool = False) -> None:
        scene = self.scene()
        if scene is not None and getattr(scene, "layer", None) is not None:
            scene.layer.invalidate(hover)

    def set_label(self, label: str, text: str, category: str = "") -> None:
        self.label, self.text, self.category = label, text, category
        self.caption = caption_of(category, text)
        self._changed()

    # geometry ---------------------------------------------------------------
    def rect(self) -> QRectF:
        return QRectF(self._rect)

    def set_rect(self, rect: QRectF) -> None:
        if rect != self._rect:
            self.prepareGeometryChange()
            self._rect = QRectF(rect)
            self._changed()

    def _margin(self) -> float:
        scene = self.scene()
        px = scene.px if scene is not None and hasattr(scene, "px") else 1.0
        return (HANDLE_PX if self.isSelected() else 3) * px

    def boundingRect(self) -> QRectF:
        m = self._margin()
        return self._rect.adjusted(-m, -m, m, m)

    def itemChange(self, change, value):
        if change == QGraphicsItem.ItemSelectedChange:
            self.prepareGeometryChange()  # handles widen the hit area
        elif change == QGraphicsItem.ItemSelectedHasChanged:
            self._changed()
        return super().itemChange(change, value)

    def handle_at(self, pos: QPointF, px: float) -> str | None:
        if not self.isSelected():
            return None
        for name, point in handle_points(self._rect).items():
            if _handle_reach(name, point, px).contains(pos):
                return name
        return None

    def hoverEnterEvent(self, event) -> None:
        self.hovered = True
        self._changed(hover=True)

    def hoverLeaveEvent(self, event) -> None:
        self.hovered = False
        self._changed(hover=True)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        pass  # never called (ItemHasNoContents)


class BoxesLayer(QGraphicsItem):
    """Paints all boxes of the scene: outlines per label in bulk, then the
    selected and hovered ones with fill and handles on top."""

    def __init__(self, boxes: dict[int, BoxItem], style: BoxStyle, size: QRectF):
        super().__init__()
        self.boxes = boxes
        self.style = style
        self.size = QRectF(size)
        self._rects: dict[str, list[QRectF]] | None = None
        self._marked: list[BoxItem] = []
        self.version = 0  # counts changes to boxes (geometry, label, text, selection)...
        self.hover_version = 0  # ... and, apart, to which box is hovered: captions mostly ignore it
        self.setZValue(5)
        self.setAcceptedMouseButtons(Qt.NoButton)

    def invalidate(self, hover: bool = False) -> None:
        self._rects = None
        if hover:
            self.hover_version += 1
        else:
            self.version += 1  # the scene's caption layout is keyed on these
        self.update()

    def boundingRect(self) -> QRectF:
        return self.size.adjusted(-4, -4, 4, 4)

    def _build(self) -> None:
        rects: dict[str, list[QRectF]] = {"gold": [], "distracted": [], "other": []}
        marked = []
        for item in self.boxes.values():
            if item.isSelected() or item.hovered:
                marked.append(item)
            else:
                rects.setdefault(self.style.of(item.label), []).append(item._rect)
        self._rects, self._marked = rects, marked

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        if self._rects is None:
            self._build()
        painter.setBrush(Qt.NoBrush)
        scale = painter.worldTransform().m11()
        # zoomed out, boxes are small and many: 1 px outlines draw 3x faster than 2 px ones
        zoomed_out = scale < THIN_BELOW
        for label, rects in self._rects.items():
            if rects:
                painter.setPen(self.style.thin[label] if zoomed_out else self.style.pens[(label, False)])
                painter.drawRects(rects)
        px = 1.0 / max(scale, 1e-6)
        for item in self._marked:
            selected, label = item.isSelected(), self.style.of(item.label)
            painter.setPen(self.style.pens[(label, selected)])
            painter.setBrush(self.style.fills[label])
            painter.drawRect(item._rect)
            if selected:
                painter.setPen(self.style.handle_pen)
                painter.setBrush(self.style.colors[label])
                for handle in handle_rects(item._rect, px).values():
                    painter.drawRect(handle)


class ImageItem(QGraphicsItem):
    """The screenshot at true pixels, with a pyramid of halved copies so that
    zoomed-out repaints scale a small image instead of the full one."""

    def __init__(self, levels: tuple[QImage, ...]):
        """`levels`: the image and its halved copies (prefetch.halved), made off the UI thread when ahead."""
        super().__init__()
        self.size = levels[0].size()
        self.levels: list[QPixmap] = [QPixmap.fromImage(level) for level in levels]
        self.setZValue(0)

    def boundingRect(self) -> QRectF:
        return QRectF(0, 0, self.size.width(), self.size.height())

    def paint(self, painter: QPainter, option, widget=None) -> None:
        scale = painter.worldTransform().m11()
        level = 0
        while level + 1 < len(self.levels) and scale * (2 ** (level + 1)) <= 1.0:
            level += 1
        pixmap = self.levels[level]
        painter.setRenderHint(QPainter.SmoothPixmapTransform, scale < 1.0)
        painter.drawPixmap(self.boundingRect(), pixmap, QRectF(pixmap.rect()))


class MissingImageItem(QGraphicsItem):
    """Stands in for a screenshot that is not in the media folder, and says why."""

    def __init__(self, width: int, height: int, reason: str):
        super().__init__()
        self.rect = QRectF(0, 0, max(width, 1), max(height, 1))
        self.reason = reason

    def boundingRect(self) -> QRectF:
        return self.rect

    def paint(self, painter: QPainter, option, widget=None) -> None:
        painter.fillRect(self.rect, QColor("#d9d9d9"))
        pen = QPen(QColor("#8a8a8a"), 2, Qt.DashLine)
        pen.setCosmetic(True)
        painter.setPen(pen)
        painter.drawRect(self.rect)
        painter.drawLine(self.rect.topLeft(), self.rect.bottomRight())
        painter.drawLine(self.rect.topRight(), self.rect.bottomLeft())
        font = QFont()
        font.setPixelSize(max(14, int(self.rect.height() / 30)))
        painter.setFont(font)
        painter.setPen(QColor("#333333"))
        painter.fillRect(self.rect.adjusted(self.rect.width() * 0.1, self.rect.height() * 0.4,
                                            -self.rect.width() * 0.1, -self.rect.height() * 0.4), QColor("#f2f2f2"))
        painter.drawText(self.rect, Qt.AlignCenter | Qt.TextWordWrap, self.reason)
