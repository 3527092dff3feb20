"""The agents' answers for the current step, drawn on the canvas by ONE item (like BoxesLayer).

Per visible run: a cross at the predicted point (image pixels), the matched box outlined in the
run's colour when the answer named an element instead of a point, and a tag with the verdict
next to it. Crosses and tags keep one size on screen at every zoom: the item paints them in
view pixels after mapping the anchors, so no per-mark QGraphicsItem and no per-zoom rebuild is
needed.

Tags go where they hide least: of a few places around the marker, the one overlapping least with
the boxes' captions (AnnotationScene.caption_places), the other tags and markers, the box under the
marker and the screenshot's content. A point outside the image is drawn as an arrow on the image's
edge pointing the way it went, its tag says "outside" and its tooltip gives the coordinates.
Answers with neither a point nor a matched box (no answer, wrong format) are not drawn on the page:
they are listed, with their verdict, in the legend the view draws in the emptiest corner.

Wiring (main window), after every scene.load() (AnnotationScene.reset() deletes all items):
    layer = PredictionLayer(scene.image_rect); scene.addItem(layer)
    rows = step_prediction_rows(project, ws.step.id, runs_panel.visible_runs())
    layer.set_predictions(marks_from_rows(rows))
    prediction_panel.show_predictions(rows)
    view: draw_legend(painter, viewport_rect, layer.legend_entries()) in drawForeground
    click: mark = layer.mark_at(scene_pos, scene.px); if mark and mark.box_id: scene.select_ids([mark.box_id])
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen, QPolygonF, QTransform
from PySide6.QtWidgets import QGraphicsItem

from desktop_app.ui.canvas.placement import (
    Obstacles,
    Rect,
    cheapest,
    outside,
    overlap,
    tag_candidates_at_box,
    tag_candidates_at_point,
)
from desktop_app.ui.eval.colours import run_colour, text_on

CROSS_PX = 9  # arm length on screen
GAP_PX = 2  # empty centre: the clicked pixel stays visible
ARROW_LONG_PX, ARROW_HALF_PX = 16, 8  # an outside point's arrow: length, half its base
BADGE_FONT_PX = 11
PAD_X, PAD_Y = 4, 1
TAG_GAP_PX = 3  # between a marker's arms and its tag
BOX_OFFSET_PX = 4  # a text answer's box is outlined this far outside the annotated box
MARGIN = 10_000.0  # scene units around the image: badges (view pixels) stay inside at any zoom
# what covering one square view pixel costs a tag (placement.cheapest picks the lowest total)
COVER_CAPTION = 8.0  # a box's caption
COVER_TAG = 8.0  # another run's tag
COVER_MARK = 8.0  # any marker's cross or arrow
COVER_BOX = 2.0  # the box the marker points into (or the box a text answer named)
COVER_INK = 1.0  # page content
COVER_OUTSIDE = 2.0  # off the screenshot: may be out of view
VERDICT_TEXT = {"gold": "gold", "distracted": "distracted", "other": "other", "invalid": "invalid",
                "error": "no answer", "": "not scored"}


@dataclass(frozen=True)
class PredictionMark:
    run_id: int
    colour: QColor | str  # the run's colour
    point: tuple[float, float] | None  # predicted point, original image pixels
    box: tuple[float, float, float, float] | None  # matched box (x1, y1, x2, y2), outlined for text answers
    verdict: str  # gold, distracted, other, invalid, error
    wrong_format: bool = False
    label: str = ""  # "#3 gpt-4o / cot": the legend and corner badges
    box_id: int | None = None  # the matched ActionBox: select it when the marker is clicked

    @property
    def verdict_text(self) -> str:
        if self.wrong_format:
            return "wrong format"
        return VERDICT_TEXT.get(self.verdict, self.verdict)


def marks_from_rows(rows: list[dict], colour_of: Callable[[int], QColor] = run_colour) -> list[PredictionMark]:
    """step_prediction_rows() (or prediction_rows()) dicts -> marks; the box is given for answers
    without a point (text answers), as the brief for the overlay asks."""
    marks = []
    for r in rows:
        point = tuple(r["point"]) if r.get("point") and None not in r["point"] else None
        rect = r.get("matched_box_rect")
        box = tuple(rect) if point is None and rect and None not in rect else None
        label = f"#{r['run']} {r.get('agent', '')} / {r.get('pattern', '')}".rstrip(" /")
        marks.append(PredictionMark(int(r["run"]), colour_of(int(r["run"])), point, box, r.get("verdict") or "",
                                    bool(r.get("wrong_format")), label, r.get("matched_box")))
    return marks


@dataclass
class _Placed:
    """A mark laid out at one zoom, in layout pixels (scene units times the zoom)."""

    mark: PredictionMark
    anchor: QPointF | None  # the cross centre, or the tip of an outside point's arrow on the image edge
    badge: QRectF
    text: str
    direction: tuple[float, float] | None = None  # unit vector to an outside point, from the anchor


@dataclass(frozen=True)
class Tag:
    """A drawn tag, as the user sees it, in scene units (image pixels) at the zoom it was laid out for."""

    mark: PredictionMark
    text: str
    rect: QRectF
    anchor: QPointF | None  # where the marker points (clamped to the image edge when outside)
    outside: bool


class PredictionLayer(QGraphicsItem):
    def __init__(self, image_rect: QRectF | None = None, parent=None):
        super().__init__(parent)
        self.image_rect = QRectF(image_rect) if image_rect is not None else QRectF()
        self._marks: list[PredictionMark] = []
        self._colours: dict[int, QColor] = {}
        self._layout_cache: tuple[tuple, list[_Placed]] | None = None
        self.font = QFont()
        self.font.setPixelSize(BADGE_FONT_PX)
        self.font.setBold(True)
        self.metrics = QFontMetricsF(self.font)
        self.halo = QPen(QColor(255, 255, 255, 220), 4, Qt.SolidLine, Qt.RoundCap)
        self.halo.setCosmetic(True)
        self.setZValue(20)  # above boxes (BoxesLayer 5, BoxItem 10)
        self.setAcceptedMouseButtons(Qt.NoButton)  # clicks reach the scene; the view asks mark_at()
        self.setFlag(QGraphicsItem.ItemUsesExtendedStyleOption, False)

    # data -----------------------------------------------------------------------------
    def set_predictions(self, marks: list[PredictionMark]) -> None:
        marks = list(marks)
        if marks == self._marks:
            return  # streaming refreshes often bring nothing new for this step
        self.prepareGeometryChange()
        self._marks = marks
        self._colours = {m.run_id: QColor(m.colour) for m in marks}
        self._layout_cache = None
        self.update()

    def clear(self) -> None:
        self.set_predictions([])

    def marks(self) -> list[PredictionMark]:
        return list(self._marks)

    def set_image_rect(self, rect: QRectF) -> None:
        self.prepareGeometryChange()
        self.image_rect = QRectF(rect)
        self._layout_cache = None
        self.update()

    def ink_changed(self) -> None:
        """The screenshot's ink map came in (AnnotationScene.set_ink): the tags are placed again, clear of it."""
        self._layout_cache = None
        self.update()

    def legend_entries(self) -> list[tuple[QColor, str]]:
        """(colour, label) per run with a mark, in run order: the view draws the legend. A run whose
        answer has no place on the page says its verdict here, since nothing else on the canvas does."""
        seen, out = set(), []
        for mark in sorted(self._marks, key=lambda m: m.run_id):
            if mark.run_id not in seen:
                seen.add(mark.run_id)
                label = mark.label or f"#{mark.run_id}"
                if mark.point is None and mark.box is None:
                    label = f"{label}: {mark.verdict_text}"
                out.append((QColor(mark.colour), label))
        return out

    def tooltip(self, mark: PredictionMark) -> str:
        name = mark.label or f"#{mark.run_id}"
        if mark.point is None:
            return f"{name}: {mark.verdict_text}"
        x, y = mark.point
        where = f"clicked ({x:g}, {y:g})"
        if self._is_outside(mark.point):
            where += (f", outside the image (0, 0)-({self.image_rect.width():g}, {self.image_rect.height():g});"
                      " the arrow on the edge points that way")
        return f"{name}: {mark.verdict_text}, {where}"

    def tooltip_at(self, scene_pos: QPointF, px_per_scene: float) -> str:
        mark = self.mark_at(scene_pos, px_per_scene)
        return self.tooltip(mark) if mark is not None else ""

    # geometry -------------------------------------------------------------------------
    def boundingRect(self) -> QRectF:
        rect = QRectF(self.image_rect)
        for mark in self._marks:
            if mark.box is not None:
                rect = rect.united(QRectF(QPointF(mark.box[0], mark.box[1]), QPointF(mark.box[2], mark.box[3])))
        return rect.adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN)

    def _is_outside(self, point: tuple[float, float]) -> bool:
        return not self.image_rect.isEmpty() and not self.image_rect.contains(QPointF(*point))

    def _anchor(self, point: tuple[float, float], scale: float) -> tuple[QPointF, tuple[float, float] | None]:
        """Where a point is drawn, in layout pixels, and for a point outside the image the direction it
        lies in: it is drawn on the image edge, where the user can see it."""
        x, y = point
        if not self._is_outside(point):
            return QPointF(x * scale, y * scale), None
        r = self.image_rect
        cx, cy = min(max(x, r.left()), r.right()), min(max(y, r.top()), r.bottom())
        dx, dy = x - cx, y - cy
        length = max((dx * dx + dy * dy) ** 0.5, 1e-9)
        return QPointF(cx * scale, cy * scale), (dx / length, dy / length)

    def marker_rects(self, scale: float) -> list[Rect]:
        """The squares the crosses and arrows take, in layout pixels: captions and tags keep off them."""
        out = []
        for mark in self._marks:
            if mark.point is not None:
                anchor, direction = self._anchor(mark.point, scale)
                arm = _arm(direction)
                out.append((anchor.x() - arm, anchor.y() - arm, anchor.x() + arm, anchor.y() + arm))
        return out

    def tags(self, scale: float = 1.0) -> list[Tag]:
        """The tags drawn at zoom `scale`, in scene units: where each is and what it says."""
        out = []
        for p in self._layout(scale):
            r = p.badge
            rect = QRectF(r.left() / scale, r.top() / scale, r.width() / scale, r.height() / scale)
            anchor = QPointF(p.anchor.x() / scale, p.anchor.y() / scale) if p.anchor is not None else None
            out.append(Tag(p.mark, p.text, rect, anchor, p.direction is not None))
        return out

    def tag_rects(self, scale: float) -> list[Rect]:
        """The tags drawn at zoom `scale`, in layout pixels (scene units times the zoom)."""
        return [p.badge.getCoords() for p in self._layout(scale)]

    def _caption_rects(self, scale: float) -> list[Rect]:
        scene = self.scene()
        places = scene.caption_places(scale) if hasattr(scene, "caption_places") else []
        return [place.rect for place in places]

    def _layout(self, scale: float) -> list[_Placed]:
        scale = round(scale, 9)  # clicks pass 1 / (1 / zoom): they must find the layout the paint made
        captions = self._caption_rects(scale)
        key = (scale, tuple(captions))
        if self._layout_cache is not None and self._layout_cache[0] == key:
            return self._layout_cache[1]
        obstacles = Obstacles()
        obstacles.add_all(captions, COVER_CAPTION)
        obstacles.add_all(self.marker_rects(scale), COVER_MARK)
        placed: list[_Placed] = []
        for mark in self._marks:
            if mark.point is None and mark.box is None:
                continue  # nothing to point at: the legend names the run and its verdict
            p = self._place(mark, scale, obstacles)
            obstacles.add(p.badge.getCoords(), COVER_TAG)
            placed.append(p)
        self._layout_cache = (key, placed)
        return placed

    def _place(self, mark: PredictionMark, scale: float, obstacles: Obstacles) -> _Placed:
        """A mark's tag at the place around its marker (or box) that hides least."""
        height = self.metrics.height() + 2 * PAD_Y
        anchor, direction = None, None
        text = mark.verdict_text
        if mark.point is not None:
            anchor, direction = self._anchor(mark.point, scale)
            if direction is not None:
                text = f"{text}, outside"
            width = self.metrics.horizontalAdvance(text) + 2 * PAD_X
            candidates = tag_candidates_at_point(anchor.x(), anchor.y(), width, height, _arm(direction) + TAG_GAP_PX)
            pointed = self._box_under(anchor.x() / scale, anchor.y() / scale)
            under = _scaled(pointed, scale) if pointed is not None else None
        else:
            width = self.metrics.horizontalAdvance(text) + 2 * PAD_X
            under = _scaled(mark.box, scale)
            candidates = tag_candidates_at_box(under, width, height, BOX_OFFSET_PX + TAG_GAP_PX)
        bounds = _scaled(self.image_rect.getCoords(), scale)
        ink = self._ink()

        def cost(rect: Rect) -> float:
            value = obstacles.cost(rect) + COVER_OUTSIDE * outside(rect, bounds)
            if under is not None:
                value += COVER_BOX * overlap(rect, under)
            if ink is not None:
                value += COVER_INK * ink.pixels_scaled(rect, scale)
            return value

        x1, y1, x2, y2 = candidates[cheapest(candidates, cost)]
        return _Placed(mark, anchor, QRectF(x1, y1, x2 - x1, y2 - y1), text, direction)

    def _box_under(self, x: float, y: float) -> Rect | None:
        """The smallest annotated box under a point (scene units): the element the agent pointed at."""
        boxes = getattr(self.scene(), "items_by_id", {})
        hits = [b.rect() for b in boxes.values() if b.rect().contains(QPointF(x, y))]
        if not hits:
            return None
        best = min(hits, key=lambda r: r.width() * r.height())
        return best.getCoords()

    def _ink(self):
        scene = self.scene()
        return scene.ink_map() if hasattr(scene, "ink_map") else None

    def mark_at(self, scene_pos: QPointF, px_per_scene: float) -> PredictionMark | None:
        """The mark under the cursor: its cross or arrow (within a few screen pixels), its tag, or - for
        text answers - its outlined box. px_per_scene: scene units per screen pixel (scene.px)."""
        scale = 1.0 / max(px_per_scene, 1e-9)
        q = QPointF(scene_pos.x() * scale, scene_pos.y() * scale)
        reach = CROSS_PX + 2
        placed = self._layout(scale)
        for p in reversed(placed):  # the last drawn is on top
            if p.anchor is not None and abs(p.anchor.x() - q.x()) <= reach and abs(p.anchor.y() - q.y()) <= reach:
                return p.mark
            if p.badge.contains(q):
                return p.mark
        for p in reversed(placed):
            b = p.mark.box
            if b is not None and p.anchor is None and b[0] <= scene_pos.x() <= b[2] and b[1] <= scene_pos.y() <= b[3]:
                return p.mark
        return None

    # painting -------------------------------------------------------------------------
    def paint(self, painter: QPainter, option, widget=None) -> None:
        if not self._marks:
            return
        painter.save()  # the view sets DontSavePainterState: leave the painter as found
        world = painter.worldTransform()
        scale = world.m11()
        placed = self._layout(scale)
        self._paint_boxes(painter, placed, scale)
        # crosses, arrows and tags in view pixels: constant size at every zoom
        painter.setTransform(QTransform.fromTranslate(world.dx(), world.dy()))
        painter.setRenderHint(QPainter.Antialiasing, True)
        for p in placed:
            if p.anchor is None:
                continue
            colour = self._colours[p.mark.run_id]
            if p.direction is None:
                self._paint_cross(painter, p.anchor, colour)
            else:
                self._paint_arrow(painter, p.anchor, p.direction, colour)
        painter.setFont(self.font)
        for p in placed:
            colour = self._colours[p.mark.run_id]
            painter.setPen(QPen(QColor(255, 255, 255, 220), 1))
            painter.setBrush(colour)
            painter.drawRoundedRect(p.badge, 3, 3)
            painter.setPen(text_on(colour))
            painter.drawText(p.badge, Qt.AlignCenter, p.text)
        painter.restore()

    def _paint_boxes(self, painter: QPainter, placed: list[_Placed], scale: float) -> None:
        """The matched boxes of text answers, in scene coordinates."""
        painter.setBrush(Qt.NoBrush)
        out = BOX_OFFSET_PX / max(scale, 1e-9)  # just outside the box: its label outline stays visible
        for p in placed:
            b = p.mark.box
            if b is not None and p.anchor is None:
                rect = QRectF(QPointF(b[0], b[1]), QPointF(b[2], b[3])).adjusted(-out, -out, out, out)
                pen = QPen(self._colours[p.mark.run_id], 2, Qt.DashLine)
                pen.setCosmetic(True)
                painter.setPen(self.halo)
                painter.drawRect(rect)
                painter.setPen(pen)
                painter.drawRect(rect)

    def _paint_cross(self, painter: QPainter, at: QPointF, colour: QColor) -> None:
        x, y = at.x(), at.y()
        arms = ((x - CROSS_PX, y, x - GAP_PX, y), (x + GAP_PX, y, x + CROSS_PX, y),
                (x, y - CROSS_PX, x, y - GAP_PX), (x, y + GAP_PX, x, y + CROSS_PX))
        pen = QPen(colour, 2, Qt.SolidLine, Qt.RoundCap)
        for line_pen in (self.halo, pen):
            painter.setPen(line_pen)
            for x1, y1, x2, y2 in arms:
                painter.drawLine(QPointF(x1, y1), QPointF(x2, y2))

    def _paint_arrow(self, painter: QPainter, tip: QPointF, direction: tuple[float, float], colour: QColor) -> None:
        """A point outside the image: an arrowhead inside the image, its tip on the edge, pointing out."""
        dx, dy = direction
        base = QPointF(tip.x() - dx * ARROW_LONG_PX, tip.y() - dy * ARROW_LONG_PX)
        side = QPointF(-dy * ARROW_HALF_PX, dx * ARROW_HALF_PX)
        painter.setPen(QPen(QColor(255, 255, 255, 230), 2, Qt.SolidLine, Qt.RoundCap, Qt.RoundJoin))
        painter.setBrush(colour)
        painter.drawPolygon(QPolygonF([tip, base + side, base - side]))


def _arm(direction: tuple[float, float] | None) -> float:
    """How far a marker reaches from its anchor: a cross's arm, or an outside point's arrow."""
    return CROSS_PX if direction is None else ARROW_LONG_PX


def _scaled(rect: Rect, scale: float) -> Rect:
    return (rect[0] * scale, rect[1] * scale, rect[2] * scale, rect[3] * scale)


LEGEND_CORNERS = ("top-right", "top-left", "bottom-right", "bottom-left")  # in order of preference
LEGEND_INSET_PX = 10  # from the viewport's edges


def _legend_font(font: QFont | None) -> QFont:
    font = QFont(font) if font is not None else QFont()
    if font.pixelSize() <= 0:
        font.setPixelSize(12)
    return font


def legend_rect(viewport: QRectF, entries: list[tuple[QColor, str]], corner: str = "top-right",
                font: QFont | None = None) -> QRectF:
    """Where draw_legend() puts the legend for these entries in that corner of the viewport."""
    if not entries:
        return QRectF()
    metrics = QFontMetricsF(_legend_font(font))
    line = metrics.height() + 4
    width = max(metrics.horizontalAdvance(label) for _, label in entries) + 30
    width = min(width, max(viewport.width() - 2 * LEGEND_INSET_PX, 60))  # a long run name is elided, not cut off
    rect = QRectF(0, 0, width, line * len(entries) + 8)
    x = viewport.right() - LEGEND_INSET_PX - width if corner.endswith("right") else viewport.left() + LEGEND_INSET_PX
    y = viewport.bottom() - LEGEND_INSET_PX - rect.height() if corner.startswith("bottom") else \
        viewport.top() + LEGEND_INSET_PX
    rect.moveTopLeft(QPointF(x, y))
    return rect


def draw_legend(painter: QPainter, viewport: QRectF, entries: list[tuple[QColor, str]], font: QFont | None = None,
                corner: str = "top-right") -> QRectF:
    """A small legend box (swatch + label per run) in a corner of the viewport, in view pixels.
    For CanvasView.drawForeground after painter.resetTransform(). Returns the rect drawn."""
    if not entries:
        return QRectF()
    font = _legend_font(font)
    line = QFontMetricsF(font).height() + 4
    rect = legend_rect(viewport, entries, corner, font)
    painter.save()
    painter.setRenderHint(QPainter.Antialiasing, True)
    painter.setPen(QPen(QColor(0, 0, 0, 90), 1))
    painter.setBrush(QColor(255, 255, 255, 225))
    painter.drawRoundedRect(rect, 4, 4)
    painter.setFont(font)
    for i, (colour, label) in enumerate(entries):
        top = rect.top() + 4 + i * line
        painter.fillRect(QRectF(rect.left() + 8, top + line / 2 - 5, 12, 10), colour)
        painter.setPen(QColor("#202020"))
        room = rect.width() - 30
        shown = QFontMetricsF(font).elidedText(label, Qt.ElideMiddle, room)
        painter.drawText(QRectF(rect.left() + 26, top, rect.width() - 26, line), Qt.AlignVCenter | Qt.AlignLeft, shown)
    painter.restore()
    return rect
