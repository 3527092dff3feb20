"""Return an annotator's work with a comment: what to fix, pinned to the selected box, to the point the
pointer last rested on the screen, or to nothing (the whole screen). Only asks; the caller decides
through teams/work_review.py (api.review_work)."""

from __future__ import annotations

from PySide6.QtCore import QPointF
from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QRadioButton,
    QVBoxLayout,
)


class ReturnDialog(QDialog):
    def __init__(self, annotator: str, box_id: int | None, point: QPointF | None, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Return this work")
        self.comment = QPlainTextEdit()
        self.comment.setPlaceholderText(f"What should {annotator} fix? (they see this where they label it)")
        self.on_box = QRadioButton(f"Pin it to the selected box ({box_id})" if box_id is not None
                                   else "Pin it to the selected box (none selected)")
        self.on_box.setEnabled(box_id is not None)
        where = f"{point.x():.0f}, {point.y():.0f}" if point is not None else "none yet"
        self.on_point = QRadioButton(f"Pin it to the point the pointer last rested on ({where})")
        self.on_point.setEnabled(point is not None)
        self.nowhere = QRadioButton("No pin: about the whole screen")
        group = QButtonGroup(self)
        for button in (self.on_box, self.on_point, self.nowhere):
            group.addButton(button)
        (self.on_box if box_id is not None else self.nowhere).setChecked(True)
        self.box_id, self.point = box_id, point
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.button(QDialogButtonBox.Ok).setText("Return to " + annotator)
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        self.error = QLabel()
        self.error.setStyleSheet("color: #CC3311")
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"The work goes back to {annotator}'s queue with your comment."))
        layout.addWidget(self.comment)
        for widget in (self.on_box, self.on_point, self.nowhere, self.error, buttons):
            layout.addWidget(widget)
        self.resize(460, 300)

    def _accept(self) -> None:
        if not self.text():
            self.error.setText("Say what to fix: the annotator reads it where they label the screen.")
            return
        self.accept()

    def text(self) -> str:
        return self.comment.toPlainText().strip()

    def pin(self) -> dict:
        """The review's pin arguments: box=, or point=; none for the whole screen."""
        if self.on_box.isChecked() and self.box_id is not None:
            return {"box": self.box_id}
        if self.on_point.isChecked() and self.point is not None:
            return {"point": (self.point.x(), self.point.y())}
        return {}
