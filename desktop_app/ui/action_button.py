"""A push button for one of the window's actions (ui/shortcuts.py): it names the action's key in force and
follows the action, so it is greyed out with it and says the new key after a rebinding in Settings (or
none, in the verification queue, when a review key takes the action's key over)."""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QPushButton


def key_text(sequence: QKeySequence) -> str:
    return sequence.toString(QKeySequence.NativeText)


class ActionButton(QPushButton):
    def __init__(self, action: QAction, tip: str = "", parent=None):
        super().__init__(parent)
        self.bound = action
        self.tip = tip or action.text()
        self.clicked.connect(lambda _checked=False: action.trigger())
        action.changed.connect(self._follow)  # its keys (setShortcuts) and its enabled state
        self._follow()

    def _follow(self) -> None:
        keys = [key_text(k) for k in self.bound.shortcuts()]
        self.setText(f"{self.bound.text()} ({keys[0]})" if keys else self.bound.text())
        self.setToolTip(f"{self.tip}\nKey: " + (" or ".join(keys) if keys else "none (Edit > Settings binds one)"))
        self.setEnabled(self.bound.isEnabled())
