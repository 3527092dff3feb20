"""How far the judges agree with the human labels, and the annotators with each other.

A table of judge runs (accuracy, precision, recall, F1, the false-negative rate set apart, kappa,
Kendall tau-b of the policy ranking); for the selected run its confusion matrix, the success rate
per policy under the humans and under the judge, and the trajectories where the two disagree
(double-click or Enter: open_requested(episode_id, run_id), to review the judge's reasoning);
beside them the annotators' pairwise kappa and the reference counts. Numbers are api.agreement's,
the same `screenlab judge agreement` prints; rates over nothing are "-", never 0 %.

    view.set_project(project)      # computes off the UI thread; refreshed() when shown
    view.refresh()
    view.open_requested.connect(lambda episode_id, run_id: ...)
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QMenu,
    QMessageBox,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_app import api
from desktop_app.runs.text import NO_DATA, pct
from desktop_app.ui.fit import ElidedGroupBox
from desktop_app.ui.judge.trajectory_view import EMPTY, PLAIN
from desktop_app.ui.tasks import run_in_background

FNR_COLOUR = QColor("#CC3311")  # Tol red: the costly error
FNR_TINT = QColor(204, 51, 17, 38)
FNR_TIP = ("False-negative rate: of the trajectories people call successful, the share this judge calls failures.\n"
           "It is the costly error when a judge drives retries or refinement: an agent is sent to redo work it "
           "already finished\n(and a successful trajectory is thrown away as training data). Lower is better.")
RUN_COLUMNS = ("Judge run", "Model", "Mode", "Trajectories", "Scored", "Parse failures", "Accuracy", "Precision",
               "Recall", "F1", "False-negative rate", "Kappa", "Kendall τ-b")
FNR_COLUMN = RUN_COLUMNS.index("False-negative rate")
NO_RUNS = ("No judge runs yet. Start one with Runs > New run and the judge protocol, or "
           "`screenlab judge run PROJECT --judge PROFILE`.")
# what the Export button offers: key -> (menu text, file filter; "" = a folder)
EXPORTS = {
    "evals": ("Human labels as evals lines…", "evals lines (*.jsonl)"),
    "verdicts": ("Selected judge's verdicts as evals lines…", "evals lines (*.jsonl)"),
    "csv": ("Labels and all verdicts as CSV…", "CSV (*.csv)"),
    "passed": ("Trajectories the selected judge passed (filtered BC)…", ""),
    "steps": ("Steps the selected per-step judge rewards (filtered BC)…", ""),
}
NEEDS_RUN = ("verdicts", "passed", "steps")
REVIEW_TEXT = {"": "open", "accept": "judge accepted", "override": "human kept"}


def num(value: float | None) -> str:
    return NO_DATA if value is None else f"{value:.2f}"


def _ms(value: float | None) -> str:
    return NO_DATA if value is None else f"{value:,.0f} ms"


def _item(text, tip: str = "", align=Qt.AlignRight | Qt.AlignVCenter) -> QTableWidgetItem:
    item = QTableWidgetItem(str(text))
    item.setTextAlignment(align)
    if tip:
        item.setToolTip(tip)
    return item


def _table(headers: tuple[str, ...], stretch: int = 0, kind: type = QTableWidget) -> QTableWidget:
    """A read-only table whose columns fit their contents, except `stretch`, which takes the room left."""
    table = kind(0, len(headers))
    table.setHorizontalHeaderLabels(list(headers))
    table.setEditTriggers(QAbstractItemView.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectRows)
    table.setSelectionMode(QAbstractItemView.SingleSelection)
    table.verticalHeader().hide()
    table.setAlternatingRowColors(True)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeToContents)
    header.setSectionResizeMode(stretch, QHeaderView.Stretch)
    table.setWordWrap(False)
    table.setTextElideMode(Qt.ElideMiddle)
    return table


def _fill(table: QTableWidget, rows: list[list[QTableWidgetItem]]) -> None:
    table.setRowCount(len(rows))
    for r, items in enumerate(rows):
        for c, item in enumerate(items):
            table.setItem(r, c, item)


class DisagreementTable(QTableWidget):
    """Enter opens the selected disagreement, as a double-click does (both are `activated`)."""

    def keyPressEvent(self, event) -> None:
        if event.key() in (Qt.Key_Return, Qt.Key_Enter) and self.currentIndex().isValid():
            self.activated.emit(self.currentIndex())
            return
        super().keyPressEvent(event)


class AgreementView(QWidget):
    open_requested = Signal(int, int)  # episode id, judge run id
    refreshed = Signal()
    message = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("agreement-view")
        self.project = None
        self.report: dict = {}
        self.runs: list = []  # judge runs, in the table's order
        self.disagreements: dict[int, list] = {}
        self._generation = 0
        self._select_after_refresh: int | None = None  # a run just imported
        self.error_box: QMessageBox | None = None

        title = QLabel("Judges against the human labels")
        font = QFont(title.font())
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        title.setFont(font)
        self.summary = QLabel(wordWrap=True)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.refresh)
        self.import_button = QPushButton("Import verdicts…")
        self.import_button.setToolTip("Another judge's verdicts as a judge run: the authors' rm_results.json, or "
                                      "evals .jsonl lines (annotation = verdict, comment = reasoning)")
        self.import_button.clicked.connect(lambda: self.import_verdicts())
        self.export_button = QPushButton("Export")
        self.export_button.setToolTip("The labels and the selected judge's verdicts in the authors' formats, a "
                                      "CSV, or the data for filtered behaviour cloning")
        export_menu = QMenu(self.export_button)
        for what, (text, _) in EXPORTS.items():
            export_menu.addAction(text, lambda what=what: self.export(what))
        self.export_button.setMenu(export_menu)
        top = QHBoxLayout()
        top.addWidget(title)
        top.addWidget(self.summary, 1)
        top.addWidget(self.export_button)
        top.addWidget(self.import_button)
        top.addWidget(self.refresh_button)

        self.runs_table = _table(RUN_COLUMNS)
        header = QTableWidgetItem(RUN_COLUMNS[FNR_COLUMN] + " ⚠")
        header.setBackground(FNR_COLOUR)
        header.setForeground(QColor("white"))
        bold = QFont(self.font())
        bold.setBold(True)
        header.setFont(bold)
        header.setToolTip(FNR_TIP)
        self.runs_table.setHorizontalHeaderItem(FNR_COLUMN, header)
        self.runs_table.itemSelectionChanged.connect(self._run_selected)
        self.no_runs = QLabel(NO_RUNS, wordWrap=True)
        self.no_runs.setStyleSheet("color: gray")
        self.no_runs.setTextInteractionFlags(Qt.TextSelectableByMouse)

        self.confusion_box = ElidedGroupBox("Confusion matrix")  # a judge run's name may be a sentence
        self.confusion = QTableWidget(2, 2)
        self.confusion.setHorizontalHeaderLabels(["Judge: success", "Judge: failure"])
        self.confusion.setVerticalHeaderLabels(["Human: success", "Human: failure"])
        self.confusion.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.confusion.setSelectionMode(QAbstractItemView.NoSelection)
        self.confusion.horizontalHeader().setSectionResizeMode(QHeaderView.Stretch)
        self.confusion.verticalHeader().setSectionResizeMode(QHeaderView.Stretch)
        self.confusion.setFixedHeight(150)
        self.confusion_note = QLabel(wordWrap=True)
        self.confusion_note.setStyleSheet("color: gray")
        self.policies = _table(("Policy", "Human rate", "Judge rate", "n judged", "n labelled"))
        box = QVBoxLayout(self.confusion_box)
        box.addWidget(self.confusion)
        box.addWidget(self.confusion_note)
        # the texts in the three boxes wrap: side by side, they must fit a laptop's width (ADR 0035)
        box.addWidget(QLabel("Success rate by policy (humans: of the trajectories this judge scored)", wordWrap=True))
        box.addWidget(self.policies, 1)

        self.disagreements_box = ElidedGroupBox("Disagreements")
        self.disagreement_table = _table(("Trajectory", "Policy", "Human", "Judge", "Review"), kind=DisagreementTable)
        self.disagreement_table.activated.connect(self._open_row)
        hint = QLabel("Double-click or Enter: open the trajectory with the judge's reasoning, to accept the judge "
                      "or keep the human label.", wordWrap=True)
        hint.setStyleSheet("color: gray")
        box = QVBoxLayout(self.disagreements_box)
        box.addWidget(self.disagreement_table, 1)
        box.addWidget(hint)

        people = QGroupBox("Annotators")
        self.annotators = _table(("Annotator A", "Annotator B", "n", "Agreement", "Kappa"))
        # both names share the room and elide (a long login in B scrolled the box sideways)
        self.annotators.horizontalHeader().setSectionResizeMode(1, QHeaderView.Stretch)
        self.mean_kappa = QLabel(wordWrap=True)
        self.reference = QLabel(wordWrap=True)
        box = QVBoxLayout(people)
        box.addWidget(QLabel("Pairwise Cohen's kappa over the trajectories both labelled", wordWrap=True))
        box.addWidget(self.annotators, 1)
        box.addWidget(self.mean_kappa)
        box.addWidget(QLabel("<b>Reference</b> (majority of the human labels, corrected by accepted reviews)",
                             wordWrap=True))
        box.addWidget(self.reference)

        details = QSplitter(Qt.Horizontal)
        for widget in (self.confusion_box, self.disagreements_box, people):
            details.addWidget(widget)
        details.setSizes([430, 560, 370])
        upper = QWidget()
        column = QVBoxLayout(upper)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.runs_table, 1)
        column.addWidget(self.no_runs)
        body = QSplitter(Qt.Vertical)
        body.addWidget(upper)
        body.addWidget(details)
        body.setSizes([150, 700])
        main = QWidget()
        layout = QVBoxLayout(main)
        layout.addLayout(top)
        layout.addWidget(body, 1)
        self.empty = QLabel(EMPTY, wordWrap=True, alignment=Qt.AlignCenter)
        self.empty.setMargin(40)
        self.empty.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.empty)
        self.pages.addWidget(main)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.pages)

    # data ------------------------------------------------------------------------------------
    def set_project(self, project) -> None:
        self.project = project
        self.refresh()

    def refresh(self) -> None:
        """Compute everything again, off the UI thread; refreshed() once shown."""
        self._generation += 1
        generation, project = self._generation, self.project
        if project is None:
            self._show({"report": {}, "runs": [], "disagreements": {}}, generation)
            return
        self.summary.setText("Computing…")

        def compute() -> dict:
            runs = api.judge_runs(project)
            return {"runs": runs, "report": api.agreement(project, [r.id for r in runs]),
                    "disagreements": {r.id: api.disagreements(project, r.id) for r in runs}}

        run_in_background(self, compute, lambda result: self._show(result, generation),
                          lambda exc: self._failed(exc, generation), wait="Comparing the judges")

    def import_verdicts(self, path: str = "", user: str | None = None) -> None:
        """Ask for a verdict file (and, for evals lines of several people, which one is the judge), import it
        off the UI thread, then show the new run. A bad file is a message, never a crash."""
        if self.project is None:
            return
        if not path:
            path, _ = QFileDialog.getOpenFileName(self, "Import judge verdicts", "",
                                                  "Judge verdicts (*.json *.jsonl);;All files (*)")
            if not path:
                return
        if user is None:
            try:
                judges = api.judges_in_file(path)
            except ValueError as exc:
                self._import_failed(exc)
                return
            user = ""  # one judge in the file (or an rm_results.json): the import takes it
            if len(judges) > 1:
                user, ok = QInputDialog.getItem(self, "Import judge verdicts", "Which of them is the judge?",
                                                judges, 0, False)
                if not ok:
                    return
        project = self.project
        self.import_button.setEnabled(False)
        run_in_background(self, lambda: api.import_judge_verdicts(project, path, "", user or ""),
                          self._imported, self._import_failed, wait="Importing the judges' verdicts")

    def export(self, what: str, out: str = "", min_reward: float | None = None) -> None:
        """Ask where (and for steps, the reward threshold), then export off the UI thread; a message says
        what was written, a box what went wrong. `what`: a key of EXPORTS."""
        if self.project is None:
            return
        run_id = self.selected_run()
        if what in NEEDS_RUN and run_id is None:
            self.message.emit("Select a judge run first")
            return
        text, kind = EXPORTS[what]
        if not out:
            title = text.rstrip("…")
            out = (QFileDialog.getSaveFileName(self, title, "", kind)[0] if kind else
                   QFileDialog.getExistingDirectory(self, title + " (an empty or new folder)"))
            if not out:
                return
        if what == "steps" and min_reward is None:
            min_reward, ok = QInputDialog.getDouble(self, "Steps for filtered behaviour cloning",
                                                    "Keep the steps whose reward is at least:", 0.5, -1.0, 1.0, 2)
            if not ok:
                return
        project = self.project
        jobs = {
            "evals": lambda: f"{api.export_evals(project, out)} labels written to {out}",
            "verdicts": lambda: f"{api.export_evals(project, out, run_id)} verdicts written to {out}",
            "csv": lambda: f"{api.export_judge_csv(project, out)} trajectories written to {out}",
            "passed": lambda: api.export_passed(project, out, run_id).summary(),
            "steps": lambda: "{} of {} labelled steps written to {}".format(
                *api.export_steps(project, out, run_id, min_reward=min_reward), out),
        }
        self.export_button.setEnabled(False)
        run_in_background(self, jobs[what], self._exported, self._export_failed, wait="Exporting")

    def _exported(self, summary: str) -> None:
        self.export_button.setEnabled(True)
        self.message.emit(summary)

    def _export_failed(self, exc: Exception) -> None:
        self.export_button.setEnabled(True)
        self._show_error("Export", f"Nothing was written.\n\n{exc}")

    def _imported(self, imported) -> None:
        self.import_button.setEnabled(True)
        self.message.emit(f"Imported {imported.summary()}")
        self._select_after_refresh = imported.run_id
        self.refresh()

    def _import_failed(self, exc: Exception) -> None:
        self.import_button.setEnabled(True)
        self._show_error("Import judge verdicts", f"Nothing was imported.\n\n{exc}")

    def _show_error(self, title: str, text: str) -> None:
        # open(), not exec(): the window keeps running (and a test can read the box and close it)
        self.error_box = QMessageBox(QMessageBox.Warning, title, text, QMessageBox.Ok, self)
        self.error_box.open()
        self.message.emit(f"{title}: {text.splitlines()[-1]}")

    def _failed(self, exc: Exception, generation: int) -> None:
        if generation == self._generation:
            self.summary.setText(f"<span style='color:#CC3311'>Could not compute the agreement: {exc}</span>")
            self.message.emit(f"Judge agreement: {exc}")
            self.refreshed.emit()

    def _show(self, result: dict, generation: int) -> None:
        if generation != self._generation:
            return  # an older computation finished after a newer one started
        selected = self.selected_run()
        self.report, self.runs, self.disagreements = result["report"], result["runs"], result["disagreements"]
        report = self.report
        self.pages.setCurrentIndex(1 if report.get("trajectories") else 0)
        ref = report.get("reference", {})
        self.summary.setText(f"{report.get('trajectories', 0)} trajectories · reference: {ref.get('success', 0)} "
                             f"success, {ref.get('failure', 0)} failure, {ref.get('none', 0)} without one (no usable label, or a tie)")
        self.reference.setText(f"{ref.get('success', 0)} success · {ref.get('failure', 0)} failure · "
                               f"{ref.get('none', 0)} unscored (a tie or no usable label) · "
                               f"{report.get('corrected', 0)} corrected by review")
        self._fill_runs()
        self._fill_annotators()
        self.no_runs.setVisible(not self.runs)
        if self._select_after_refresh is not None:
            selected, self._select_after_refresh = self._select_after_refresh, None
        row = next((i for i, r in enumerate(self.runs) if r.id == selected), 0)
        if self.runs:
            self.runs_table.selectRow(row)
        self._run_selected()
        self.refreshed.emit()

    def _fill_runs(self) -> None:
        rows = []
        metrics = self.report.get("runs", {})
        for run in self.runs:
            m = metrics.get(run.id) or metrics.get(str(run.id)) or {}
            c = m.get("confusion", {})
            scored_tip = (f"{m.get('scored', 0)} of {m.get('trajectories', 0)} judged trajectories scored against "
                          f"the reference; {m.get('parse_failures', 0)} parse failures, {m.get('errors', 0)} failed "
                          f"requests, {m.get('no_reference', 0)} without a human reference (no usable label, or a tie)")
            ranking = m.get("ranking", {})
            fnr = _item(pct(c.get("fnr")), FNR_TIP)
            fnr.setFont(self._bold())
            fnr.setForeground(QBrush(FNR_COLOUR))
            fnr.setBackground(QBrush(FNR_TINT))
            left = Qt.AlignLeft | Qt.AlignVCenter
            name = run.name or f"run {run.id}"  # elided in the middle: the whole name in its tooltip
            rows.append([_item(name, f"{name}\nrun {run.id}", left), _item(run.model, run.model, left),
                         _item((run.options or {}).get("mode") or ("imported" if run.kind == "imported" else ""),
                               "", left), _item(m.get("trajectories", 0)),
                         _item(m.get("scored", 0), scored_tip), _item(m.get("parse_failures", 0), scored_tip),
                         _item(pct(c.get("accuracy"))), _item(pct(c.get("precision"))), _item(pct(c.get("recall"))),
                         _item(pct(c.get("f1"))), fnr, _item(num(m.get("kappa")), m.get("kappa_note", "")),
                         _item(num(ranking.get("tau_b")), f"over {ranking.get('n', 0)} policies")])
        self.runs_table.blockSignals(True)
        _fill(self.runs_table, rows)
        self.runs_table.blockSignals(False)

    def _fill_annotators(self) -> None:
        people = self.report.get("annotators", {})
        _fill(self.annotators, [[_item(p["a"], p["a"], Qt.AlignLeft | Qt.AlignVCenter),
                                 _item(p["b"], p["b"], Qt.AlignLeft | Qt.AlignVCenter), _item(p["n"]),
                                 _item(pct(p.get("agreement"))), _item(num(p.get("kappa")), p.get("kappa_note", ""))]
                                for p in people.get("pairs", [])])
        self.mean_kappa.setText(f"Mean kappa: {num(people.get('mean_kappa'))}" if people.get("pairs") else
                                "Fewer than two annotators have labelled the same trajectory.")

    def selected_run(self) -> int | None:
        rows = self.runs_table.selectionModel().selectedRows() if self.runs_table.selectionModel() else []
        if rows and rows[0].row() < len(self.runs):
            return self.runs[rows[0].row()].id
        return None

    def select_run(self, run_id: int) -> None:
        row = next((i for i, r in enumerate(self.runs) if r.id == run_id), None)
        if row is not None:
            self.runs_table.selectRow(row)

    def _run_selected(self) -> None:
        run_id = self.selected_run()
        run = next((r for r in self.runs if r.id == run_id), None)
        metrics = self.report.get("runs", {}).get(run_id, {}) if run_id is not None else {}
        name = (run.name or f"run {run.id}") if run else ""
        self.confusion_box.setTitle(f"Confusion matrix · {name}" if run else "Confusion matrix")
        self.disagreements_box.setTitle(f"Disagreements · {name}" if run else "Disagreements")
        c = metrics.get("confusion", {})
        for (r, col), (key, tip) in {(0, 0): ("tp", "true positives"), (0, 1): ("fn", "false negatives: the costly "
                                                                                     "error"),
                                     (1, 0): ("fp", "false positives"), (1, 1): ("tn", "true negatives")}.items():
            item = _item(f"{c.get(key, 0)}   {key.upper()}" if run else "", tip, Qt.AlignCenter)
            item.setFont(self._bold(1.3))
            if key == "fn":
                item.setForeground(QBrush(FNR_COLOUR))
                item.setBackground(QBrush(FNR_TINT))
            self.confusion.setItem(r, col, item)
        self.confusion_note.setText(f"{c.get('n', 0)} scored · false-positive rate {pct(c.get('fpr'))} · "
                                    f"median latency {_ms(metrics.get('latency_ms_median'))}" if run else "")
        policies = metrics.get("policies", {})
        rows = []
        for policy, cell in policies.items():
            judge, human = cell.get("judge") or {}, cell.get("human") or {}
            rows.append([_item(policy or "(no policy)", "", Qt.AlignLeft | Qt.AlignVCenter),
                         _item(pct(human.get("rate"))), _item(pct(judge.get("rate"))), _item(judge.get("n", 0)),
                         _item(human.get("n", 0))])
        _fill(self.policies, rows)
        items = []
        for d in self.disagreements.get(run_id, []):
            tip = f"{d.intent}\n\nJudge: {d.thoughts}" if d.thoughts else d.intent
            review = REVIEW_TEXT.get(d.review, d.review) + (f" ({', '.join(d.tags)})" if d.tags else "")
            left = Qt.AlignLeft | Qt.AlignVCenter
            key = _item(d.key, tip, left)
            key.setData(Qt.UserRole, d.episode_id)
            items.append([key, _item(d.policy, "", left), _item("success" if d.reference else "failure", "", left),
                          _item(d.judged, "", left), _item(review, "", left)])
        _fill(self.disagreement_table, items)

    def _bold(self, scale: float = 1.0) -> QFont:
        font = QFont(self.font())
        font.setBold(True)
        if scale != 1.0:
            font.setPointSizeF(font.pointSizeF() * scale)
        return font

    def _open_row(self, index) -> None:
        run_id = self.selected_run()
        item = self.disagreement_table.item(index.row(), 0)
        if run_id is not None and item is not None:
            self.open_requested.emit(int(item.data(Qt.UserRole)), run_id)

    def event(self, event) -> bool:
        # plain keys stay here while the view has the focus: the window's one-letter shortcuts act on the
        # hidden annotation canvas
        if event.type() == QEvent.ShortcutOverride and not event.modifiers() & PLAIN \
                and event.key() not in (Qt.Key_Tab, Qt.Key_Backtab):
            event.accept()
            return True
        return super().event(event)
