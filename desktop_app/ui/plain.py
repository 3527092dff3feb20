"""Labels for text the data holds (goals, model-written texts, captions): plain text, never markup, with
invisible characters written out (visible_text.py), so a reviewer sees exactly what is stored."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from desktop_app.visible_text import visible


class PlainLabel(QLabel):
    def __init__(self, text: str = "", parent=None, wordWrap: bool = True):  # noqa: N803 (Qt's keyword)
        super().__init__(parent)
        self.setTextFormat(Qt.PlainText)
        self.setWordWrap(wordWrap)
        self.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.setText(text)

    def setText(self, text: str) -> None:  # noqa: N802 (Qt's name)
        super().setText(visible(text))
