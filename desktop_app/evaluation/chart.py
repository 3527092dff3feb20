"""Grouped bar charts of a result table, as plain data: one subplot per column (scenario, pattern or
rule set), one group of bars per row (agent, pattern), one bar per metric with its 95 % Wilson
interval. Two painters draw the same layout: the dashboard's pyqtgraph widget (ui/eval/plots.py)
and the report's PNG files (evaluation/chart_png.py, Pillow, no Qt)."""

from __future__ import annotations

from dataclasses import dataclass, field

from desktop_app.evaluation.tables import ALL, METRICS, TITLES, Table

METRIC_COLOURS = {
    "default": {"acc_gold": "#1f9e3a", "acc_dist": "#e0302a", "acc_other": "#6f8fb0", "acc_inv": "#9a9a9a"},
    "colorblind": {"acc_gold": "#0072B2", "acc_dist": "#E69F00", "acc_other": "#56B4E9", "acc_inv": "#999999"},
}
BAR_WIDTH = 0.2
BAR_GAP = 0.02
PLOTS_PER_LINE = 4
SUBPLOT_MIN_WIDTH = 300
GROUP_WIDTH = 110  # pixels per agent group, so labels do not collide
Y_LABEL = "share of samples, 95% CI"  # short: a long label is clipped on short plots
SUBPLOT_MIN = (250, 220)  # pixels: below this a plot scrolls instead of squashing its labels


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


def layout(table: Table, palette: str = "default") -> list[Subplot]:
    """Bars of cells with at least one scored sample; a cell with n = 0 gets no bar (not a 0 % bar)."""
    colours = METRIC_COLOURS.get(palette, METRIC_COLOURS["default"])
    plots = []
    for column in table.data_columns():
        plot = Subplot(column, column_title(table, column), [(i, row_tick(r)) for i, r in enumerate(table.rows)])
        for k, metric in enumerate(METRICS):
            for i, row in enumerate(table.rows):
                cell = table.cell(row, column)
                if cell is None or not cell["n"] or cell.get(metric) is None:
                    continue
                lo, hi = cell[f"{metric}_ci95"]
                plot.bars.append(BarSpec(row, column, metric, i + bar_offset(k), cell[metric], lo, hi,
                                         colours[metric]))
        plots.append(plot)
    return plots


def legend(palette: str = "default") -> list[tuple[str, str]]:
    colours = METRIC_COLOURS.get(palette, METRIC_COLOURS["default"])
    return [(TITLES[m], colours[m]) for m in METRICS]


def min_plot_size(table: Table) -> tuple[int, int]:
    """The smallest size the dashboard draws a table's plots at (it scrolls below that)."""
    columns = max(len(table.data_columns()), 1)
    per_line = min(columns, PLOTS_PER_LINE)
    lines = (columns + PLOTS_PER_LINE - 1) // PLOTS_PER_LINE
    width = max(SUBPLOT_MIN[0], 70 * max(len(table.rows), 1) + 60)
    return per_line * width, lines * SUBPLOT_MIN[1] + 40


def plot_size(table: Table) -> tuple[int, int]:
    columns = max(len(table.data_columns()), 1)
    per_line = min(columns, PLOTS_PER_LINE)
    lines = (columns + PLOTS_PER_LINE - 1) // PLOTS_PER_LINE
    sub_width = max(SUBPLOT_MIN_WIDTH, GROUP_WIDTH * max(len(table.rows), 1) + 60)
    return max(per_line * sub_width, 560), 360 * lines + 40  # 560: the legend row fits
