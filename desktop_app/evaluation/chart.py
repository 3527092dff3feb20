"""Grouped bar charts of a result table, as plain data: one subplot per column (scenario, pattern or
rule set), one group of bars per row (agent, pattern), one bar per metric with its 95 % Wilson
interval. Two painters draw the same layout, in the colours of evaluation/palette.py: the dashboard's
pyqtgraph widget (ui/eval/plots.py) and the report's PNG files (evaluation/chart_png.py, Pillow, no Qt)."""

from __future__ import annotations

from dataclasses import dataclass, field

from desktop_app.evaluation.palette import SHARED_SCHEME, metric_colours
from desktop_app.evaluation.tables import ALL, METRICS, TITLES, Table

BAR_WIDTH = 0.2
BAR_GAP = 0.02
PLOTS_PER_LINE = 4
Y_LABEL = "share of samples, 95% CI"  # short: a long label is clipped on short plots
SUBPLOT_MIN = (250, 220)  # dashboard pixels: below this a plot scrolls instead of squashing its labels
# The report's PNGs are read at 100 % in a browser and scaled into a paper: a single plot is at least
# REPORT_MIN pixels, and each subplot is wide enough for its group labels in the report's fonts.
REPORT_MIN = (960, 600)
REPORT_SUBPLOT_MIN_WIDTH = 440
REPORT_GROUP_WIDTH = 150  # pixels per agent group: "gpt-4o-mini" under its bars does not collide
REPORT_LINE_HEIGHT = 520  # one line of subplots
REPORT_LEGEND_HEIGHT = 56


@dataclass(frozen=True)
class BarSpec:
    row: tuple[str, ...]
    column: str
    metric: str
    x: float  # centre, in the subplot's data coordinates (group i is centred on x = i)
    value: float
    low: float  # the interval, absolute
    high: float
    colour: str

    @property
    def x0(self) -> float:
        return self.x - BAR_WIDTH / 2

    @property
    def x1(self) -> float:
        return self.x + BAR_WIDTH / 2


@dataclass
class Subplot:
    column: str
    title: str
    ticks: list[tuple[float, str]]  # group centres and their labels
    bars: list[BarSpec] = field(default_factory=list)


def column_title(table: Table, column: str) -> str:
    if column == ALL:
        return "all samples"
    if "rules" in table.column_field:  # rule sets side by side: "popup · envdistraction" says it all
        return column or "(none)"
    return f"{table.column_field}: {column or '(none)'}"


def row_tick(row: tuple[str, ...]) -> str:
    return "\n".join(v for v in row if v) or "(none)"


def bar_offset(k: int) -> float:
    """Where metric k's bar sits relative to its group's centre."""
    return (k - (len(METRICS) - 1) / 2) * (BAR_WIDTH + BAR_GAP)


def layout(table: Table, palette: str = SHARED_SCHEME) -> list[Subplot]:
    """Bars of cells with at least one scored sample; a cell with n = 0 gets no bar (not a 0 % bar)."""
    colours = metric_colours(palette)
    plots = []
    for column in table.data_columns():
        plot = Subplot(column, column_title(table, column), [(i, row_tick(r)) for i, r in enumerate(table.rows)])
        for k, metric in enumerate(METRICS):
            for i, row in enumerate(table.rows):
                cell = table.cell(row, column)
                if cell is None or not cell["n"] or cell.get(metric) is None or cell.get(f"{metric}_ci95") is None:
                    continue
                lo, hi = cell[f"{metric}_ci95"]
                plot.bars.append(BarSpec(row, column, metric, i + bar_offset(k), cell[metric], lo, hi,
                                         colours[metric]))
        plots.append(plot)
    return plots


def legend(palette: str = SHARED_SCHEME) -> list[tuple[str, str]]:
    colours = metric_colours(palette)
    return [(TITLES[m], colours[m]) for m in METRICS]


def min_plot_size(table: Table) -> tuple[int, int]:
    """The smallest size the dashboard draws a table's plots at (it scrolls below that)."""
    columns = max(len(table.data_columns()), 1)
    per_line = min(columns, PLOTS_PER_LINE)
    lines = (columns + PLOTS_PER_LINE - 1) // PLOTS_PER_LINE
    width = max(SUBPLOT_MIN[0], 70 * max(len(table.rows), 1) + 60)
    return per_line * width, lines * SUBPLOT_MIN[1] + 40


def plot_size(table: Table) -> tuple[int, int]:
    """The size of the report's PNG of a table: REPORT_MIN at least, wider for many groups or subplots."""
    columns = max(len(table.data_columns()), 1)
    per_line = min(columns, PLOTS_PER_LINE)
    lines = (columns + PLOTS_PER_LINE - 1) // PLOTS_PER_LINE
    sub_width = max(REPORT_SUBPLOT_MIN_WIDTH, REPORT_GROUP_WIDTH * max(len(table.rows), 1) + 100)
    return (max(per_line * sub_width, REPORT_MIN[0]),
            max(REPORT_LINE_HEIGHT * lines + REPORT_LEGEND_HEIGHT, REPORT_MIN[1]))
