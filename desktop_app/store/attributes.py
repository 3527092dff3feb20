"""Free key-value attributes on a box (as CVAT's and Label Studio's per-region attributes): "state=disabled",
"variant=dark", whatever a study needs beyond the label and the action. They live in the box's meta under
one key, so every edit, undo, export and the audit log carry them like any other field."""

from __future__ import annotations

from collections.abc import Mapping

from desktop_app.store import edits
from desktop_app.store.models import ActionBox
from desktop_app.store.project import Project

KEY = "attributes"  # in ActionBox.meta
MAX_NAME = 64
MAX_VALUE = 2000


def attributes_of(meta: Mapping | None) -> dict[str, str]:
    value = (meta or {}).get(KEY)
    return dict(value) if isinstance(value, dict) else {}


def with_attributes(meta: Mapping | None, changes: Mapping[str, str | None]) -> dict:
    """The box meta with these attributes set (an empty or None value removes one). Names are trimmed
    text of 1-64 characters, values text of at most 2,000; ValueError says which one is wrong."""
    current = attributes_of(meta)
    for name, value in changes.items():
        name = str(name).strip()
        if not name or len(name) > MAX_NAME:
            raise ValueError(f"attribute name {name!r}: 1 to {MAX_NAME} characters")
        if value is None or str(value) == "":
            current.pop(name, None)
            continue
        if not isinstance(value, str) or len(value) > MAX_VALUE:
            raise ValueError(f"attribute {name}: the value must be text of at most {MAX_VALUE} characters")
        current[name] = value
    out = {k: v for k, v in (meta or {}).items() if k != KEY}
    if current:
        out[KEY] = dict(sorted(current.items()))
    return out


def set_attributes(project: Project, box_id: int, changes: Mapping[str, str | None],
                   actor: str | None = None, expected_version: int | None = None) -> ActionBox:
    """Set (or, with an empty value, remove) attributes of one box, as one audited edit."""
    with project.reading() as s:
        box = s.get(ActionBox, box_id)
        if box is None:
            raise ValueError(f"no box {box_id} in this project")
        meta = with_attributes(box.meta, changes)
    (updated,) = edits.update_boxes(project, [(box_id, {"meta": meta})], actor, expected_version=expected_version)
    return updated
