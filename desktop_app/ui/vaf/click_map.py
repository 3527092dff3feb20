"""A variant's click map (the paper's Fig. 3): its full page with a dot per trial's click (green on the
target, orange on another item, grey on no item), the target outlined, and the clicks per item beside it."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.vaf.page_view import TARGET, PageView
from desktop_app.vaf.figures import HIT, NOTHING, OTHER


class ClickMap(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.view = PageView("width")
        self.title = QLabel("Choose a run and a variant")
        self.title.setTextFormat(Qt.PlainText)
        self.title.setWordWrap(True)
        legend = QLabel(f"<span style='color:{HIT}'>●</span> on the target &nbsp; "
                        f"<span style='color:{OTHER}'>●</span> on another item &nbsp; "
                        f"<span style='color:{NOTHING}'>●</span> on no item &nbsp; "
                        f"<span style='color:{TARGET}'>▭</span> the target")
        self.counts = QTableWidget(0, 2)
        self.counts.setHorizontalHeaderLabels(["Item", "Clicks"])
        self.counts.verticalHeader().setVisible(False)
        self.counts.setEditTriggers(QTableWidget.NoEditTriggers)
        self.counts.horizontalHeader().setSectionResizeMode(0, QHeaderView.Stretch)
        self.counts.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeToContents)
        self.counts.setWordWrap(True)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.title)
        left_layout.addWidget(legend)
        left_layout.addWidget(self.view, 1)
        split = QSplitter(Qt.Horizontal)
        split.addWidget(left)
        split.addWidget(self.counts)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)

    def show_clicks(self, title: str, page_png: bytes | None, target, points: list[dict],
                    counts: list[tuple[str, int, bool]]) -> None:
        self.title.setText(title)
        self.view.set_png(page_png, "The variant's picture is missing")
        self.view.add_box(target, TARGET, 3, tip="the target")
        for p in points:
            colour = HIT if p["target"] else OTHER if p["item"] is not None else NOTHING
            self.view.add_dot(p["x"], p["y"], colour, 6, tip=f"run {p['run_id']}, trial {p['trial']}")
        if points:  # where the clicks are (most of them), else the target
            ys = sorted(p["y"] for p in points)
            self.view.centre_on(640, ys[len(ys) // 2])
        elif target:
            self.view.centre_on_box(target)
        self.counts.setRowCount(len(counts))
        for r, (text, n, is_target) in enumerate(counts):
            name = QTableWidgetItem(("TARGET · " if is_target else "") + text)
            name.setToolTip(html.escape(text))  # the page's text: never read as markup
            number = QTableWidgetItem(str(n))
            number.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
            if is_target:
                font = name.font()
                font.setBold(True)
                name.setFont(font)
            self.counts.setItem(r, 0, name)
            self.counts.setItem(r, 1, number)
        self.counts.resizeRowsToContents()

    def clear(self, message: str = "Choose a run and a variant") -> None:
        self.title.setText(message)
        self.view.clear(message)
        self.counts.setRowCount(0)
