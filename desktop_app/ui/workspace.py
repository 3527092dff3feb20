"""The open project as the GUI sees it: the current step, the undo stack, and
signals that keep the canvas, the properties panel and the browser in step.

Every edit the window makes goes through here as an undoable command (ui/commands.py) over the store's
edit functions; the rules of an edit (where a pasted or nudged box may go, what the clipboard may hold,
what snapping and a drawn box do) are Qt-free functions of the core (store/box_clipboard.py,
store/box_placement.py through api/boxes.py, ocr/screen_reading.py), so a script gets the same boxes. What a
screen shows is read through api/samples.py, one session per screen.
"""

from __future__ import annotations

import logging
import time

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QUndoStack

from desktop_app.api import boxes as box_api
from desktop_app.api import samples
from desktop_app.api.boxes import ActionBox, StaleEdit
from desktop_app.api.projects import Project, is_connection_lost
from desktop_app.api.samples import Episode, Screen, Step
from desktop_app.api.teams import Reviewed
from desktop_app.ocr.screen_reading import (
    ScreenReading,
    accepted_box,
    drawn_box,
    missing_texts,
    siblings,
    snapped,
)
from desktop_app.ocr.suggested_box import Piece
from desktop_app.teams import assignment
from desktop_app.ui import commands
from desktop_app.ui.tasks import run_in_background

log = logging.getLogger(__name__)
# Background database work a screen change starts waits this long: a server project's window keeps one pooled
# connection (store/db.py), and a background call holding it while the screen reads would make the window
# open a second one (a new server session: a login, and caches built anew) for that screen's reads.
AFTER_SHOWN_MS = 150


class Workspace(QObject):
    stepLoaded = Signal()  # a new current step (or the same one reloaded from the database)
    boxesPut = Signal(list, bool)  # [ActionBox] added or changed, whether to select them
    boxesRemoved = Signal(list)  # [box_id]
    episodeChanged = Signal(object)  # Episode
    navigated = Signal(int)  # episode_id shown because an undo/redo happened there
    writeFailed = Signal(str)
    written = Signal()  # an edit reached the database
    treeFlagged = Signal(int, int, object)  # tree id, node id, its corrections now (None: none)
    stepChanged = Signal(object)  # a step whose meta was edited (the row as stored now)
    connectionLost = Signal(str)  # the database server cannot be reached (the edit was not saved)
    stateChanged = Signal(int, str)  # episode id, its annotation state for this annotator (todo, done, ...)
    # an edit of a sample this person labels blind on a private copy: the copy to open instead, and why
    redirected = Signal(int, str)

    def __init__(self, project: Project, actor: str, parent=None):
        super().__init__(parent)
        self.project = project
        self.actor = actor
        self.undo_stack = QUndoStack(self)
        self.episode: Episode | None = None
        self.steps: list[Step] = []
        self.step: Step | None = None
        self.screen: Screen | None = None
        self.boxes: dict[int, ActionBox] = {}
        # the episode's version as loaded, raised by each of our own edits (optimistic versioning)
        self.version: int | None = None
        # this visit to the episode: when it began and whether anything was edited (time spent, states)
        self._visit_started = time.monotonic()
        self._visit_edited = False
        # team work on the loaded episode: this person's private copy of it (their edits belong there), and a
        # reviewer's comment returning the work labelled here (teams/work_review.py)
        self.own_copy: int | None = None
        self.open_return: Reviewed | None = None
        self.skipped: list[tuple[str, str]] = []  # who skipped the loaded episode, and why (store/work_states.py)
        # boxes drawn on a screen OCR had not read yet: they get the words inside them once it has (text_arrived)
        self.drawn_before_ocr: set[int] = set()

    # loading ----------------------------------------------------------------
    def load_episode(self, episode_id: int | None, step_index: int = 0) -> None:
        if self.episode is not None and self.episode.id != episode_id:
            self.end_visit(background=True)  # the next screen does not wait for a statistic
        if episode_id is None:
            self.episode, self.steps, self.step, self.screen, self.boxes = None, [], None, None, {}
            self.version, self.own_copy, self.open_return, self.skipped = None, None, None, []
            self.stepLoaded.emit()
            return
        # one session for all a screen needs: on a server, one round of reads
        view = samples.open_episode(self.project, episode_id, self.actor, step_index)
        self.episode, self.steps = view.episode, view.steps
        self.version = view.episode.version if view.episode is not None else None
        self.own_copy, self.open_return, self.skipped = view.own_copy, view.open_return, view.skipped
        if view.step is not None:
            self.step, self.screen, self.boxes = view.step, view.screen, {b.id: b for b in view.boxes}
        if not self.steps:
            self.load_step(0)
            return
        self.stepLoaded.emit()

    def load_step(self, index: int) -> None:
        if not self.steps:
            self.step, self.screen, self.boxes = None, None, {}
            self.stepLoaded.emit()
            return
        self.step = self.steps[index]
        self.screen, rows = samples.screen_and_boxes(self.project, self.step)
        self.boxes = {b.id: b for b in rows}
        self.stepLoaded.emit()

    def reload(self) -> None:
        """Show exactly what the database holds (after a failed write)."""
        if self.episode is not None:
            index = self.steps.index(self.step) if self.step in self.steps else 0
            self.load_episode(self.episode.id, index)

    def ensure_current(self, episode_id: int | None, step_id: int | None) -> None:
        if episode_id is None or (self.step is not None and self.step.id == step_id):
            return
        if self.episode is None or self.episode.id != episode_id:
            self.load_episode(episode_id)
            self.navigated.emit(episode_id)
        index = next((i for i, st in enumerate(self.steps) if st.id == step_id), 0)
        if self.step_index != index:
            self.load_step(index)

    @property
    def step_index(self) -> int:
        return self.steps.index(self.step) if self.step in self.steps else -1

    def image_path(self):
        return self.project.image_path(self.screen) if self.screen else None

    # called by commands after a successful write ------------------------------
    def boxes_put(self, boxes: list[ActionBox], select: bool = False) -> None:
        mine = [b for b in boxes if self.step is not None and b.step_id == self.step.id]
        for b in mine:
            self.boxes[b.id] = b
        if mine:
            self.boxesPut.emit(mine, select)
        self.written.emit()

    def boxes_removed(self, ids: list[int]) -> None:
        gone = [i for i in ids if self.boxes.pop(i, None) is not None]
        if gone:
            self.boxesRemoved.emit(gone)
        self.written.emit()

    def episode_put(self, episode: Episode) -> None:
        if self.episode is not None and episode.id == self.episode.id:
            self.episode = episode
        self.episodeChanged.emit(episode)
        self.written.emit()

    def tree_flagged(self, tree_id: int, node_id: int, fixes: dict | None) -> None:
        self.treeFlagged.emit(tree_id, node_id, fixes)
        self.written.emit()

    def version_raised(self) -> None:
        self._visit_edited = True
        if self.version is not None:
            self.version += 1

    def report_failure(self, what: str, exc: Exception) -> None:
        if isinstance(exc, StaleEdit):
            # a colleague's change: ours was not written. The undo history was made against the screen
            # as it was; after the reload it would undo the colleague's work, so it goes (after this
            # command has left the stack's hands)
            log.info("stale edit refused: %s", exc)
            self.writeFailed.emit(f"'{what}' was not saved: {exc}.")
            QTimer.singleShot(0, self.undo_stack.clear)
        elif is_connection_lost(exc):
            log.warning("connection lost: %s: %s", what, exc)
            self.writeFailed.emit(f"Could not save '{what}': the database server cannot be reached.")
            self.connectionLost.emit(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
            return  # nothing to reload from; the banner reloads when the server is back
        else:
            log.exception("write failed: %s", what)
            self.writeFailed.emit(f"Could not save '{what}': {exc}. The screen shows what is stored.")
        self.reload()

    # annotation work: states and time ------------------------------------------
    def end_visit(self, background: bool = False) -> None:
        """The annotator leaves the episode: its time (and whether they edited) goes to their row; in the
        background when they move on (marking a state waits for it: the state is written after it)."""
        if self.episode is None:
            return
        seconds = time.monotonic() - self._visit_started
        edited, self._visit_edited, self._visit_started = self._visit_edited, False, time.monotonic()
        project, episode_id, actor = self.project, self.episode.id, self.actor

        def note() -> None:
            assignment.note_work(project, episode_id, seconds, edited, actor, wait_s=0.3)

        def not_noted(exc: Exception) -> None:  # time spent is a statistic: never block moving on over it (a
            # long import elsewhere holding the write lock costs this visit's seconds, not a frozen window)
            log.warning("could not record time spent on episode %s: %s", episode_id, exc)

        if background:  # once the next screen shows: its reads keep the window's one pooled connection
            QTimer.singleShot(AFTER_SHOWN_MS, lambda: run_in_background(self, note, lambda _result: None, not_noted,
                                                                              wait=None))  # a statistic
            return
        try:
            note()
        except Exception as exc:
            not_noted(exc)

    def mark(self, state: str, reason: str = "") -> bool:
        """Mark the current episode done / skipped / in progress for this annotator; False (and a message)
        when it could not be stored."""
        if self.episode is None or self._labelled_elsewhere():
            return False
        try:
            self.end_visit()
            assignment.set_state(self.project, self.episode.id, state, self.actor, reason)
        except Exception as exc:
            self.writeFailed.emit(f"Could not mark the screen {state}: {exc}")
            return False
        self.skipped = [(who, why) for who, why in self.skipped if who != self.actor] + \
            ([(self.actor, reason.strip())] if state == "skipped" else [])
        self.stateChanged.emit(self.episode.id, state)
        return True

    # edits (each one an undoable command) -------------------------------------
    def _labelled_elsewhere(self) -> bool:
        """This sample is the person's to label blind on their own copy: the copy opens instead of the edit
        (which would change the original everyone shares)."""
        if self.own_copy is None:
            return False
        self.redirected.emit(self.own_copy, "You label this sample blind on your own copy: it is open now (the "
                                            "edit was not made on the shared original)")
        return True

    def add_boxes(self, values: list[dict], text: str = "Add box") -> list[int]:
        """The ids of the boxes made ([] when none were)."""
        if self._labelled_elsewhere() or self.step is None or not values:
            return []
        command = commands.AddBoxes(self, self.step.id, values, text)
        self.undo_stack.push(command)
        return list(getattr(command, "ids", []))  # no ids: the write failed (and was reported)

    def delete_boxes(self, ids: list[int]) -> None:
        if self._labelled_elsewhere():
            return
        ids = [i for i in ids if i in self.boxes]
        if ids:
            self.undo_stack.push(commands.DeleteBoxes(self, ids, f"Delete {len(ids)} box{'es' if len(ids) > 1 else ''}"))

    def change_boxes(self, changes: dict[int, dict], text: str, merge: int = -1) -> None:
        """changes: box_id -> new field values; the old values are taken from the loaded boxes."""
        if self._labelled_elsewhere():
            return
        triples = []
        for box_id, after in changes.items():
            box = self.boxes.get(box_id)
            if box is None:
                continue
            before = {k: getattr(box, k) for k in after}
            if before != after:
                triples.append((box_id, before, after))
        if triples:
            self.undo_stack.push(commands.ChangeBoxes(self, triples, text, merge))

    def edit_episode(self, after: dict, text: str) -> None:
        if self.episode is None or self._labelled_elsewhere():
            return
        before = {k: getattr(self.episode, k) for k in after}
        if before != after:
            self.undo_stack.push(commands.EditEpisode(self, self.episode.id, before, after, text))

    def edit_checklist(self, before: dict, after: dict) -> None:
        """An ambiguous task's checklist ticks, undoably; not counted as an edit of the sample."""
        if self.episode is not None and before != after:
            self.undo_stack.push(commands.EditChecklist(self, self.episode.id, before, after, "Tick checklist"))

    def record_verdict(self, text: str, decide, done) -> None:
        """A review verdict as an undoable step: decide() records it in the store; done(episode_id, status,
        undone) tells the panel what the store now holds."""
        if self.episode is not None:
            self.undo_stack.push(commands.SetReview(self, text, decide, done))

    def edit_step_meta(self, after: dict, text: str) -> None:
        """Set keys of the current step's meta (None removes one), undoably."""
        if self.step is None:
            return
        before = {k: (self.step.meta or {}).get(k) for k in after}
        if before != after:
            self.undo_stack.push(commands.EditStepMeta(self, self.step.id, before, after, text))

    def step_meta_put(self, step: Step) -> None:
        """A step's meta changed in the store: keep the loaded copy in step with it."""
        for i, loaded in enumerate(self.steps):
            if loaded.id == step.id:
                self.steps[i] = step
                if self.step is not None and self.step.id == step.id:
                    self.step = step
        self.stepChanged.emit(step)
        self.written.emit()

    def flag_tree_node(self, tree_id: int, node_id: int, fixes: dict | None, text: str) -> None:
        """Correct a node of the screen's accessibility tree (e.g. {"clickable": "true"}); None clears."""
        if self.step is not None:
            self.undo_stack.push(commands.FlagTreeNode(self, tree_id, node_id, fixes, text))

    # editing rules of the core, as commands ------------------------------------------------------
    def image_size(self) -> tuple[int, int]:
        """The current screen's size in pixels: where boxes must stay."""
        return (self.screen.width, self.screen.height) if self.screen is not None else (0, 0)

    def copied(self, ids: list[int]) -> list[dict]:
        """What copying these boxes puts on the clipboard (store/box_clipboard.py)."""
        return box_api.copied_boxes(self.boxes[i] for i in ids if i in self.boxes)

    def paste(self, values: list[dict]) -> None:
        """Copied boxes as new boxes here, in place but inside this screen (it may be smaller)."""
        width, height = self.image_size()
        self.add_boxes([box_api.pasted_box(v, width, height) for v in values], "Paste boxes")

    def duplicate(self, ids: list[int]) -> None:
        width, height = self.image_size()
        values = self.copied(ids)
        if values:
            self.add_boxes([box_api.duplicated_box(v, width, height) for v in values], "Duplicate boxes")

    def nudge(self, ids: list[int], dx: float, dy: float) -> None:
        """Move boxes by (dx, dy), never past the image's edge; held arrow keys are one undo step."""
        width, height = self.image_size()
        moved = box_api.nudged_boxes([self.boxes[i] for i in ids if i in self.boxes], dx, dy, width, height)
        self.change_boxes(moved, "Nudge", merge=commands.NUDGE_ID)

    def snap(self, ids: list[int], reading: ScreenReading) -> list[str]:
        """Snap these boxes to what they frame, each against its siblings; the rules used ([] for no box)."""
        after, rules = snapped(self.boxes, ids, reading)
        if not after:
            return []
        self.change_boxes(after, "Snap")
        return rules

    def add_drawn_box(self, corners: tuple, label: str, reading: ScreenReading, snap_on_draw: bool) -> None:
        """A box the annotator drew: snapped when the settings ask for it, with the words inside it (or, drawn
        before OCR has read the screen, those it finds there later: text_arrived)."""
        made = self.add_boxes([drawn_box(corners, label, reading, siblings(self.boxes), snap_on_draw)])
        if reading.outcome is None:
            self.drawn_before_ocr.update(made)

    def text_arrived(self, reading: ScreenReading) -> None:
        """OCR has read the current screen: the boxes drawn on it before then that still have no text get the
        words inside them (the rule a box drawn now follows), as one undoable edit."""
        waiting = [i for i in self.drawn_before_ocr if i in self.boxes]
        if not waiting or reading.outcome is None:
            return
        self.drawn_before_ocr.difference_update(waiting)
        self.change_boxes(missing_texts(self.boxes, waiting, reading), "Text from OCR")

    def accept_suggestions(self, pieces: list[Piece], label: str, reading: ScreenReading) -> None:
        """Accepted suggestions make one box (a word grows to its element or line)."""
        values = accepted_box(pieces, label, reading)
        if values is not None:
            self.add_boxes([values], f"Accept {len(pieces)} suggestion{'s' if len(pieces) > 1 else ''}")
