"""Driving the real widgets the way a user does: mouse events on the canvas, keys."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QEvent, QModelIndex, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication


def _send(view, kind, pos: QPoint, button, buttons, modifiers=Qt.NoModifier) -> None:
    viewport = view.viewport()
    local = QPointF(pos)
    event = QMouseEvent(kind, local, QPointF(viewport.mapToGlobal(pos)), button, buttons, modifiers)
    QApplication.sendEvent(viewport, event)


def to_view(view, x: float, y: float) -> QPoint:
    return view.mapFromScene(QPointF(x, y))


def drag(view, start: tuple[float, float], end: tuple[float, float], steps: int = 5, button=Qt.LeftButton) -> None:
    """Press at `start`, move in steps, release at `end` (scene = image pixel coordinates)."""
    a, b = to_view(view, *start), to_view(view, *end)
    _send(view, QEvent.MouseButtonPress, a, button, button)
    for i in range(1, steps + 1):
        p = a + (b - a) * i / steps
        _send(view, QEvent.MouseMove, p, Qt.NoButton, button)
    _send(view, QEvent.MouseButtonRelease, b, button, Qt.NoButton)
    QApplication.processEvents()


def click(view, x: float, y: float, modifiers=Qt.NoModifier) -> None:
    p = to_view(view, x, y)
    _send(view, QEvent.MouseButtonPress, p, Qt.LeftButton, Qt.LeftButton, modifiers)
    _send(view, QEvent.MouseButtonRelease, p, Qt.LeftButton, Qt.NoButton, modifiers)
    QApplication.processEvents()


def key(widget, sequence: str) -> None:
    """Type a shortcut such as 'W', '2', 'Ctrl+Z', 'Shift+Right' into the focused window."""
    from PySide6.QtGui import QKeySequence

    combo = QKeySequence(sequence)[0]
    QTest.keyClick(widget, combo.key(), combo.keyboardModifiers())
    QApplication.processEvents()


class CountingRows(QAbstractTableModel):
    """A sample list's model of `count` rows that notes which rows were read: column 0 a sample's name, column 1
    `state(row)`. For tests of what the list measures (ui/sample_table.py)."""

    def __init__(self, count: int, state):
        super().__init__()
        self.count, self.state = count, state
        self.read: set[int] = set()

    def rowCount(self, parent=QModelIndex()):  # noqa: N802 (Qt's name)
        return 0 if parent.isValid() else self.count

    def columnCount(self, parent=QModelIndex()):  # noqa: N802 (Qt's name)
        return 0 if parent.isValid() else 2

    def data(self, index, role=Qt.DisplayRole):
        if role != Qt.DisplayRole:
            return None
        self.read.add(index.row())
        return f"ep-{index.row():06d}" if index.column() == 0 else self.state(index.row())
