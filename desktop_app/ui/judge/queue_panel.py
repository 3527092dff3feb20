"""The left side of the trajectory labeller: the queue of trajectories and its filters (only those I have
not labelled, a policy, a text), with how many are left."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.fit import fit_combo


class QueuePanel(QWidget):
    filtersChanged = Signal()  # the checkbox, the policy or (after a pause in typing) the text changed
    rowChosen = Signal(int)  # the user picked a row

    def __init__(self, parent=None):
        super().__init__(parent)
        self.left = self.total = 0
        self.only_unlabelled = QCheckBox("Only unlabelled by me")
        self.only_unlabelled.setChecked(True)
        self.only_unlabelled.toggled.connect(self.filtersChanged)
        self.policy = fit_combo(QComboBox())  # a dataset's policy names never widen the queue
        self.policy.currentIndexChanged.connect(self.filtersChanged)
        self.filter = QLineEdit(placeholderText="Filter by task or key (/)")
        self.filter.setClearButtonEnabled(True)
        self.filter.setFocusPolicy(Qt.ClickFocus)  # the keys are the view's until a text field is clicked (or /)
        self._typing = QTimer(self, singleShot=True, interval=250)
        self._typing.timeout.connect(self.filtersChanged)
        self.filter.textChanged.connect(lambda _t: self._typing.start())
        self.count = QLabel()
        bold = QFont(self.count.font())
        bold.setBold(True)
        self.count.setFont(bold)
        self.list = QListWidget()
        self.list.currentRowChanged.connect(lambda row: row >= 0 and self.rowChosen.emit(row))
        for widget in (self.only_unlabelled, self.policy, self.list):
            widget.setFocusPolicy(Qt.NoFocus)  # clicks work; the keys stay the view's
        column = QVBoxLayout(self)
        column.setContentsMargins(4, 4, 4, 4)
        for widget in (self.only_unlabelled, self.policy, self.filter, self.count):
            column.addWidget(widget)
        column.addWidget(self.list, 1)

    def policy_value(self) -> str:
        return self.policy.currentData() or ""

    def text_value(self) -> str:
        return self.filter.text().strip()

    def set_policies(self, policies: list[str]) -> None:
        current = self.policy_value()
        self.policy.blockSignals(True)
        self.policy.clear()
        self.policy.addItem("All policies", "")
        for name in policies:
            self.policy.addItem(name or "(no policy)", name)
        self.policy.setCurrentIndex(max(self.policy.findData(current), 0))
        self.policy.blockSignals(False)

    def fill(self, rows: list, left: int, total: int, me: str) -> None:
        """The queue's rows (TrajectoryRows), a mark on those I labelled; "left of total left"."""
        self.left, self.total = left, total
        self._count()
        self.list.blockSignals(True)
        self.list.clear()
        for r in rows:
            item = QListWidgetItem()
            self._describe(item, r, me)
            self.list.addItem(item)
        self.list.blockSignals(False)

    def labelled(self, index: int, row, me: str, was_left: bool, drop: bool) -> None:
        """The row at `index` got my label (row: its TrajectoryRow now): dropped from the queue, or its mark
        updated; one fewer left if it was. No reload: a save costs the same at 20 or 20,000 trajectories."""
        self.left -= 1 if was_left else 0
        self._count()
        self.list.blockSignals(True)
        if drop:
            self.list.takeItem(index)
        elif self.list.item(index) is not None:
            self._describe(self.list.item(index), row, me)
        self.list.blockSignals(False)

    def _count(self) -> None:
        self.count.setText(f"{self.left} of {self.total} left")

    @staticmethod
    def _describe(item: QListWidgetItem, r, me: str) -> None:
        mine = r.labels.get(me)
        item.setText(f"{'✓ ' if mine else ''}{r.key}\n    {r.policy} · {r.steps} steps" + (f" · {mine}" if mine else ""))
        item.setData(Qt.UserRole, r.episode_id)
        item.setToolTip(r.intent)

    def set_current(self, row: int, quiet: bool = True) -> None:
        """Highlight a row (-1: none); quiet: without rowChosen."""
        self.list.blockSignals(quiet)
        self.list.setCurrentRow(row)
        self.list.blockSignals(False)
