"""The right side of the trajectory labeller: my outcome and step labels, the comment, others' labels and
judges' verdicts (hidden in blind mode), and the review of one judge verdict when one was asked for.

The panel holds the label being made (outcome, step labels, comment) until it is saved; the view
(trajectory_view.py) reads the keys, stores labels and reviews through the API, and moves on.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from desktop_app.judging.labels import OUTCOMES, REVIEW_TAGS, STEP_LABELS, Label
from desktop_app.ui.judge.filmstrip_frames import SHORT
from desktop_app.ui.shortcuts import key_name, key_names

# outcome -> (button text, key) and key -> step label; the keys are ui/shortcuts.py's (judge.outcome.*,
# judge.step.*), read by the view (trajectory_view.py), the buttons by the mouse
OUTCOME_TEXT = {"success": "Success", "failure": "Failure", "impossible": "Impossible", "unsure": "Unsure",
                "emulator_error": "Emulator error"}
OUTCOME_KEYS = {name: (text, key_name(f"judge.outcome.{name}")) for name, text in OUTCOME_TEXT.items()}
STEP_KEYS = {key_name(f"judge.step.{name}"): name for name in STEP_LABELS}  # 1-4, in STEP_LABELS' order
NO_ANNOTATOR = "Set your annotator name in Edit > Settings to label trajectories."
KEYS_HELP = (f"{' / '.join(key for _text, key in OUTCOME_KEYS.values())} outcome · "
             f"{min(STEP_KEYS)}-{max(STEP_KEYS)} label the selected step ({key_names('judge.step.clear')} clears) · "
             f"{key_name('judge.step.prev')} / {key_name('judge.step.next')} step · "
             f"{key_name('judge.save_next')} save and next · {key_names('judge.next', joiner=' or ')} / "
             f"{key_names('judge.prev', joiner=' or ')} next / previous without saving · "
             f"{key_name('judge.filter')} filter")


def _status(text: str, error: bool) -> str:
    colour = "#CC3311" if error else "#2e8b57"
    return f"<span style='color:{colour}'>{escape(text)}</span>" if text else ""


class LabelPanel(QWidget):
    changed = Signal()  # outcome, a step label or the comment changed (not saved yet)
    saveRequested = Signal()
    navigate = Signal(int)  # -1 previous, +1 next (without saving)
    reviewRequested = Signal(str)  # "accept" | "override"
    blindToggled = Signal(bool)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.outcome: str | None = None
        self.step_labels: list[str] = []
        self.selected = 0
        self.dirty = False
        self.annotator = ""

        self.who = QLabel(wordWrap=True)
        self.who.setTextFormat(Qt.RichText)
        outcome_box = QGroupBox("Outcome of the whole trajectory")
        grid = QGridLayout(outcome_box)
        self.outcome_buttons: dict[str, QPushButton] = {}
        for i, name in enumerate(OUTCOMES):
            text, key = OUTCOME_KEYS.get(name, (name, ""))
            button = QPushButton(f"{text} ({key})" if key else text)
            button.setCheckable(True)
            button.setFocusPolicy(Qt.NoFocus)
            button.clicked.connect(lambda _=False, o=name: self.set_outcome(o))
            grid.addWidget(button, i // 2, i % 2)
            self.outcome_buttons[name] = button

        step_box = QGroupBox("Selected step")
        steps = QVBoxLayout(step_box)
        self.step_title = QLabel(wordWrap=True)
        steps.addWidget(self.step_title)
        self.step_buttons: dict[str, QPushButton] = {}
        for key, name in STEP_KEYS.items():
            meaning, _reward = STEP_LABELS[name]
            button = QPushButton(f"{key}  {name}: {meaning}")
            button.setStyleSheet("text-align: left; padding: 3px 8px")
            button.setCheckable(True)
            button.setFocusPolicy(Qt.NoFocus)
            button.clicked.connect(lambda _=False, n=name: self.set_step_label(n))
            steps.addWidget(button)
            self.step_buttons[name] = button

        self.comment = QLineEdit(placeholderText=f"Comment (optional); {key_name('judge.save_next')} saves")
        self.comment.textEdited.connect(self._edited)
        self.comment.setFocusPolicy(Qt.ClickFocus)
        self.save_button = QPushButton(f"Save and next ({key_name('judge.save_next')})")
        self.save_button.setDefault(True)
        self.save_button.clicked.connect(self.saveRequested)
        previous = QPushButton(f"Previous ({key_name('judge.prev')})")
        following = QPushButton(f"Next ({key_name('judge.next')})")
        previous.clicked.connect(lambda: self.navigate.emit(-1))
        following.clicked.connect(lambda: self.navigate.emit(1))
        moves = QHBoxLayout()
        for button in (self.save_button, previous, following):
            button.setFocusPolicy(Qt.NoFocus)
            moves.addWidget(button)
        self.status = QLabel(wordWrap=True)
        self.status.setTextFormat(Qt.RichText)
        self.status.setTextInteractionFlags(Qt.TextSelectableByMouse)

        self.blind = QCheckBox("Blind (hide others' labels and judges' verdicts)")
        self.blind.setChecked(True)
        self.blind.setFocusPolicy(Qt.NoFocus)
        self.blind.toggled.connect(self.blindToggled)
        self.others = QTextBrowser()
        self.others.setOpenLinks(False)
        self.others.setMinimumHeight(90)
        self.others.setFocusPolicy(Qt.NoFocus)
        self.others.hide()

        self.review_box = QGroupBox("Judge verdict to review")
        review = QVBoxLayout(self.review_box)
        self.review_text = QTextBrowser()
        self.review_text.setMinimumHeight(110)
        self.review_text.setFocusPolicy(Qt.NoFocus)
        review.addWidget(self.review_text)
        self.tag_boxes: dict[str, QCheckBox] = {}
        tags = QGridLayout()
        for i, tag in enumerate(REVIEW_TAGS):
            box = QCheckBox(tag)
            box.setFocusPolicy(Qt.NoFocus)
            tags.addWidget(box, i // 2, i % 2)
            self.tag_boxes[tag] = box
        review.addLayout(tags)
        self.review_note = QLineEdit(placeholderText="Note (optional)")
        self.review_note.setFocusPolicy(Qt.ClickFocus)
        review.addWidget(self.review_note)
        decide = QHBoxLayout()
        self.accept_button = QPushButton(f"Accept judge ({key_name('judge.accept')})")
        self.keep_button = QPushButton(f"Keep human label ({key_name('judge.keep')})")
        self._tips = {self.accept_button: "The judge was right: the reference label becomes its verdict",
                      self.keep_button: "The judge erred: the human label stands (tick what went wrong)"}
        for button, decision in ((self.accept_button, "accept"), (self.keep_button, "override")):
            button.setFocusPolicy(Qt.NoFocus)
            button.clicked.connect(lambda _=False, d=decision: self.reviewRequested.emit(d))
            decide.addWidget(button)
        review.addLayout(decide)
        self.review_state = QLabel(wordWrap=True)
        review.addWidget(self.review_state)
        self.review_box.hide()

        keys = QLabel(KEYS_HELP, wordWrap=True)
        keys.setStyleSheet("color: gray")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        for widget in (self.who, outcome_box, step_box, self.comment):
            layout.addWidget(widget)
        layout.addLayout(moves)
        layout.addWidget(self.status)
        layout.addWidget(self.review_box, 2)
        layout.addWidget(self.blind)
        layout.addWidget(self.others, 1)
        layout.addStretch(0)
        layout.addWidget(keys)
        self.set_annotator("")

    # the label being made ---------------------------------------------------------------
    def load(self, steps: int, label: Label | None) -> None:
        """A trajectory was shown: start from my stored label, if any."""
        self.outcome = label.outcome if label else None
        self.step_labels = list(label.step_labels if label else ()) + [""] * steps
        self.step_labels = self.step_labels[:steps]
        self.comment.setText(label.comment if label else "")
        self.selected = 0
        self.dirty = False
        self.show_message("")
        self._show()

    def set_annotator(self, name: str) -> None:
        self.annotator = name.strip()
        if self.annotator:
            self.who.setText(f"Labelling as <b>{escape(self.annotator)}</b>")
        else:
            self.who.setText(f"<span style='color:#CC3311'><b>No annotator name.</b> {escape(NO_ANNOTATOR)}</span>")
        tip = "" if self.annotator else NO_ANNOTATOR
        for button in (*self.outcome_buttons.values(), *self.step_buttons.values(), self.save_button,
                       self.accept_button, self.keep_button):
            button.setEnabled(bool(self.annotator))
            button.setToolTip(tip or self._tips.get(button, ""))
        self.comment.setEnabled(bool(self.annotator))

    def set_outcome(self, outcome: str) -> None:
        if self.annotator:
            self.outcome = outcome
            self._edited()

    def set_step_label(self, name: str) -> None:
        """Label the selected step; the same label again clears it, "" clears."""
        if self.annotator and 0 <= self.selected < len(self.step_labels):
            current = self.step_labels[self.selected]
            self.step_labels[self.selected] = "" if name == current else name
            self._edited()

    def select_step(self, index: int, title: str) -> None:
        self.selected = index
        self.step_title.setText(title)
        self._show()

    def step_labels_to_save(self) -> list[str] | None:
        return list(self.step_labels) if any(self.step_labels) else None

    def _edited(self, *_args) -> None:
        self.dirty = True
        self._show()
        self.changed.emit()

    def _show(self) -> None:
        for name, button in self.outcome_buttons.items():
            button.setChecked(name == self.outcome)
        current = self.step_labels[self.selected] if 0 <= self.selected < len(self.step_labels) else ""
        for name, button in self.step_buttons.items():
            button.setChecked(name == current)

    def show_message(self, text: str, error: bool = False) -> None:
        self.status.setText(_status(text, error))

    # others and judges ----------------------------------------------------------------------
    def show_others(self, html: str | None) -> None:
        """None hides the box (blind), else what other people and judges said."""
        self.others.setVisible(html is not None)
        self.others.setHtml(html or "")

    def show_review(self, html: str | None, tags: tuple[str, ...] = (), note: str = "", state: str = "") -> None:
        self.review_box.setVisible(html is not None)
        self.review_text.setHtml(html or "")
        for tag, box in self.tag_boxes.items():
            box.setChecked(tag in tags)
        self.review_note.setText(note)
        self.review_state.setText(state)

    def review_tags(self) -> tuple[str, ...]:
        return tuple(tag for tag, box in self.tag_boxes.items() if box.isChecked())


# what others said, as the panel shows it ---------------------------------------------------------
def verdict_html(verdict) -> str:
    """A judge run's verdict on one trajectory: status (per-step labels), thoughts; or why there is none."""
    if verdict is None:
        return "<span style='color:gray'>not judged</span>"
    if verdict.error:
        return f"<span style='color:#CC3311'>failed request: {escape(verdict.error)}</span>"
    if not verdict.status:
        return ("<span style='color:#CC3311'>no verdict (parse failure)</span><br>"
                f"<span style='color:gray'>{escape(verdict.raw_text[:400])}</span>")
    thoughts = f"<br><i>{escape(verdict.thoughts)}</i>" if verdict.thoughts else ""
    steps = ", ".join(f"{i + 1} {SHORT.get(s, s) or '-'}" for i, s in enumerate(verdict.step_labels))
    return f"<b>{escape(verdict.status.upper())}</b>" + (f"<br>steps: {escape(steps)}" if steps else "") + thoughts


def others_html(labels: dict[str, Label], me: str, judges: list[tuple]) -> str:
    """Other annotators' labels and each judge run's verdict ((run, verdict or None) pairs)."""
    others = [f"<b>{escape(a)}</b>: {escape(label.outcome)}"
              + (f" <i>({escape(label.comment)})</i>" if label.comment else "")
              for a, label in labels.items() if a != me]
    lines = [f"<b>{escape(run.name or f'run {run.id}')}</b> ({escape(run.model)}): {verdict_html(verdict)}"
             for run, verdict in judges]
    none = "<span style='color:gray'>{}</span>"
    return ("<b>Other annotators</b><br>" + ("<br>".join(others) or none.format("none yet"))
            + "<br><br><b>Judges</b><br>" + ("<br>".join(lines) or none.format("no judge runs")))


def review_html(run, run_id: int, verdict, labels: dict[str, Label]) -> str:
    """The judge verdict under review, beside every human label."""
    name = escape(run.name if run is not None and run.name else f"run {run_id}")
    about = f"{run.model}, {(run.options or {}).get('mode', '')}" if run is not None else "?"
    humans = ", ".join(f"{escape(a)}: <b>{escape(label.outcome)}</b>" for a, label in labels.items())
    return (f"<b>{name}</b> ({escape(about)}) says {verdict_html(verdict)}<br><br>"
            f"<b>Human labels</b>: {humans or 'none'}")
