"""Results of browse runs: tick runs, see the delta heatmap (a row per setting, a column per run; Δ TCR or
Δ TMR under either denominator, ADR 0042), the ranked table of a run (top and bottom five and the original, the paper's Table 2), every
variant's rates with 95 % intervals and failures, the click map of a variant and its trials, each one
replayed step by step. Figures come from api.vaf_results (computed off the UI thread); Export CSV writes
the per-variant table of the ticked runs.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_app import api
from desktop_app.ui.tasks import run_in_background
from desktop_app.ui.vaf.calls import error_text
from desktop_app.ui.vaf.click_map import ClickMap
from desktop_app.ui.vaf.heatmap import HeatmapWidget
from desktop_app.ui.vaf.replay import TrialReplay, trial_line
from desktop_app.vaf import tables, views
from desktop_app.vaf.metrics import TMR_PAPER, TMR_READABLE, heatmap, item_counts, ranked

BROWSE = "browse"
RANK_HEADER = ["Rank", "Variant", "TCR", TMR_READABLE, TMR_PAPER, "Pages"]
VARIANT_HEADER = ["Page", "Variant", "Trials", "TCR [95 % CI]", "Δ TCR", f"{TMR_READABLE} [95 % CI]", "Δ TMR (readable)",
                  f"{TMR_PAPER} [95 % CI]", "Δ TMR (paper)", "Format errors", "Step cap", "Judge replies unreadable",
                  "Mean steps"]
# the heatmap's choices: (button text, metrics key, title)
HEATMAP_KEYS = (("Δ TCR (clicks)", "delta_tcr", "Δ TCR: target click rate"),
                ("Δ TMR (readable replies)", "delta_tmr", f"Δ {TMR_READABLE}: target mention rate"),
                ("Δ TMR (all trials, paper)", "delta_tmr_paper", f"Δ {TMR_PAPER}: target mention rate"))


def rate_text(rate: dict | None) -> str:
    if not rate or rate.get("rate") is None or rate.get("ci95") is None:
        return "-"
    low, high = rate["ci95"]
    return f"{100 * rate['rate']:.1f} % [{100 * low:.1f}, {100 * high:.1f}]"


def delta_text(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:+.1f}"


def share_text(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _shares(row) -> list[str]:
    """A ranked row's cells after rank and variant: TCR, both TMRs, pages."""
    return [share_text(row.tcr), share_text(row.tmr), share_text(row.tmr_paper), str(row.studies)]


def tmr_note(metrics: dict) -> str:
    """The run's TMR under both denominators and how many judge replies could not be read ("" without a judge)."""
    if not metrics.get("judged"):
        return ""
    parts = [f"{name} {rate_text(metrics.get(key))}" for name, key in ((TMR_READABLE, "tmr"), (TMR_PAPER, "tmr_paper"))]
    return (" · ".join(parts) + f" · {metrics.get('judge_failed', 0)} judge replies unreadable (left out of the "
            "first, counted as not mentioned in the second)")


def _fill(table: QTableWidget, rows: list[list[str]], bold: set[int] = frozenset(), right_from: int = 2) -> None:
    table.setRowCount(len(rows))
    for r, cells in enumerate(rows):
        for c, text in enumerate(cells):
            item = QTableWidgetItem(text)
            if c >= right_from:
                item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
            if r in bold:
                font = item.font()
                font.setBold(True)
                item.setFont(font)
            table.setItem(r, c, item)


def _table(header: list[str]) -> QTableWidget:
    table = QTableWidget(0, len(header))
    table.setHorizontalHeaderLabels(header)
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QTableWidget.NoEditTriggers)
    table.setSelectionBehavior(QTableWidget.SelectRows)
    table.setSelectionMode(QTableWidget.SingleSelection)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
    table.verticalHeader().setDefaultSectionSize(22)
    return table


class ResultsTab(QWidget):
    message = Signal(str)
    loaded = Signal()  # the figures of the ticked runs are in

    def __init__(self, project, parent=None):
        super().__init__(parent)
        self.project = project
        self.runs: dict[int, object] = {}  # browse runs by id
        self.results: dict[int, dict] = {}
        self.variants: dict[int, object] = {}  # Variant by episode id
        self.trials: list[dict] = []
        self._shown: tuple | None = None  # (run, variant) whose trials are listed
        self._generation = 0

        self.run_list = QListWidget()
        self.run_list.itemChanged.connect(lambda _item: self.load())
        refresh = QPushButton("Refresh")
        refresh.setToolTip("Read the runs and their trials again (a run still going adds trials)")
        refresh.clicked.connect(self.refresh)
        self.export_button = QPushButton("Export CSV…")
        self.export_button.setToolTip("Every variant of the ticked runs: rates, 95 % intervals, deltas, failures")
        self.export_button.clicked.connect(self.export_csv)
        self.metric = QButtonGroup(self)
        self.tcr_button, self.tmr_button, self.tmr_paper_button = (QRadioButton(text) for text, _, _ in HEATMAP_KEYS)
        self.tmr_button.setToolTip("Mentions / trials whose judge reply could be read (unreadable replies left out)")
        self.tmr_paper_button.setToolTip("Mentions / every judged trial, an unreadable reply counted as not "
                                         "mentioned (the paper's denominator)")
        self.tcr_button.setChecked(True)
        for i, button in enumerate((self.tcr_button, self.tmr_button, self.tmr_paper_button)):
            self.metric.addButton(button, i)
        self.metric.idToggled.connect(lambda _id, on: on and self._draw_heatmap())
        self.heatmap = HeatmapWidget()
        self.heatmap.cellChosen.connect(self._cell_chosen)
        scroll = QScrollArea()
        scroll.setWidget(self.heatmap)
        scroll.setWidgetResizable(False)
        scroll.setAlignment(Qt.AlignLeft | Qt.AlignTop)
        self.status = QLabel("")
        self.status.setTextFormat(Qt.PlainText)  # error messages
        self.status.setWordWrap(True)

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        head = QHBoxLayout()
        head.addWidget(QLabel("Browse runs"), 1)
        head.addWidget(refresh)
        head.addWidget(self.export_button)
        left_layout.addLayout(head)
        left_layout.addWidget(self.run_list)
        toggle = QHBoxLayout()
        toggle.addWidget(self.tcr_button)
        toggle.addWidget(self.tmr_button)
        toggle.addWidget(self.tmr_paper_button)
        toggle.addStretch(1)
        left_layout.addLayout(toggle)
        left_layout.addWidget(scroll, 3)
        left_layout.addWidget(self.status)
        self.run_list.setMaximumHeight(110)

        self.run_combo = QComboBox()
        self.run_combo.currentIndexChanged.connect(lambda _i: self._run_chosen())
        self.variant_combo = QComboBox()
        self.variant_combo.setMinimumContentsLength(24)
        self.variant_combo.currentIndexChanged.connect(lambda _i: self._variant_chosen())
        chooser = QHBoxLayout()
        chooser.addWidget(QLabel("Run:"))
        chooser.addWidget(self.run_combo, 1)
        chooser.addWidget(QLabel("Variant:"))
        chooser.addWidget(self.variant_combo, 1)

        self.ranked = _table(RANK_HEADER)
        self.ranked.horizontalHeader().setSectionResizeMode(1, QHeaderView.Stretch)
        self.per_variant = _table(VARIANT_HEADER)
        self.per_variant.currentCellChanged.connect(lambda row, *_: self._variant_row(row))
        self.ranked.currentCellChanged.connect(lambda row, *_: self._ranked_row(row))
        tables = QWidget()
        tables_layout = QVBoxLayout(tables)
        tables_layout.setContentsMargins(0, 0, 0, 0)
        tables_layout.addWidget(QLabel("Ranked by TCR, averaged over the run's pages (top and bottom five)"))
        tables_layout.addWidget(self.ranked, 2)
        self.tmr_note = QLabel("")
        self.tmr_note.setWordWrap(True)
        tables_layout.addWidget(self.tmr_note)
        tables_layout.addWidget(QLabel("Every variant"))
        tables_layout.addWidget(self.per_variant, 3)
        self.click_map = ClickMap()
        self.trial_list = QListWidget()
        self.trial_list.setWordWrap(True)  # a trial's line wraps in the narrow list
        self.trial_list.setResizeMode(QListWidget.Adjust)
        self.trial_list.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.trial_list.currentRowChanged.connect(self._trial_chosen)
        trials = QSplitter(Qt.Horizontal)
        self.replay = TrialReplay(keys_host=trials)  # Left / Right step from the list of trials too
        trials.addWidget(self.trial_list)
        trials.addWidget(self.replay)
        trials.setStretchFactor(1, 1)
        trials.setSizes([190, 900])
        self.details = QTabWidget()
        self.details.setDocumentMode(True)
        self.details.addTab(tables, "Tables")
        self.details.addTab(self.click_map, "Click map")
        self.details.addTab(trials, "Trials")
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addLayout(chooser)
        right_layout.addWidget(self.details, 1)

        split = QSplitter(Qt.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(1, 1)
        split.setSizes([380, 1000])
        layout = QVBoxLayout(self)
        layout.addWidget(split)
        self.heatmap.set_data([], [], [])  # filled when the tab is shown (the window calls refresh)

    # runs ----------------------------------------------------------------------------------------
    def refresh(self) -> None:
        """The project's browse runs (new ones ticked, the others as they were) and their figures."""
        ticked = set(self.checked_runs())
        known = set(self.runs)
        self.runs = {r.id: r for r in api.runs(self.project) if r.protocol == BROWSE}
        self.variants = {v.episode_id: v for v in api.vaf_variants(self.project)}
        self.run_list.blockSignals(True)
        self.run_list.clear()
        for run in self.runs.values():
            item = QListWidgetItem(f"#{run.id} {run.name or run.agent} · {run.status}")
            item.setToolTip(html.escape(f"{run.agent} ({run.model}) · {run.samples} trials planned · {run.status}"
                                        + (f"\n{run.failure}" if run.failure else "")))
            item.setData(Qt.UserRole, run.id)
            item.setFlags(item.flags() | Qt.ItemIsUserCheckable)
            item.setCheckState(Qt.Checked if run.id in ticked or run.id not in known else Qt.Unchecked)
            self.run_list.addItem(item)
        self.run_list.blockSignals(False)
        if not self.runs:
            self.status.setText("No browse runs yet: accept variants, then start a run with the protocol "
                                "“Browsing: page variants (VAF)” (Runs tab > New run…).")
        self.load()

    def checked_runs(self) -> list[int]:
        return [self.run_list.item(i).data(Qt.UserRole) for i in range(self.run_list.count())
                if self.run_list.item(i).checkState() == Qt.Checked]

    def set_checked(self, run_ids) -> None:
        wanted = set(run_ids)
        self.run_list.blockSignals(True)
        for i in range(self.run_list.count()):
            item = self.run_list.item(i)
            item.setCheckState(Qt.Checked if item.data(Qt.UserRole) in wanted else Qt.Unchecked)
        self.run_list.blockSignals(False)
        self.load()

    def load(self) -> None:
        """The ticked runs' figures, off the UI thread."""
        self._generation += 1
        generation, ids, project = self._generation, self.checked_runs(), self.project
        if not ids:
            self._loaded(generation, {})
            return
        self.status.setText("Computing…")
        run_in_background(self, lambda: api.vaf_results(project, ids), lambda found: self._loaded(generation, found),
                          lambda exc: generation == self._generation
                          and self.status.setText(f"Could not compute the results: {error_text(exc)}"),
                          wait="Computing the page variants' results")

    def _loaded(self, generation: int, results: dict) -> None:
        if generation != self._generation:
            return  # the ticks changed meanwhile
        self.results = results
        trials = sum(m.get("trials", 0) for m in results.values())
        if self.runs:
            self.status.setText(f"{len(results)} runs ticked, {trials} trials. Click a cell (or use the arrow "
                                "keys) for its variant's tables, clicks and trials.")
        self._draw_heatmap()
        current = self.run_combo.currentData()
        self.run_combo.blockSignals(True)
        self.run_combo.clear()
        for run_id in results:
            run = self.runs[run_id]
            self.run_combo.addItem(f"#{run_id} {run.name or run.agent}", run_id)
        self.run_combo.setCurrentIndex(max(0, self.run_combo.findData(current)))
        self.run_combo.blockSignals(False)
        self._run_chosen()
        self.loaded.emit()

    def column_label(self, run_id: int) -> str:
        run = self.runs.get(run_id)
        return f"{run.agent} #{run_id}" if run is not None else f"#{run_id}"

    def _draw_heatmap(self) -> None:
        _, key, title = HEATMAP_KEYS[max(0, self.metric.checkedId())]
        names, columns, cells = heatmap({self.column_label(r): m for r, m in self.results.items()}, key)
        self.heatmap.set_data(names, columns, cells, title)

    def _cell_chosen(self, setting: str, column: int) -> None:
        run_ids = list(self.results)
        if column < len(run_ids):
            self.run_combo.setCurrentIndex(self.run_combo.findData(run_ids[column]))
        self.choose_variant(setting)

    # one run -------------------------------------------------------------------------------------
    def current_run(self) -> int | None:
        return self.run_combo.currentData()

    def current_metrics(self) -> dict:
        return self.results.get(self.current_run()) or {}

    def _run_chosen(self) -> None:
        metrics = self.current_metrics()
        top, base, bottom = ranked(metrics, 5) if metrics else ([], None, [])
        rows, bold = [], set()
        for row in top:
            rows.append([str(row.rank), row.setting, *_shares(row)])
        if base is not None:
            bold.add(len(rows))
            rows.append(["original", base.setting, *_shares(base)])
        for row in bottom:
            rows.append([str(row.rank), row.setting, *_shares(row)])
        _fill(self.ranked, rows, bold)
        variants = metrics.get("variants", [])
        _fill(self.per_variant, [[v["study"], v["setting"], str(v["trials"]), rate_text(v["tcr"]),
                                  delta_text(v["delta_tcr"]), rate_text(v.get("tmr")), delta_text(v["delta_tmr"]),
                                  rate_text(v.get("tmr_paper")), delta_text(v.get("delta_tmr_paper")),
                                  str(v["format_errors"]), str(v["step_cap"]), str(v["judge_failed"]),
                                  "-" if v["mean_steps"] is None else f"{v['mean_steps']:.1f}"] for v in variants])
        self.tmr_note.setText(tmr_note(metrics))
        current = self.variant_combo.currentData()
        self.variant_combo.blockSignals(True)
        self.variant_combo.clear()
        for v in variants:
            self.variant_combo.addItem(f"{v['study']} / {v['setting']}", v["episode_id"])
        self.variant_combo.setCurrentIndex(max(0, self.variant_combo.findData(current)))
        self.variant_combo.blockSignals(False)
        self._variant_chosen()

    def choose_variant(self, setting: str, study: str | None = None) -> None:
        for i, v in enumerate(self.current_metrics().get("variants", [])):
            if v["setting"] == setting and (study is None or v["study"] == study):
                self.variant_combo.setCurrentIndex(i)
                return

    def _variant_row(self, row: int) -> None:
        if 0 <= row < self.variant_combo.count():
            self.variant_combo.setCurrentIndex(row)

    def _ranked_row(self, row: int) -> None:
        item = self.ranked.item(row, 1) if row >= 0 else None
        if item is not None:
            self.choose_variant(item.text())

    # one variant ---------------------------------------------------------------------------------
    def current_variant(self):
        return self.variants.get(self.variant_combo.currentData())

    def _variant_chosen(self) -> None:
        run_id, variant = self.current_run(), self.current_variant()
        if run_id is None or variant is None:
            self._shown = None
            self.click_map.clear()
            self.trials = []
            self.trial_list.clear()
            self.replay.set_trial(None)
            return
        same = self._shown == (run_id, variant.episode_id)  # read again (Refresh): stay on the trial shown
        row = self.trial_list.currentRow() if same else 0
        self._shown = (run_id, variant.episode_id)
        try:
            points = api.vaf_clicks(self.project, [run_id], variant.episode_id)
            self.trials = api.vaf_trials(self.project, run_id, variant.episode_id)
        except (KeyError, ValueError) as exc:
            self.message.emit(error_text(exc))
            return
        on_target = sum(p["target"] for p in points)
        self.click_map.show_clicks(
            f"{variant.study} / {variant.setting}, run #{run_id}: {len(points)} clicks, {on_target} on the target",
            views.page_png(self.project, variant.episode_id), variant.target, points,
            item_counts(points, list(variant.items)))
        self.trial_list.blockSignals(True)  # the trial is shown below, once
        self.trial_list.clear()
        for trial in self.trials:
            self.trial_list.addItem(trial_line(trial))
        if self.trials:
            self.trial_list.setCurrentRow(min(max(row, 0), len(self.trials) - 1))
        self.trial_list.blockSignals(False)
        if self.trials:
            self._trial_chosen(self.trial_list.currentRow(), keep_step=same)
        else:
            self.replay.set_trial(None)

    def _trial_chosen(self, row: int, keep_step: bool = False) -> None:
        if 0 <= row < len(self.trials):
            project = self.project
            self.replay.set_trial(self.trials[row], self.current_variant(),
                                  lambda step_id: views.step_png(project, step_id), keep_step)

    # export --------------------------------------------------------------------------------------
    def export_csv(self) -> None:
        if not self.results:
            self.message.emit("Tick a browse run first")
            return
        path, _ = QFileDialog.getSaveFileName(self, "Export the per-variant results", "vaf-results.csv",
                                              "CSV files (*.csv)")
        if path:
            self.export_to(path)

    def export_to(self, path: str) -> bool:
        try:
            tables.write_csv(path, self.results, {r: self.runs[r].agent for r in self.results})
        except OSError as exc:
            self.message.emit(f"Could not write {path}: {error_text(exc)}")
            return False
        self.message.emit(f"Wrote {path}")
        return True
