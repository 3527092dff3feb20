"""Verification of grounding tasks (Sphinx): the model's one-line instruction beside the screen and its box.

Same keys as the other queues: Y accept, N reject with a reason, E edit the instruction, Ctrl+Enter save
it, A / D previous / next. The box is fixed on the canvas as usual (Capability > Snap to node / Promote to
clickable ancestor). Whether an accepted task counts as revised is read from the store, so it survives a
restart; the progress line gives the paper's provenance counts.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from desktop_app import api
from desktop_app.ui.plain import PlainLabel
from desktop_app.ui.review_panel import RejectDialog, Verdicts, key_buttons
from desktop_app.ui.shortcuts import hint
from desktop_app.ui.workspace import Workspace

REJECT_REASONS = ("unclear screenshot", "inaccurate instruction", "wrong ground-truth element",
                  "duplicate of another task", "other")


class GroundingReviewPanel(Verdicts, QWidget):
    reviewed = Signal(int)
    unreviewed = Signal(int)
    replaced = Signal(int)  # unused here; the review stack connects it for every panel
    navigate = Signal(int)
    message = Signal(str)

    def __init__(self, ws: Workspace, parent=None):
        super().__init__(parent)
        self.setObjectName("grounding-review")
        self.ws = ws
        self.progress = QLabel(wordWrap=True)
        self.progress.setTextFormat(Qt.PlainText)
        self.written = PlainLabel()
        self.written.setTextFormat(Qt.PlainText)  # a model's words are data, never markup
        self.written.setStyleSheet("color: gray")
        self.instruction = QLineEdit(placeholderText="the one-line instruction ("
                                     f"{hint(('review.edit', 'to edit'), ('review.apply', 'to save'))})")
        self.instruction.returnPressed.connect(self.save_instruction)
        self.source = PlainLabel()
        self.source.setTextFormat(Qt.PlainText)
        self.source.setStyleSheet("color: gray")
        box = QGroupBox("Grounding task")
        form = QFormLayout(box)
        form.addRow("Written by the model", self.written)
        form.addRow("Instruction", self.instruction)
        form.addRow("From", self.source)
        buttons, self.buttons = key_buttons((("review.accept", "Accept", lambda: self.accept_current()),
                                  ("review.reject", "Reject...", lambda: self.reject_current()),
                                  ("review.apply", "Save text", lambda: self.save_instruction()),
                                  ("nav.prev", "Previous", lambda: self.navigate.emit(-1)),
                                  ("nav.next", "Next", lambda: self.navigate.emit(1))))
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        outer.addWidget(self.progress)
        outer.addWidget(box)
        self.queue_state = QLabel(wordWrap=True)
        outer.addWidget(self.queue_state)
        outer.addLayout(buttons)
        outer.addStretch(1)
        ws.stepLoaded.connect(self.refresh)
        self.refresh()

    # the review stack calls these, as on the other panels --------------------------------------
    def focus_texts(self) -> None:
        self.instruction.setFocus()
        self.instruction.selectAll()

    def apply_texts(self) -> None:
        self.save_instruction()

    def update_progress(self) -> None:
        self.refresh()

    def regenerate(self) -> None:
        self.message.emit("Grounding instructions are rewritten from Capability > Write grounding instructions")

    # showing -----------------------------------------------------------------------------------
    def refresh(self, *_args) -> None:
        episode = self.ws.episode
        if episode is None or episode.scenario != "grounding":  # another queue's sample: not shown now
            return
        counts = api.grounding_provenance(self.ws.project)
        self.progress.setText(
            f"{counts['tasks']} grounding tasks, {counts['written']} written by the model: kept {counts['kept']} "
            f"(revised {counts['revised']}), removed {counts['removed']}, boxes fixed {counts['boxes_fixed']}; "
            f"{counts['pending']} to verify")
        self.instruction.setText(episode.goal)
        written = api.grounding_written(self.ws.project, episode.id)
        if written is not None:
            self.written.setText(written)
        else:
            self.written.setText("(imported, not written by a model)" if episode.goal else
                                 "(no instruction yet: Capability > Write grounding instructions, or type one)")
        info = (episode.meta or {}).get("capability") or {}
        source = info.get("source") or {}
        self.source.setText(f"{source.get('episode', info.get('app', ''))}"
                            + (f", step {source['step'] + 1}" if "step" in source else "")
                            + f" · status {episode.review_status}")

    # deciding ----------------------------------------------------------------------------------
    def save_instruction(self) -> None:
        episode = self.ws.episode
        text = " ".join(self.instruction.text().split())
        if episode is None or not text or text == episode.goal:
            return
        self.ws.edit_episode({"goal": text}, "Edit instruction")  # undoable, like every edit
        self.message.emit(f"{episode.key}: instruction saved")

    def before_accept(self) -> None:
        self.save_instruction()

    def decide(self, episode_id: int, decision: str, reason: str = "") -> str:
        # the grounding set's own rule for "edited" (the text or the box changed since the model wrote it)
        return api.verify_grounding_task(self.ws.project, episode_id, decision, reason, reviewer=self.ws.actor)

    def ask_reason(self) -> str | None:
        dialog = RejectDialog(self, REJECT_REASONS, "Reject grounding task")
        return dialog.text() if dialog.exec() else None
