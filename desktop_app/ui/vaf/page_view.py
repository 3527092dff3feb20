"""A page picture in a QGraphicsView: fitted to the view's width (tall pages scroll) or whole, boxes
outlined over it, dots at points, and a click reported in picture pixels (page pixels at 1280 wide).

Ctrl + wheel zooms, the wheel scrolls; a message is shown while there is no picture ("Rendering…")."""

from __future__ import annotations

import html

from PySide6.QtCore import QPoint, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPainter, QPen, QPixmap
from PySide6.QtWidgets import (
    QFrame,
    QGraphicsEllipseItem,
    QGraphicsItem,
    QGraphicsPixmapItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsView,
    QStyle,
)

from desktop_app.ui.shortcuts import pressed

TARGET = "#e6a700"  # gold, as the canvas draws the target's box
ITEM = "#6c8ebf"
DRAG_SLOP = 4


class PageView(QGraphicsView):
    clicked = Signal(float, float)  # picture pixels

    def __init__(self, fit: str = "width", parent=None):
        """fit: "width" (tall pages scroll vertically) or "page" (the whole picture in view)."""
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setFrameShape(QFrame.StyledPanel)
        self.setRenderHints(QPainter.Antialiasing | QPainter.SmoothPixmapTransform)
        self.setBackgroundBrush(QColor("#5a5a5a"))
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAsNeeded)
        self.setTransformationAnchor(QGraphicsView.AnchorUnderMouse)
        self.setFocusPolicy(Qt.StrongFocus)
        self.fit_mode = fit
        if fit == "width":  # a tall page starts at its top-left corner and scrolls down
            self.setAlignment(Qt.AlignLeft | Qt.AlignTop)
        self._fitted = True
        self._press: QPoint | None = None
        self._focus: tuple[float, float] | None = None  # kept in view when the view is fitted again
        self.message = "No page yet"
        self.pixmap_item = QGraphicsPixmapItem()
        self.pixmap_item.setTransformationMode(Qt.SmoothTransformation)
        self.scene().addItem(self.pixmap_item)
        self._marks: list[QGraphicsItem] = []

    # the picture ---------------------------------------------------------------------------
    def has_picture(self) -> bool:
        return not self.pixmap_item.pixmap().isNull()

    def set_png(self, data: bytes | None, message: str = "") -> bool:
        """Show a PNG (False, with the message shown instead, when it cannot be read)."""
        pixmap = QPixmap()
        ok = bool(data) and pixmap.loadFromData(data)
        self.pixmap_item.setPixmap(pixmap if ok else QPixmap())
        self.clear_marks()
        self._focus = None
        self.message = "" if ok else (message or "No picture")
        rect = QRectF(pixmap.rect()) if ok else QRectF()
        self.scene().setSceneRect(rect)
        self._fitted = True
        self.refit()
        self.viewport().update()
        return ok

    def clear(self, message: str = "No page yet") -> None:
        self.set_png(None, message)

    def set_message(self, message: str) -> None:
        """Say something over the picture (e.g. while a new one renders); "" removes it."""
        self.message = message
        self.viewport().update()

    def picture_size(self) -> tuple[int, int]:
        p = self.pixmap_item.pixmap()
        return p.width(), p.height()

    # marks ---------------------------------------------------------------------------------
    def clear_marks(self) -> None:
        for item in self._marks:
            self.scene().removeItem(item)
        self._marks = []

    def add_box(self, box, colour: str = TARGET, width: float = 3.0, dashed: bool = False,
                tip: str = "") -> None:
        """A rectangle (x1, y1, x2, y2) in picture pixels, its pen the same width at any zoom."""
        if not box:
            return
        x1, y1, x2, y2 = box
        item = QGraphicsRectItem(QRectF(x1, y1, max(1.0, x2 - x1), max(1.0, y2 - y1)))
        pen = QPen(QColor(colour), width)
        pen.setCosmetic(True)
        if dashed:
            pen.setStyle(Qt.DashLine)
        item.setPen(pen)
        item.setToolTip(html.escape(tip))  # a page's own text: never read as markup
        self.scene().addItem(item)
        self._marks.append(item)

    def add_dot(self, x: float, y: float, colour: str, radius: float = 6.0, tip: str = "") -> None:
        """A dot of constant size on screen, white-ringed so it reads on any page."""
        item = QGraphicsEllipseItem(-radius, -radius, 2 * radius, 2 * radius)
        item.setPos(x, y)
        item.setFlag(QGraphicsItem.ItemIgnoresTransformations)
        item.setBrush(QBrush(QColor(colour)))
        item.setPen(QPen(QColor("white"), 2))
        item.setZValue(10)
        item.setToolTip(html.escape(tip))
        self.scene().addItem(item)
        self._marks.append(item)

    def marks(self) -> list[QGraphicsItem]:
        return list(self._marks)

    def centre_on(self, x: float, y: float) -> None:
        """Bring a picture point to the middle of the view, and keep it there when the view is resized."""
        self._focus = (x, y)
        self.centerOn(x, y)

    def centre_on_box(self, box) -> None:
        if box:
            x1, y1, x2, y2 = box
            self.centre_on((x1 + x2) / 2, (y1 + y2) / 2)

    # zoom ----------------------------------------------------------------------------------
    def scale_factor(self) -> float:
        return self.transform().m11()

    def refit(self) -> None:
        if not self._fitted or not self.has_picture():
            return
        w, h = self.picture_size()
        room = self.contentsRect()  # the view less its frame, scroll bars or not
        if self.fit_mode == "page":
            scale = min(room.width() / w, room.height() / h)
        else:  # the width, less the vertical scroll bar's when the page is taller than the view
            bar = self.style().pixelMetric(QStyle.PM_ScrollBarExtent, None, self)
            scale = max(0.05, (room.width() - (bar if h * room.width() / w > room.height() else 0) - 1) / w)
            self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)  # nothing to its sides until zoomed
        self.resetTransform()
        self.scale(scale, scale)
        if self._focus is not None:
            self.centerOn(*self._focus)

    def zoom(self, factor: float) -> None:
        self._fitted = False
        self._focus = None
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAsNeeded)
        self.scale(factor, factor)

    def fit(self) -> None:
        self._fitted = True
        self.refit()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.refit()

    def wheelEvent(self, event) -> None:
        if event.modifiers() & Qt.ControlModifier:
            self.zoom(1.2 if event.angleDelta().y() > 0 else 1 / 1.2)
            event.accept()
        else:
            self._focus = None  # the user scrolls: a resize keeps their place
            super().wheelEvent(event)

    def keyPressEvent(self, event) -> None:
        if pressed(event, "page.zoom_in"):
            self.zoom(1.2)
        elif pressed(event, "page.zoom_out"):
            self.zoom(1 / 1.2)
        elif pressed(event, "page.fit"):
            self.fit()
        else:
            super().keyPressEvent(event)

    # clicks --------------------------------------------------------------------------------
    def mousePressEvent(self, event) -> None:
        self._press = event.position().toPoint() if event.button() == Qt.LeftButton else None
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        super().mouseReleaseEvent(event)
        start, self._press = self._press, None
        if start is None or event.button() != Qt.LeftButton or not self.has_picture():
            return
        if (event.position().toPoint() - start).manhattanLength() > DRAG_SLOP:
            return
        point = self.mapToScene(start)
        w, h = self.picture_size()
        if 0 <= point.x() < w and 0 <= point.y() < h:
            self.clicked.emit(point.x(), point.y())

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:
        super().drawForeground(painter, rect)
        if not self.message:
            return
        painter.save()
        painter.resetTransform()
        area = QRectF(self.viewport().rect())
        width = min(area.width() - 20, 420)
        # as tall as the wrapped text needs (a fixed height cut a long message off), at most the view
        needed = painter.fontMetrics().boundingRect(0, 0, int(width) - 16, 10_000,
                                                    Qt.AlignCenter | Qt.TextWordWrap, self.message).height()
        box = QRectF(0, 0, width, min(max(56, needed + 16), area.height() - 20))
        box.moveCenter(area.center())
        painter.setPen(Qt.NoPen)
        painter.setBrush(QColor(0, 0, 0, 150))
        painter.drawRoundedRect(box, 8, 8)
        painter.setPen(QColor("white"))
        painter.drawText(box.adjusted(8, 4, -8, -4), Qt.AlignCenter | Qt.TextWordWrap, self.message)
        painter.restore()


def sync_scrolling(a: PageView, b: PageView) -> None:
    """Scroll two views together, at the same share of their height (pages of different lengths line up)."""
    busy = [False]

    def follow(source: PageView, other: PageView):
        def moved(_value: int) -> None:
            if busy[0]:
                return
            busy[0] = True
            try:
                bar, to = source.verticalScrollBar(), other.verticalScrollBar()
                share = bar.value() / bar.maximum() if bar.maximum() else 0.0
                to.setValue(round(share * to.maximum()))
            finally:
                busy[0] = False
        return moved

    a.verticalScrollBar().valueChanged.connect(follow(a, b))
    b.verticalScrollBar().valueChanged.connect(follow(b, a))
