"""The verification queue: one generated sample at a time, keyboard first.

A accept, R reject (with a reason), E edit the texts (applied with Ctrl+Enter: the page is
re-rendered and its boxes re-read), G regenerate, N / P next / previous. A sample whose
boxes or texts were changed during its review is recorded as "edited" when accepted.
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
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)
from sqlmodel import select

from desktop_app.store import models as m
from desktop_app.store.review import REJECT_REASONS, review_counts, set_review
from desktop_app.synth.editing import editable_texts, with_texts
from desktop_app.synth.save import REVIEW_KIND, rerender_episode
from desktop_app.ui.plain import PlainLabel
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


def key_buttons(entries) -> tuple[QHBoxLayout, dict[str, QPushButton]]:
    """The queue's row of buttons, each labelled with its key: entries of (key, text, slot)."""
    row, buttons = QHBoxLayout(), {}
    for key, text, slot in entries:
        button = QPushButton(f"{text} ({key})")
        button.clicked.connect(slot)
        row.addWidget(button)
        buttons[key] = button
    return row, buttons


class Verdicts:
    """Accept / reject of the episode on screen, shared by the verification panels. A panel has
    `ws`, `edited` (ids of episodes changed before their verdict) and `message` / `reviewed` signals."""

    def can_decide(self) -> bool:
        return self.ws.episode is not None

    def before_accept(self) -> None:
        """Save what is still being typed (panels with text fields)."""

    def accept_current(self) -> None:
        if not self.can_decide():
            return
        self.before_accept()
        episode = self.ws.episode
        self._record(episode, "edited" if episode.id in self.edited else "accepted")

    def reject_current(self, reason: str | None = None) -> None:
        if not self.can_decide():
            return
        episode = self.ws.episode
        if reason is None:
            dialog = RejectDialog(self)
            if not dialog.exec():
                return
            reason = dialog.text()
            current = self.ws.episode
            if current is None or current.id != episode.id:  # the panel moved on while the dialog was open
                self.message.emit(f"{episode.key}: not rejected (another sample is shown now)")
                return
        self._record(episode, "rejected", reason)

    def _record(self, episode, status: str, reason: str = "") -> None:
        set_review(self.ws.project, episode.id, status, self.ws.actor, reason)
        self.message.emit(f"{episode.key}: {status}" + (f" ({reason})" if reason else ""))
        self.reviewed.emit(episode.id)


class ReviewPanel(Verdicts, QWidget):
    reviewed = Signal(int)  # episode id whose verdict changed
    replaced = Signal(int)  # a regenerated sample's new episode id
    navigate = Signal(int)  # -1 previous, +1 next
    message = Signal(str)

    def __init__(self, ws: Workspace, render_service, llm_endpoint=None, parent=None):
        super().__init__(parent)
        self.setObjectName("review")
        self.ws = ws
        self.render = render_service
        self.llm_endpoint = llm_endpoint
        self.edited: set[int] = set()  # episodes changed while under review
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

        self.texts_box = QGroupBox("Texts on the screen (E to edit, Ctrl+Enter to re-render)")
        self.texts_form = QFormLayout(self.texts_box)
        self.text_edits: list[tuple[tuple, QLineEdit]] = []
        self.apply_button = QPushButton("Apply texts and re-render")
        self.apply_button.clicked.connect(self.apply_texts)

        buttons, self.buttons = key_buttons((("A", "Accept", lambda: self.accept_current()),
                                             ("R", "Reject...", lambda: self.reject_current()),
                                             ("G", "Regenerate", lambda: self.regenerate()),
                                             ("P", "Previous", lambda: self.navigate.emit(-1)),
                                             ("N", "Next", lambda: self.navigate.emit(1))))
        self.provenance = QPushButton("Prompts and raw answers...")
        self.provenance.clicked.connect(self.show_provenance)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.progress)
        layout.addWidget(info)
        layout.addWidget(self.texts_box)
        layout.addWidget(self.apply_button)
        layout.addLayout(buttons)
        layout.addWidget(self.provenance)
        layout.addStretch(1)

        ws.stepLoaded.connect(self.refresh)
        ws.written.connect(self._changed)
        self.refresh()

    # showing --------------------------------------------------------------------
    def _changed(self) -> None:
        if self.ws.episode is not None and self.isVisible():
            self.edited.add(self.ws.episode.id)

    def update_progress(self) -> None:
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
        project, episode_id, actor = self.ws.project, episode.id, self.ws.actor
        self._start("Re-rendering...")
        self.render.submit(lambda r: rerender_episode(project, episode_id, content, r, actor),
                           lambda _: self._rerendered(episode_id), self._failed)

    def _rerendered(self, episode_id: int) -> None:
        self.busy = False
        self.edited.add(episode_id)
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
        with self.ws.project.reading() as s:
            items = s.exec(select(m.ReviewItem).where(m.ReviewItem.episode_id == episode.id)).all()
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
