"""Edit > Classes of this project: the project's class vocabulary (store/label_set.py, ADR 0047), numbered as
keys 4-9 and the class picker number them, with how many boxes have each; add one or several at once, remove
one no box has (the refusal is said here). A box's role (gold, distracted, other) is not a class: it is fixed."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
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
from desktop_app.ui.shortcuts import key_name


def typed_names(text: str) -> list[str]:
    """The classes typed in the line: one a line when a list was pasted (QLineEdit keeps its line breaks; a
    name may hold a comma then), else separated by commas ("button, icon, sports ball"); blanks dropped."""
    parts = text.splitlines() if "\n" in text.strip() else text.split(",")
    return [p.strip() for p in parts if p.strip()]


class ClassesDialog(QDialog):
    changed = Signal()  # the vocabulary changed: the class combos, the picker and the list filter follow

    def __init__(self, project, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Classes of this project")
        self.project = project
        numbers = f"{key_name('label.4')}-{key_name('label.9')}"
        intro = QLabel(f"A box's role (gold, distracted or other) is what every protocol scores. Its class says "
                       f"what the element is in your dataset's words (button, icon, Car…); no protocol reads it. "
                       f"Keys {numbers} give the selected box the first six classes, "
                       f"{key_name('label.class')} searches them all by name or number.")
        intro.setWordWrap(True)
        self.list = QListWidget()
        self.list.setSelectionMode(QAbstractItemView.ExtendedSelection)
        self.name = QLineEdit(placeholderText="new classes: one, several with commas, or a pasted list")
        self.name.setToolTip("Several at once: button, icon, sports ball; or paste a list, one name a line (COCO's "
                             "80, say). Names keep their case (Car and car are two classes), up to 64 characters.")
        self.name.returnPressed.connect(self.add)
        add = QPushButton("Add")
        add.clicked.connect(self.add)
        self.remove_button = QPushButton("Remove selected")
        self.remove_button.setToolTip("Only a class no box has; give those boxes another class first")
        self.remove_button.clicked.connect(self.remove)
        self.count = QLabel()
        self.error = QLabel(wordWrap=True, textFormat=Qt.PlainText)
        self.error.setStyleSheet("color: #d9534f")
        row = QHBoxLayout()
        row.addWidget(self.name, 1)
        row.addWidget(add)
        below = QHBoxLayout()
        below.addWidget(self.count, 1)
        below.addWidget(self.remove_button)
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.list, 1)
        layout.addLayout(below)
        layout.addLayout(row)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self.resize(460, 460)
        self.refresh()

    def refresh(self) -> None:
        self.list.clear()
        counts = api.class_counts(self.project)
        for number, (name, used) in enumerate(counts.items(), start=1):
            key = f"   key {key_name(f'label.{number + 3}')}" if number <= 6 else ""
            item = QListWidgetItem(f"{number:>3}   {name}   ({used} box{'es' if used != 1 else ''}){key}")
            item.setData(Qt.UserRole, name)
            item.setToolTip(name)
            self.list.addItem(item)
        self.count.setText(f"{len(counts)} class{'es' if len(counts) != 1 else ''}")
        self.remove_button.setEnabled(bool(counts))

    def add(self) -> None:
        names = typed_names(self.name.text())
        if names and self._apply(lambda: api.add_classes(self.project, names)):
            self.name.clear()
            self.list.scrollToBottom()

    def remove(self) -> None:
        chosen = [item.data(Qt.UserRole) for item in self.list.selectedItems()]
        if chosen:
            self._apply(lambda: [api.remove_class(self.project, name) for name in chosen])

    def _apply(self, change) -> bool:
        try:
            change()
        except ValueError as exc:  # LabelError: a bad or repeated name, a class boxes still have
            self.error.setText(str(exc))
            self.refresh()  # removing several stops at the first in use: those before it are gone
            self.changed.emit()
            return False
        self.error.clear()
        self.refresh()
        self.changed.emit()
        return True
