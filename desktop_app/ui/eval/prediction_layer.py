"""The agents' answers for the current step, drawn on the canvas by ONE item (like BoxesLayer).

Per visible run: a cross at the predicted point (image pixels), the matched box outlined in the
run's colour when the answer named an element instead of a point, and a badge with the verdict
next to it. Crosses and badges keep one size on screen at every zoom: the item paints them in
view pixels after mapping the anchors, so no per-mark QGraphicsItem and no per-zoom rebuild is
needed. Answers with neither a point nor a matched box (unparseable, unmatched text) are stacked
as badges in the image's top-left corner, so every visible run says something on the canvas.
Points outside the image are drawn where they are: the scene rect stays the image, the item's
bounding rect is generous (MARGIN) so a badge is never culled at any zoom.

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
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen, QTransform
from PySide6.QtWidgets import QGraphicsItem

from desktop_app.ui.eval.colours import run_colour, text_on

CROSS_PX = 9  # arm length on screen
GAP_PX = 2  # empty centre: the clicked pixel stays visible
BADGE_FONT_PX = 11
PAD_X, PAD_Y = 4, 1
BOX_OFFSET_PX = 4  # a text answer's box is outlined this far outside the annotated box
MARGIN = 10_000.0  # scene units around the image: badges (view pixels) stay inside at any zoom
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
    """A mark laid out at one zoom, in view pixels relative to the scene origin (scene x scale)."""

    mark: PredictionMark
    anchor: QPointF | None  # the cross centre
    badge: QRectF
    text: str


class PredictionLayer(QGraphicsItem):
    def __init__(self, image_rect: QRectF | None = None, parent=None):
        super().__init__(parent)
        self.image_rect = QRectF(image_rect) if image_rect is not None else QRectF()
        self._marks: list[PredictionMark] = []
        self._colours: dict[int, QColor] = {}
        self._layout_cache: tuple[float, list[_Placed]] | None = None
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

    def legend_entries(self) -> list[tuple[QColor, str]]:
        """(colour, label) per run with a mark, in run order: the view draws the legend."""
        seen, out = set(), []
        for mark in sorted(self._marks, key=lambda m: m.run_id):
            if mark.run_id not in seen:
                seen.add(mark.run_id)
                out.append((QColor(mark.colour), mark.label or f"#{mark.run_id}"))
        return out

    # geometry -------------------------------------------------------------------------
    def boundingRect(self) -> QRectF:
        rect = QRectF(self.image_rect)
        for mark in self._marks:
            if mark.point is not None:
                rect = rect.united(QRectF(mark.point[0], mark.point[1], 1, 1))
            if mark.box is not None:
                rect = rect.united(QRectF(QPointF(mark.box[0], mark.box[1]), QPointF(mark.box[2], mark.box[3])))
        return rect.adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN)

    def _layout(self, scale: float) -> list[_Placed]:
        if self._layout_cache is not None and self._layout_cache[0] == scale:
            return self._layout_cache[1]
        height = self.metrics.height() + 2 * PAD_Y
        image = QRectF(self.image_rect.left() * scale, self.image_rect.top() * scale,
                       self.image_rect.width() * scale, self.image_rect.height() * scale)
        placed: list[_Placed] = []
        corner = 0
        for mark in self._marks:
            text = mark.verdict_text
            anchor = None
            if mark.point is not None:
                anchor = QPointF(mark.point[0] * scale, mark.point[1] * scale)
                x, y = anchor.x() + CROSS_PX + 3, anchor.y() - height / 2
            elif mark.box is not None:
                x, y = mark.box[2] * scale + BOX_OFFSET_PX + 3, mark.box[1] * scale - BOX_OFFSET_PX
            else:  # nothing to point at: a badge in the corner, naming the run
                text = f"{mark.label}: {text}"
                x, y = image.left() + 6, image.top() + 6 + corner * (height + 3)
                corner += 1
            width = self.metrics.horizontalAdvance(text) + 2 * PAD_X
            if anchor is not None and x + width > image.right() and anchor.x() - CROSS_PX - 3 - width >= image.left():
                x = anchor.x() - CROSS_PX - 3 - width  # flip left at the image's right edge
            elif mark.box is not None and anchor is None and x + width > image.right():
                x = mark.box[0] * scale - BOX_OFFSET_PX - 3 - width
            badge = QRectF(x, y, width, height)
            for _ in range(len(placed) + 1):  # shift down past badges already placed
                hit = next((p.badge for p in placed if p.badge.intersects(badge)), None)
                if hit is None:
                    break
                badge.moveTop(hit.bottom() + 2)
            placed.append(_Placed(mark, anchor, badge, text))
        self._layout_cache = (scale, placed)
        return placed

    def mark_at(self, scene_pos: QPointF, px_per_scene: float) -> PredictionMark | None:
        """The mark under the cursor: its cross (within a few screen pixels), its badge, or - for
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
        painter.setBrush(Qt.NoBrush)
        out = BOX_OFFSET_PX / max(scale, 1e-9)  # just outside the box: its label outline stays visible
        for p in placed:  # matched boxes of text answers, in scene coordinates
            b = p.mark.box
            if b is not None and p.anchor is None:
                rect = QRectF(QPointF(b[0], b[1]), QPointF(b[2], b[3])).adjusted(-out, -out, out, out)
                pen = QPen(self._colours[p.mark.run_id], 2, Qt.DashLine)
                pen.setCosmetic(True)
                painter.setPen(self.halo)
                painter.drawRect(rect)
                painter.setPen(pen)
                painter.drawRect(rect)
        # crosses and badges in view pixels: constant size at every zoom
        painter.setTransform(QTransform.fromTranslate(world.dx(), world.dy()))
        painter.setRenderHint(QPainter.Antialiasing, True)
        for p in placed:
            if p.anchor is None:
                continue
            x, y = p.anchor.x(), p.anchor.y()
            arms = ((x - CROSS_PX, y, x - GAP_PX, y), (x + GAP_PX, y, x + CROSS_PX, y),
                    (x, y - CROSS_PX, x, y - GAP_PX), (x, y + GAP_PX, x, y + CROSS_PX))
            pen = QPen(self._colours[p.mark.run_id], 2, Qt.SolidLine, Qt.RoundCap)
            for line_pen in (self.halo, pen):
                painter.setPen(line_pen)
                for x1, y1, x2, y2 in arms:
                    painter.drawLine(QPointF(x1, y1), QPointF(x2, y2))
        painter.setFont(self.font)
        for p in placed:
            colour = self._colours[p.mark.run_id]
            painter.setPen(QPen(QColor(255, 255, 255, 220), 1))
            painter.setBrush(colour)
            painter.drawRoundedRect(p.badge, 3, 3)
            painter.setPen(text_on(colour))
            painter.drawText(p.badge, Qt.AlignCenter, p.text)
        painter.restore()


def draw_legend(painter: QPainter, viewport: QRectF, entries: list[tuple[QColor, str]], font: QFont | None = None,
                corner: str = "top-right") -> QRectF:
    """A small legend box (swatch + label per run) in a corner of the viewport, in view pixels.
    For CanvasView.drawForeground after painter.resetTransform(). Returns the rect drawn."""
    if not entries:
        return QRectF()
    font = font or QFont()
    if font.pixelSize() <= 0:
        font.setPixelSize(12)
    metrics = QFontMetricsF(font)
    line = metrics.height() + 4
    width = max(metrics.horizontalAdvance(label) for _, label in entries) + 30
    rect = QRectF(0, 0, width, line * len(entries) + 8)
    if corner == "top-right":
        rect.moveTopRight(QPointF(viewport.right() - 10, viewport.top() + 10))
    else:
        rect.moveTopLeft(QPointF(viewport.left() + 10, viewport.top() + 10))
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
        painter.drawText(QRectF(rect.left() + 26, top, width - 26, line), Qt.AlignVCenter | Qt.AlignLeft, label)
    painter.restore()
    return rect
