"""The dashboard's table as a read-only Qt model over plain Python lists.

A QStandardItemModel rebuilt on every redraw (clear() + one QStandardItem per cell) left PySide
wrappers pointing at deleted items; a later Qt object at the same address came back as a
QStandardItem and pyqtgraph crashed building its next plot (found in a GUI walk-through). This model
owns no per-cell Qt objects: it answers data() from the lists it was given.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt

from desktop_app.ui.model_roles import RolesInOneCall


class ResultsTableModel(RolesInOneCall, QAbstractTableModel):
    def __init__(self, parent=None):
        super().__init__(parent)
        self._header: list[str] = []
        self._rows: list[list[str]] = []
        self._tips: dict[tuple[int, int], str] = {}
        self._keys = 0  # leading key columns (agent, pattern): left-aligned

    def set_table(self, header: list[str], rows: list[list[str]], keys: int,
                  tips: dict[tuple[int, int], str] | None = None) -> None:
        self.beginResetModel()
        self._header, self._rows, self._keys, self._tips = list(header), [list(r) for r in rows], keys, tips or {}
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802 (Qt's name)
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._header)

    def data(self, index: QModelIndex, role: int = Qt.DisplayRole):
        if not index.isValid():
            return None
        r, c = index.row(), index.column()
        if role == Qt.DisplayRole:
            return self._rows[r][c]
        if role == Qt.ToolTipRole:  # an agent's or a pattern's name elided in its column: whole here
            return self._tips.get((r, c)) or (self._rows[r][c] if c < self._keys else None)
        if role == Qt.TextAlignmentRole and c >= self._keys:
            return int(Qt.AlignRight | Qt.AlignVCenter)
        return None

    def headerData(self, section: int, orientation, role: int = Qt.DisplayRole):  # noqa: N802
        if role in (Qt.DisplayRole, Qt.ToolTipRole) and orientation == Qt.Horizontal and section < len(self._header):
            return self._header[section]  # (the tooltip: a long scenario's heading is elided)
        return None

    def header_texts(self) -> list[str]:
        return list(self._header)
