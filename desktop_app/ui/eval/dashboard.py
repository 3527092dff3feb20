"""The metrics dashboard: grouped bars (Acc_gold / Acc_dist / Acc_inv, 95 % Wilson error bars) per
agent, broken down overall, by scenario or by pattern; the same numbers in a table; exports.

    dashboard.refresh(project, run_ids)        # the query runs off the UI thread; refreshed() after
    dashboard.barClicked.connect(filter_browser)
        # {"run_ids", "agent", "pattern", "scenario", "verdict", "metric", "episode_ids", "step_ids"}
        # pattern / scenario are None when the bar pools them

Numbers come from tables.py (metrics.summarize), so they match `screenlab eval` and the report.
"""

from __future__ import annotations

from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktop_app.evaluation import tables
from desktop_app.evaluation.plots import Bar, draw_table
from desktop_app.evaluation.tables import ALL, METRIC_VERDICT, Table
from desktop_app.store.project import Project
from desktop_app.ui.eval.background import run_in_background

BREAKDOWNS = (("overall", "Overall"), ("scenario", "By scenario"), ("pattern", "By pattern"))
EXPORTS = (("csv", "CSV…", "CSV (*.csv)"), ("md", "Markdown…", "Markdown (*.md)"), ("tex", "LaTeX…", "LaTeX (*.tex)"))
CLICK_SLACK = 0.03  # a click this close above a short bar still hits it (0-height bars stay clickable)


class DashboardWidget(QWidget):
    """barClicked(dict) when a bar is clicked; refreshed() when new numbers are shown;
    failed(str) when the query failed (also shown in the widget)."""

    barClicked = Signal(dict)
    refreshed = Signal()
    failed = Signal(str)

    def __init__(self, parent=None, palette: str = "default", dark: bool = False):
        super().__init__(parent)
        self.palette_name = palette
        self.dark = dark
        self.project: Project | None = None
        self.run_ids: list[int] = []
        self._rows: list[dict] = []
        self._table = Table("", ("agent", "pattern"), "scenario")
        self.bars: list[Bar] = []
        self._generation = 0

        self.breakdown = QComboBox()
        for key, text in BREAKDOWNS:
            self.breakdown.addItem(text, key)
        self.breakdown.setCurrentIndex(1)
        self.breakdown.currentIndexChanged.connect(self._redraw)
        self.status = QLabel("No runs selected")
        self.status.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.export_buttons: dict[str, QPushButton] = {}
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Breakdown:"))
        bar.addWidget(self.breakdown)
        bar.addWidget(self.status, 1)
        bar.addWidget(QLabel("Export:"))
        for fmt, text, pattern in EXPORTS:
            button = QPushButton(text)
            button.clicked.connect(lambda _=False, f=fmt, p=pattern: self._export_dialog(f, p))
            self.export_buttons[fmt] = button
            bar.addWidget(button)
        png = QPushButton("PNG…")
        png.clicked.connect(self._export_png_dialog)
        self.export_buttons["png"] = png
        bar.addWidget(png)

        self.plot_widget = pg.GraphicsLayoutWidget()
        self.plot_widget.setMinimumHeight(220)
        self.plot_widget.scene().sigMouseClicked.connect(self._scene_clicked)
        self.plot_widget.setToolTip("Click a bar to list its samples in the browser")
        self.model = QStandardItemModel(self)
        self.table_view = QTableView()
        self.table_view.setModel(self.model)
        self.table_view.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table_view.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table_view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.table_view.verticalHeader().hide()
        split = QSplitter(Qt.Vertical)
        split.addWidget(self.plot_widget)
        split.addWidget(self.table_view)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(bar)
        layout.addWidget(split, 1)
        self._apply_colours()
        self._redraw()

    # data -------------------------------------------------------------------------------
    def refresh(self, project: Project, run_ids: list[int]) -> None:
        """Recompute for these runs, off the UI thread; refreshed() is emitted when shown."""
        self.project, self.run_ids = project, list(run_ids)
        self._generation += 1
        generation = self._generation
        if not run_ids:
            self.set_rows([])
            return
        self.status.setText("Loading…")
        ids = list(run_ids)
        run_in_background(self, lambda: tables.verdict_rows(project, ids),
                          lambda rows: generation == self._generation and self.set_rows(rows),
                          lambda exc: generation == self._generation and self._failed(exc))

    def set_rows(self, rows: list[dict]) -> None:
        """Show these prediction rows (verdict_rows() or prediction_rows() dicts) now."""
        self._rows = list(rows)
        self._redraw()
        self.refreshed.emit()

    def _failed(self, exc: Exception) -> None:
        self.status.setText(f"Could not load the runs: {exc}")
        self.failed.emit(str(exc))

    def set_breakdown(self, key: str) -> None:
        """overall, scenario or pattern."""
        self.breakdown.setCurrentIndex(self.breakdown.findData(key))

    def table(self) -> Table:
        return self._table

    def set_palette(self, palette: str, dark: bool | None = None) -> None:
        self.palette_name = palette
        if dark is not None:
            self.dark = dark
        self._apply_colours()
        self._redraw()

    # drawing ------------------------------------------------------------------------------
    def _apply_colours(self) -> None:
        self.plot_widget.setBackground("#1f1f1f" if self.dark else "w")

    def _redraw(self, *_) -> None:
        self._table = tables.breakdown_table(self._rows, self.breakdown.currentData())
        foreground = "#e6e6e6" if self.dark else "#303030"
        self.bars = draw_table(self.plot_widget.ci, self._table, self.palette_name, foreground)
        self._fill_model()
        runs = len({r.get("run") for r in self._rows})
        scored = sum(1 for r in self._rows if r.get("verdict") in tables.SCORED - {"error"})
        errors = sum(1 for r in self._rows if r.get("verdict") == "error")
        self.status.setText(f"{runs} run(s) · {scored} scored predictions" + (f" · {errors} failed" if errors else "")
                            if self._rows else "No predictions in the selected runs")
        for button in self.export_buttons.values():
            button.setEnabled(bool(self._table.rows))

    def _fill_model(self) -> None:
        table = self._table
        self.model.clear()
        self.model.setHorizontalHeaderLabels(tables.header(table))
        keys = len(table.row_fields)
        for row, line in zip(table.rows, tables.body(table), strict=True):
            items = []
            for i, text in enumerate(line):
                item = QStandardItem(text)
                item.setEditable(False)
                if i >= keys:
                    item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                if i > keys:
                    column = table.columns[(i - keys - 1) // len(tables.METRICS)]
                    cell = table.cell(row, column)
                    if cell is not None:
                        item.setToolTip(f"n = {cell['n']}, wrong format {cell['wrong_format']}, "
                                        f"failed requests {cell['errors']}; runs {', '.join(map(str, cell['runs']))}")
                items.append(item)
            self.model.appendRow(items)

    # clicks ---------------------------------------------------------------------------------
    def bar_at(self, scene_pos: QPointF) -> Bar | None:
        for bar in self.bars:
            vb = bar.plot.vb
            if not vb.sceneBoundingRect().contains(scene_pos):
                continue
            p = vb.mapSceneToView(scene_pos)
            if bar.x0 <= p.x() <= bar.x1 and -CLICK_SLACK <= p.y() <= max(bar.value, CLICK_SLACK):
                return bar
        return None

    def bar_scene_pos(self, bar: Bar) -> QPointF:
        """The middle of a bar in scene coordinates (for tests and keyboard access)."""
        return bar.plot.vb.mapViewToScene(QPointF((bar.x0 + bar.x1) / 2, max(bar.value, CLICK_SLACK) / 2))

    def _scene_clicked(self, event) -> None:
        if event.button() != Qt.LeftButton:
            return
        bar = self.bar_at(event.scenePos())
        if bar is not None:
            event.accept()
            self.barClicked.emit(self.bar_info(bar))

    def bar_info(self, bar: Bar) -> dict:
        table = self._table
        key = dict(zip(table.row_fields, bar.row, strict=True))
        column = None if bar.column == ALL else bar.column
        info = {"agent": key.get("agent"), "pattern": key.get("pattern"), "scenario": None,
                "verdict": METRIC_VERDICT[bar.metric], "metric": bar.metric}
        if table.column_field in ("scenario", "pattern") and column is not None:
            info[table.column_field] = column
        cell = table.cell(bar.row, bar.column) or {}
        info["run_ids"] = list(cell.get("runs", []))

        def matches(r: dict) -> bool:
            return (r.get("verdict") == info["verdict"] and all(str(r.get(f, "") or "") == v for f, v in key.items())
                    and (column is None or str(r.get(table.column_field, "") or "") == column))

        mine = [r for r in self._rows if matches(r)]
        info["episode_ids"] = sorted({r["episode_id"] for r in mine if r.get("episode_id") is not None})
        info["step_ids"] = sorted({r["step_id"] for r in mine if r.get("step_id") is not None})
        return info

    # exports ------------------------------------------------------------------------------
    def export_table(self, path: Path | str, fmt: str | None = None) -> Path:
        """The table shown, as csv, md or tex (by `fmt` or the file suffix)."""
        return tables.write(self._table, path, fmt)

    def export_png(self, path: Path | str) -> Path:
        path = Path(path)
        if not self.plot_widget.grab().save(str(path)):
            raise OSError(f"could not write {path}")
        return path

    def _export_dialog(self, fmt: str, pattern: str) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export table", f"results.{fmt}", pattern)
        if path:
            self._guarded(lambda: self.export_table(path, fmt))

    def _export_png_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export plot", "results.png", "PNG (*.png)")
        if path:
            self._guarded(lambda: self.export_png(path))

    def _guarded(self, fn) -> None:
        try:
            written = fn()
        except (OSError, ValueError) as exc:
            self.status.setText(f"Export failed: {exc}")
        else:
            self.status.setText(f"Wrote {written}")
