"""The dashboard's bar charts: chart.layout() (Qt-free, shared with the report's PNGs) painted into
a pyqtgraph GraphicsLayout, one subplot per column, with 95 % Wilson error bars.

Grid of the GraphicsLayout:
    row 0        the legend, over the subplots' columns
    rows 1..n    a line of subplots each: column 0 the y-axis caption, columns 1.. the subplots
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication

from desktop_app.evaluation.chart import BAR_WIDTH, PLOTS_PER_LINE, Y_LABEL, BarSpec, Subplot, layout, legend
from desktop_app.evaluation.palette import INK, SHARED_SCHEME
from desktop_app.evaluation.tables import Table

TEXT_SIZE = "9pt"
Y_TICKS = [(v / 100, f"{v}%") for v in range(0, 101, 20)]
Y_MARGIN = 0.1  # of the y range, below 0 % and above 100 %
TICK_FILL = 0.75  # the y tick labels take at most this share of their axis' height: closer, they touch
NO_BARS = "Nothing to show yet: tick single-screen runs in the Runs tab"


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


def draw_table(graphics_layout, table: Table, palette: str = SHARED_SCHEME, foreground: str = INK["light"],
               empty_text: str = NO_BARS) -> list[Bar]:
    """Subplots into a pyqtgraph GraphicsLayout (e.g. GraphicsLayoutWidget.ci), cleared first. A table
    without columns still gets the legend and an empty frame with `empty_text`, so the canvas keeps
    its shape until there is something to draw."""
    graphics_layout.clear()
    plots = layout(table, palette)
    lines = max(1, (len(plots) + PLOTS_PER_LINE - 1) // PLOTS_PER_LINE)
    per_line = max(1, min(len(plots), PLOTS_PER_LINE))
    _add_legend(graphics_layout, palette, foreground, per_line)
    for line in range(lines):
        _add_y_caption(graphics_layout, foreground, line)
    if not plots:
        _add_empty_frame(graphics_layout, foreground, empty_text)
        return []
    bars: list[Bar] = []
    for index, spec in enumerate(plots):
        plot = graphics_layout.addPlot(row=1 + index // PLOTS_PER_LINE, col=1 + index % PLOTS_PER_LINE,
                                       title=f"<span style='color:{foreground}'>{spec.title}</span>")
        _style_axes(plot, foreground, tall_ticks=len(table.row_fields) > 1)
        plot.getAxis("bottom").setTicks([spec.ticks, []])
        plot.setXRange(-0.6, max(len(table.rows), 1) - 0.4, padding=0)
        bars += _draw_bars(plot, spec, foreground)
    return bars


def _add_legend(graphics_layout, palette: str, foreground: str, per_line: int) -> None:
    """The metrics' swatches in a row above the plots, so the legend never hides a bar. Its own size,
    left-aligned: stretched over the row, pyqtgraph would pull the swatches away from their names."""
    entries = legend(palette)
    key = pg.LegendItem(colCount=len(entries), labelTextColor=foreground, labelTextSize=TEXT_SIZE, frame=False)
    for title, colour in entries:
        key.addItem(pg.BarGraphItem(x=[0], height=[1], width=1, brush=colour, pen=colour), title)
    graphics_layout.addItem(key, row=0, col=1, colspan=per_line)
    # a maximum, not a Fixed size policy: with that, the layout shrank to its preferred size when redrawn
    key.setMaximumSize(key.layout.preferredSize())
    graphics_layout.layout.setAlignment(key, Qt.AlignLeft | Qt.AlignVCenter)


def _add_y_caption(graphics_layout, foreground: str, line: int) -> None:
    """What the bars measure, beside a line of subplots, in a layout cell of its own: the layout then
    keeps the line at least as tall as the caption is long. Drawn as the left axis' label it was
    not counted, and on short lines (or in a large font) ran into the next line's caption."""
    caption = pg.LabelItem(Y_LABEL, angle=-90, color=foreground)  # in the application font, like the titles
    graphics_layout.addItem(caption, row=1 + line, col=0)


def _add_empty_frame(graphics_layout, foreground: str, text: str) -> None:
    plot = graphics_layout.addPlot(row=1, col=1)
    _style_axes(plot, foreground, tall_ticks=False)
    plot.getAxis("bottom").setTicks([[], []])
    plot.setXRange(0, 1, padding=0)
    message = pg.TextItem(text, color=foreground, anchor=(0.5, 0.5))
    message.setPos(0.5, 0.5)
    plot.addItem(message)


def _style_axes(plot, foreground: str, tall_ticks: bool) -> None:
    plot.setMenuEnabled(False)
    plot.setMouseEnabled(x=False, y=False)
    plot.hideButtons()
    plot.showGrid(x=False, y=True, alpha=0.25)
    bottom, left = plot.getAxis("bottom"), plot.getAxis("left")
    left.setTicks([Y_TICKS, []])
    for axis in (bottom, left):
        axis.setTextPen(foreground)
        axis.setPen(foreground)
    # Room for the tick labels in the font they are drawn in (a large one too): with too little,
    # pyqtgraph leaves the group labels (agent over pattern: two lines) out and the y labels crowd
    line = QFontMetrics(QApplication.font()).lineSpacing()
    bottom.setHeight((2 if tall_ticks else 1) * line + 8)
    title = plot.titleLabel.effectiveSizeHint(Qt.PreferredSize).height()
    plot.setMinimumHeight(len(Y_TICKS) * line / TICK_FILL + bottom.height() + title)
    # Beyond 0 and 100 %: empty bars and their intervals stay visible, and so do the 0% and 100% tick
    # labels (pyqtgraph drops a tick label that would stick out of the plot; at 100 % half of it would)
    plot.setYRange(-Y_MARGIN, 1 + Y_MARGIN, padding=0)


def _draw_bars(plot, spec: Subplot, foreground: str) -> list[Bar]:
    by_metric: dict[str, list[BarSpec]] = {}
    drawn = []
    for bar in spec.bars:
        by_metric.setdefault(bar.metric, []).append(bar)
        drawn.append(Bar(plot, bar.row, bar.column, bar.metric, bar.x0, bar.x1, bar.value))
    for metric_bars in by_metric.values():
        xs = np.array([b.x for b in metric_bars])
        values = np.array([b.value for b in metric_bars])
        colour = metric_bars[0].colour
        plot.addItem(pg.BarGraphItem(x=xs, height=values, width=BAR_WIDTH, brush=colour, pen=pg.mkPen(colour)))
        plot.addItem(pg.ErrorBarItem(x=xs, y=values, top=np.array([b.high - b.value for b in metric_bars]),
                                     bottom=np.array([b.value - b.low for b in metric_bars]),
                                     beam=BAR_WIDTH * 0.45, pen=pg.mkPen(foreground, width=1.2)))
    return drawn
