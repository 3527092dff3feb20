"""What an agent is shown of the current screen, in each observation mode (Capability > What the agent
reads…): the accessibility tree as text with `[i]` tags, the list of elements, the screenshot with
numbered marks, or the plain screenshot; exactly what the grounding, completion and replay runs send."""

from __future__ import annotations

from PySide6.QtGui import QFont, QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QScrollArea,
    QVBoxLayout,
)

from desktop_app import api
from desktop_app.ui.fit import open_at

MODES = (("tree", "the accessibility tree as text"), ("list", "the list of elements"),
         ("marks", "the screenshot with numbered marks"), ("image", "the screenshot"))


class ObservationView(QDialog):
    def __init__(self, project, step_id: int, parent=None):
        super().__init__(parent)
        self.setWindowTitle("What the agent reads")
        self.project, self.step_id = project, step_id
        self.mode = QComboBox()
        for mode, text in MODES:
            self.mode.addItem(text, mode)
        self.mode.currentIndexChanged.connect(self.show_mode)
        self.text = QPlainTextEdit(readOnly=True)
        self.text.setFont(QFont("monospace"))
        self.picture = QLabel()
        self.scroll = QScrollArea()
        self.scroll.setWidget(self.picture)
        self.note = QLabel(wordWrap=True)
        top = QHBoxLayout()
        top.addWidget(QLabel("Mode:"))
        top.addWidget(self.mode, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.note)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.scroll, 1)
        open_at(self, 760, 820)
        self.show_mode()

    def show_mode(self, *_args) -> None:
        mode = self.mode.currentData()
        try:
            text, picture = api.observation(self.project, self.step_id, mode)
        except KeyError as exc:  # no tree for this screen, or a question without a screen
            self.note.setText(str(exc.args[0]) + ": only the screenshot can be shown" if mode != "image" else
                              str(exc.args[0]))
            self.text.hide()
            self.scroll.hide()
            return
        self.note.setText(f"{len(text.splitlines())} lines" if picture is None else "")
        self.text.setVisible(picture is None)
        self.scroll.setVisible(picture is not None)
        if picture is None:
            self.text.setPlainText(text)
        else:
            pixmap = QPixmap()
            pixmap.loadFromData(picture)
            self.picture.setPixmap(pixmap)
            self.picture.resize(pixmap.size())
