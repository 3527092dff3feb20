"""Undoable edits. Each command writes its change to the database in redo() and
the inverse in undo(), so undo and redo work across autosave: the database is
always what the screen shows.

If a write fails the command marks itself obsolete (Qt then drops it from the
stack), the workspace reports the error and reloads the screen from the
database, so a failed edit is never shown as done.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QUndoCommand

from desktop_app import api
from desktop_app.navi import verification

if TYPE_CHECKING:
    from desktop_app.ui.workspace import Workspace

NUDGE_ID = 1001


class _Command(QUndoCommand):
    # the edit raises the episode's version (store/edits.py, through api/boxes.py): the workspace follows, so its next edit
    # passes the version this one left and only a colleague's write in between is refused as stale
    raises_version = True

    def __init__(self, ws: Workspace, text: str):
        super().__init__(text)
        self.ws = ws
        # where the edit happened: undo brings the user back there to see it
        self.episode_id = ws.episode.id if ws.episode else None
        self.step_id = ws.step.id if ws.step else None

    def _run(self, action) -> None:
        try:
            self.ws.ensure_current(self.episode_id, self.step_id)
            action()
            if self.raises_version:
                self.ws.version_raised()
        except Exception as exc:  # any failed write: tell the user, trust the database
            self.setObsolete(True)
            self.ws.report_failure(self.text(), exc)


class AddBoxes(_Command):
    def __init__(self, ws: Workspace, step_id: int, values: list[dict[str, Any]], text: str = "Add box"):
        super().__init__(ws, text)
        self.step_id = step_id
        self.values = values
        self.saved: dict[int, dict] | None = None  # after the first undo: what brings them back

    def redo(self) -> None:
        def do():
            if self.saved is None:
                boxes = api.add_boxes(self.ws.project, self.step_id, self.values, self.ws.actor, expected_version=self.ws.version)
            else:
                boxes = api.restore_boxes(self.ws.project, self.saved, self.ws.actor, expected_version=self.ws.version)
            self.ids = [b.id for b in boxes]
            self.ws.boxes_put(boxes, select=True)
        self._run(do)

    def undo(self) -> None:
        def do():
            self.saved = api.delete_boxes(self.ws.project, self.ids, self.ws.actor, expected_version=self.ws.version)
            self.ws.boxes_removed(self.ids)
        self._run(do)


class DeleteBoxes(_Command):
    def __init__(self, ws: Workspace, ids: list[int], text: str = "Delete boxes"):
        super().__init__(ws, text)
        self.ids = list(ids)
        self.saved: dict[int, dict] = {}

    def redo(self) -> None:
        def do():
            self.saved = api.delete_boxes(self.ws.project, self.ids, self.ws.actor, expected_version=self.ws.version)
            self.ws.boxes_removed(self.ids)
        self._run(do)

    def undo(self) -> None:
        def do():
            self.ws.boxes_put(api.restore_boxes(self.ws.project, self.saved, self.ws.actor, expected_version=self.ws.version), select=True)
        self._run(do)


class ChangeBoxes(_Command):
    """Any change of box fields: move, resize, nudge, label, texts."""

    def __init__(self, ws: Workspace, changes: list[tuple[int, dict, dict]], text: str, merge: int = -1):
        super().__init__(ws, text)
        self.changes = changes  # (box_id, before, after)
        self.merge = merge

    def id(self) -> int:
        return self.merge

    def mergeWith(self, other: QUndoCommand) -> bool:
        # holding an arrow key is one undo step, not one per pixel
        if not isinstance(other, ChangeBoxes) or other.merge != self.merge:
            return False
        if [c[0] for c in other.changes] != [c[0] for c in self.changes]:
            return False
        self.changes = [(i, before, other_after) for (i, before, _), (_, _, other_after)
                        in zip(self.changes, other.changes, strict=True)]
        return True

    def _apply(self, which: int) -> None:
        def do():
            boxes = api.edit_boxes(self.ws.project, {c[0]: c[which] for c in self.changes}, self.ws.actor, expected_version=self.ws.version)
            self.ws.boxes_put(boxes)
        self._run(do)

    def redo(self) -> None:
        self._apply(2)

    def undo(self) -> None:
        self._apply(1)


class _SetValues(_Command):
    """Fields of one row set to `after`; undo sets them back to `before`. Subclasses say how to write."""

    def __init__(self, ws: Workspace, row_id: int, before: dict, after: dict, text: str):
        super().__init__(ws, text)
        self.row_id, self.before, self.after = row_id, before, after

    def _write(self, values: dict) -> None:
        raise NotImplementedError

    def redo(self) -> None:
        self._run(lambda: self._write(self.after))

    def undo(self) -> None:
        self._run(lambda: self._write(self.before))


class EditEpisode(_SetValues):
    def _write(self, values: dict) -> None:
        self.ws.episode_put(api.edit_episode(self.ws.project, self.row_id, values, self.ws.actor, expected_version=self.ws.version))


class EditStepMeta(_SetValues):
    """Keys of a step's meta set by hand (a completion label overridden); undo puts the old values back."""

    def _write(self, values: dict) -> None:
        self.ws.step_meta_put(api.edit_step_meta(self.ws.project, self.row_id, values, self.ws.actor, expected_version=self.ws.version))


class FlagTreeNode(_Command):
    """An annotator's correction of an accessibility-tree node (the dump's clickable flag is wrong);
    undo puts back the node's previous corrections."""

    raises_version = False  # a tree's flags belong to the screen, not to the episode

    def __init__(self, ws: Workspace, tree_id: int, node_id: int, fixes: dict[str, str] | None, text: str):
        super().__init__(ws, text)
        self.tree_id, self.node_id, self.fixes = tree_id, node_id, fixes
        self.before: dict[str, str] | None = None

    def _apply(self, fixes: dict[str, str] | None) -> dict[str, str] | None:
        previous = api.flag_tree_node(self.ws.project, self.tree_id, self.node_id, fixes, self.ws.actor)
        self.ws.tree_flagged(self.tree_id, self.node_id, fixes)
        return previous

    def redo(self) -> None:
        def do():
            self.before = self._apply(self.fixes)
        self._run(do)

    def undo(self) -> None:
        self._run(lambda: self._apply(self.before))


class SetReview(_Command):
    """A reviewer's verdict on a sample (accept, reject): undo puts back the verdict it replaced, so a sample
    accepted by a slip of the key is pending again, in the store as on the screen."""

    raises_version = False  # a verdict is about the sample, not an edit of it (store/review.py)

    def __init__(self, ws: Workspace, text: str, decide: Callable[[], str], done: Callable[[int, str, bool], None]):
        super().__init__(ws, text)
        self.decide, self.done = decide, done
        self.before: api.Verdict | None = None
        self.after: api.Verdict | None = None

    def redo(self) -> None:
        def do():
            if self.after is None:  # the first time: the core decides (accepted or edited, or rejected)
                self.before = api.current_verdict(self.ws.project, self.episode_id)
                self.decide()
                self.after = api.current_verdict(self.ws.project, self.episode_id)
            else:
                api.restore_verdict(self.ws.project, self.episode_id, self.after)
            self.done(self.episode_id, self.after.status, False)
        self._run(do)

    def undo(self) -> None:
        def do():
            api.restore_verdict(self.ws.project, self.episode_id, self.before)
            self.done(self.episode_id, self.before.status, True)
        self._run(do)


class EditChecklist(_SetValues):
    """An ambiguous task's checklist ticked or cleared: the reviewer's record, not an edit of the sample."""

    def _write(self, values: dict) -> None:
        self.ws.episode_put(verification.record_checklist(self.ws.project, self.row_id, values, self.ws.actor,
                                                         expected_version=self.ws.version))
