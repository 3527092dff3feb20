"""Trial replay: one browsing trial step by step (Left / Right, or the buttons): the viewport the agent saw
at that step, the target's box on it, the click where the agent clicked (last step), its thought, its
raw answer, and what the judge said of the whole trial."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.shortcuts import BY_ID, key_name
from desktop_app.ui.vaf.page_view import ITEM, TARGET, PageView
from desktop_app.vaf.figures import HIT, NOTHING, OTHER

MENTION = {None: "not judged", 0: "target not mentioned", 1: "target mentioned"}


def trial_line(trial: dict) -> str:
    """One short line per trial, for the list: what was clicked, steps, whether the target was mentioned."""
    mark = "✓ target" if trial["target_click"] else ("other item" if trial.get("hit_item") is not None
                                                     else "no item" if trial.get("click") else trial["ended"])
    mention = {1: " · mentioned", 0: " · not mentioned"}.get(trial.get("mention"), "")
    if trial.get("mention") is None and (trial.get("judge") or {}).get("failed"):
        mention = " · judge failed"
    return f"{trial['trial']}: {mark} · {len(trial['steps'])} steps{mention}"


def action_text(action: dict) -> str:
    kind = action.get("kind", "")
    if kind == "scroll":
        return f"scroll {action.get('direction', '')}"
    if kind == "click" and action.get("point"):
        x, y = action["point"]
        return f"click at ({x:.0f}, {y:.0f})"
    return f"not an action: {action.get('error') or 'unreadable'}"


def _on_screen(box, scroll: int, height: int):
    """A page box in the coordinates of the viewport at `scroll`, cut to it (None when it is not in view)."""
    if not box:
        return None
    y1, y2 = max(0.0, box[1] - scroll), min(float(height), box[3] - scroll)
    return (box[0], y1, box[2], y2) if y2 - y1 >= 1 else None


class TrialReplay(QWidget):
    stepShown = Signal(int)  # index of the step shown

    def __init__(self, keys_host: QWidget | None = None, parent=None):
        """keys_host: the widget whose focus makes Left / Right step (default: the replay itself; the results
        tab gives the pane that also holds the list of trials)."""
        super().__init__(parent)
        self.trial: dict | None = None
        self.variant = None
        self.load_png: Callable[[int], bytes | None] = lambda _step_id: None
        self.index = 0
        self.header = QLabel("Choose a trial")
        self.header.setWordWrap(True)
        self.header.setTextFormat(Qt.PlainText)
        self.header.setStyleSheet("font-weight: bold")
        self.view = PageView("page")
        self.step_label = QLabel()
        self.step_label.setTextFormat(Qt.PlainText)
        self.prev_button = QPushButton(f"◀ Previous step ({key_name('replay.prev')})")
        self.next_button = QPushButton(f"Next step ({key_name('replay.next')}) ▶")
        self.prev_button.clicked.connect(lambda: self.go(-1))
        self.next_button.clicked.connect(lambda: self.go(1))
        for action_id, delta in (("replay.prev", -1), ("replay.next", 1)):
            for key in BY_ID[action_id].keys:  # from ui/shortcuts.py's table
                shortcut = QShortcut(QKeySequence(key), keys_host or self)
                shortcut.setContext(Qt.WidgetWithChildrenShortcut)
                shortcut.activated.connect(lambda d=delta: self.go(d))
        nav = QHBoxLayout()
        nav.addWidget(self.prev_button)
        nav.addWidget(self.step_label, 1, Qt.AlignCenter)
        nav.addWidget(self.next_button)
        self.thought = QPlainTextEdit(readOnly=True)
        self.raw = QPlainTextEdit(readOnly=True)
        for edit in (self.thought, self.raw):
            edit.setFocusPolicy(Qt.NoFocus)  # Left / Right stay the replay's keys
        self.judge = QLabel()
        self.judge.setWordWrap(True)
        self.judge.setTextFormat(Qt.PlainText)
        texts = QWidget()
        texts_layout = QVBoxLayout(texts)
        texts_layout.setContentsMargins(0, 0, 0, 0)
        texts_layout.addWidget(QLabel("Thought"))
        texts_layout.addWidget(self.thought, 2)
        texts_layout.addWidget(QLabel("Raw answer"))
        texts_layout.addWidget(self.raw, 2)
        texts_layout.addWidget(QLabel("Judge"))
        texts_layout.addWidget(self.judge)
        split = QSplitter(Qt.Horizontal)
        split.addWidget(self.view)
        split.addWidget(texts)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([560, 320])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.header)
        layout.addWidget(split, 1)
        layout.addLayout(nav)
        self.set_trial(None)

    def set_trial(self, trial: dict | None, variant=None, load_png: Callable[[int], bytes | None] | None = None,
                  keep_step: bool = False) -> None:
        """keep_step: the same trial read again; stay on the step shown."""
        index = self.index if keep_step and trial is not None and self.trial is not None \
            and trial.get("trial") == self.trial.get("trial") else 0
        self.trial, self.variant = trial, variant
        if load_png is not None:
            self.load_png = load_png
        self.index = 0
        if trial is None:
            self.header.setText("Choose a trial")
            self.view.clear("No trial chosen")
            for edit in (self.thought, self.raw):
                edit.setPlainText("")
            self.judge.setText("")
            self.step_label.setText("")
            self._buttons()
            return
        clicked = "target clicked" if trial["target_click"] else "target not clicked"
        self.header.setText(f"Trial {trial['trial']}: ended by {trial['ended']}, {clicked}, "
                            f"{MENTION.get(trial.get('mention'), '')}"
                            + (f" ({trial['error'][:120]}; resume the run to ask again)" if trial.get("error") else ""))
        judge = trial.get("judge") or {}
        if judge.get("failed"):
            self.judge.setText(f"{MENTION.get(trial.get('mention'))}: the judge's reply could not be read "
                               f"({judge.get('error', '')})")
        elif judge.get("error"):
            self.judge.setText(f"not judged yet: the request failed ({judge['error'][:120]}); resuming the run "
                               f"asks the judge again")
        else:
            reason = judge.get("reasoning") or ""
            self.judge.setText(MENTION.get(trial.get("mention"), "") + (f": {reason}" if reason else ""))
        self.show_step(min(index, max(0, len(self.steps()) - 1)))

    def steps(self) -> list[dict]:
        return list((self.trial or {}).get("steps") or [])

    def go(self, delta: int) -> None:
        if self.trial is not None:
            self.show_step(min(max(self.index + delta, 0), len(self.steps()) - 1))

    def show_step(self, index: int) -> None:
        steps = self.steps()
        if not steps:
            self.view.clear("This trial has no steps")
            self._buttons()
            return
        self.index = index
        step = steps[index]
        action = step.get("action") or {}
        scroll = int(step.get("scroll_y") or 0)
        self.view.set_png(self.load_png(step["step_id"]) if step.get("step_id") else None,
                          "The screenshot of this step is missing")
        if self.variant is not None:
            height = self.view.picture_size()[1]
            for item in self.variant.items:
                if item.get("box") and not item.get("target"):
                    self.view.add_box(_on_screen(item["box"], scroll, height), ITEM, 1, dashed=True)
            self.view.add_box(_on_screen(self.variant.target, scroll, height), TARGET, 2.5, tip="the target")
        last = index == len(steps) - 1
        if last and action.get("kind") == "click" and action.get("point"):
            x, y = action["point"]
            colour = HIT if self.trial["target_click"] else OTHER if self.trial.get("hit_item") is not None \
                else NOTHING
            self.view.add_dot(x, y, colour, 8, tip=action_text(action))
        self.step_label.setText(f"Step {index + 1} of {len(steps)} · at {scroll} px · {action_text(action)}")
        self.thought.setPlainText(action.get("thought") or "")
        self.raw.setPlainText(step.get("raw") or "")
        self._buttons()
        self.stepShown.emit(index)

    def _buttons(self) -> None:
        n = len(self.steps())
        self.prev_button.setEnabled(n > 0 and self.index > 0)
        self.next_button.setEnabled(n > 0 and self.index < n - 1)
