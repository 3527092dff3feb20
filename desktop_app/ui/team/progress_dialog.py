"""How far each annotator is, and how far the annotators agree on the samples they both labelled.

A table of api.progress (one row per annotator, finished = done + skipped), the number of samples waiting
for adjudication, and api.team_agreement: per annotator pair (matched boxes, boxes only one of them drew,
box F1, label agreement and Cohen's kappa over the matched boxes), per pair and label, and Fleiss' kappa
for the team. "-" where there is nothing to measure, never 0; a kappa's "-" says why in its tooltip (nothing
matched, or one label throughout: ADR 0031).

    dialog = ProgressDialog(project, parent)
    dialog.open()                 # reads when built and when shown again; Refresh reads again
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
)

from desktop_app import api
from desktop_app.api.projects import Project
from desktop_app.runs.text import NO_DATA, pct
from desktop_app.ui.fit import open_at
from desktop_app.ui.team.common import (
    LEFT,
    RefreshedOnReshow,
    error_label,
    fill,
    fit_rows,
    item,
    num,
    show_error,
    table,
)

PROGRESS_COLUMNS = ("Annotator", "Assigned", "To do", "In progress", "Done", "Skipped", "Double", "Hours",
                    "Median s / done", "Finished")
FINISHED = PROGRESS_COLUMNS.index("Finished")
PAIR_COLUMNS = ("Annotator A", "Annotator B", "Screens", "Matched", "Only A", "Only B", "Box F1",
                "Label agreement", "Cohen's κ")
LABEL_COLUMNS = ("Pair", "Label", "A", "B", "Both", "Specific agreement", "Cohen's κ")
TIPS = {
    "Double": "Samples this annotator labels blind on a private copy, as one of two",
    "Hours": "Time spent on all their samples (a visit counts at most 10 minutes)",
    "Finished": "Done or skipped, of the samples assigned",
    "Matched": "Boxes the two drew at the same place (IoU at least 0.5), paired one to one",
    "Only A": "Boxes only annotator A drew",
    "Only B": "Boxes only annotator B drew",
    "Box F1": "2 × matched / all boxes of both: how far they boxed the same elements",
    "Label agreement": "Of the matched boxes, the share both gave the same label",
    "Cohen's κ": "Label agreement over the matched boxes, corrected for chance",
    "Specific agreement": "2 × boxes both gave this label / boxes either gave it",
}


def waiting_text(n: int) -> str:
    return f"{n} sample waits for adjudication" if n == 1 else f"{n} samples wait for adjudication"


def _headed(view, headers) -> None:
    for column, header in enumerate(headers):
        if header in TIPS:
            view.horizontalHeaderItem(column).setToolTip(TIPS[header])


class ProgressDialog(RefreshedOnReshow, QDialog):
    def __init__(self, project: Project, parent=None):
        super().__init__(parent)
        self.project = project
        self.rows: list = []
        self.agreement: dict = {}
        self.waiting: list[int] = []
        self.setWindowTitle("Team progress")

        title = QLabel("Progress per annotator")
        font = QFont(title.font())
        font.setPointSizeF(font.pointSizeF() * 1.2)
        font.setBold(True)
        title.setFont(font)
        self.waiting_label = QLabel()
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.refresh)
        top = QHBoxLayout()
        top.addWidget(title)
        top.addStretch(1)
        top.addWidget(self.waiting_label)
        top.addSpacing(12)
        top.addWidget(self.refresh_button)

        self.table = table(PROGRESS_COLUMNS, stretch=FINISHED)
        _headed(self.table, PROGRESS_COLUMNS)
        self.no_work = QLabel("Nobody has been given samples yet: assign them first.")
        self.no_work.setStyleSheet("color: gray")
        self.error = error_label()

        self.agreement_box = QGroupBox("Agreement on the double-annotated samples")
        self.agreement_summary = QLabel(wordWrap=True)
        self.pairs = table(PAIR_COLUMNS, stretch="all")
        _headed(self.pairs, PAIR_COLUMNS)
        self.labels = table(LABEL_COLUMNS, stretch="all")
        _headed(self.labels, LABEL_COLUMNS)
        self.fleiss = QLabel()
        self.fleiss.setToolTip("Fleiss' kappa over the boxes every annotator of a screen matched, with the "
                               "number of annotators most screens have")
        # one above the other, each the dialog's full width: side by side, the pair table's last columns
        # (Box F1, agreement, kappa: the point of it) ended up scrolled out of view
        box = QVBoxLayout(self.agreement_box)
        box.addWidget(self.agreement_summary)
        box.addWidget(QLabel("Per annotator pair"))
        box.addWidget(self.pairs)
        box.addWidget(QLabel("Per pair and label"))
        box.addWidget(self.labels, 1)
        box.addWidget(self.fleiss)

        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.error)
        layout.addWidget(self.table)
        layout.addWidget(self.no_work)
        layout.addWidget(self.agreement_box, 1)
        layout.addWidget(buttons)
        open_at(self, 1100, 760)
        self.refresh()


    def refresh(self) -> None:
        """Read progress, the adjudication queue and agreement again; a failure is a red line."""
        try:
            rows = api.progress(self.project)
            waiting = api.awaiting_adjudication(self.project)
            agreement = api.team_agreement(self.project)
        except Exception as exc:  # a lost server or a locked database: say so, keep what was shown
            show_error(self.error, f"Could not read the team's progress: {exc}")
            return
        show_error(self.error, "")
        self.rows, self.waiting, self.agreement = rows, waiting, agreement
        self.waiting_label.setText(waiting_text(len(waiting)))
        self._fill_progress()
        self._fill_agreement()

    def _fill_progress(self) -> None:
        fill(self.table, [[item(p.annotator, LEFT), item(p.assigned), item(p.todo), item(p.in_progress),
                           item(p.done), item(p.skipped), item(p.double), item(f"{p.seconds / 3600:.2f}"),
                           item(NO_DATA if p.median_s_per_done is None else f"{p.median_s_per_done:.0f}"),
                           item(pct(p.finished_share))] for p in self.rows])
        for row, p in enumerate(self.rows):
            bar = QProgressBar()
            bar.setRange(0, max(p.assigned, 1))
            bar.setValue(p.done + p.skipped)
            bar.setFormat(f"{p.done + p.skipped} of {p.assigned} · {pct(p.finished_share)}")
            bar.setAlignment(Qt.AlignCenter)
            self.table.setCellWidget(row, FINISHED, bar)
        fit_rows(self.table, most=8)
        self.no_work.setVisible(not self.rows)

    def _fill_agreement(self) -> None:
        result = self.agreement
        pairs = result.get("pairs", [])
        samples = result.get("samples", 0)
        self.agreement_summary.setText(
            f"{samples} double-annotated sample{' is' if samples == 1 else 's are'} finished by two or more "
            "annotators; boxes are paired when they overlap by IoU 0.5 or more." if pairs else
            "No two annotators have finished the same sample yet: agreement needs double-annotated samples "
            "that both are done with.")
        fill(self.pairs, [[item(p.annotator_a, LEFT), item(p.annotator_b, LEFT), item(p.screens),
                           item(p.matched), item(p.unmatched_a), item(p.unmatched_b), item(num(p.box_f1)),
                           item(pct(p.observed)), item(num(p.kappa), tip=p.kappa_note)] for p in pairs])
        fit_rows(self.pairs, most=6)
        rows = []
        for p in pairs:
            for label, stats in p.per_label.items():
                rows.append([item(f"{p.annotator_a} – {p.annotator_b}", LEFT), item(label, LEFT),
                             item(stats["a"]), item(stats["b"]), item(stats["agree"]),
                             item(pct(stats["specific_agreement"])),
                             item(num(stats["kappa"]), tip=stats.get("kappa_note", ""))])
        fill(self.labels, rows)
        fleiss = result.get("fleiss", {})
        if fleiss.get("items"):
            raters = fleiss.get("raters", 0)
            who = "both annotators" if raters == 2 else f"all {raters} annotators"
            self.fleiss.setText(f"Fleiss' κ for the team: {num(fleiss.get('kappa'))} over {fleiss['items']} "
                                f"boxes that {who} of their screen drew at the same place"
                                + (f" ({fleiss['kappa_note']})" if fleiss.get("kappa_note") else ""))
        else:
            self.fleiss.setText(f"Fleiss' κ for the team: {NO_DATA} (no box is matched by every annotator of "
                                "its screen yet)")
