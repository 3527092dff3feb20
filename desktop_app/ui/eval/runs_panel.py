"""The runs of the project: status, progress, throughput, errors; cancel, resume, start new ones;
and which runs are shown on the canvas (a checkbox with the run's colour).

Wiring (main window):
    panel = RunsPanel(project)                        # or panel.set_project(project) later
    panel.set_selection_provider(lambda: (browser.current_filter(), selected_episode_ids))
    panel.runsVisibilityChanged.connect(refresh_overlay)   # list[int] of visible runs
    panel.predictionsChanged.connect(lambda run_id: run_id in panel.visible_runs() and refresh_overlay())
    panel.runFinished.connect(lambda run_id: dashboard.refresh(project, all_run_ids))
    close: panel.shutdown()                           # cancels running runs, waits for their writes
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QItemSelectionModel, Qt, Signal
from PySide6.QtGui import QColor, QFontDatabase
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_app import api
from desktop_app.api.projects import Project
from desktop_app.api.samples import EpisodeFilter, runs_with_tallies
from desktop_app.runs.endpoint_problem import problem_line, run_endpoints
from desktop_app.runs.error_counts import error_kinds
from desktop_app.runs.state import RESUMABLE, RunState, error_summary
from desktop_app.ui.eval.colours import run_colour, swatch
from desktop_app.ui.eval.run_controller import RunController
from desktop_app.ui.plain import plain_tip
from desktop_app.ui.tasks import run_in_background

if TYPE_CHECKING:
    from desktop_app.runs.engine import RunRequest

__all__ = ["RunController", "RunsPanel", "RunRow", "load_run_rows"]

DEFAULT_VISIBLE = 4  # on opening a project, the latest runs shown on the canvas
COLUMNS = ("Run", "Protocol", "Status", "Progress", "Answers/s", "Errors", "Verdicts")
NAME, PROTOCOL, STATUS, PROGRESS, RATE, ERRORS, VERDICTS = range(len(COLUMNS))
# Columns keep their indices (code and tests address them by index); the header shows them in the
# order a user reads a run: which, how far, how well; then the details, hidden while the panel is narrow.
READING_ORDER = (NAME, STATUS, PROGRESS, VERDICTS, ERRORS, RATE, PROTOCOL)
FIRST_READ = (STATUS, PROGRESS, VERDICTS)  # always beside the name when there is room for NAME_MIN
NAME_MIN = 120  # pixels: below this the list scrolls sideways rather than elide names further
NAME_BEFORE_DETAILS = 220  # pixels: the details (errors, answers/s, protocol) show only when the name keeps this
PROGRESS_WIDTH = 80  # the bar: "105 / 105"
ERRORS_MAX = 160  # a long error summary is elided; its cell's tooltip has it whole
GAP = 8  # pixels between one column's text and the next
# (stored verdict, letter in the list, words in the tooltip): letters keep the column narrow
VERDICT_LETTERS = (("gold", "g", "gold (the target)"), ("distracted", "d", "distracted"),
                   ("other", "o", "other element"), ("invalid", "i", "invalid (nothing or unreadable)"))
EPISODE_LETTERS = (("gold", "✓", "correct steps"), ("invalid", "✗", "wrong steps"))  # a right step is stored gold
VERDICT_OF = {"correct": "gold", "wrong": "invalid"}  # the episode protocol's progress keys, as stored
VERDICTS_TIP = ("g gold, d distracted, o other, i invalid; episode runs: ✓ correct, ✗ wrong steps.\n"
                "Hover a run's cell for its numbers in words.")
# What a run's stored status means to a user; the stored value stays in the cell's Qt.UserRole
STATUS_WORDS = {RunState.PENDING: "not started", RunState.RUNNING: "running", RunState.DONE: "done",
                RunState.DONE_WITH_ERRORS: "done, some errors", RunState.FAILED: "failed",
                RunState.CANCELLED: "cancelled"}
STATUS_ROLE = Qt.UserRole  # the machine status ("done_with_errors") of the Status cell
PROBLEM_COLOUR = QColor("#c0392b")  # the line under a run whose requests failed or that stopped


@dataclass
class RunRow:
    """A run as the list shows it, from the database."""

    id: int
    name: str
    agent: str
    pattern: str
    model: str
    status: str
    total: int  # samples in its selection
    verdicts: dict[str, int] = field(default_factory=dict)  # including "error"
    failure: str = ""  # why the run stopped (status failed)
    protocol: str = "screen"
    errors: str = ""  # failed requests by kind: "APIConnectionError x 12"
    excluded: int = 0  # samples of its selection left out (no goal, no labelled action)
    kinds: dict[str, int] = field(default_factory=dict)  # failed requests by kind: {"HTTP 500": 4}
    endpoint: str = ""  # the base URL its profile asked ('' for an offline baseline)

    @property
    def answered(self) -> int:
        return sum(n for v, n in self.verdicts.items() if v != "error")

    @property
    def label(self) -> str:
        return self.name or (f"{self.agent} / {self.pattern}" if self.agent else f"run {self.id}")


def load_run_rows(project: Project) -> list[RunRow]:
    """Every run with its prediction tally: a few grouped queries, no predictions loaded."""
    rows = [RunRow(run.id, run.name, run.agent, run.pattern, run.model, run.status, run.samples,
                   tally, run.failure, run.protocol, excluded=run.excluded) for run, tally in runs_with_tallies(project)]
    kinds = error_kinds(project, [r.id for r in rows])
    endpoints = run_endpoints(project, [r.id for r in rows])
    for row in rows:
        row.errors = error_summary(kinds[row.id])
        row.kinds = dict(kinds[row.id])
        row.endpoint = endpoints.get(row.id, "")
    return rows


def protocol_description(name: str) -> str:
    """A protocol's one-line description (the Protocol column's tip), else its name. The protocols are imported
    here, when a tip is first shown (RunItem), not with the panel (ADR 0057)."""
    from desktop_app.runs.protocols import PROTOCOLS

    return PROTOCOLS[name].description if name in PROTOCOLS else name


class RunItem(QTreeWidgetItem):
    """A run's row. The Protocol column's tip is looked up when Qt asks for it (a hover): the protocols' registry
    imports some 270 modules, 0.8 s of a launch on the first-start demo project, whose runs are listed before its
    first screen is painted (found by tests/test_startup.py on that project)."""

    def data(self, column: int, role: int):
        if column == PROTOCOL and role == Qt.ToolTipRole:
            return protocol_description(self.text(PROTOCOL))
        return super().data(column, role)


def verdicts_compact(verdicts: dict[str, int], letters) -> str:
    """The counts, each after its verdict's letter: g12 d3 o0 i5 (VERDICTS_TIP says which is which)."""
    return " ".join(f"{letter}{verdicts.get(v, 0)}" for v, letter, _ in letters)


def verdicts_in_words(verdicts: dict[str, int], letters, failed: int) -> str:
    lines = [f"{words}: {verdicts.get(v, 0)}" for v, _, words in letters]
    return "\n".join(lines + ([f"failed requests (no verdict): {failed}"] if failed else []))


def status_tip(status: str, failure: str, errors: str) -> str:
    return "\n".join([status] + ([f"failed: {failure}"] if failure else [])
                     + ([f"errors: {errors}; Resume asks them again"] if errors else []))


class RunsPanel(QWidget):
    """Signals:
    runFinished(int run_id)             a run started here ended (done, cancelled or failed)
    predictionsChanged(int run_id)      new predictions of a run are stored (throttled, <= 10/s per run)
    runsVisibilityChanged(list[int])    the runs ticked for the canvas overlay changed
    runSelected(int run_id)             the current row changed (0: none)
    runChosen(dict choices)             the New run dialog started runs with these choices (RunDialog.choices)
    """

    runFinished = Signal(int)
    predictionsChanged = Signal(int)
    runsVisibilityChanged = Signal(list)
    runSelected = Signal(int)
    runChosen = Signal(dict)

    def __init__(self, project: Project | None = None, parent=None):
        super().__init__(parent)
        self.project: Project | None = None
        self.controller: RunController | None = None
        self._rows: dict[int, RunRow] = {}
        self._items: dict[int, QTreeWidgetItem] = {}
        self._bars: dict[int, QProgressBar] = {}
        self._visible: set[int] = set()
        self._baseline: dict[int, dict[str, int]] = {}  # verdicts stored before the current execution
        self._loading = False
        self._provider: Callable[[], tuple[EpisodeFilter | None, list[int] | None]] | None = None
        self.last_choices: dict = {}  # the New run dialog's last choices, offered again (the window keeps them)
        self.browser_path = lambda: ""  # Settings' browser, read when a run is chosen (the window sets this)

        self.tree = QTreeWidget()
        self.tree.setColumnCount(len(COLUMNS))
        self.tree.setHeaderLabels(COLUMNS)
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.setSelectionMode(QAbstractItemView.ExtendedSelection)
        self.tree.setTextElideMode(Qt.ElideMiddle)  # a name's start and end tell runs apart
        # the panel sizes the columns (_fit_columns): the name gets the room the others leave
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setMinimumSectionSize(30)
        header.setSectionResizeMode(QHeaderView.Fixed)
        for place, column in enumerate(READING_ORDER):
            header.moveSection(header.visualIndex(column), place)
        self.tree.headerItem().setToolTip(VERDICTS, VERDICTS_TIP)
        self.tree.setHorizontalScrollBarPolicy(Qt.ScrollBarAsNeeded)
        self.tree.viewport().installEventFilter(self)
        self.tree.itemChanged.connect(self._item_changed)
        self.tree.itemSelectionChanged.connect(self._selection_changed)

        self.new_button = QPushButton("New run…")
        self.cancel_button = QPushButton("Cancel")
        self.resume_button = QPushButton("Resume")
        self.refresh_button = QPushButton("Refresh")
        self.new_button.setToolTip("Run agents on samples (the browser's filter or a split)")
        self.cancel_button.setToolTip("Stop the selected runs; answers received so far are kept")
        self.resume_button.setToolTip("Continue the selected runs: only samples without an answer are asked")
        self.new_button.clicked.connect(self._new_clicked)
        self.cancel_button.clicked.connect(lambda: [self.cancel(i) for i in self.selected_runs()])
        self.resume_button.clicked.connect(lambda: [self.resume(i) for i in self.selected_runs()])
        self.refresh_button.clicked.connect(self.reload)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.message.setObjectName("runsMessage")
        self.message.hide()

        buttons = QHBoxLayout()
        for b in (self.new_button, self.cancel_button, self.resume_button, self.refresh_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(buttons)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.message)
        # the current run's metrics in words, whatever its protocol (`screenlab eval` prints the same)
        self.details = QPlainTextEdit()
        self.details.setReadOnly(True)
        self.details.setFont(QFontDatabase.systemFont(QFontDatabase.FixedFont))
        self.details.setLineWrapMode(QPlainTextEdit.NoWrap)
        self.details.setMaximumHeight(self.details.fontMetrics().lineSpacing() * 10 + 12)
        self.details.setPlaceholderText("Select a run to see its results")
        layout.addWidget(self.details)
        self._details_for = 0
        self.runSelected.connect(self.show_details)
        if project is not None:
            self.set_project(project)
        self._selection_changed()

    # project ----------------------------------------------------------------------
    def set_project(self, project: Project | None) -> None:
        """Show another project's runs. Runs of the previous one are cancelled (they resume later)."""
        if self.controller is not None:
            self.controller.shutdown()
            self.controller.deleteLater()
            self.controller = None
        self.project = project
        self._visible.clear()
        if project is not None:
            self.controller = RunController(project, self)
            self.controller.progressed.connect(self._progressed)
            self.controller.predictionsChanged.connect(self.predictionsChanged)
            self.controller.runFinished.connect(self._finished)
            self.controller.runFailed.connect(lambda run_id, msg: self._show_message(f"Run {run_id} failed: {msg}"))
        self.reload(first=True)

    def running_ids(self) -> list[int]:
        """The runs this window started that are still running."""
        return self.controller.running_ids() if self.controller is not None else []

    def shutdown(self, timeout: float = 10.0) -> None:
        if self.controller is not None:
            self.controller.shutdown(timeout)

    def set_selection_provider(self, provider: Callable[[], tuple[EpisodeFilter | None, list[int] | None]]) -> None:
        """provider() -> (the browser's current filter, the explicitly selected episode ids or None);
        "New run..." then opens the RunDialog with them."""
        self._provider = provider

    # the list -----------------------------------------------------------------------
    def reload(self, first: bool = False) -> None:
        before = self.visible_runs()
        rows = load_run_rows(self.project) if self.project is not None else []
        self._rows = {r.id: r for r in rows}
        if first:
            self._visible = {r.id for r in rows[-DEFAULT_VISIBLE:]}
        self._visible &= set(self._rows)
        selected = set(self.selected_runs())
        current = self.tree.currentItem()
        current_id = current.data(0, Qt.UserRole) if current is not None else 0
        self._loading = True
        self.tree.clear()
        self._items.clear()
        self._bars.clear()
        for row in rows:
            item = RunItem(self.tree)
            item.setData(0, Qt.UserRole, row.id)
            item.setFlags(item.flags() | Qt.ItemIsUserCheckable)
            item.setCheckState(0, Qt.Checked if row.id in self._visible else Qt.Unchecked)
            item.setIcon(0, swatch(run_colour(row.id)))
            item.setText(0, f"#{row.id}  {row.label}")
            item.setToolTip(0, plain_tip(f"#{row.id}  {row.label}\nagent {row.agent} · pattern {row.pattern} · model "
                                         f"{row.model or '(offline baseline)'} · protocol {row.protocol}"
                                         + (f"\n{row.excluded} samples left out (no goal or no labelled action)"
                                            if row.excluded else "")
                                         + "\nTick to show its answers on the canvas"))
            item.setText(PROTOCOL, row.protocol)  # its tip: RunItem.data
            bar = QProgressBar()
            bar.setTextVisible(True)
            bar.setFormat("%v / %m")
            bar.setMaximumHeight(16)
            self.tree.setItemWidget(item, 3, bar)
            self._items[row.id] = item
            self._bars[row.id] = bar
            if row.id == current_id:  # the list is rebuilt: the user's place in it is kept
                self.tree.setCurrentItem(item, 0, QItemSelectionModel.NoUpdate)
            item.setSelected(row.id in selected)
            self._update_row(row.id)
        self._loading = False
        self._fit_columns()
        self._selection_changed()
        if self.visible_runs() != before:
            self.runsVisibilityChanged.emit(self.visible_runs())

    def _update_row(self, run_id: int) -> None:
        row, item, bar = self._rows.get(run_id), self._items.get(run_id), self._bars.get(run_id)
        if row is None or item is None:
            return
        live = self.controller.status(run_id) if self.controller else None
        running = self.controller is not None and self.controller.is_running(run_id)
        failure = (self.controller.error(run_id) if self.controller else "") or row.failure
        state = RunState.RUNNING if running else row.status
        if running and self.controller.is_cancelling(run_id):
            status = "cancelling…"
        else:
            status = STATUS_WORDS.get(state, str(state))
        if live is not None and running:
            # what was stored before this execution plus what it answered (not the reloaded tally: the
            # live counts already hold the answers stored since it started)
            verdicts = dict(self._baseline.get(run_id, {}))
            for verdict, n in live.verdicts.items():
                verdicts[VERDICT_OF.get(verdict, verdict)] = verdicts.get(VERDICT_OF.get(verdict, verdict), 0) + n
            total, answered, errors = live.total or row.total, live.skipped + live.done - live.errors, live.errors
            rate = self.controller.throughput(run_id)
            summary = error_summary(live.error_kinds)
            kinds = live.error_kinds
        else:
            verdicts = {k: v for k, v in row.verdicts.items() if k != "error"}
            total, answered, errors = row.total, row.answered, row.verdicts.get("error", 0)
            rate = self.controller.throughput(run_id) if live is not None else 0.0
            summary = row.errors
            kinds = row.kinds
        item.setText(STATUS, status)
        item.setData(STATUS, STATUS_ROLE, str(state))
        item.setToolTip(STATUS, plain_tip(status_tip(status, failure, summary or (f"{errors} requests" if errors else ""))))
        if bar is not None:  # answered samples: a run whose every request failed shows 0 / n, not a full bar
            bar.setMaximum(max(total, 1))
            bar.setValue(min(answered, max(total, 1)))
        item.setText(RATE, f"{rate:.1f}" if rate else "")
        # the run-level summary, not only per card: "APIConnectionError x 12"
        item.setText(ERRORS, summary or (f"{errors}" if errors else ""))
        item.setToolTip(ERRORS, (summary + "; Resume asks them again") if summary
                        else "requests that failed after retries")
        letters = EPISODE_LETTERS if row.protocol == "episode" else VERDICT_LETTERS
        item.setText(VERDICTS, verdicts_compact(verdicts, letters))
        item.setToolTip(VERDICTS, verdicts_in_words(verdicts, letters, errors))
        self._show_problem(item, run_id, problem_line(kinds, row.endpoint, row.model, "" if running else failure))
        if not self._loading:
            self._fit_columns()

    def _show_problem(self, item: QTreeWidgetItem, run_id: int, text: str) -> None:
        """A line under the run's row, across the list, naming the endpoint and what to check; none when
        nothing failed. It belongs to the run: choosing it chooses the run, it has no box to tick."""
        line = item.child(0) if item.childCount() else None
        if not text:
            if line is not None:
                item.removeChild(line)
            return
        if line is None:
            line = QTreeWidgetItem(item)
            line.setFlags(Qt.ItemIsEnabled)
            line.setData(0, Qt.UserRole, run_id)
            line.setForeground(0, PROBLEM_COLOUR)
            line.setFirstColumnSpanned(True)
            item.setExpanded(True)
        if line.text(0) != text:
            line.setText(0, text)
            line.setToolTip(0, plain_tip(text))  # a server's error text: data, never markup

    # column widths ------------------------------------------------------------------------
    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        if watched is self.tree.viewport() and event.type() == QEvent.Resize:
            self._fit_columns()
        return super().eventFilter(watched, event)

    def _content_width(self, column: int) -> int:
        if column == PROGRESS:
            return PROGRESS_WIDTH
        width = max(self.tree.sizeHintForColumn(column), self.tree.header().sectionSizeHint(column)) + GAP
        return min(width, ERRORS_MAX) if column == ERRORS else width

    def _fit_columns(self) -> None:
        """Every column as wide as its texts, the name the rest of the width. When that is less than the name
        needs, the name shares the width with FIRST_READ and those details that leave it NAME_BEFORE_DETAILS
        (the others are hidden until the panel is wider: a dock's width showed the list cut at its edge, issue
        33), elided in the middle; never narrower than NAME_MIN (narrower still, the list scrolls sideways)."""
        header = self.tree.header()
        widths = {column: self._content_width(column) for column in range(1, len(COLUMNS))}
        for column, width in widths.items():
            header.resizeSection(column, width)
        room = self.tree.viewport().width()
        wanted = self._content_width(NAME)
        shown = list(FIRST_READ)
        details = [c for c in READING_ORDER if c != NAME and c not in FIRST_READ]
        if room - sum(widths.values()) >= wanted:
            shown += details
        else:
            for column in details:  # in reading order, while the name keeps its room
                if room - sum(widths[c] for c in shown) - widths[column] >= min(wanted, NAME_BEFORE_DETAILS):
                    shown.append(column)
                else:
                    break
        for column in details:
            header.setSectionHidden(column, column not in shown)
        header.resizeSection(NAME, max(NAME_MIN, room - sum(widths[c] for c in shown)))

    def _progressed(self, run_id: int) -> None:
        if run_id not in self._rows:
            self.reload()  # started elsewhere (the controller is shared)
        self._update_row(run_id)
        self._selection_changed()

    def _finished(self, run_id: int) -> None:
        self.reload()  # final status and tallies from the database
        self.runFinished.emit(run_id)
        if run_id == self._details_for:
            self.details.clear()  # its results changed
            self.show_details(run_id)

    def show_details(self, run_id: int) -> None:
        """The run's metrics in words (episode runs: step and episode success, ASK timing), off the UI thread."""
        if run_id == self._details_for and self.details.toPlainText() and not (
                self.controller is not None and self.controller.is_running(run_id)):
            return  # already shown (the list was only rebuilt)
        self._details_for = run_id
        if not run_id or self.project is None:
            self.details.clear()
            return
        if self.controller is not None and self.controller.is_running(run_id):
            self.details.setPlainText(f"run {run_id} is running; its results show here when it ends")
            return
        from desktop_app.runs.evaluate import summary_lines  # on first use: the engine's imports (ADR 0057)

        project = self.project
        run_in_background(self, lambda: "\n".join(summary_lines(api.evaluate(project, [run_id]))),
                          lambda text: run_id == self._details_for and self.details.setPlainText(text),
                          lambda exc: run_id == self._details_for and self.details.setPlainText(
                              f"could not compute the results: {exc}"), wait="Scoring the run")

    def _show_message(self, text: str) -> None:
        self.message.setText(text)
        self.message.setVisible(bool(text))

    # visibility -----------------------------------------------------------------------
    def visible_runs(self) -> list[int]:
        return sorted(self._visible)

    def set_visible_runs(self, run_ids) -> None:
        wanted = {i for i in run_ids if i in self._rows}
        if wanted == self._visible:
            return
        self._visible = wanted
        self._loading = True
        for run_id, item in self._items.items():
            item.setCheckState(0, Qt.Checked if run_id in wanted else Qt.Unchecked)
        self._loading = False
        self.runsVisibilityChanged.emit(self.visible_runs())

    def _item_changed(self, item: QTreeWidgetItem, column: int) -> None:
        if self._loading or column != 0 or item.parent() is not None:  # a run's problem line has no tick box
            return
        run_id = item.data(0, Qt.UserRole)
        visible = item.checkState(0) == Qt.Checked
        if visible != (run_id in self._visible):
            (self._visible.add if visible else self._visible.discard)(run_id)
            self.runsVisibilityChanged.emit(self.visible_runs())

    def colour_of(self, run_id: int):
        return run_colour(run_id)

    def label_of(self, run_id: int) -> str:
        row = self._rows.get(run_id)
        return f"#{run_id} {row.label}" if row else f"#{run_id}"

    def run_rows(self) -> list[RunRow]:
        return list(self._rows.values())

    # selection and buttons ----------------------------------------------------------
    def selected_runs(self) -> list[int]:
        return sorted(i.data(0, Qt.UserRole) for i in self.tree.selectedItems())

    def _selection_changed(self) -> None:
        ids = self.selected_runs()
        running = [i for i in ids if self.controller and self.controller.is_running(i)]
        resumable = [i for i in ids if i not in running and self._rows.get(i) and self._rows[i].status in RESUMABLE]
        self.cancel_button.setEnabled(bool(running))
        self.resume_button.setEnabled(bool(resumable))
        self.new_button.setEnabled(self.project is not None)
        if not self._loading:
            current = self.tree.currentItem()
            self.runSelected.emit(current.data(0, Qt.UserRole) if current is not None else 0)

    def cancel(self, run_id: int) -> None:
        if self.controller is not None:
            self.controller.cancel(run_id)
            self._update_row(run_id)

    def resume(self, run_id: int) -> bool:
        if self.controller is None or self.controller.is_running(run_id):
            return False
        self._show_message("")
        row = self._rows.get(run_id)
        self._baseline[run_id] = {k: v for k, v in (row.verdicts if row else {}).items() if k != "error"}
        started = self.controller.start(run_id)
        self._update_row(run_id)
        self._selection_changed()
        return started

    def start_runs(self, requests: list[RunRequest], name: str = "") -> list[int]:
        """Create and start runs (what RunDialog.runs() returns); they are shown on the canvas."""
        if self.controller is None:
            return []
        started, problems = [], []
        for r in requests:
            try:
                started.append(self.controller.start_new(r.profile, r.episodes, r.name or name, protocol=r.protocol,
                                                         options=r.options, include_unlabelled=r.include_unlabelled))
            except Exception as exc:  # a bad profile must not take the window down
                problems.append(f"{r.profile.name}: {exc}")
        self._show_message("; ".join(problems))
        self._visible |= set(started)
        self.reload()
        if started:
            self.runsVisibilityChanged.emit(self.visible_runs())
        return started

    def _new_clicked(self) -> None:
        flt, ids = self._provider() if self._provider else (None, None)
        self.open_run_dialog(flt, ids)

    def open_run_dialog(self, current_filter: EpisodeFilter | None = None,
                        episode_ids: list[int] | None = None) -> list[int]:
        """The RunDialog, modal; starts what it returns."""
        from desktop_app.ui.eval.run_dialog import RunDialog

        if self.project is None:
            return []
        dialog = RunDialog(self.project, current_filter, episode_ids, parent=self, last=self.last_choices,
                           browser_path=self.browser_path())
        try:
            if dialog.exec() != RunDialog.Accepted:
                return []
            self.last_choices = dialog.choices()
            self.runChosen.emit(self.last_choices)
            return self.start_runs(dialog.runs(), dialog.run_name())
        finally:
            dialog.deleteLater()
