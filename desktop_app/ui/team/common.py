"""Small pieces the team windows share: read-only tables, number formatting, the error label."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from desktop_app.runs.text import NO_DATA
from desktop_app.ui.plain import PlainLabel

ERROR_COLOUR = "#CC3311"  # Tol red, as the judge views use for what went wrong
LEFT = Qt.AlignLeft | Qt.AlignVCenter
RIGHT = Qt.AlignRight | Qt.AlignVCenter


def num(value: float | None, digits: int = 2) -> str:
    return NO_DATA if value is None else f"{value:.{digits}f}"


def item(value, align=RIGHT, tip: str = "") -> QTableWidgetItem:
    # a table item shows its text as it is (never as markup), so names typed by people are safe here
    cell = QTableWidgetItem(str(value))
    cell.setTextAlignment(align)
    if tip:
        cell.setToolTip(tip)
    return cell


def table(headers: tuple[str, ...], stretch: int | str | None = 0) -> QTableWidget:
    """A read-only table whose columns fit their contents, except `stretch`, which takes the room left
    ("all": every column shares the width)."""
    view = QTableWidget(0, len(headers))
    view.setHorizontalHeaderLabels(list(headers))
    view.setEditTriggers(QAbstractItemView.NoEditTriggers)
    view.setSelectionBehavior(QAbstractItemView.SelectRows)
    view.setSelectionMode(QAbstractItemView.SingleSelection)
    view.verticalHeader().hide()
    view.setAlternatingRowColors(True)
    view.setWordWrap(False)
    header = view.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeToContents)
    if stretch == "all":
        header.setSectionResizeMode(QHeaderView.Stretch)
    elif stretch is not None:
        header.setSectionResizeMode(stretch, QHeaderView.Stretch)
    return view


def fill(view: QTableWidget, rows: list[list[QTableWidgetItem]]) -> None:
    view.setRowCount(len(rows))
    for r, cells in enumerate(rows):
        for c, cell in enumerate(cells):
            view.setItem(r, c, cell)


def fit_rows(view: QTableWidget, most: int = 10, least: int = 1) -> None:
    """Make the table as tall as its rows (between `least` and `most` of them): a short table then leaves
    the room to what follows instead of to blank rows."""
    header = view.horizontalHeader().sizeHint().height()
    row = view.verticalHeader().defaultSectionSize()
    rows = min(max(view.rowCount(), least), most)
    scroll = view.horizontalScrollBar().sizeHint().height() if view.horizontalScrollBar().isVisible() else 0
    view.setFixedHeight(header + rows * row + 2 * view.frameWidth() + scroll)


def error_label() -> PlainLabel:
    """Red, plain text: an error message often repeats what the user typed."""
    label = PlainLabel()
    label.setStyleSheet(f"color: {ERROR_COLOUR}")
    label.hide()
    return label


def show_error(label: PlainLabel, message: str) -> None:
    label.setText(message)
    label.setVisible(bool(message))


class RefreshedOnReshow:
    """Mixin for a team window the menu shows again after a close: it reads the project again then, so it
    never shows the morning's numbers. The class using it has `refresh()`."""

    _shown_before = False

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not event.spontaneous():
            if self._shown_before:
                self.refresh()
            self._shown_before = True
