"""The "Task" tab (a recorded task): a Sphinx task's evaluators checked against its own reference trajectory, an
editor for them, and the current step's completion label (derived: the last step is stop) with override.

Every change goes through the undo stack (the evaluators are the episode's meta, the label the step's).
An evaluator list that does not parse, or that the reference fails, is said so before it is saved; one the
reference fails can still be saved (the recording may be the thing to fix) and the list shows it.
"""

from __future__ import annotations

import copy
import html
import json

from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app import api
from desktop_app.ui.shortcuts import key_name
from desktop_app.ui.workspace import Workspace

PASS, FAIL = "#067647", "#b42318"
LABELS = (("continue", "continue (more actions needed)"), ("stop", "stop (the task is done here)"))


class TaskPanel(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("task-panel")
        self.ws: Workspace | None = None
        self.summary = QLabel(wordWrap=True)
        self.checks = QListWidget()
        self.checks.setMaximumHeight(150)
        self.checks.setWordWrap(True)  # an evaluator in words can be long: wrap, never cut
        self.editor = QPlainTextEdit()
        self.editor.setFont(QFont("monospace"))
        self.editor.setPlaceholderText("evaluator.json: a list of evaluators")
        self.verdict = QLabel(wordWrap=True)
        self.check_button, self.save_button, self.revert_button = (QPushButton("Check"), QPushButton("Save"),
                                                                   QPushButton("Revert"))
        self.check_button.clicked.connect(self.check_text)
        self.save_button.clicked.connect(self.save_text)
        self.revert_button.clicked.connect(self.show_task)
        buttons = QHBoxLayout()
        buttons.addWidget(self.verdict, 1)
        for button in (self.check_button, self.revert_button, self.save_button):
            buttons.addWidget(button)
        evaluators = QGroupBox("Evaluators, on the reference trajectory")
        layout = QVBoxLayout(evaluators)
        layout.addWidget(self.checks)
        layout.addWidget(self.editor, 1)
        layout.addLayout(buttons)

        self.completion = QComboBox()
        for value, text in LABELS:
            self.completion.addItem(text, value)
        self.completion.activated.connect(self._completion_chosen)
        self.completion_note = QLabel(wordWrap=True)
        self.completion_note.setStyleSheet("color: gray")
        step_box = QGroupBox("This step")
        form = QFormLayout(step_box)
        form.addRow("Completion", self.completion)
        form.addRow("", self.completion_note)

        self.empty = QLabel("This sample is not a recorded task (no evaluators).", wordWrap=True)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        outer.addWidget(self.empty)
        outer.addWidget(self.summary)
        outer.addWidget(evaluators, 1)
        outer.addWidget(step_box)
        self._parts = (self.summary, evaluators, step_box)

    def set_workspace(self, ws: Workspace | None) -> None:
        self.ws = ws
        self._shown: tuple | None = None  # (episode id, the evaluators' JSON as stored) in the editor now
        self._stale = True
        if ws is not None:
            ws.stepLoaded.connect(self._step_loaded)
            ws.episodeChanged.connect(lambda _e: self._episode_changed())
            ws.stepChanged.connect(lambda _s: self._show_step())
        self.show_task()

    def _step_loaded(self) -> None:
        """Another step of the same task only changes the completion label; another task is shown when the
        tab is (checking the evaluators reads every tree of the task)."""
        episode_id = self.ws.episode.id if self.ws and self.ws.episode else None
        if self._shown is not None and self._shown[0] == episode_id:
            self._show_step()
        elif self.isVisible():
            self.show_task()
        else:
            self._stale = True

    def _episode_changed(self) -> None:
        if not self._dirty():  # an edit saved (or undone) elsewhere: show it; typing in progress is kept
            self.show_task()

    def _dirty(self) -> bool:
        return self._shown is not None and self.editor.toPlainText() != self._shown[1]

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._stale:
            self.show_task()

    # showing -----------------------------------------------------------------------------------
    def _evaluators(self) -> list | None:
        episode = self.ws.episode if self.ws else None
        info = ((episode.meta or {}).get("capability") or {}) if episode is not None else {}
        return info.get("evaluators") if "evaluators" in info else None

    def is_task(self) -> bool:
        return self._evaluators() is not None

    def show_task(self, *_args) -> None:
        self._stale = False
        task = self.is_task()
        self.empty.setVisible(not task)
        for part in self._parts:
            part.setVisible(task)
        if not task:
            self._shown = None
            return
        evaluators = self._evaluators()
        text = json.dumps(evaluators, indent=2, ensure_ascii=False)
        self.editor.setPlainText(text)
        self._shown = (self.ws.episode.id, text)
        self._show_check(api.check_task_evaluators(self.ws.project, self.ws.episode.id))
        self.verdict.clear()
        self._show_step()

    def _show_check(self, check) -> None:
        self.checks.clear()
        if check.problem:
            self.summary.setText(f"<span style='color:{FAIL}'>Cannot check: {html.escape(check.problem)}</span>")
            return
        failed = sum(1 for _, ok in check.evaluators if not ok)
        self.summary.setText(
            f"<span style='color:{PASS}'>The reference passes all {len(check.evaluators)} evaluators.</span>"
            if not failed else
            f"<span style='color:{FAIL}'>The reference fails {failed} of {len(check.evaluators)} evaluators: "
            "fix the evaluator (or the recording).</span>")
        for words, ok in check.evaluators:
            item = QListWidgetItem(("✓ " if ok else "✗ ") + words)
            item.setForeground(QColor(PASS if ok else FAIL))
            item.setToolTip(words)
            self.checks.addItem(item)

    def _show_step(self) -> None:
        step = self.ws.step if self.ws else None
        meta = (step.meta or {}) if step is not None else {}
        label = meta.get("completion")
        self.completion.setEnabled(label is not None)
        if label is None:
            self.completion_note.setText("no completion label on this step")
            return
        self.completion.setCurrentIndex(self.completion.findData(label))
        derived = "stop" if step.index == len(self.ws.steps) - 1 else "continue"
        self.completion_note.setText("derived: the last step is stop, the others continue" if label == derived
                                     else f"set by hand (derived: {derived})")

    # editing -----------------------------------------------------------------------------------
    def _parsed_text(self) -> list | None:
        try:
            value = json.loads(self.editor.toPlainText())
        except json.JSONDecodeError as exc:
            self.verdict.setText(f"<span style='color:{FAIL}'>Not JSON: {html.escape(exc.msg)} at line {exc.lineno}, "
                                 f"column {exc.colno}</span>")
            return None
        return value

    def check_text(self) -> bool:
        """Check the edited evaluators against the reference; True when they can be saved."""
        value = self._parsed_text()
        if value is None:
            return False
        check = api.check_task_evaluators(self.ws.project, self.ws.episode.id, value)
        self._show_check(check)
        if check.problem:
            self.verdict.setText(f"<span style='color:{FAIL}'>{html.escape(check.problem)}</span>")
            return False
        self.verdict.setText("Checked: see above." if value != self._evaluators() else "Unchanged.")
        return True

    def save_text(self) -> None:
        if not self.check_text():
            return
        value = json.loads(self.editor.toPlainText())
        if value == self._evaluators():
            return
        meta = copy.deepcopy(self.ws.episode.meta or {})
        meta.setdefault("capability", {})["evaluators"] = value
        self.ws.edit_episode({"meta": meta}, "Edit evaluators")
        self.show_task()  # what is stored now, laid out; an undo later replaces it again
        self.verdict.setText(f"Saved ({key_name('edit.undo')} undoes).")

    def _completion_chosen(self, _index: int) -> None:
        value = self.completion.currentData()
        if self.ws is not None and self.ws.step is not None and value != (self.ws.step.meta or {}).get("completion"):
            self.ws.edit_step_meta({"completion": value}, f"Completion: {value}")

