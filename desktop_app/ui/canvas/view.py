"""The canvas view: zoom, pan, crosshair, the captions of visible boxes and the runs' legend.

The scene decides where captions go (AnnotationScene.caption_places, in layout pixels: scene units
times the zoom); the view shifts them by its scroll offset and paints them on top of everything.
The legend goes to the viewport corner where it hides least, and stays there until another corner
is clearly better, so it does not hop about while panning.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPen, QTransform
from PySide6.QtWidgets import QFrame, QGraphicsView

from desktop_app.ui.canvas.placement import Obstacles, Rect
from desktop_app.ui.canvas.scene import AnnotationScene, CaptionPlace
from desktop_app.ui.eval.prediction_layer import LEGEND_CORNERS, draw_legend, legend_rect

MIN_SCALE, MAX_SCALE = 0.02, 40.0
STEP = 1.25
LEGEND_MOVE_BELOW = 0.5  # the legend changes corner only when the other one hides less than half as much
# what covering one square view pixel costs the legend (the corner with the lowest total wins)
LEGEND_COVER = {"caption": 8.0, "tag": 8.0, "mark": 8.0, "ink": 3.0, "box": 1.0}
LEGEND_BOX_LIMIT = 1000  # with more boxes, the legend weighs only the screenshot's ink, not each box


class CanvasView(QGraphicsView):
    zoomChanged = Signal(float)

    def __init__(self, scene: AnnotationScene, parent=None):
        super().__init__(scene, parent)
        self.setObjectName("canvas")
        # Full repaints: captions are painted in the foreground, so partial updates would smear them.
        self.setViewportUpdateMode(QGraphicsView.FullViewportUpdate)
        self.setOptimizationFlags(QGraphicsView.DontSavePainterState | QGraphicsView.DontAdjustForAntialiasing)
        self.setTransformationAnchor(QGraphicsView.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.AnchorViewCenter)
        self.setDragMode(QGraphicsView.RubberBandDrag)
        self.setRubberBandSelectionMode(Qt.IntersectsItemShape)
        self.setMouseTracking(True)
        self.setFrameShape(QFrame.NoFrame)
        self.setFocusPolicy(Qt.StrongFocus)
        self.setBackgroundBrush(QColor("#3a3a3a"))
        self.legend_corner = LEGEND_CORNERS[0]
        self._pan_from: QPoint | None = None
        self._space = False
        self._mouse: QPoint | None = None
        self._fitted = True  # refit on resize until the user zooms

    @property
    def canvas(self) -> AnnotationScene:
        return self.scene()

    @property
    def show_captions(self) -> bool:
        """View > Show captions; which captions show is the scene's caption_mode (the settings)."""
        return self.canvas.captions_on

    @show_captions.setter
    def show_captions(self, on: bool) -> None:
        self.canvas.set_captions_on(on)

    # zoom -------------------------------------------------------------------
    def scale_factor(self) -> float:
        return self.transform().m11()

    def set_scale(self, scale: float, anchor_mouse: bool = True) -> None:
        scale = min(max(scale, MIN_SCALE), MAX_SCALE)
        self.setTransformationAnchor(QGraphicsView.AnchorUnderMouse if anchor_mouse else QGraphicsView.AnchorViewCenter)
        self.setTransform(QTransform.fromScale(scale, scale))  # absolute: no drift from repeated factors
        self._after_zoom()

    def _after_zoom(self) -> None:
        self.canvas.set_px(1.0 / self.scale_factor())
        self.zoomChanged.emit(self.scale_factor())

    def zoom_in(self) -> None:
        self._fitted = False
        self.set_scale(self.scale_factor() * STEP, anchor_mouse=False)

    def zoom_out(self) -> None:
        self._fitted = False
        self.set_scale(self.scale_factor() / STEP, anchor_mouse=False)

    def actual_size(self) -> None:
        self._fitted = False
        self.set_scale(1.0, anchor_mouse=False)

    def fit(self) -> None:
        self._fitted = True
        rect = self.canvas.image_rect
        if rect.isEmpty():
            return
        self.fitInView(rect.adjusted(-8, -8, 8, 8), Qt.KeepAspectRatio)
        self._after_zoom()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self._fitted:
            self.fit()

    def wheelEvent(self, event) -> None:
        delta = event.angleDelta().y()
        if delta == 0 or event.modifiers() & Qt.ShiftModifier:
            super().wheelEvent(event)  # horizontal / shift scrolling pans
            return
        self._fitted = False
        self.set_scale(self.scale_factor() * STEP ** (delta / 120), anchor_mouse=True)
        event.accept()

    # pan (space + drag, or the middle button) -------------------------------
    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key_Space and not event.isAutoRepeat():
            self._space = True
            self.viewport().setCursor(Qt.OpenHandCursor)
            event.accept()
            return
        super().keyPressEvent(event)

    def keyReleaseEvent(self, event) -> None:
        if event.key() == Qt.Key_Space and not event.isAutoRepeat():
            self._space = False
            self.viewport().setCursor(Qt.CrossCursor if self.canvas.mode == "draw" else Qt.ArrowCursor)
            event.accept()
            return
        super().keyReleaseEvent(event)

    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.MiddleButton or (event.button() == Qt.LeftButton and self._space):
            self._pan_from = event.position().toPoint()
            self.viewport().setCursor(Qt.ClosedHandCursor)
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:
        self._mouse = event.position().toPoint()
        if self._pan_from is not None:
            delta = self._mouse - self._pan_from
            self._pan_from = self._mouse
            self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - delta.x())
            self.verticalScrollBar().setValue(self.verticalScrollBar().value() - delta.y())
            event.accept()
            return
        super().mouseMoveEvent(event)
        if self.canvas.mode == "draw":
            self.viewport().update()  # crosshair follows the mouse

    def mouseReleaseEvent(self, event) -> None:
        if self._pan_from is not None and event.button() in (Qt.MiddleButton, Qt.LeftButton):
            self._pan_from = None
            self.viewport().setCursor(Qt.OpenHandCursor if self._space else Qt.ArrowCursor)
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def leaveEvent(self, event) -> None:
        self._mouse = None
        self.viewport().update()
        super().leaveEvent(event)

    def set_mode(self, mode: str) -> None:
        self.canvas.mode = mode
        self.setDragMode(QGraphicsView.NoDrag if mode == "draw" else QGraphicsView.RubberBandDrag)
        self.viewport().setCursor(Qt.CrossCursor if mode == "draw" else Qt.ArrowCursor)
        self.viewport().update()

    # foreground: captions, legend and crosshair -----------------------------
    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:
        painter.save()
        painter.resetTransform()  # paint in viewport pixels: captions keep one size at every zoom
        captions = self.caption_rects()
        self._draw_captions(painter, captions)
        predictions = self.canvas.predictions
        if predictions is not None and predictions.marks():
            viewport = QRectF(self.viewport().rect())
            entries = predictions.legend_entries()
            self.legend_corner = self._legend_corner(viewport, entries, [r for _, r in captions])
            draw_legend(painter, viewport, entries, corner=self.legend_corner)
        if self.canvas.mode == "draw" and self._mouse is not None:
            pen = QPen(QColor(255, 255, 255, 160), 1, Qt.DashLine)
            painter.setPen(pen)
            vp = self.viewport().rect()
            painter.drawLine(0, self._mouse.y(), vp.width(), self._mouse.y())
            painter.drawLine(self._mouse.x(), 0, self._mouse.x(), vp.height())
        painter.restore()

    def caption_rects(self) -> list[tuple[CaptionPlace, QRectF]]:
        """The captions painted now, each with its rect in viewport pixels.

        A caption laid out beyond the viewport's edge while its box is in view is pulled inside,
        so a box scrolled to the top still says what it is. (The scene keeps its own list of boxes:
        scene.items() would call the Python boundingRect of every box, 30 ms a frame at 5,000.)"""
        viewport = QRectF(self.viewport().rect())
        t = self.viewportTransform()
        out = []
        for place in self.canvas.caption_places(self.scale_factor()):
            x1, y1, x2, y2 = place.rect
            rect = QRectF(x1 + t.dx(), y1 + t.dy(), x2 - x1, y2 - y1)
            box = self.mapFromScene(self.canvas.items_by_id[place.box_id].rect()).boundingRect()
            if not viewport.intersects(QRectF(box)):
                continue
            if not viewport.contains(rect):
                rect.moveLeft(min(max(rect.left(), viewport.left()), viewport.right() - rect.width()))
                rect.moveTop(min(max(rect.top(), viewport.top()), viewport.bottom() - rect.height()))
            out.append((place, rect))
        return out

    def _draw_captions(self, painter: QPainter, captions: list[tuple[CaptionPlace, QRectF]]) -> None:
        painter.setFont(self.canvas.caption_font)
        ascent = self.canvas.caption_metrics.ascent()
        colors = self.canvas.style.colors
        for place, rect in captions:
            painter.fillRect(rect, colors.get(place.label, colors["other"]))
            painter.setPen(QColor("white"))
            painter.drawText(int(rect.left() + 3), int(rect.top() + ascent + 1), place.text)

    def _legend_corner(self, viewport: QRectF, entries, captions: list[QRectF]) -> str:
        """The corner where the legend hides least; the current one unless another is clearly better."""
        obstacles = self._legend_obstacles(captions)
        t = self.viewportTransform()
        scale = self.scale_factor()
        ink = self.canvas.ink_map()

        def cost(corner: str) -> float:
            rect = legend_rect(viewport, entries, corner).getCoords()
            value = obstacles.cost(rect)
            if ink is not None:  # ink is looked up in layout pixels: undo the scroll offset
                shifted = (rect[0] - t.dx(), rect[1] - t.dy(), rect[2] - t.dx(), rect[3] - t.dy())
                value += LEGEND_COVER["ink"] * ink.pixels_scaled(shifted, scale)
            return value

        costs = {corner: cost(corner) for corner in LEGEND_CORNERS}
        best = min(LEGEND_CORNERS, key=lambda c: (costs[c], LEGEND_CORNERS.index(c)))
        current = self.legend_corner if self.legend_corner in costs else LEGEND_CORNERS[0]
        return best if costs[best] < LEGEND_MOVE_BELOW * costs[current] else current

    def _legend_obstacles(self, captions: list[QRectF]) -> Obstacles:
        """Captions, tags, markers and boxes in viewport pixels."""
        t = self.viewportTransform()
        scale = self.scale_factor()

        def shifted(rect: Rect) -> Rect:
            return (rect[0] + t.dx(), rect[1] + t.dy(), rect[2] + t.dx(), rect[3] + t.dy())

        obstacles = Obstacles()
        obstacles.add_all((r.getCoords() for r in captions), LEGEND_COVER["caption"])
        predictions = self.canvas.predictions
        obstacles.add_all((shifted(r) for r in predictions.tag_rects(scale)), LEGEND_COVER["tag"])
        obstacles.add_all((shifted(r) for r in predictions.marker_rects(scale)), LEGEND_COVER["mark"])
        boxes = self.canvas.items_by_id
        if len(boxes) <= LEGEND_BOX_LIMIT:  # beyond, the ink map alone: this runs every frame
            visible = self.mapToScene(self.viewport().rect()).boundingRect()
            obstacles.add_all((shifted((r.left() * scale, r.top() * scale, r.right() * scale, r.bottom() * scale))
                               for r in (item._rect for item in boxes.values()) if r.intersects(visible)),
                              LEGEND_COVER["box"])
        return obstacles

