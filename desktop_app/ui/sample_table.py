"""The sample list's table: its columns share the dock's width, whatever the data's names, so the file name,
state and assignee show side by side in a 400 px dock without a sideways scroll (issue 33).

The names (Id: a file name, often a SHA-256; Goal: a sentence) take the width the others leave and are cut in
the middle (a file name differs at its end: "…_0042.png") or at the end (a goal), whole in the cell's tooltip.
The other columns are as wide as what they show in the rows on screen (Qt reads no row beyond them, so a
100,000-row project pays nothing for it), and a column of the data's names (Scenario, Assignee) never takes
more than a quarter of the list: a 64-character login is cut too rather than pushing the file name out.

Qt measures the columns again at every layout of the header: each resize of the list (a dock or splitter
dragged, a tab inserted), each show. A measure reads each row on screen in every role the delegate asks for
(about 250 calls of the model's data() a column), so a window's opening read the same cells some 8,000 times. A
column's measure is kept until what it depends on changes: the rows on screen (scrolled, the list taller), the
model's cells (reset, changed, rows added or removed) or the font and style.

A Goal column with nothing to show in the rows on screen (a folder's screenshots have no goal yet) is only as
wide as its header, and the file names take the rest: shared, "screen-0001.png" was cut to "scree…1.png" in
every row of a 1366x768 window's list, all alike.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtWidgets import QHeaderView, QStyledItemDelegate, QTableView

NAMES = ("Id", "Goal")  # stretch: they share what the other columns leave
CUT_IN_THE_MIDDLE = ("Id",)
CAPPED = ("Scenario", "Assignee")  # sized to their content, at most a quarter of the list's width
CAP = 4  # the list's width divided by this: the most a capped column takes
MEASURE_AFTER_MS = 120  # a held key repeats every ~33 ms: the columns are measured when it is let go
ROWS_ON_SCREEN_AT_MOST = 200  # rows share_names looks at, however tall the list: never a page more than shown
KEPT_MEASURES = 64  # measures kept (columns x places in the list); past that they are forgotten at once


class MiddleElide(QStyledItemDelegate):
    """A cell cut in the middle when it does not fit: "496f951ff8e5c…9f46783f573c1ce.png"."""

    def initStyleOption(self, option, index) -> None:  # noqa: N802 (Qt's name)
        super().initStyleOption(option, index)
        option.textElideMode = Qt.ElideMiddle


class SampleTable(QTableView):
    def __init__(self, columns: tuple[str, ...], parent=None):
        super().__init__(parent)
        self.column_names = columns
        self.setTextElideMode(Qt.ElideRight)
        self._middle = MiddleElide(self)
        header = self.horizontalHeader()
        header.setResizeContentsPrecision(0)  # only the rows on screen are measured
        header.setStretchLastSection(False)
        header.setMinimumSectionSize(40)
        # rows scrolled into view are measured too: "◐ in progress" below a page of "○ to do" is not cut. Once the
        # scrolling stops: measuring the rows on screen read ~600 cells, 13 ms of each press of the next-screen key
        # once the list scrolls with it (benchmarks/canvas.py, the middle of a 10,000-screen project)
        self._measure_later = QTimer(self, singleShot=True, interval=MEASURE_AFTER_MS)
        self._measure_later.timeout.connect(header.resizeSections)
        self.verticalScrollBar().valueChanged.connect(lambda _: self._measure_later.start())
        self._measured: dict[tuple[int, int, int], int] = {}  # (column, scrolled to, height) -> content width
        self._share_later = QTimer(self, singleShot=True, interval=0)  # after the change that may empty the goals
        self._share_later.timeout.connect(self.share_names)
        self._measure_later.timeout.connect(self.share_names)

    def forget_measures(self, *_args) -> None:
        self._measured.clear()

    def setModel(self, model) -> None:  # noqa: N802 (Qt's name)
        super().setModel(model)
        self.forget_measures()
        for signal in (model.modelReset, model.dataChanged, model.rowsInserted, model.rowsRemoved,
                       model.layoutChanged, model.headerDataChanged):
            signal.connect(self.forget_measures)
            signal.connect(self._share_later.start)
        header = self.horizontalHeader()
        for column, name in enumerate(self.column_names):
            if name in CUT_IN_THE_MIDDLE:
                self.setItemDelegateForColumn(column, self._middle)
            header.setSectionResizeMode(column, QHeaderView.Stretch if name in NAMES else
                                        QHeaderView.ResizeToContents)
        self._share_later.start()

    def share_names(self) -> None:
        """The Goal column stretches beside the file names when a row on screen has a goal; else it keeps its
        header's width and the names take the rest."""
        model = self.model()
        if (model is None or not self.isVisible() or "Goal" not in self.column_names
                or "Id" not in self.column_names):
            return  # a hidden list is looked at when it shows (showEvent)
        goal, name = self.column_names.index("Goal"), self.column_names.index("Id")
        first = max(self.rowAt(0), 0)
        last = self.rowAt(self.viewport().height() - 1)
        last = min(model.rowCount() - 1 if last < 0 else last, first + ROWS_ON_SCREEN_AT_MOST)
        empty = not self.isColumnHidden(name) and not any(model.index(row, goal).data()
                                                           for row in range(first, last + 1))
        header = self.horizontalHeader()
        mode = QHeaderView.ResizeToContents if empty else QHeaderView.Stretch
        if header.sectionResizeMode(goal) != mode:
            header.setSectionResizeMode(goal, mode)

    def sizeHintForColumn(self, column: int) -> int:  # noqa: N802 (Qt's name)
        """The content's width; for a column of the data's names at most a quarter of the list."""
        if not self.isVisible():
            # Qt measures every row of a hidden table (1.6 million cells of a 100,000-row project, over a minute,
            # each time the Thumbnails tab is in front and the header is laid out): a hidden list keeps its
            # widths, and is measured on the rows on screen when it shows (showEvent)
            return self.horizontalHeader().sectionSize(column)
        key = (column, self.verticalScrollBar().value(), self.viewport().height())
        wanted = self._measured.get(key)
        if wanted is None:
            if len(self._measured) >= KEPT_MEASURES:
                self._measured.clear()
            wanted = self._measured[key] = super().sizeHintForColumn(column)
        if self.column_names[column] in CAPPED:
            return min(wanted, max(self.viewport().width() // CAP, self.horizontalHeader().minimumSectionSize()))
        return wanted

    def fit_columns(self) -> None:
        """With no name shown, the last column takes the rest (the list never ends in a blank strip)."""
        shown = [n for c, n in enumerate(self.column_names) if not self.isColumnHidden(c)]
        self.horizontalHeader().setStretchLastSection(not any(n in NAMES for n in shown))
        self.share_names()

    def changeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):  # the same cells, other widths
            self.forget_measures()
        super().changeEvent(event)

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        self.horizontalHeader().resizeSections()  # the widths it could not measure while hidden
        self.share_names()

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self.horizontalHeader().resizeSections()  # a capped column's limit follows the list's width
