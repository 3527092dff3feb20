"""Grouped bar charts of Acc_gold / Acc_dist / Acc_inv with 95 % Wilson error bars, one group per
agent (row of a tables.Table) and one subplot per column (scenario or pattern).

The dashboard draws into its own pyqtgraph widget with draw_table(); the report renders PNGs
with render_png(), which needs no display: it creates an offscreen QApplication when there is
none (QT_QPA_PLATFORM=offscreen when no display is available) and grabs a widget that is laid
out but never shown on screen (WA_DontShowOnScreen).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from desktop_app.evaluation.tables import ALL, METRICS, TITLES, Table

BAR_WIDTH = 0.26
METRIC_COLOURS = {
    "default": {"acc_gold": "#1f9e3a", "acc_dist": "#e0302a", "acc_inv": "#7f7f7f"},
    "colorblind": {"acc_gold": "#0072B2", "acc_dist": "#E69F00", "acc_inv": "#999999"},
}
PLOTS_PER_LINE = 4
SUBPLOT_MIN_WIDTH = 300
GROUP_WIDTH = 90  # pixels per agent group, so labels do not collide


@dataclass
class Bar:
    """One drawn bar, for hit-testing a click: x in the subplot's data coordinates."""

    plot: object  # pyqtgraph PlotItem
    row: tuple[str, ...]
    column: str
    metric: str
    x0: float
    x1: float
    value: float


def ensure_app():
    """The running QApplication, or a new offscreen one (the CLI, tests, scripts)."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        app = QApplication(sys.argv[:1])
    return app


def column_title(table: Table, column: str) -> str:
    if column == ALL:
        return "all samples"
    return f"{table.column_field}: {column or '(none)'}"


def row_tick(row: tuple[str, ...]) -> str:
    return "\n".join(v for v in row if v) or "(none)"


def draw_table(layout, table: Table, palette: str = "default", foreground: str = "#303030") -> list[Bar]:
    """Subplots into a pyqtgraph GraphicsLayout (e.g. GraphicsLayoutWidget.ci), cleared first."""
    import numpy as np
    import pyqtgraph as pg

    layout.clear()
    colours = METRIC_COLOURS.get(palette, METRIC_COLOURS["default"])
    bars: list[Bar] = []
    columns = table.data_columns()
    n = len(table.rows)
    legend = pg.LegendItem(colCount=len(METRICS), labelTextColor=foreground, labelTextSize="9pt")
    for metric in METRICS:  # a legend row above the plots, so it never hides a bar
        legend.addItem(pg.BarGraphItem(x=[0], height=[1], width=1, brush=colours[metric], pen=colours[metric]),
                       TITLES[metric])
    layout.addItem(legend, row=0, col=0, colspan=max(1, min(len(columns), PLOTS_PER_LINE)))
    layout.nextRow()
    for index, column in enumerate(columns):
        if index and index % PLOTS_PER_LINE == 0:
            layout.nextRow()
        plot = layout.addPlot(title=f"<span style='color:{foreground}'>{column_title(table, column)}</span>")
        plot.setMenuEnabled(False)
        plot.setMouseEnabled(x=False, y=False)
        plot.hideButtons()
        plot.showGrid(x=False, y=True, alpha=0.25)
        for k, metric in enumerate(METRICS):
            xs, values, lows, highs = [], [], [], []
            for i, row in enumerate(table.rows):
                cell = table.cell(row, column)
                if cell is None or not cell["n"]:
                    continue
                x = i + (k - 1) * (BAR_WIDTH + 0.02)
                lo, hi = cell[f"{metric}_ci95"]
                xs.append(x)
                values.append(cell[metric])
                lows.append(cell[metric] - lo)
                highs.append(hi - cell[metric])
                bars.append(Bar(plot, row, column, metric, x - BAR_WIDTH / 2, x + BAR_WIDTH / 2, cell[metric]))
            if not xs:
                continue
            x_arr, v_arr = np.array(xs), np.array(values)
            plot.addItem(pg.BarGraphItem(x=x_arr, height=v_arr, width=BAR_WIDTH, brush=colours[metric],
                                         pen=pg.mkPen(colours[metric])))
            plot.addItem(pg.ErrorBarItem(x=x_arr, y=v_arr, top=np.array(highs), bottom=np.array(lows),
                                         beam=BAR_WIDTH * 0.45, pen=pg.mkPen(foreground, width=1.2)))
        bottom, left = plot.getAxis("bottom"), plot.getAxis("left")
        bottom.setTicks([[(i, row_tick(row)) for i, row in enumerate(table.rows)], []])
        left.setTicks([[(v / 100, f"{v}%") for v in range(0, 101, 20)], []])
        for axis in (bottom, left):
            axis.setTextPen(foreground)
            axis.setPen(foreground)
        if index % PLOTS_PER_LINE == 0:
            left.setLabel("share of samples (error bars: 95% Wilson)", color=foreground)
        bottom.setHeight(34 if len(table.row_fields) > 1 else 22)
        plot.setXRange(-0.6, max(n, 1) - 0.4, padding=0)
        plot.setYRange(-0.03, 1.06, padding=0)  # a little below 0: empty bars and the 0% tick stay visible
    return bars


def plot_size(table: Table) -> tuple[int, int]:
    columns = max(len(table.data_columns()), 1)
    per_line = min(columns, PLOTS_PER_LINE)
    lines = (columns + PLOTS_PER_LINE - 1) // PLOTS_PER_LINE
    sub_width = max(SUBPLOT_MIN_WIDTH, GROUP_WIDTH * max(len(table.rows), 1) + 60)
    return max(per_line * sub_width, 520), 360 * lines + 30  # 520: the legend row fits


def render_png(table: Table, path: Path | str, palette: str = "colorblind", size: tuple[int, int] | None = None) -> Path:
    """Draw the table's bars and save a PNG, without showing a window."""
    ensure_app()
    import pyqtgraph as pg
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    widget = pg.GraphicsLayoutWidget()
    try:
        widget.setBackground("w")
        widget.setAttribute(Qt.WA_DontShowOnScreen, True)  # laid out and painted, never on screen
        widget.resize(*(size or plot_size(table)))
        draw_table(widget.ci, table, palette)
        widget.show()
        QApplication.processEvents()
        path = Path(path)
        if not widget.grab().save(str(path)):
            raise OSError(f"could not write {path}")
    finally:
        widget.close()
        widget.deleteLater()
    return path
