"""Verification of ambiguous tasks: original and ambiguous task side by side with the removed
words highlighted, step kinds as toggles, the checklist, editable question/answer pairs.

Same keys as the pop-up queue: Y accept, N reject with a reason, E edit the task, Ctrl+Enter
save edits, G regenerate, A / D previous / next. Accepting a task whose checklist is empty or
whose removed detail no question asks for warns first (or is refused, per Settings:
navi/verification.py says what is checked). The model's original texts stay in the episode
next to the reviewer's.
"""

from __future__ import annotations

import html
from dataclasses import replace

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from desktop_app.api.review import review_counts
from desktop_app.navi.model import CHECKLIST, NaviInfo, QAPair, navi_of, with_navi
from desktop_app.navi.verification import problems, step_types_kept
from desktop_app.ui.review_panel import Verdicts, key_buttons
from desktop_app.ui.shortcuts import hint
from desktop_app.ui.workspace import Workspace


def highlight_removed(original: str, ambiguous: str) -> tuple[str, str]:
    """HTML of both tasks: words taken out struck through in red, words put in underlined in green."""
    import difflib  # here: the window imports this module at start, and compares tasks later

    a, b = original.split(), ambiguous.split()
    left, right = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        old, new = html.escape(" ".join(a[i1:i2])), html.escape(" ".join(b[j1:j2]))
        if op == "equal":
            left.append(old)
            right.append(new)
        else:
            if old:
                left.append(f'<span style="background:#fde2e1;color:#b42318;text-decoration:line-through">{old}</span>')
            if new:
                right.append(f'<span style="background:#dcfae6;color:#067647;text-decoration:underline">{new}</span>')
    return " ".join(left), " ".join(right)


class NaviReviewPanel(Verdicts, QWidget):
    reviewed = Signal(int)
    unreviewed = Signal(int)
    replaced = Signal(int)
    navigate = Signal(int)
    message = Signal(str)

    def __init__(self, ws: Workspace, llm_endpoint=None, parent=None, problem_policy: str = "warn"):
        super().__init__(parent)
        self.setObjectName("navi-review")
        self.ws = ws
        self.llm_endpoint = llm_endpoint
        self.info: NaviInfo | None = None
        # what accepting a task with problems does (Settings): "warn" asks first, "block" refuses
        self.problem_policy = problem_policy
        self.confirm: QMessageBox | None = None  # the open "accept anyway?" question

        self.progress = QLabel(wordWrap=True)
        self.original = QLabel(wordWrap=True, textFormat=Qt.RichText)
        self.ambiguous_view = QLabel(wordWrap=True, textFormat=Qt.RichText)
        compare = QGroupBox("Original and ambiguous task")
        row = QHBoxLayout(compare)
        for title, label in (("Original", self.original), ("Ambiguous", self.ambiguous_view)):
            box = QVBoxLayout()
            box.addWidget(QLabel(f"<b>{title}</b>"))
            box.addWidget(label)
            row.addLayout(box, 1)
        self.task = QPlainTextEdit()
        self.task.setMaximumHeight(70)
        self.steps = QListWidget()
        self.steps.setMaximumHeight(150)
        self.steps.itemChanged.connect(lambda _item: self.show_problems())
        steps_box = QGroupBox("Steps")  # what a tick means under the title, wrapped: in it, it widened the panel
        column = QVBoxLayout(steps_box)
        column.addWidget(QLabel("Checked: informative (a choice of the user)", wordWrap=True))
        column.addWidget(self.steps)
        self.checks = {key: QCheckBox(text) for key, text in CHECKLIST.items()}
        for check in self.checks.values():
            check.toggled.connect(lambda _on: self.show_problems())
        self.problems = QLabel(wordWrap=True)
        self.problems.setStyleSheet("color: #b42318")
        checklist = QGroupBox("Checklist")
        layout = QVBoxLayout(checklist)
        for check in self.checks.values():
            layout.addWidget(check)
        self.pairs_box = QGroupBox("Follow-up questions and answers")
        self.pairs_form = QFormLayout(self.pairs_box)
        self.pair_edits: list[tuple[QLineEdit, QLineEdit]] = []

        buttons, self.buttons = key_buttons((("review.accept", "Accept", lambda: self.accept_current()),
                                  ("review.reject", "Reject...", lambda: self.reject_current()),
                                  ("review.apply", "Save edits", lambda: self.apply_texts()),
                                  ("nav.prev", "Previous", lambda: self.navigate.emit(-1)),
                                  ("nav.next", "Next", lambda: self.navigate.emit(1))))

        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        outer.addWidget(self.progress)
        outer.addWidget(compare)
        outer.addWidget(QLabel(f"Ambiguous task ({hint(('review.edit', 'to edit'))}):"))
        outer.addWidget(self.task)
        outer.addWidget(steps_box)
        outer.addWidget(self.pairs_box)
        outer.addWidget(checklist)
        outer.addWidget(self.problems)
        self.queue_state = QLabel(wordWrap=True)
        outer.addWidget(self.queue_state)
        outer.addLayout(buttons)
        outer.addStretch(1)
        ws.stepLoaded.connect(self.refresh)
        self.refresh()

    # showing --------------------------------------------------------------------
    def update_progress(self) -> None:
        # the synthesis modules (the importers, the LLM client) when reviewing: this panel is built at start
        from desktop_app.synth.ambiguous import REVIEW_KIND

        counts = review_counts(self.ws.project, kind=REVIEW_KIND)
        total = sum(counts.values())
        reviewed = total - counts.get("pending", 0)
        accepted = counts.get("accepted", 0) + counts.get("edited", 0)
        rate = f" · {accepted / reviewed:.0%} of them accepted" if reviewed else ""
        self.progress.setText(f"<b>{reviewed} of {total} reviewed</b>{rate}<br>"
                              f"{html.escape(step_types_kept(self.ws.project).sentence(), quote=False)}")

    def refresh(self) -> None:
        self.update_progress()
        episode = self.ws.episode
        self.info = navi_of(episode) if episode is not None else None
        self.steps.blockSignals(True)
        self.steps.clear()
        for edits in self.pair_edits:
            for edit in edits:
                self.pairs_form.removeRow(edit)
        self.pair_edits = []
        if self.info is None:
            self.original.clear()
            self.ambiguous_view.clear()
            self.task.setPlainText("")
            self.steps.blockSignals(False)
            return
        left, right = highlight_removed(self.info.original_task, self.info.ambiguous_task)
        self.original.setText(left)
        self.ambiguous_view.setText(right)
        self.task.setPlainText(self.info.ambiguous_task)
        asked = {p.ask_step for p in self.info.qa_pairs}
        for i, step in enumerate(self.ws.steps):
            kind = self.info.step_kinds[i] if i < len(self.info.step_kinds) else ""
            item = QListWidgetItem(f"{i + 1}. {step.instruction or '(no instruction)'}"
                                   + ("   <- ask here" if i in asked else ""))
            item.setFlags(item.flags() | Qt.ItemIsUserCheckable)
            item.setCheckState(Qt.Checked if kind == "informative" else Qt.Unchecked)
            self.steps.addItem(item)
        self.steps.blockSignals(False)
        for pair in self.info.qa_pairs:
            question, answer = QLineEdit(pair.question), QLineEdit(pair.answer)
            if pair.llm:
                question.setToolTip(f"The model wrote: {pair.llm.get('question', '')}")
                answer.setToolTip(f"The model wrote: {pair.llm.get('answer', '')}")
            self.pairs_form.addRow(f"Q (step {pair.ask_step + 1})", question)
            self.pairs_form.addRow("A", answer)
            self.pair_edits.append((question, answer))
        for key, check in self.checks.items():
            check.blockSignals(True)
            check.setChecked(bool(self.info.checklist.get(key)))
            check.blockSignals(False)
        self.show_problems()

    def show_problems(self) -> list[str]:
        """What accepting the task as it stands on screen would be warned about, shown under the checklist."""
        current = self._current()
        found = problems(current) if current is not None else []
        self.problems.setText("".join(f"⚠ {html.escape(p, quote=False)}<br>" for p in found))
        return found

    def focus_texts(self) -> None:
        self.task.setFocus()

    # saving ------------------------------------------------------------------------
    def _current(self) -> NaviInfo | None:
        if self.info is None:
            return None
        kinds = ["informative" if self.steps.item(i).checkState() == Qt.Checked else "transactional"
                 for i in range(self.steps.count())]
        pairs = [QAPair(p.ask_step, p.removed_step, q.text().strip(), a.text().strip(), p.overlap, p.llm)
                 for p, (q, a) in zip(self.info.qa_pairs, self.pair_edits, strict=True)]
        return NaviInfo(self.info.original_task, self.task.toPlainText().strip(), pairs, kinds, self.info.llm,
                        {k: c.isChecked() for k, c in self.checks.items()}, self.info.source_episode)

    def apply_texts(self) -> bool:
        """Save the task, kinds and pairs as one undoable edit, or only the checklist when nothing else
        changed (the reviewer's record, not an edit of the sample); True when anything changed."""
        new = self._current()
        episode = self.ws.episode
        if new is None or episode is None or new.to_json() == self.info.to_json():
            return False
        only_ticks = replace(new, checklist=self.info.checklist).to_json() == self.info.to_json()
        if only_ticks:
            self.ws.edit_checklist(self.info.checklist, new.checklist)
        else:
            self.ws.edit_episode({"goal": new.ambiguous_task, "meta": with_navi(episode.meta, new)},
                                 "Edit ambiguous task")
        self.info = new
        return True

    def before_accept(self) -> None:
        self.apply_texts()

    def accept_current(self) -> None:
        """Accept, unless the task has problems: then ask first ("warn") or refuse ("block")."""
        if not self.can_decide():
            return
        found = self.show_problems()
        if not found:
            super().accept_current()
            return
        if self.problem_policy == "block":
            self.message.emit(f"Not accepted: {'; '.join(found)} (Settings allow accepting after a warning)")
            return
        episode_id = self.ws.episode.id
        self.confirm = QMessageBox(QMessageBox.Warning, "Accept this ambiguous task?",
                                   "\n".join(f"• {p}" for p in found), QMessageBox.Cancel, self)
        accept = self.confirm.addButton("Accept anyway", QMessageBox.AcceptRole)
        self.confirm.setDefaultButton(QMessageBox.Cancel)
        self.confirm.buttonClicked.connect(
            lambda button: button is accept and self.ws.episode is not None and self.ws.episode.id == episode_id
            and super(NaviReviewPanel, self).accept_current())
        self.confirm.open()

    def regenerate(self) -> None:
        """A new ambiguous variant from the same source episode, written by the LLM (off the UI thread)."""
        from desktop_app.synth.ambiguous import regenerate
        from desktop_app.synth.llm import LlmSession
        from desktop_app.ui.tasks import Task

        episode = self.ws.episode
        if episode is None or self.info is None:
            return
        if self.llm_endpoint is None:
            self.message.emit("Regenerating needs an LLM endpoint (Settings)")
            return
        project, endpoint, old_id, actor = self.ws.project, self.llm_endpoint, episode.id, self.ws.actor
        self.message.emit("Generating a new ambiguous task...")
        self._task = Task(lambda _progress: regenerate(project, old_id, LlmSession(endpoint), reviewer=actor), self,
                          wait="Generating an ambiguous task")
        self._task.finished.connect(self.replaced.emit)
        self._task.failed.connect(lambda exc: self.message.emit(f"Failed: {exc}"))
        self._task.start()
