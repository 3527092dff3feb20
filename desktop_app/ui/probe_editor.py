"""The knowledge-probe editor (Capability > Knowledge probes…): write and verify the questions about a user's
goal or an app that the probe protocol asks (Sphinx: 1 MCQ + 4 yes/no per question, answer key, level).

Keyboard first: Up / Down move in the list; the fields edit the probe; Ctrl+S saves, Ctrl+Return accepts,
Ctrl+Shift+R rejects with a reason, Alt+N starts a new probe; Ctrl+Z / Ctrl+Shift+Z undo and redo the
edits made here (their own undo stack: probes have no screen, so they are not in the canvas's history).
The editor is a window of its own, so these keys never reach the main window's (Ctrl+N is New project).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut, QUndoCommand, QUndoStack
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from desktop_app import api
from desktop_app.probes import LEVELS, probe_changes
from desktop_app.ui.fit import open_at
from desktop_app.ui.shortcuts import BY_ID, key_name

OPTIONS = ("A", "B", "C", "D")
LEVEL_TEXT = {"goal": "goal: what the user wants", "app": "app: knowledge of the app"}


class EditProbe(QUndoCommand):
    def __init__(self, editor: ProbeEditor, episode_id: int, before: dict, after: dict):
        super().__init__("Edit probe")
        self.editor, self.episode_id, self.before, self.after = editor, episode_id, before, after

    def _apply(self, values: dict) -> None:
        try:
            api.edit_episode(self.editor.project, self.episode_id, values, self.editor.actor)
        except Exception as exc:  # a failed write: say so, show what is stored
            self.setObsolete(True)
            self.editor.status.setText(f"Could not save the probe: {exc}")
        self.editor.reload(select=self.episode_id)

    def redo(self) -> None:
        self._apply(self.after)

    def undo(self) -> None:
        self._apply(self.before)


class ProbeEditor(QDialog):
    def __init__(self, project, actor: str, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Knowledge probes")
        self.project, self.actor = project, actor
        self.undo_stack = QUndoStack(self)
        self.rows = []
        self.list = QListWidget()
        self.list.currentRowChanged.connect(self._show)
        self.question = QPlainTextEdit()
        self.question.setMaximumHeight(80)
        self.options = {letter: QLineEdit() for letter in OPTIONS}
        self.answer = QComboBox()
        self.answer.addItems(list(OPTIONS))
        self.level = QComboBox()
        for level in LEVELS:
            self.level.addItem(LEVEL_TEXT[level], level)
        self.apps = QLineEdit(placeholderText="app names, comma-separated")
        self.category = QLineEdit()
        self.state = QLabel()
        form_box = QWidget()
        form = QFormLayout(form_box)
        form.addRow("Question", self.question)
        for letter, edit in self.options.items():
            form.addRow(f"Option {letter}", edit)
        form.addRow("Answer key", self.answer)
        form.addRow("Level", self.level)
        form.addRow("Apps", self.apps)
        form.addRow("Category", self.category)
        form.addRow("Status", self.state)
        buttons = QHBoxLayout()
        for text, action_id, slot in (("New", "probes.new", self.new_probe), ("Save", "probes.save", self.save),
                                      ("Accept", "probes.accept", self.accept_probe),
                                      ("Reject…", "probes.reject", self.reject_probe),
                                      ("Undo", "probes.undo", self.undo_stack.undo),
                                      ("Redo", "probes.redo", self.undo_stack.redo)):
            button = QPushButton(f"{text} ({key_name(action_id)})")  # the keys of ui/shortcuts.py's table
            button.clicked.connect(slot)
            buttons.addWidget(button)
            for key in BY_ID[action_id].keys:
                QShortcut(QKeySequence(key), self, activated=slot)
        self.status = QLabel(wordWrap=True)
        split = QSplitter(Qt.Horizontal)
        split.addWidget(self.list)
        split.addWidget(form_box)
        split.setSizes([360, 560])
        layout = QVBoxLayout(self)
        layout.addWidget(self.status)
        layout.addWidget(split, 1)
        layout.addLayout(buttons)
        open_at(self, 980, 560)
        self.reload()

    # showing -----------------------------------------------------------------------------------
    def reload(self, select: int | None = None) -> None:
        current = select if select is not None else self._current_id()
        self.rows = api.probes(self.project)
        self.list.blockSignals(True)
        self.list.clear()
        for probe in self.rows:
            item = QListWidgetItem(f"[{probe.level} · {probe.status}] {probe.question}")
            item.setToolTip(probe.question)
            self.list.addItem(item)
        self.list.blockSignals(False)
        ids = [p.episode_id for p in self.rows]
        self.list.setCurrentRow(ids.index(current) if current in ids else (0 if ids else -1))
        self._show(self.list.currentRow())
        self._count()

    def _count(self) -> None:
        by = {s: sum(1 for p in self.rows if p.status == s) for s in ("accepted", "edited", "rejected")}
        todo = len(self.rows) - sum(by.values())
        levels = {level: sum(1 for p in self.rows if p.level == level) for level in LEVELS}
        self.status.setText(f"{len(self.rows)} probes ({levels['goal']} about the goal, {levels['app']} about the "
                            f"app): {by['accepted']} accepted, {by['edited']} accepted after edits, "
                            f"{by['rejected']} rejected, {todo} to verify")

    def _current_id(self) -> int | None:
        row = self.list.currentRow()
        return self.rows[row].episode_id if 0 <= row < len(self.rows) else None

    def _show(self, row: int) -> None:
        probe = self.rows[row] if 0 <= row < len(self.rows) else None
        self.question.setPlainText(probe.question if probe else "")
        for letter, edit in self.options.items():
            edit.setText(probe.options.get(letter, "") if probe else "")
        self.answer.setCurrentText(probe.answer if probe else "A")
        self.level.setCurrentIndex(max(0, self.level.findData(probe.level if probe else "goal")))
        self.apps.setText(", ".join(probe.apps) if probe else "")
        self.category.setText(probe.category if probe else "")
        self.state.setText(probe.status if probe else "new: Save adds it")

    # editing -----------------------------------------------------------------------------------
    def _fields(self) -> tuple:
        return (self.question.toPlainText(), {k: e.text().strip() for k, e in self.options.items()},
                self.answer.currentText(), self.level.currentData(),
                [a.strip() for a in self.apps.text().split(",") if a.strip()], self.category.text().strip())

    def new_probe(self) -> None:
        self.list.setCurrentRow(-1)
        self._show(-1)
        self.question.setFocus()

    def save(self) -> bool:
        episode_id = self._current_id()
        try:
            if episode_id is None:
                new_id = api.add_probe(self.project, *self._fields(), author=self.actor)
                self.reload(select=new_id)
                self.status.setText("Probe added; it waits for verification")
                return True
            after = probe_changes(self.project, episode_id, *self._fields())
        except ValueError as exc:
            self.status.setText(f"Not saved: {exc}")
            return False
        probe = self.rows[self.list.currentRow()]
        before = probe_changes(self.project, episode_id, probe.question, probe.options, probe.answer, probe.level,
                               probe.apps, probe.category)
        if before != after:
            self.undo_stack.push(EditProbe(self, episode_id, before, after))
        return True

    def accept_probe(self) -> None:
        if not self.save() or self._current_id() is None:
            return
        status = api.verify_probe(self.project, self._current_id(), "accept", reviewer=self.actor)
        self._next_after(status)

    def reject_probe(self, reason: str | None = None) -> None:
        if self._current_id() is None:
            return
        if reason is None:
            reason, ok = QInputDialog.getText(self, "Reject probe", "Why (e.g. ambiguous question, wrong key):")
            if not ok:
                return
        try:
            status = api.verify_probe(self.project, self._current_id(), "reject", reason, reviewer=self.actor)
        except ValueError as exc:
            self.status.setText(str(exc))
            return
        self._next_after(status)

    def _next_after(self, status: str) -> None:
        row = self.list.currentRow()
        self.reload()
        self.list.setCurrentRow(min(row + 1, len(self.rows) - 1))
        self.status.setText(self.status.text() + f" · last: {status}")
