"""The centre of the trajectory labeller: the task (large), policy and the agent's final response, the
selected frame with its action drawn on it, the strip of frames (the final one emphasised) and the
numbered actions with my step labels, the selected step highlighted in all three."""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QListWidget, QVBoxLayout, QWidget

from desktop_app.ui.judge.filmstrip_frames import Frame, FrameView, StepStrip
from desktop_app.ui.plain import PlainLabel


class TrajectoryDisplay(QWidget):
    stepChosen = Signal(int)  # a thumbnail or an action was clicked

    def __init__(self, parent=None):
        super().__init__(parent)
        self.trajectory = None
        self.selected = 0
        self.step_labels: list[str] = []
        self.intent = PlainLabel()
        big = QFont(self.intent.font())
        big.setPointSizeF(big.pointSizeF() * 1.45)
        big.setBold(True)
        self.intent.setFont(big)
        self.intent.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.details = PlainLabel()  # the key and the policy are a dataset's or an agent's text: never markup
        self.details.setStyleSheet("color: gray")
        self.response = QLabel(wordWrap=True)
        self.response.setTextFormat(Qt.RichText)
        self.response.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.frame_view = FrameView()
        self.caption = PlainLabel()
        self.strip = StepStrip()
        self.strip.stepChosen.connect(self.stepChosen)
        self.actions = QListWidget()
        self.actions.setFocusPolicy(Qt.NoFocus)
        self.actions.setMaximumHeight(150)
        self.actions.currentRowChanged.connect(lambda row: row >= 0 and row != self.selected
                                               and self.stepChosen.emit(row))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        for widget, stretch in ((self.intent, 0), (self.details, 0), (self.response, 0), (self.frame_view, 1),
                                (self.caption, 0), (self.strip, 0), (self.actions, 0)):
            layout.addWidget(widget, stretch)

    def show_trajectory(self, trajectory, frame_of: Callable[[str], Frame | None]) -> None:
        """A Trajectory, with the frames already decoded (frame_of(sha256)); the others come with frame_ready."""
        self.trajectory, self.step_labels = trajectory, [""] * len(trajectory.steps)
        self.intent.setText(trajectory.intent or "(no task)")
        self.details.setText(f"{trajectory.key} · policy {trajectory.policy or '-'} · {trajectory.platform} · "
                             f"{len(trajectory.steps)} steps")
        self.response.setText(f"Agent's final response: <i>{escape(trajectory.response)}</i>" if trajectory.response
                              else "<span style='color:gray'>The agent gave no final response.</span>")
        self.strip.set_steps([(s.action.points, s.width / s.height if s.height else 0) for s in trajectory.steps])
        for i, step in enumerate(trajectory.steps):
            self.strip.set_frame(i, frame_of(step.sha256))
        self.actions.blockSignals(True)
        self.actions.clear()
        self.actions.addItems([f"{s.index + 1}: {s.action.text}" for s in trajectory.steps])
        self.actions.blockSignals(False)

    def select(self, index: int, frame: Frame | None) -> None:
        self.selected = index
        step = self.trajectory.steps[index]
        self.frame_view.set_frame(frame, step.action.points)
        self.strip.set_current(index)
        self.actions.blockSignals(True)
        self.actions.setCurrentRow(index)
        self.actions.blockSignals(False)
        self._caption()

    def step_title(self, index: int) -> str:
        steps = self.trajectory.steps
        return f"Step {index + 1} of {len(steps)}{' (final)' if index == len(steps) - 1 else ''}: " \
               f"{steps[index].action.text}"

    def set_step_labels(self, labels: list[str]) -> None:
        """My step labels beside the actions and under the thumbnails."""
        if self.trajectory is None:
            return
        self.step_labels = list(labels)
        for i, step in enumerate(self.trajectory.steps):
            label = labels[i] if i < len(labels) else ""
            item = self.actions.item(i)
            if item is not None:
                item.setText(f"{i + 1}: {step.action.text}" + (f"      [{label}]" if label else ""))
            self.strip.set_note(i, label)
        self._caption()

    def _caption(self) -> None:
        if self.trajectory is None or not 0 <= self.selected < len(self.trajectory.steps):
            return
        mine = self.step_labels[self.selected] if self.selected < len(self.step_labels) else ""
        self.caption.setText(self.step_title(self.selected) + (f"  ·  my label: {mine}" if mine else ""))

    def frame_ready(self, sha: str, frame: Frame | None) -> None:
        if self.trajectory is None:
            return
        for i, step in enumerate(self.trajectory.steps):
            if step.sha256 == sha:
                self.strip.set_frame(i, frame)
                if i == self.selected:
                    self.frame_view.set_frame(frame, step.action.points)

    def clear(self, text: str = "") -> None:
        self.trajectory, self.step_labels = None, []
        for label in (self.intent, self.details, self.response, self.caption):
            label.clear()
        self.frame_view.set_frame(None, (), text or " ")
        self.strip.set_steps([])
        self.actions.clear()
