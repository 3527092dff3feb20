"""The verification queue: one generated sample at a time, keyboard first.

Y accept, N reject (with a reason), E edit the texts (applied with Ctrl+Enter: the page is
re-rendered and its boxes re-read), G regenerate, A / D previous / next as everywhere else
(ui/shortcuts.py: one meaning per key). A sample whose boxes or texts were changed since it was
generated is recorded as "edited" when accepted (the store decides, so a restart in between changes
nothing). A verdict is undone with Ctrl+Z like any edit.
"""

from __future__ import annotations

import json

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.api.review import REJECT_REASONS, decide_review, review_counts, review_items
from desktop_app.synth.editing import editable_texts, with_texts
from desktop_app.ui.fit import FlowLayout
from desktop_app.ui.plain import PlainLabel
from desktop_app.ui.shortcuts import default_key, hint, key_name, printed
from desktop_app.ui.workspace import Workspace


class RejectDialog(QDialog):
    """A reason from the queue's list, and optional details."""

    def __init__(self, parent=None, reasons: tuple[str, ...] = REJECT_REASONS, title: str = "Reject sample"):
        super().__init__(parent)
        self.setWindowTitle(title)
        self.reason = QComboBox()
        self.reason.addItems(list(reasons))
        self.detail = QLineEdit(placeholderText="what is wrong (optional)")
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("Reason", self.reason)
        form.addRow("Details", self.detail)
        form.addRow(buttons)

    def text(self) -> str:
        detail = self.detail.text().strip()
        return self.reason.currentText() + (f": {detail}" if detail else "")


VERDICT_ACTIONS = ("review.accept", "review.reject", "nav.prev", "nav.next")


def key_buttons(entries) -> tuple[FlowLayout, dict[str, QPushButton]]:
    """The queue's row of buttons, each labelled with its key: entries of (action id, text, slot); the
    buttons are returned by key. The row wraps onto a second line in a narrow panel (the last buttons were
    cut off at the dock's edge)."""
    row, buttons = FlowLayout(), {}
    for action_id, text, slot in entries:
        key = printed(default_key(action_id))  # the key's name as printed on keyboards
        button = QPushButton(f"{text} ({key})")
        button.clicked.connect(slot)
        row.addWidget(button)
        buttons[key] = button
    return row, buttons


class Verdicts:
    """Accept / reject of the episode on screen, shared by the verification panels, each an undoable step
    (with what before_accept saved, as one). A panel has `ws` and the `message` / `reviewed` /
    `unreviewed` signals; the store decides accepted or edited (store/review.decide)."""

    def can_decide(self) -> bool:
        return self.ws.episode is not None

    def show_queue(self, waiting: int, counting: bool = False) -> None:
        """How many samples the list holds for review (every kind, unlike the panel's own counts), and the
        verdict keys' buttons usable only with a sample on screen; an empty list says the queue is done.
        `counting`: the list holds its first page while the rest is counted (a big project): "200+"."""
        shown = self.ws.episode is not None
        for key in (default_key("review.accept"), default_key("review.reject"), default_key("review.regenerate")):
            if key in self.buttons:
                self.buttons[key].setEnabled(shown)
        size = f"{waiting:,}+ samples" if counting else f"{waiting:,} sample{'s' if waiting != 1 else ''}"
        counted = " (counting...)" if counting else ""
        if waiting == 0:
            self.queue_state.setText(f"<b>Queue done</b>: no sample waits for review. {key_name('review.mode')} "
                                     "leaves the queue.")
        elif not shown:
            self.queue_state.setText(f"{size} wait for review{counted}: choose one in the list.")
        else:
            self.queue_state.setText(f"{size} in the queue{counted or ' (the list, all kinds)'}.")

    def before_accept(self) -> None:
        """Save what is still being typed (panels with text fields)."""

    def decide(self, episode_id: int, decision: str, reason: str = "") -> str:
        """Record the verdict in the store; returns the status stored."""
        return decide_review(self.ws.project, episode_id, decision, self.ws.actor, reason)

    def accept_current(self) -> None:
        if not self.can_decide():
            return
        episode = self.ws.episode
        self.ws.undo_stack.beginMacro(f"Accept {episode.key}")
        try:
            self.before_accept()
            self.ws.record_verdict(f"Accept {episode.key}", lambda: self.decide(episode.id, "accept"),
                                   self._verdict_done(episode.key))
        finally:
            self.ws.undo_stack.endMacro()

    def reject_current(self, reason: str | None = None) -> None:
        if not self.can_decide():
            return
        episode = self.ws.episode
        if reason is None:
            reason = self.ask_reason()
            if reason is None:
                return
            current = self.ws.episode
            if current is None or current.id != episode.id:  # the panel moved on while the dialog was open
                self.message.emit(f"{episode.key}: not rejected (another sample is shown now)")
                return
        self.ws.record_verdict(f"Reject {episode.key}", lambda: self.decide(episode.id, "reject", reason),
                               self._verdict_done(episode.key, reason))

    def ask_reason(self) -> str | None:
        dialog = RejectDialog(self)
        return dialog.text() if dialog.exec() else None

    def _verdict_done(self, key: str, reason: str = ""):
        def done(episode_id: int, status: str, undone: bool) -> None:
            if undone:
                self.message.emit(f"{key}: back to {status} (undone)")
                self.unreviewed.emit(episode_id)
            else:
                self.message.emit(f"{key}: {status}" + (f" ({reason})" if reason and status == "rejected" else ""))
                self.reviewed.emit(episode_id)
        return done


class ReviewPanel(Verdicts, QWidget):
    reviewed = Signal(int)  # episode id whose verdict changed
    unreviewed = Signal(int)  # episode id whose verdict an undo took back
    replaced = Signal(int)  # a regenerated sample's new episode id
    navigate = Signal(int)  # -1 previous, +1 next
    message = Signal(str)

    def __init__(self, ws: Workspace, render_service, llm_endpoint=None, parent=None):
        super().__init__(parent)
        self.setObjectName("review")
        self.ws = ws
        self.render = render_service
        self.llm_endpoint = llm_endpoint
        self.busy = False

        self.progress = QLabel()
        self.progress.setWordWrap(True)
        self.goal = PlainLabel()
        self.purpose = PlainLabel()
        self.expression = PlainLabel()
        self.source = PlainLabel()
        self.source.setStyleSheet("color: gray")
        info = QGroupBox("Sample")
        form = QFormLayout(info)
        form.addRow("Goal", self.goal)
        form.addRow("Distraction", self.purpose)
        form.addRow("Shown as", self.expression)
        form.addRow(self.source)

        self.texts_box = QGroupBox("Texts on the screen")  # the keys under the title, wrapped: in it, they
        self.texts_form = QFormLayout(self.texts_box)  # widened the panel
        self.texts_form.addRow(QLabel(hint(("review.edit", "to edit"), ("review.apply", "to re-render")), wordWrap=True))
        self.text_edits: list[tuple[tuple, QLineEdit]] = []
        self.apply_button = QPushButton("Apply texts and re-render")
        self.apply_button.clicked.connect(self.apply_texts)

        buttons, self.buttons = key_buttons((("review.accept", "Accept", lambda: self.accept_current()),
                                             ("review.reject", "Reject...", lambda: self.reject_current()),
                                             ("review.regenerate", "Regenerate", lambda: self.regenerate()),
                                             ("nav.prev", "Previous", lambda: self.navigate.emit(-1)),
                                             ("nav.next", "Next", lambda: self.navigate.emit(1))))
        self.provenance = QPushButton("Prompts and raw answers...")
        self.provenance.clicked.connect(self.show_provenance)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.progress)
        layout.addWidget(info)
        layout.addWidget(self.texts_box)
        layout.addWidget(self.apply_button)
        self.queue_state = QLabel(wordWrap=True)
        layout.addWidget(self.queue_state)
        layout.addLayout(buttons)
        layout.addWidget(self.provenance)
        layout.addStretch(1)

        ws.stepLoaded.connect(self.refresh)
        self.refresh()

    # showing --------------------------------------------------------------------
    def update_progress(self) -> None:
        # the synthesis modules (the importers, the templates) when reviewing: the window builds this panel at start
        from desktop_app.synth.save import REVIEW_KIND

        counts = review_counts(self.ws.project, kind=REVIEW_KIND)
        total = sum(counts.values())
        done = total - counts.get("pending", 0)
        self.progress.setText(f"<b>{done} of {total} reviewed</b> · {counts.get('pending', 0)} pending · "
                              f"{counts.get('accepted', 0)} accepted · {counts.get('edited', 0)} edited · "
                              f"{counts.get('rejected', 0)} rejected")

    def refresh(self) -> None:
        self.update_progress()
        episode = self.ws.episode
        for _, edit in self.text_edits:
            self.texts_form.removeRow(edit)
        self.text_edits = []
        if episode is None:
            for label in (self.goal, self.purpose, self.expression, self.source):
                label.clear()
            return
        meta = episode.meta or {}
        self.goal.setText(episode.goal)
        distractor = meta.get("distractor", {})
        self.purpose.setText(distractor.get("Actual purpose", "-"))
        self.expression.setText(distractor.get("Expression", "-"))
        bits = [f"status {episode.review_status}", f"made by {meta.get('generator', '?')}"]
        if meta.get("injection", "none") != "none":
            bits.append(f"injection: {meta['injection']}")
        if meta.get("mode") == "overlay":
            bits.append(f"pop-up drawn over {meta.get('source_episode')}")
        self.source.setText(" · ".join(bits))
        scenario = "overlay" if meta.get("mode") == "overlay" else episode.scenario
        for path, label, value in editable_texts(scenario, meta.get("content", {})):
            edit = QLineEdit(value)
            edit.returnPressed.connect(self.apply_texts)
            self.texts_form.addRow(label, edit)
            self.text_edits.append((path, edit))
        self.texts_box.setEnabled(bool(self.text_edits) and meta.get("mode") != "overlay")

    def focus_texts(self) -> None:
        if self.text_edits:
            self.text_edits[0][1].setFocus()
            self.text_edits[0][1].selectAll()

    # verdicts -------------------------------------------------------------------
    def can_decide(self) -> bool:
        return self.ws.episode is not None and not self.busy

    # re-rendering and regenerating (in the browser thread) ------------------------
    def apply_texts(self) -> None:
        episode = self.ws.episode
        if episode is None or self.busy or not self.text_edits:
            return
        changes = {path: edit.text() for path, edit in self.text_edits}
        content = with_texts(episode.meta.get("content", {}), changes)
        if content == episode.meta.get("content"):
            return
        from desktop_app.synth.save import rerender_episode

        project, episode_id, actor = self.ws.project, episode.id, self.ws.actor
        self._start("Re-rendering...")
        self.render.submit(lambda r: rerender_episode(project, episode_id, content, r, actor),
                           lambda _: self._rerendered(episode_id), self._failed)

    def _rerendered(self, episode_id: int) -> None:
        self.busy = False
        self.message.emit("Re-rendered; boxes read again from the page")
        self.ws.undo_stack.clear()  # earlier box edits refer to boxes the new page replaced
        self.ws.reload()

    def regenerate(self) -> None:
        from desktop_app.synth.generate import regenerate

        episode = self.ws.episode
        if episode is None or self.busy:
            return
        project, episode_id, endpoint = self.ws.project, episode.id, self.llm_endpoint
        self._start("Generating a new sample...")
        self.render.submit(lambda r: regenerate(project, episode_id, r, endpoint),
                           self._regenerated, self._failed)

    def _regenerated(self, new_id: int) -> None:
        self.busy = False
        self.message.emit("Regenerated: the old sample is rejected, the new one is pending")
        self.replaced.emit(new_id)

    def _start(self, text: str) -> None:
        self.busy = True
        self.message.emit(text)

    def _failed(self, exc: Exception) -> None:
        self.busy = False
        self.message.emit(f"Failed: {exc}")

    def show_provenance(self) -> None:
        episode = self.ws.episode
        if episode is None:
            return
        items = review_items(self.ws.project, episode.id)
        dialog = QDialog(self)
        dialog.setWindowTitle(f"Provenance of {episode.key}")
        dialog.resize(760, 560)
        view = QPlainTextEdit(readOnly=True)
        view.setPlainText(json.dumps([{"kind": i.kind, "generator": i.generator, "prompt": i.prompt,
                                       "status": i.status, "reviewer": i.reviewer, "reason": i.reason,
                                       "payload": i.payload} for i in items], indent=2, ensure_ascii=False))
        QVBoxLayout(dialog).addWidget(view)
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        dialog.open()
