"""The metrics dashboard: grouped bars (Acc_gold / Acc_dist / Acc_other / Acc_inv, 95 % Wilson error
bars) per agent, broken down overall, by scenario, by pattern or by the class of the gold box, under ScreenLab's rules, the
EnvDistraction authors' rules, or both side by side; the same numbers in a table (with the
wrong-format count, "-" where nothing was scored); exports. Beside the rules, the text metric of the
authors' rules (auto, f1, result-id: `--text-metric`), enabled when their rules are shown.

    dashboard.refresh(project, run_ids)        # the queries run off the UI thread; refreshed() after
    dashboard.barClicked.connect(filter_browser)
        # {"run_ids", "agent", "pattern", "scenario", "rules", "verdict", "metric", "episode_ids", "step_ids"}
        # pattern / scenario are None when the bar pools them

Numbers come from tables.py (metrics.Metric over evaluation.rows), so they match `screenlab eval`
and the report. Only single-screen runs have these rates; the runs of other protocols (live, replay, browse, the
probes) are summed up in their own words under the table, as `screenlab eval` prints them (a live run's SR and
steps to success).
"""

from __future__ import annotations

import math
from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktop_app.api.projects import Project
from desktop_app.evaluation import tables
from desktop_app.evaluation.chart import SUBPLOT_MIN, min_plot_size
from desktop_app.evaluation.metrics import row_flags
from desktop_app.evaluation.palette import INK, SHARED_SCHEME
from desktop_app.evaluation.rows import rule_rows
from desktop_app.evaluation.rules import RULES
from desktop_app.evaluation.rules.envdistraction import TEXT_METRIC_HELP, EnvDistractionRules
from desktop_app.evaluation.tables import ALL, METRIC_VERDICT, Table
from desktop_app.evaluation.target_class import with_target_class
from desktop_app.runs.evaluate import evaluate, list_runs, summary_lines
from desktop_app.ui.eval.plots import Bar, draw_table
from desktop_app.ui.eval.results_model import ResultsTableModel
from desktop_app.ui.fit import ElidedLabel, FlowLayout
from desktop_app.ui.tasks import run_in_background

# "class": the class of the step's gold box (evaluation/target_class.py), "(no class)" for one without
BREAKDOWNS = (("overall", "Overall"), ("scenario", "By scenario"), ("pattern", "By pattern"),
              ("class", "By class"))
BOTH = "both"
SIDE_BY_SIDE = " · rules"  # the column field of a side-by-side table: "scenario · rules"
METRIC_FLAG = {"acc_gold": "gold", "acc_dist": "distracted", "acc_other": "other", "acc_inv": "invalid"}
EXPORTS = (("csv", "CSV…", "CSV (*.csv)"), ("md", "Markdown…", "Markdown (*.md)"), ("tex", "LaTeX…", "LaTeX (*.tex)"))
CLICK_SLACK = 0.03  # a click this close above a short bar still hits it (0-height bars stay clickable)
TABLE_ROWS_SHOWN = 5  # the table keeps room for this many rows (fewer when it has fewer); more scroll
TABLE_COLUMN_MAX = 260  # pixels: the widest a column of the table gets
LEGEND_HEIGHT = 40  # the legend's row over the plots (min_plot_size counts it too)
NO_RUNS = "No runs ticked: tick runs in the Runs tab to see their rates here"
NO_SCREEN_ANSWERS = "No single-screen answers in the ticked runs"
# the text metric's choices (evaluation/rules TEXT_METRICS' keys), named as the authors name them
TEXT_METRIC_CHOICES = (("auto", "Auto (as the authors' code)"), ("f1", "Token F1 (their f1_v2)"),
                       ("result-id", "Result id (their google_id)"))


def _together(*parts) -> QWidget:
    """Widgets (or one layout) that stay on one line when the dashboard's bar wraps: a label with its box."""
    holder = QWidget()
    if len(parts) == 1 and not isinstance(parts[0], QWidget):
        row = parts[0]
        holder.setLayout(row)
    else:
        row = QHBoxLayout(holder)
        for part in parts:
            row.addWidget(part)
    row.setContentsMargins(0, 0, 0, 0)
    return holder


class DashboardWidget(QWidget):
    """barClicked(dict) when a bar is clicked; refreshed() when new numbers are shown;
    failed(str) when the query failed (also shown in the widget)."""

    barClicked = Signal(dict)
    refreshed = Signal()
    failed = Signal(str)

    def __init__(self, parent=None, palette: str = SHARED_SCHEME, dark: bool = False):
        super().__init__(parent)
        self.palette_name = palette
        self.dark = dark
        self.project: Project | None = None
        self.run_ids: list[int] = []
        self._rows: dict[str, list[dict]] = {}  # rule set -> prediction rows
        self._shown: list[dict] = []  # the rows behind the current table
        self._other_runs: list[int] = []  # runs of other protocols among those asked for (no such rates)
        self._other_summary: list[str] = []  # their `screenlab eval` lines (SR, steps, ...)
        self._table = Table("", ("agent", "pattern"), "scenario")
        self.bars: list[Bar] = []
        self._generation = 0

        self.breakdown = QComboBox()
        for key, text in BREAKDOWNS:
            self.breakdown.addItem(text, key)
        self.breakdown.setCurrentIndex(1)
        self.breakdown.currentIndexChanged.connect(self._redraw)
        self.rules = QComboBox()
        for name, rule_set in RULES.items():
            self.rules.addItem(rule_set.title, name)
        self.rules.addItem("Both, side by side", BOTH)
        self.rules.setToolTip("\n".join(f"{r.name}: {r.description}" for r in RULES.values()))
        self.rules.currentIndexChanged.connect(self._rules_changed)
        self.text_metric = QComboBox()
        for key, text in TEXT_METRIC_CHOICES:
            self.text_metric.addItem(text, key)
        self.text_metric.setToolTip(f"How the EnvDistraction authors' rules score text answers: {TEXT_METRIC_HELP}. "
                                    "Shown when their rules are.")
        self.text_metric.currentIndexChanged.connect(self._text_metric_changed)
        self.status = ElidedLabel("No runs selected", mode=Qt.ElideRight)  # the runs' line is long: elided, whole
        self.status.setTextInteractionFlags(Qt.TextSelectableByMouse)  # in its tooltip
        self.export_buttons: dict[str, QPushButton] = {}
        # the choices, what is shown and the exports flow onto more lines in a narrow dock: in one line the
        # dashboard could not be narrower than the canvas between the side panels of a 1280 px window
        self.text_metric_label = QLabel("Text metric:")
        export = QHBoxLayout()
        export.addWidget(QLabel("Export:"))
        for fmt, text, pattern in EXPORTS:
            button = QPushButton(text)
            button.clicked.connect(lambda _=False, f=fmt, p=pattern: self._export_dialog(f, p))
            self.export_buttons[fmt] = button
            export.addWidget(button)
        png = QPushButton("PNG…")
        png.clicked.connect(self._export_png_dialog)
        self.export_buttons["png"] = png
        export.addWidget(png)
        bar = FlowLayout()
        for part in (_together(QLabel("Breakdown:"), self.breakdown), _together(QLabel("Rules:"), self.rules),
                     _together(self.text_metric_label, self.text_metric), self.status, _together(export)):
            bar.addWidget(part)

        self.plot_widget = pg.GraphicsLayoutWidget()
        self.plot_widget.setMinimumHeight(220)
        self.plot_widget.scene().sigMouseClicked.connect(self._scene_clicked)
        self.plot_widget.setToolTip("Click a bar to list its samples in the browser")
        self.model = ResultsTableModel(self)
        self.table_view = QTableView()
        self.table_view.setModel(self.model)
        self.table_view.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table_view.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table_view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        # a long agent or scenario name is elided in its column (whole in the tooltip), never a column a screen wide
        self.table_view.horizontalHeader().setMaximumSectionSize(TABLE_COLUMN_MAX)
        self.table_view.setTextElideMode(Qt.ElideMiddle)
        self.table_view.horizontalHeader().setTextElideMode(Qt.ElideMiddle)  # (centred and cut, it showed a middle)
        self.table_view.verticalHeader().hide()
        # rows as tall as their text: the table shows its rows in less height
        self.table_view.verticalHeader().setDefaultSectionSize(self.table_view.fontMetrics().height() + 8)
        self.plot_scroll = QScrollArea()  # many subplots scroll rather than squash their labels
        self.plot_scroll.setWidgetResizable(True)
        self.plot_scroll.setWidget(self.plot_widget)
        # the other protocols' runs in their own words (screenlab eval's lines), shown when such a run is ticked
        self.other_runs_view = QPlainTextEdit()
        self.other_runs_view.setReadOnly(True)
        self.other_runs_view.setLineWrapMode(QPlainTextEdit.NoWrap)
        self.other_runs_view.setObjectName("multiStepRuns")
        self.other_runs_view.setToolTip("Runs of episodes (live, replay, browse, probes): their success rates and "
                                        "steps, as `screenlab eval` prints them")
        self.other_runs_view.hide()
        # a few runs' lines; more scroll (the bars and the table keep the room). No minimum height of its own (the
        # text box's made the window too tall for 1280x720 beside the review page): the splitter shares the room
        self.other_runs_view.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Ignored)
        self.other_runs_view.setMaximumHeight(self.other_runs_view.fontMetrics().lineSpacing() * 10 + 12)
        split = QSplitter(Qt.Vertical)
        split.addWidget(self.plot_scroll)
        split.addWidget(self.table_view)
        split.addWidget(self.other_runs_view)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setStretchFactor(2, 1)
        split.setCollapsible(1, False)  # the table's rows never disappear behind the plots
        split.setCollapsible(0, False)  # nor the plots behind the table (a short dock showed the legend only)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(bar)
        layout.addWidget(split, 1)
        self._apply_colours()
        self._rules_changed()

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
        text_metric = self.text_metric.currentData()

        def load() -> tuple[dict[str, list[dict]], list[int], list[str]]:
            runs = list_runs(project, ids)
            screen = [r.id for r in runs if r.protocol == "screen"]
            others = [r.id for r in runs if r.protocol != "screen"]
            return ({name: with_target_class(project, rule_rows(project, screen, name, text_metric=text_metric))
                     for name in RULES},
                    others, summary_lines(evaluate(project, others)) if others else [])

        def loaded(found) -> None:
            rows, self._other_runs, self._other_summary = found
            self.set_rows(rows)

        run_in_background(self, load, lambda found: generation == self._generation and loaded(found),
                          lambda exc: generation == self._generation and self._failed(exc),
                          wait="Scoring the runs")

    def set_rows(self, rows: dict[str, list[dict]] | list[dict]) -> None:
        """Show these prediction rows now: {rule set: evaluation.rows dicts}, or one list of ScreenLab rows."""
        self._rows = dict(rows) if isinstance(rows, dict) else {"screenlab": list(rows)}
        self._redraw()
        self.refreshed.emit()

    def set_rules(self, key: str) -> None:
        """A rule set's name, or "both"."""
        self.rules.setCurrentIndex(self.rules.findData(key))

    def set_text_metric(self, key: str) -> None:
        """auto, f1 or result-id: the envdistraction rules score the ticked runs again (refreshed() after)."""
        self.text_metric.setCurrentIndex(self.text_metric.findData(key))

    def _rules_changed(self, *_) -> None:
        # the text metric is the authors' rules' only: offered when they are shown
        name = self.rules.currentData()
        shown = list(RULES) if name == BOTH else [name]
        authors = any(isinstance(RULES[n], EnvDistractionRules) for n in shown)
        self.text_metric.setEnabled(authors)
        self.text_metric_label.setEnabled(authors)
        self._redraw()

    def _text_metric_changed(self, *_) -> None:
        if self.project is not None and self.run_ids:
            self.refresh(self.project, self.run_ids)

    def _failed(self, exc: Exception) -> None:
        self.status.setText(f"Could not load the runs: {exc}")
        self.failed.emit(str(exc))

    def set_breakdown(self, key: str) -> None:
        """overall, scenario, pattern or class (of the gold box)."""
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

    def _current_rows(self) -> tuple[list[dict], str]:
        """The rows to tabulate and the breakdown to use; side by side, each column is a rule set
        (crossed with the breakdown's column)."""
        breakdown, rules = self.breakdown.currentData(), self.rules.currentData()
        if rules != BOTH:
            return self._rows.get(rules, []), breakdown
        field = "rules" if breakdown == "overall" else breakdown + SIDE_BY_SIDE
        rows = []
        for name, mine in self._rows.items():
            for row in mine:
                column = name if breakdown == "overall" else f"{row.get(breakdown, '') or '(none)'} · {name}"
                rows.append({**row, field: column})
        return rows, field

    def _redraw(self, *_) -> None:
        rows, breakdown = self._current_rows()
        self._shown = rows
        if breakdown == "rules" or breakdown.endswith(SIDE_BY_SIDE):
            # each value of the breakdown once per rule set, next to each other, in the registry's order
            plain = "overall" if breakdown == "rules" else breakdown[:-len(SIDE_BY_SIDE)]
            values = sorted({str(r.get(plain, "") or "(none)") for r in rows})
            order = list(self._rows) if plain == "overall" else [f"{v} · {n}" for v in values for n in self._rows]
            row_fields = ("agent",) if plain == "pattern" else ("agent", "pattern")
            self._table = tables.build_table(rows, row_fields, breakdown, "Rule sets side by side", with_all=False,
                                             column_order=order)
        else:
            self._table = tables.breakdown_table(rows, breakdown)
        foreground = INK["dark" if self.dark else "light"]
        nothing = NO_SCREEN_ANSWERS if self.run_ids else NO_RUNS  # what an empty canvas says
        self.bars = draw_table(self.plot_widget.ci, self._table, self.palette_name, foreground, nothing)
        self._fit_plot_size()
        self._fill_model()
        self._fit_table_height()
        first = next(iter(self._rows.values()), [])
        runs = sorted({r.get("run") for r in first})
        scored = sum(1 for r in first if r.get("verdict") in tables.SCORED - {"error"})
        errors = sum(1 for r in first if r.get("verdict") == "error")
        text = (f"Runs {', '.join(f'#{r}' for r in runs)} (ticked in the Runs tab) · {scored} answered"
                + (f" · {errors} failed" if errors else "")) if first else nothing
        if self._other_runs:
            text += (f" · multi-step runs {', '.join(f'#{r}' for r in self._other_runs)}: their success rates "
                     "below the table")
        self.other_runs_view.setPlainText("\n".join(self._other_summary))
        self.other_runs_view.setVisible(bool(self._other_runs and self._other_summary))
        self.status.setText(text)
        self.status.setToolTip(text)
        for button in self.export_buttons.values():
            button.setEnabled(bool(self._table.rows))

    def _fill_model(self) -> None:
        table = self._table
        keys = len(table.row_fields)
        tips = {}
        for r, row in enumerate(table.rows):
            for k, column in enumerate(table.columns):
                cell = table.cell(row, column)
                if cell is None:
                    continue
                tip = (f"n = {cell['n']}, wrong format {cell['wrong_format']}, failed requests {cell['errors']}"
                       + (f", not counted by these rules {cell['excluded']}" if cell["excluded"] else "")
                       + (f", gold and distracted at once {cell['both']}" if cell["both"] else "")
                       + f"; runs {', '.join(map(str, cell['runs']))}")
                first = keys + 1 + k * (len(tables.METRICS) + 1)
                for c in range(first, first + len(tables.METRICS) + 1):
                    tips[(r, c)] = tip
        self.model.set_table(tables.header(table), tables.body(table), keys, tips)

    def _fit_plot_size(self) -> None:
        """The canvas scrolls rather than squash the plots below min_plot_size, or below what their
        texts need (a large font): squashed, pyqtgraph drops tick labels and the plots overlap."""
        width, height = min_plot_size(self._table)
        needed = self.plot_widget.ci.effectiveSizeHint(Qt.MinimumSize)
        self.plot_widget.setMinimumSize(max(width, math.ceil(needed.width())), max(height, math.ceil(needed.height())))
        # and the scroll area keeps room for the legend and one line of plots: without a minimum of its own
        # the splitter gave it what the table left, and a short dock showed the legend and no bars (issue 33)
        one_line = min(self.plot_widget.minimumHeight(), SUBPLOT_MIN[1] + LEGEND_HEIGHT)
        scroll = self.plot_scroll  # (with room for the sideways scroll bar many plots need)
        scroll.setMinimumHeight(one_line + 2 * scroll.frameWidth() + scroll.horizontalScrollBar().sizeHint().height())

    def _fit_table_height(self) -> None:
        """Room for the header, TABLE_ROWS_SHOWN rows and the sideways scroll bar the wide tables need:
        the splitter gave the table a share of a short dock and its last row ended up under the edge."""
        view = self.table_view
        rows = min(max(self.model.rowCount(), 1), TABLE_ROWS_SHOWN)
        view.setMinimumHeight(view.horizontalHeader().sizeHint().height()
                              + rows * view.verticalHeader().defaultSectionSize()
                              + view.horizontalScrollBar().sizeHint().height() + 2 * view.frameWidth())

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
        flag = METRIC_FLAG[bar.metric]
        rules = self.rules.currentData()
        info = {"agent": key.get("agent"), "pattern": key.get("pattern"), "scenario": None,
                "rules": None if rules == BOTH else rules, "verdict": METRIC_VERDICT[bar.metric], "metric": bar.metric}
        if table.column_field in ("scenario", "pattern", "class") and column is not None:
            info[table.column_field] = column
        if rules == BOTH and column is not None:  # "popup · envdistraction", or "envdistraction" overall
            value, _, named = column.rpartition(" · ")
            info["rules"] = named
            plain = table.column_field[:-len(SIDE_BY_SIDE)]
            if value and plain in ("scenario", "pattern", "class"):
                info[plain] = value
        cell = table.cell(bar.row, bar.column) or {}
        info["run_ids"] = list(cell.get("runs", []))

        def has_flag(r: dict) -> bool:  # the rule set's own flags: a sample may be gold and distracted at once
            if r.get("verdict") == "error" or r.get("excluded"):
                return False
            gold, distracted, available = row_flags(r)
            return {"gold": gold, "distracted": distracted, "other": available and not gold and not distracted,
                    "invalid": not available}[flag]

        def matches(r: dict) -> bool:
            return (has_flag(r) and all(str(r.get(f, "") or "") == v for f, v in key.items())
                    and (column is None or str(r.get(table.column_field, "") or "") == column))

        mine = [r for r in self._shown if matches(r)]
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
