"""Labelling agents' trajectories, keyboard first, like the verification queue.

Left the queue (only those I have not labelled, by default), centre the task, the agent's final
response, the selected frame large with the action drawn on it, the strip of frames (the final one
emphasised) and the numbered actions; right the label (label_panel.py). Keys: S / F / I / U / E
outcome, 1-4 the selected step's label (0 clears), Left / Right the step, Home / End the first /
final step, Enter save and go to the next trajectory, N / P or PgDn / PgUp next / previous without
saving, / the text filter, Esc back from a text field; with a judge verdict under review, A accepts
the judge and K keeps the human label.

    view.set_project(project); view.set_annotator("ann")
    view.open_trajectory(episode_id, run_id=None)   # run_id: show that judge's verdict to review
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_app import api
from desktop_app.judging.labels import STEP_LABELS, LabelError
from desktop_app.ui.judge.filmstrip_frames import FrameLoader
from desktop_app.ui.judge.label_panel import (
    NO_ANNOTATOR,
    OUTCOME_KEYS,
    LabelPanel,
    others_html,
    review_html,
)
from desktop_app.ui.judge.queue_panel import QueuePanel
from desktop_app.ui.judge.trajectory_display import TrajectoryDisplay
from desktop_app.ui.shortcuts import key_name, pressed

EMPTY = ("This project has no trajectories yet. Import trajectories (File > Import, format unified-trajectory) "
         "or make them from episodes / an agent run with `screenlab judge from-episodes` / `from-run`.")
PLAIN = Qt.ControlModifier | Qt.AltModifier | Qt.MetaModifier  # keys with these stay the window's shortcuts
TRAJECTORY_CACHE = 8


class TrajectoryView(QWidget):
    labelled = Signal(int)  # episode id whose label I saved
    reviewed = Signal(int, int)  # run id, episode id of a stored review
    message = Signal(str)  # for the status bar

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("trajectory-view")
        self.project = None
        self.loader: FrameLoader | None = None
        self.annotator = ""
        self.rows: list = []  # the queue's TrajectoryRows
        self.trajectory = None  # the Trajectory on screen
        self.review_run: int | None = None  # the judge run whose verdict is under review
        self.selected = 0
        self._trajectories: OrderedDict[int, object] = OrderedDict()
        self._runs: list | None = None
        self._verdicts: dict[int, dict] = {}
        self.setFocusPolicy(Qt.StrongFocus)  # clicks on the parts give the view the keys

        self.queue_panel = left = QueuePanel()
        left.filtersChanged.connect(lambda: self.refresh(keep=False))
        left.rowChosen.connect(self._queue_row)
        self.count, self.only_unlabelled, self.filter = left.count, left.only_unlabelled, left.filter

        self.display = centre = TrajectoryDisplay()
        centre.stepChosen.connect(self.select_step)
        self.intent, self.frame_view, self.actions = centre.intent, centre.frame_view, centre.actions

        self.panel = LabelPanel()
        self.panel.changed.connect(self._label_changed)
        self.panel.saveRequested.connect(self.save_and_next)
        self.panel.navigate.connect(self.step_queue)
        self.panel.reviewRequested.connect(self.review)
        self.panel.blindToggled.connect(lambda _on: self._show_others())
        right = QScrollArea()
        right.setWidget(self.panel)
        right.setWidgetResizable(True)
        right.setFocusPolicy(Qt.NoFocus)
        right.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)  # the panel wraps; it never scrolls sideways
        right.setMinimumWidth(self.panel.minimumSizeHint().width() + right.verticalScrollBar().sizeHint().width())

        self.splitter = QSplitter(Qt.Horizontal)
        for widget in (left, centre, right):
            self.splitter.addWidget(widget)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([270, 760, 370])
        self.empty = QLabel(EMPTY, wordWrap=True, alignment=Qt.AlignCenter)
        self.empty.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.empty.setMargin(40)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.empty)
        self.pages.addWidget(self.splitter)
        QVBoxLayout(self).addWidget(self.pages)
        self.layout().setContentsMargins(0, 0, 0, 0)

    # project, annotator, queue ------------------------------------------------------------
    def set_project(self, project) -> None:
        if self.loader is not None:
            self.loader.deleteLater()
        self.project, self.loader, self.trajectory, self.review_run = project, None, None, None
        self._trajectories.clear()
        if project is not None:
            self.loader = FrameLoader(project, self)
            self.loader.frameReady.connect(self._frame_ready)
        self.refresh()

    def set_annotator(self, name: str) -> None:
        changed = (name or "").strip() != self.annotator
        self.annotator = (name or "").strip()
        self.panel.set_annotator(self.annotator)
        self.refresh()
        if changed and self.trajectory is not None:  # "my label" is someone else's now
            eid = self.trajectory.episode_id
            self.panel.load(len(self.trajectory.steps),
                            api.trajectory_labels(self.project, [eid]).get(eid, {}).get(self.annotator))
            self.select_step(self.selected)
            self._label_changed()

    def refresh(self, keep: bool = True) -> None:
        """Reload the queue (labels, filters, judge runs). keep: the trajectory on screen stays even when
        it left the queue (else the queue's first is shown)."""
        self._runs, self._verdicts = None, {}
        if self.project is None:
            self.rows = []
            self.pages.setCurrentWidget(self.empty)
            self._clear()
            return
        everything = api.trajectories(self.project)
        self.pages.setCurrentWidget(self.splitter if everything else self.empty)
        self.queue_panel.set_policies(sorted({r.policy for r in everything}))
        policy, text = self.queue_panel.policy_value(), self.queue_panel.text_value()
        rows = api.trajectories(self.project, policy, text) if policy or text else everything
        left = [r for r in rows if self.annotator not in r.labels]
        self.rows = left if self.only_unlabelled.isChecked() else rows
        self.queue_panel.fill(self.rows, len(left), len(rows), self.annotator)
        ids = self.ids()
        if self.trajectory is not None and (keep or self.trajectory.episode_id in ids):
            # it stays on screen, in the queue or not
            self.queue_panel.set_current(ids.index(self.trajectory.episode_id) if self.trajectory.episode_id in ids
                                         else -1)
            self._show_others()
        elif self.rows:
            self.trajectory = None
            self._select_row(0)
        else:
            self._clear("Nothing left to label here: untick 'Only unlabelled by me' to see the others.")

    def ids(self) -> list[int]:
        return [r.episode_id for r in self.rows]

    @property
    def current_id(self) -> int | None:
        return self.trajectory.episode_id if self.trajectory is not None else None

    def _select_row(self, row: int) -> None:
        self.queue_panel.set_current(row)
        if self.rows and self.current_id != self.rows[row].episode_id:
            self._show(self.rows[row].episode_id)

    def _queue_row(self, row: int) -> None:
        if 0 <= row < len(self.rows) and self.rows[row].episode_id != self.current_id:
            self._show(self.rows[row].episode_id)

    def step_queue(self, delta: int) -> None:
        """Next / previous trajectory in the queue, without saving."""
        ids = self.ids()
        if not ids:
            return
        here = ids.index(self.current_id) if self.current_id in ids else -1
        row = here + delta if here >= 0 else 0
        if not 0 <= row < len(ids):
            self._say("End of the queue" if delta > 0 else "Start of the queue")
            return
        if self.panel.dirty:
            self._say(f"The label you changed was not saved ({key_name('judge.save_next')} saves)")
        self._select_row(row)

    # showing a trajectory --------------------------------------------------------------------
    def open_trajectory(self, episode_id: int, run_id: int | None = None) -> None:
        """Show this trajectory; with run_id, that judge run's verdict and reasoning beside the human
        labels (even in blind mode), with Accept judge / Keep human label."""
        if self.project is None:
            return
        self._show(episode_id, run_id)
        ids = self.ids()
        self.queue_panel.set_current(ids.index(episode_id) if episode_id in ids else -1)
        self.setFocus()

    def _load(self, episode_id: int):
        if episode_id not in self._trajectories:
            self._trajectories[episode_id] = api.trajectory(self.project, episode_id)
            while len(self._trajectories) > TRAJECTORY_CACHE:
                self._trajectories.popitem(last=False)
        return self._trajectories[episode_id]

    def _show(self, episode_id: int, run_id: int | None = None) -> None:
        try:
            trajectory = self._load(episode_id)
        except ValueError as exc:  # deleted meanwhile
            self._say(str(exc), error=True)
            return
        self.trajectory, self.review_run = trajectory, run_id
        mine = api.trajectory_labels(self.project, [episode_id]).get(episode_id, {}).get(self.annotator)
        self.panel.load(len(trajectory.steps), mine)
        self.display.show_trajectory(trajectory, self._frame)
        self._request_frames(trajectory)
        self.select_step(len(trajectory.steps) - 1)  # the final state first: what the outcome rests on
        self._label_changed()
        self._show_others()
        self._show_review()
        self._prefetch()

    def _prefetch(self) -> None:
        """Decode the next trajectory's frames while this one is looked at."""
        ids = self.ids()
        here = ids.index(self.current_id) if self.current_id in ids else -1
        if self.loader is None or here + 1 >= len(ids):
            return
        try:
            self._request_frames(self._load(ids[here + 1]))
        except ValueError:
            return

    def _request_frames(self, trajectory) -> None:
        if self.loader is not None:
            # the final frame first, then backwards: the strip opens scrolled to its end, so the frames beside
            # the final one are those on screen
            self.loader.request([(s.sha256, s.ext) for s in reversed(trajectory.steps)])

    def _clear(self, text: str = "") -> None:
        self.trajectory, self.review_run = None, None
        self.display.clear(text)
        self.panel.load(0, None)
        self.panel.show_others(None)
        self.panel.show_review(None)

    def _frame(self, sha: str):
        return self.loader.cache.get(sha) if self.loader is not None else None

    def select_step(self, index: int) -> None:
        if self.trajectory is None or not self.trajectory.steps:
            return
        self.selected = min(max(index, 0), len(self.trajectory.steps) - 1)
        self.display.select(self.selected, self._frame(self.trajectory.steps[self.selected].sha256))
        self.panel.select_step(self.selected, self.display.step_title(self.selected))

    def _frame_ready(self, sha: str) -> None:
        self.display.frame_ready(sha, self._frame(sha))

    def _label_changed(self) -> None:
        self.display.set_step_labels(self.panel.step_labels)

    # others, judges, review ----------------------------------------------------------------------
    def _judge_runs(self) -> list:
        if self._runs is None:
            self._runs = api.judge_runs(self.project) if self.project is not None else []
        return self._runs

    def _verdict(self, run_id: int, episode_id: int):
        if run_id not in self._verdicts:
            self._verdicts[run_id] = api.judge_verdicts(self.project, run_id)
        return self._verdicts[run_id].get(episode_id)

    def _show_others(self) -> None:
        if self.trajectory is None or self.panel.blind.isChecked():
            self.panel.show_others(None)
            return
        eid = self.trajectory.episode_id
        labels = api.trajectory_labels(self.project, [eid]).get(eid, {})
        judges = [(run, self._verdict(run.id, eid)) for run in self._judge_runs()]
        self.panel.show_others(others_html(labels, self.annotator, judges))

    def _show_review(self) -> None:
        if self.trajectory is None or self.review_run is None:
            self.panel.show_review(None)
            return
        eid, run_id = self.trajectory.episode_id, self.review_run
        run = next((r for r in self._judge_runs() if r.id == run_id), None)
        labels = api.trajectory_labels(self.project, [eid]).get(eid, {})
        html = review_html(run, run_id, self._verdict(run_id, eid), labels)
        review = api.reviews(self.project, [run_id]).get((run_id, eid))
        state = (f"Reviewed by {review.reviewer}: "
                 f"{'judge accepted' if review.decision == 'accept' else 'human label kept'}" if review else
                 "Not reviewed yet")
        self.panel.show_review(html, review.tags if review else (), review.note if review else "", state)

    def review(self, decision: str) -> None:
        if self.trajectory is None or self.review_run is None:
            return
        if not self.annotator:
            self._say(NO_ANNOTATOR, error=True)
            return
        eid, run_id = self.trajectory.episode_id, self.review_run
        try:
            api.review_verdict(self.project, run_id, eid, self.annotator, decision, self.panel.review_tags(),
                               self.panel.review_note.text().strip())
        except LabelError as exc:
            self._say(f"Review not stored: {exc}", error=True)
            return
        self._show_review()
        self._say("Review stored: " + ("the judge was right; the reference is now its verdict" if decision == "accept"
                                       else "the human label stands"))
        self.reviewed.emit(run_id, eid)

    # saving -------------------------------------------------------------------------------------
    def save_and_next(self) -> None:
        if self.trajectory is None:
            return
        if not self.annotator:
            self._say(NO_ANNOTATOR, error=True)
            return
        if self.panel.outcome is None:
            self._say("Choose an outcome first: S success, F failure, I impossible, U unsure", error=True)
            return
        eid, outcome = self.trajectory.episode_id, self.panel.outcome
        try:
            api.label_trajectory(self.project, eid, self.annotator, outcome, self.panel.step_labels_to_save(),
                                 self.panel.comment.text().strip())
        except LabelError as exc:
            self._say(f"Not saved: {exc}", error=True)
            return
        except Exception as exc:  # the database said no (locked, gone): the label is still on screen
            self._say(f"Not saved: {exc}", error=True)
            return
        self.panel.dirty = False
        self.labelled.emit(eid)
        ids = self.ids()
        here = ids.index(eid) if eid in ids else -1
        after, before = ids[here + 1:], ids[:max(here, 0)]
        if here >= 0:  # the queue changes by one row: updated in place, not reloaded
            row = self.rows[here]
            was_left = self.annotator not in row.labels
            row = replace(row, labels={**row.labels, self.annotator: outcome})
            drop = self.only_unlabelled.isChecked()
            if drop:
                del self.rows[here]
            else:
                self.rows[here] = row
            self.queue_panel.labelled(here, row, self.annotator, was_left, drop)
        now = set(self.ids())
        target = next((i for i in after if i in now), None) or next((i for i in reversed(before) if i in now), None)
        key = self.trajectory.key if self.trajectory else ""
        if target is not None:
            self._select_row(self.ids().index(target))
            self._say(f"Saved {outcome} for {key}")
        else:
            self._say(f"Saved {outcome} for {key}. Nothing left in this queue.")

    def _say(self, text: str, error: bool = False) -> None:
        self.panel.show_message(text, error)
        self.message.emit(text)

    # keys ----------------------------------------------------------------------------------------
    def event(self, event) -> bool:
        # plain keys are this view's while it has the focus: the window's one-letter shortcuts (S snaps a box,
        # A / D change the sample, Del deletes boxes) would act on the hidden annotation canvas
        if (event.type() == QEvent.ShortcutOverride and not event.modifiers() & PLAIN
                and event.key() not in (Qt.Key_Tab, Qt.Key_Backtab)):
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event) -> None:
        key = event.key()
        focus = QApplication.focusWidget()
        if focus in (self.filter, self.panel.review_note) and key in (Qt.Key_Return, Qt.Key_Enter, Qt.Key_Escape,
                                                                     Qt.Key_Down):
            self.setFocus()  # Enter ends the filter or the note; it saves a label only from the comment field
            return
        # the keys are the table's (ui/shortcuts.py, "Trajectory labelling"): the panel's buttons and hints say them
        outcome = next((o for o in OUTCOME_KEYS if pressed(event, f"judge.outcome.{o}")), None)
        step_label = next((n for n in STEP_LABELS if pressed(event, f"judge.step.{n}")), None)
        if event.modifiers() & PLAIN:
            super().keyPressEvent(event)
        elif pressed(event, "judge.leave_field"):
            self.setFocus()
        elif pressed(event, "judge.save_next"):
            self.save_and_next()
        elif pressed(event, "judge.next"):
            self.step_queue(1)
        elif pressed(event, "judge.prev"):
            self.step_queue(-1)
        elif pressed(event, "judge.step.prev"):
            self.select_step(self.selected - 1)
        elif pressed(event, "judge.step.next"):
            self.select_step(self.selected + 1)
        elif pressed(event, "judge.step.first"):
            self.select_step(0)
        elif pressed(event, "judge.step.last"):
            self.select_step(len(self.trajectory.steps) - 1 if self.trajectory else 0)
        elif pressed(event, "judge.filter"):
            self.filter.setFocus()
            self.filter.selectAll()
        elif self.review_run is not None and (pressed(event, "judge.accept") or pressed(event, "judge.keep")):
            self.review("accept" if pressed(event, "judge.accept") else "override")
        elif outcome or step_label or pressed(event, "judge.step.clear"):
            if not self.annotator:
                self._say(NO_ANNOTATOR, error=True)
            elif self.trajectory is not None and outcome:
                self.panel.set_outcome(outcome)
            elif self.trajectory is not None:
                self.panel.set_step_label(step_label or "")
        else:
            super().keyPressEvent(event)
