"""The canvas view: zoom, pan, crosshair, and the captions of visible boxes."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen, QTransform
from PySide6.QtWidgets import QFrame, QGraphicsView

from desktop_app.ui.canvas.items import BoxItem
from desktop_app.ui.canvas.scene import AnnotationScene
from desktop_app.ui.eval.prediction_layer import draw_legend

MIN_SCALE, MAX_SCALE = 0.02, 40.0
STEP = 1.25
CAPTION_LIMIT = 400  # with more boxes in view, captions would be unreadable clutter anyway
CAPTION_MIN_BOX_PX = 10


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
        self.caption_font = QFont()
        self.caption_font.setPixelSize(11)
        self.caption_metrics = QFontMetrics(self.caption_font)
        self.show_captions = True
        self._pan_from: QPoint | None = None
        self._space = False
        self._mouse: QPoint | None = None
        self._fitted = True  # refit on resize until the user zooms

    @property
    def canvas(self) -> AnnotationScene:
        return self.scene()

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

    # foreground: captions and crosshair --------------------------------------
    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:
        scale = self.scale_factor()
        painter.save()
        painter.resetTransform()  # paint in viewport pixels: captions keep one size at every zoom
        if self.show_captions:
            boxes = self._visible_captioned(self.mapToScene(self.viewport().rect()).boundingRect())
            if boxes is not None:
                self._draw_captions(painter, boxes, scale)
        predictions = self.canvas.predictions
        if predictions is not None and predictions.marks():
            draw_legend(painter, QRectF(self.viewport().rect()), predictions.legend_entries())
        if self.canvas.mode == "draw" and self._mouse is not None:
            pen = QPen(QColor(255, 255, 255, 160), 1, Qt.DashLine)
            painter.setPen(pen)
            vp = self.viewport().rect()
            painter.drawLine(0, self._mouse.y(), vp.width(), self._mouse.y())
            painter.drawLine(self._mouse.x(), 0, self._mouse.x(), vp.height())
        painter.restore()

    def _visible_captioned(self, visible: QRectF) -> list[BoxItem] | None:
        """Boxes in view that have a caption, or None when there are too many to caption.

        A plain loop over our own items: scene.items() calls the Python boundingRect
        of every box three times, which alone cost 30 ms a frame at 5,000 boxes."""
        out = []
        for item in self.canvas.items_by_id.values():
            if item.text and item._rect.intersects(visible):
                out.append(item)
                if len(out) > CAPTION_LIMIT:
                    return None
        return out

    def _draw_captions(self, painter: QPainter, boxes, scale: float) -> None:
        painter.setFont(self.caption_font)
        metrics = self.caption_metrics
        height = metrics.height() + 2
        style = self.canvas.style
        for item in boxes:
            top_left = self.mapFromScene(item.rect().topLeft())
            width_px = item.rect().width() * scale
            if width_px < CAPTION_MIN_BOX_PX or item.rect().height() * scale < CAPTION_MIN_BOX_PX:
                continue
            text = metrics.elidedText(item.text, Qt.ElideRight, int(max(width_px, 80)))
            w = metrics.horizontalAdvance(text) + 6
            y = top_left.y() - height if top_left.y() - height >= 0 else top_left.y()
            painter.fillRect(top_left.x(), y, w, height, style.colors[item.label])
            painter.setPen(QColor("white"))
            painter.drawText(top_left.x() + 3, y + metrics.ascent() + 1, text)
