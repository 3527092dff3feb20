"""What every tool window beside the main one does alike (Page variants, Adjudication, the Capability menu's
windows, the Team dialogs): it opens in front with the keys, and Esc closes it.

A QDialog closes on Esc by itself; a window made of a plain QWidget (Qt.Window) mixes in EscapeCloses. Esc
reaches the window only when the widget with the focus leaves it alone: a cell being edited takes it back
first, a combo's open list closes first, as in any dialog.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget


class EscapeCloses:
    """Mixed in before QWidget: Esc (without modifiers) closes the window."""

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        if event.key() == Qt.Key_Escape and not event.modifiers():
            self.close()
            return
        super().keyPressEvent(event)


def bring_forward(window: QWidget) -> None:
    """Show the tool window in front, with the keyboard focus (Esc, its own keys go to it, not to the main
    window behind it)."""
    window.show()
    window.raise_()
    window.activateWindow()
