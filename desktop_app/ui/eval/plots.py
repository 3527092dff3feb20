"""The dashboard's bar charts: chart.layout() (Qt-free, shared with the report's PNGs) painted into
a pyqtgraph GraphicsLayout, one subplot per column, with 95 % Wilson error bars."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg

from desktop_app.evaluation.chart import BAR_WIDTH, PLOTS_PER_LINE, Y_LABEL, BarSpec, layout, legend
from desktop_app.evaluation.tables import Table


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


def draw_table(graphics_layout, table: Table, palette: str = "default", foreground: str = "#303030") -> list[Bar]:
    """Subplots into a pyqtgraph GraphicsLayout (e.g. GraphicsLayoutWidget.ci), cleared first."""
    graphics_layout.clear()
    plots = layout(table, palette)
    bars: list[Bar] = []
    entries = legend(palette)
    key = pg.LegendItem(colCount=len(entries), labelTextColor=foreground, labelTextSize="9pt")
    for title, colour in entries:  # a legend row above the plots, so it never hides a bar
        key.addItem(pg.BarGraphItem(x=[0], height=[1], width=1, brush=colour, pen=colour), title)
    graphics_layout.addItem(key, row=0, col=0, colspan=max(1, min(len(plots), PLOTS_PER_LINE)))
    graphics_layout.nextRow()
    n = len(table.rows)
    for index, spec in enumerate(plots):
        if index and index % PLOTS_PER_LINE == 0:
            graphics_layout.nextRow()
        plot = graphics_layout.addPlot(title=f"<span style='color:{foreground}'>{spec.title}</span>")
        plot.setMenuEnabled(False)
        plot.setMouseEnabled(x=False, y=False)
        plot.hideButtons()
        plot.showGrid(x=False, y=True, alpha=0.25)
        by_metric: dict[str, list[BarSpec]] = {}
        for bar in spec.bars:
            by_metric.setdefault(bar.metric, []).append(bar)
            bars.append(Bar(plot, bar.row, bar.column, bar.metric, bar.x0, bar.x1, bar.value))
        for metric_bars in by_metric.values():
            xs = np.array([b.x for b in metric_bars])
            values = np.array([b.value for b in metric_bars])
            colour = metric_bars[0].colour
            plot.addItem(pg.BarGraphItem(x=xs, height=values, width=BAR_WIDTH, brush=colour, pen=pg.mkPen(colour)))
            plot.addItem(pg.ErrorBarItem(x=xs, y=values, top=np.array([b.high - b.value for b in metric_bars]),
                                         bottom=np.array([b.value - b.low for b in metric_bars]),
                                         beam=BAR_WIDTH * 0.45, pen=pg.mkPen(foreground, width=1.2)))
        bottom, left = plot.getAxis("bottom"), plot.getAxis("left")
        bottom.setTicks([spec.ticks, []])
        left.setTicks([[(v / 100, f"{v}%") for v in range(0, 101, 20)], []])
        for axis in (bottom, left):
            axis.setTextPen(foreground)
            axis.setPen(foreground)
        if index % PLOTS_PER_LINE == 0:
            left.setLabel(Y_LABEL, color=foreground)
        bottom.setHeight(34 if len(table.row_fields) > 1 else 22)
        plot.setXRange(-0.6, max(n, 1) - 0.4, padding=0)
        plot.setYRange(-0.07, 1.06, padding=0)  # below 0: empty bars, their intervals and the 0% tick stay visible
    return bars
