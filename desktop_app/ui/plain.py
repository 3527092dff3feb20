"""Labels for text the data holds (goals, model-written texts, captions): plain text, never markup, with
invisible characters written out (visible_text.py), so a reviewer sees exactly what is stored."""

from __future__ import annotations

import html

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


def plain_tip(text: str) -> str:
    """A tooltip that shows `text` as written. Qt takes a tooltip that looks like markup for rich text (a run
    named "<b>x</b>", a server's error holding HTML), so such a one is escaped, its line breaks kept."""
    from PySide6.QtGui import Qt as GuiQt  # QtGui's Qt namespace holds mightBeRichText

    if not GuiQt.mightBeRichText(text):
        return text
    return "<p style='white-space:pre-wrap'>" + html.escape(text, quote=False) + "</p>"
