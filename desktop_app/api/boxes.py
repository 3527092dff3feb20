"""Boxes, their attributes and the project's label set in the Python API (desktop_app/store/edits.py): each
edit is one audited transaction.

No silent overwrite: read a screen with `screen(project, step_id)` and pass its `version` as
`expected_version` to the edit. If anyone changed that screen since (another window, script or process),
the edit is refused with StaleEdit, which names who, and nothing of it is written; read again and redo it.
After a successful edit with expected_version=v the screen is at version v + 1. An edit given no version
reads the current one in its own transaction and lands over whatever is stored then: only for a script that
is the screen's sole writer.

The agents' stored answers on the steps are judged again after each edit on a project opened with
`open_project` / `init_project` (desktop_app/opening.py), as after an edit in the window.

Also the rest of what the window's editing uses, so that it reaches the store only here (tests/layers.py,
rule 6): undo's edits (`restore_boxes`, `edit_episode`, `edit_step_meta`), the rules of the box clipboard
(store/box_clipboard.py) and of where pasted, duplicated and nudged boxes land (store/box_placement.py), and
the label and action-type constants.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from desktop_app.store import box_placement as _placement
from desktop_app.store import edits as _edits
from desktop_app.store import label_set as _label_set
from desktop_app.store.attributes import attributes_of as _attributes_of
from desktop_app.store.attributes import set_attributes as _set_attributes
from desktop_app.store.attributes import with_attributes
from desktop_app.store.box_clipboard import boxes_from_clipboard, clipboard_text
from desktop_app.store.box_clipboard import copied as copied_boxes
from desktop_app.store.edits import EditConflict, EditRefused, ScreenBoxes, StaleEdit
from desktop_app.store.models import ACTION_TYPES, LABELS, ActionBox, Episode, Step
from desktop_app.store.project import Project

__all__ = ["ACTION_TYPES", "LABELS", "ActionBox", "EditConflict", "EditRefused", "ScreenBoxes", "StaleEdit",
           "add_boxes", "add_class", "add_classes", "box", "class_counts", "box_attributes", "boxes_from_clipboard", "clipboard_text",
           "copied_boxes", "delete_boxes", "duplicated_box", "edit_boxes", "edit_episode", "edit_step_meta",
           "classes", "nudged_boxes", "pasted_box", "remove_class", "restore_boxes", "screen",
           "set_box_attributes", "with_attributes"]


def screen(project: Project, step_id: int) -> ScreenBoxes:
    """A step's boxes and its screen's version (`.version`: what an edit's expected_version takes)."""
    return _edits.read_screen(project, step_id)


def add_boxes(project: Project, step_id: int, values: list[dict], actor: str | None = None,
              expected_version: int | None = None) -> list[ActionBox]:
    """New boxes on a step: x1, y1, x2, y2, label, action_type, element_text, type_text, source, meta.
    expected_version: the version you read (StaleEdit if the screen changed since); see the module's note."""
    return _edits.create_boxes(project, step_id, list(values), actor, expected_version)


def edit_boxes(project: Project, changes: dict[int, dict], actor: str | None = None,
               expected_version: int | None = None) -> list[ActionBox]:
    """box id -> the fields to set, e.g. {17: {"label": "other"}}, all on one screen when expected_version
    is given (the version you read: StaleEdit if the screen changed since)."""
    return _edits.update_boxes(project, list(changes.items()), actor, expected_version=expected_version)


def delete_boxes(project: Project, ids: list[int], actor: str | None = None,
                 expected_version: int | None = None) -> dict[int, dict]:
    """Delete boxes (of one screen when expected_version is given: StaleEdit if it changed since, a box
    deleted meanwhile included); returns, per id, the values it had (its step_id among them)."""
    return _edits.delete_boxes(project, list(ids), actor, expected_version)


def restore_boxes(project: Project, saved: dict[int, dict], actor: str | None = None,
                  expected_version: int | None = None) -> list[ActionBox]:
    """Undo of delete_boxes: give it what that returned; the boxes come back under their old ids."""
    return _edits.restore_boxes(project, saved, actor, expected_version)


def edit_episode(project: Project, episode_id: int, changes: dict[str, Any], actor: str | None = None,
                 expected_version: int | None = None) -> Episode:
    """Set an episode's goal, scenario, split, review_status or meta; returns the episode as stored."""
    return _edits.update_episode(project, episode_id, changes, actor, expected_version)


def edit_step_meta(project: Project, step_id: int, changes: dict[str, Any], actor: str | None = None,
                   expected_version: int | None = None) -> Step:
    """Set keys of a step's meta (None removes one), e.g. a completion label overridden by hand."""
    return _edits.update_step_meta(project, step_id, changes, actor, expected_version)


# -- where copied and moved boxes land (desktop_app/store/box_placement.py) ------------------------------------
def pasted_box(values: dict, width: float, height: float) -> dict:
    """A copied box's values as a new manual box, kept inside a `width` x `height` image."""
    return _placement.pasted(values, width, height)


def duplicated_box(values: dict, width: float, height: float) -> dict:
    """As pasted_box, moved right and down so the copy is seen beside its original."""
    return _placement.duplicated(values, width, height)


def nudged_boxes(boxes: Iterable[ActionBox], dx: float, dy: float, width: float, height: float) -> dict[int, dict]:
    """box id -> its corners moved by (dx, dy) but no further than the image's edge."""
    return _placement.nudged(boxes, dx, dy, width, height)


# -- a box's attributes (desktop_app/store/attributes.py) --------------------------------------------------
def box(project: Project, box_id: int) -> ActionBox:
    """One box by id; ValueError when there is none (or, on a server, it is not yours to see)."""
    with project.reading() as s:
        found = s.get(ActionBox, box_id)
    if found is None:
        raise ValueError(f"no box {box_id} in your view of this project")
    return found


def box_attributes(box: ActionBox) -> dict[str, str]:
    return _attributes_of(box.meta)


def set_box_attributes(project: Project, box_id: int, changes: dict[str, str | None],
                       actor: str | None = None, expected_version: int | None = None) -> ActionBox:
    """Set a box's attributes (an empty or None value removes one), as one audited edit; expected_version as
    for edit_boxes."""
    return _set_attributes(project, box_id, changes, actor, expected_version)


# -- the project's classes (desktop_app/store/label_set.py) -----------------------------------------------
def classes(project: Project) -> tuple[str, ...]:
    """The project's class vocabulary in the order it was added (a box's role is one of LABELS)."""
    return _label_set.classes(project.engine)


def class_counts(project: Project) -> dict[str, int]:
    """Each class of the vocabulary, in its order, with how many boxes have it."""
    return _label_set.class_counts(project.engine)


def add_classes(project: Project, names: list[str]) -> tuple[str, ...]:
    """Adds classes, all or none (LabelError names the bad or repeated one); returns the vocabulary."""
    return _label_set.add_classes(project.engine, list(names))


def add_class(project: Project, name: str) -> tuple[str, ...]:
    return _label_set.add_class(project.engine, name)


def remove_class(project: Project, name: str) -> tuple[str, ...]:
    """Refused (LabelError) for a class boxes still have."""
    return _label_set.remove_class(project.engine, name)
