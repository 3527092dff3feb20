"""Assign samples to annotators: who, what share is labelled twice (blind, on private copies), how many,
which scenarios. Calls api.assign and shows its report; input the core refuses is a red message.

    dialog = AssignDialog(project, parent, lead="Ada")
    dialog.assigned.connect(lambda report: browser.refresh())
    dialog.open()
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
)

from desktop_app import api
from desktop_app.api.projects import Project
from desktop_app.teams.assignment import AssignReport
from desktop_app.ui.plain import PlainLabel
from desktop_app.ui.team.common import LEFT, error_label, fill, fit_rows, item, show_error, table


def split_list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def report_text(report: AssignReport) -> str:
    return (f"{report.samples} samples given out, {report.double} of them to two annotators (double); "
            f"{report.already_assigned} were already assigned and left as they were.")


class AssignDialog(QDialog):
    """assigned(AssignReport) after each assignment that went through."""

    assigned = Signal(object)

    def __init__(self, project: Project, parent=None, lead: str | None = None):
        super().__init__(parent)
        self.project = project
        self.lead = lead
        self.report: AssignReport | None = None
        self.setWindowTitle("Assign samples")

        self.names = QLineEdit()
        self.names.setPlaceholderText("ann, bob, cat")
        self.names.setToolTip("Annotators' names, separated by commas; samples go to them in turn")
        if project.on_server:  # the team's annotators are logins (Team > People): offered as they are
            self.names.setText(", ".join(m.login for m in api.members(project) if m.role == "annotator"))
            self.names.setToolTip("The team's annotators (their logins; Team > People adds more), separated by "
                                  "commas; samples go to them in turn")
        self.overlap = QDoubleSpinBox()
        self.overlap.setRange(0.0, 100.0)
        self.overlap.setDecimals(1)
        self.overlap.setSingleStep(5.0)
        self.overlap.setSuffix(" %")
        self.overlap.setToolTip("The share of the samples labelled by two annotators, each blind on a "
                                "private copy, for agreement and adjudication")
        self.limit = QSpinBox()
        self.limit.setRange(0, 10_000_000)
        self.limit.setSpecialValueText("all")  # shown for 0: no limit
        self.limit.setToolTip("At most this many samples now (0: all that nobody has yet)")
        self.scenarios = QLineEdit()
        self.scenarios.setPlaceholderText("all scenarios")
        self.scenarios.setToolTip("Only samples of these scenarios, separated by commas (empty: all)")
        form = QFormLayout()
        form.addRow("&Annotators:", self.names)
        form.addRow("&Double-annotated share:", self.overlap)
        form.addRow("&Limit:", self.limit)
        form.addRow("&Scenarios:", self.scenarios)

        self.error = error_label()
        self.summary = PlainLabel()
        self.per_annotator = table(("Annotator", "Samples"))
        self.report_box = QGroupBox("Report")
        box = QVBoxLayout(self.report_box)
        box.addWidget(self.summary)
        box.addWidget(self.per_annotator)
        note = QLabel("A doubled sample counts once for each of its two annotators.")
        note.setStyleSheet("color: gray")
        box.addWidget(note)
        self.report_box.hide()

        self.buttons = QDialogButtonBox(QDialogButtonBox.Close)
        self.assign_button = QPushButton("Assign")
        self.assign_button.setDefault(True)
        self.buttons.addButton(self.assign_button, QDialogButtonBox.ApplyRole)
        self.assign_button.clicked.connect(self.assign)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(self.report_box)
        layout.addStretch(1)
        layout.addWidget(self.buttons)
        self.setMinimumWidth(460)

    def assign(self) -> AssignReport | None:
        """Give out the samples as the fields say; the report (or why not) is shown in the dialog."""
        scenarios = split_list(self.scenarios.text())
        where = api.where(scenarios=scenarios) if scenarios else None
        try:
            report = api.assign(self.project, split_list(self.names.text()), where,
                                self.overlap.value() / 100.0, self.limit.value() or None, lead=self.lead)
        except ValueError as exc:
            show_error(self.error, str(exc))
            return None
        except Exception as exc:  # a locked database or a lost server: the lead reads it and tries again
            show_error(self.error, f"Nothing was assigned: {exc}")
            return None
        show_error(self.error, "")
        self.report = report
        self.summary.setText(report_text(report))
        fill(self.per_annotator, [[item(name, LEFT), item(count)]
                                  for name, count in report.per_annotator.items()])
        fit_rows(self.per_annotator, most=12)
        self.report_box.show()
        self.assigned.emit(report)
        return report
