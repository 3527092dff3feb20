"""A reviewer's comment where the returned work is labelled: a bar over the canvas with who returned it and
what to fix, and a ring on the screen around the pinned box or point (when the comment was pinned on the
step shown). Only wiring and painting: the decision is teams/work_review.py's."""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import QGraphicsEllipseItem, QGraphicsItem, QGraphicsRectItem, QHBoxLayout, QWidget

from desktop_app.teams.work_review import Reviewed
from desktop_app.ui.plain import PlainLabel
from desktop_app.ui.shortcuts import key_name

PIN_COLOUR = QColor("#EE7733")  # Tol orange: apart from the label colours of the boxes
RING_PX = 18  # the ring around a pinned point, in screen pixels whatever the zoom


class ReviewBanner(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("reviewBanner")
        self.setStyleSheet("#reviewBanner { background: #fde2c8; } QLabel { color: #4a2400; }")
        self.setAutoFillBackground(True)
        self.label = PlainLabel()  # the comment is a person's text: shown as text, never as markup
        self.label.setWordWrap(True)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.addWidget(self.label, 1)
        self._pin: QGraphicsItem | None = None
        self.hide()

    def show_for(self, reviewed: Reviewed | None, step_index: int, scene, boxes: dict) -> None:
        """The comment returning the work on this episode (None: hide), its pin drawn when on this step."""
        self._drop_pin()
        if reviewed is None:
            self.hide()
            return
        where = ""
        pin = reviewed.pin
        if pin is not None:
            where = f" (on step {pin.step_index + 1}" + (", the ringed box)" if pin.box_id is not None else
                                                         ", the ringed point)" if pin.x is not None else ")")
        self.label.setText(f"Returned to {reviewed.annotator} by {reviewed.reviewer}{where}: {reviewed.comment}  "
                           f"— fix it, then mark it done again ({key_name('work.done')}).")
        self.show()
        if pin is not None and pin.step_index == step_index:
            self._draw_pin(scene, pin, boxes)

    def _draw_pin(self, scene, pin, boxes: dict) -> None:
        pen = QPen(PIN_COLOUR, 3, Qt.DashLine)
        pen.setCosmetic(True)  # the same width at every zoom
        if pin.box_id is not None and pin.box_id in boxes and boxes[pin.box_id].x1 is not None:
            box = boxes[pin.box_id]
            item = QGraphicsRectItem(QRectF(box.x1 - 6, box.y1 - 6, box.x2 - box.x1 + 12, box.y2 - box.y1 + 12))
        elif pin.x is not None:
            item = QGraphicsEllipseItem(-RING_PX, -RING_PX, 2 * RING_PX, 2 * RING_PX)
            item.setPos(QPointF(pin.x, pin.y))
            item.setFlag(QGraphicsItem.ItemIgnoresTransformations)
        else:
            return
        item.setPen(pen)
        item.setZValue(1000)  # over the boxes
        item.setToolTip("The reviewer's comment is about this")
        scene.addItem(item)
        self._pin = item

    def _drop_pin(self) -> None:
        # the scene clears its items when it loads a screen; a ring it already deleted is left alone
        if self._pin is not None and shiboken6.isValid(self._pin) and self._pin.scene() is not None:
            self._pin.scene().removeItem(self._pin)
        self._pin = None
