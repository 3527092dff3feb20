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
"""

from __future__ import annotations

from desktop_app.store import edits as _edits
from desktop_app.store import label_set as _label_set
from desktop_app.store.attributes import attributes_of as _attributes_of
from desktop_app.store.attributes import set_attributes as _set_attributes
from desktop_app.store.edits import EditConflict, EditRefused, ScreenBoxes, StaleEdit
from desktop_app.store.models import ActionBox
from desktop_app.store.project import Project

__all__ = ["EditConflict", "EditRefused", "ScreenBoxes", "StaleEdit", "add_boxes", "add_label", "box",
           "box_attributes", "delete_boxes", "edit_boxes", "labels", "remove_label", "screen",
           "set_box_attributes"]


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


# -- the project's label set (desktop_app/store/label_set.py) ----------------------------------------------
def labels(project: Project) -> tuple[str, ...]:
    """gold, distracted, other, then the project's own labels (which score as other)."""
    return _label_set.labels(project.engine)


def add_label(project: Project, name: str) -> tuple[str, ...]:
    return _label_set.add_label(project.engine, name)


def remove_label(project: Project, name: str) -> tuple[str, ...]:
    """Refused (LabelError) for gold, distracted, other and for a label boxes still use."""
    return _label_set.remove_label(project.engine, name)
