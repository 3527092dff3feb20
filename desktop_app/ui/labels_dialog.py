"""Edit > Labels of this project: gold, distracted and other, and the project's own labels (keys 4-9)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QIcon, QPixmap
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
)

from desktop_app import api
from desktop_app.api.boxes import LABELS
from desktop_app.ui.palette import label_color


class LabelsDialog(QDialog):
    changed = Signal()  # the label set changed: label combos, keys and colours follow

    def __init__(self, project, palette: str = "default", parent=None):
        super().__init__(parent)
        self.setWindowTitle("Labels of this project")
        self.project, self.palette = project, palette
        self.list = QListWidget()
        self.name = QLineEdit(placeholderText="a new label, e.g. ad or login-wall")
        self.name.returnPressed.connect(self.add)
        add = QPushButton("Add")
        add.clicked.connect(self.add)
        self.remove_button = QPushButton("Remove selected")
        self.remove_button.clicked.connect(self.remove)
        self.error = QLabel(wordWrap=True)
        self.error.setStyleSheet("color: #d9534f")
        row = QHBoxLayout()
        row.addWidget(self.name, 1)
        row.addWidget(add)
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Every protocol scores gold, distracted and other. A label of your own marks what "
                                "your study needs, and scores as other. Keys 4-9 apply your labels in order."))
        layout.itemAt(0).widget().setWordWrap(True)
        layout.addWidget(self.list)
        layout.addLayout(row)
        layout.addWidget(self.remove_button)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self.resize(440, 420)
        self.refresh()

    def refresh(self) -> None:
        self.list.clear()
        names = api.labels(self.project)
        for number, name in enumerate(names, start=1):
            pixmap = QPixmap(12, 12)
            pixmap.fill(label_color(name, self.palette, names[3:]))
            note = "scored by every protocol" if name in LABELS else "yours, scores as other"
            item = QListWidgetItem(QIcon(pixmap), f"{number}   {name}   ({note})")
            item.setData(Qt.UserRole, name)
            self.list.addItem(item)

    def add(self) -> None:
        self._apply(lambda: api.add_label(self.project, self.name.text()))
        if not self.error.text():
            self.name.clear()

    def remove(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self._apply(lambda: api.remove_label(self.project, item.data(Qt.UserRole)))

    def _apply(self, change) -> None:
        try:
            change()
        except ValueError as exc:
            self.error.setText(str(exc))
            return
        self.error.clear()
        self.refresh()
        self.changed.emit()
