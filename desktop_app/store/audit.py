"""Who changed what. Rows are only ever appended (the database enforces it)."""

from __future__ import annotations

from typing import Any

from desktop_app.actor import current_actor
from desktop_app.store.models import ActionBox, AuditEntry
from desktop_app.store.orm import Session, select

__all__ = ["current_actor", "record"]


def record(session: Session, action: str, entity: str, entity_id: int | None = None,
           changes: dict[str, Any] | None = None, actor: str | None = None) -> None:
    session.add(AuditEntry(actor=actor or current_actor(), action=action, entity=entity,
                           entity_id=entity_id, changes=changes or {}))



def box_state(session: Session) -> tuple[dict[int, dict[str, Any]], int]:
    """Every box as stored now (id -> step and editable fields), and the last audit id at that moment:
    the start from which replay_boxes rebuilds the boxes."""
    last = session.execute(select(AuditEntry.id).order_by(AuditEntry.id.desc()).limit(1)).scalar() or 0
    return stored_boxes(session), last


REPLAYED = ("x1", "y1", "x2", "y2", "label", "action_type", "element_text", "type_text", "source")


def _box_dict(box) -> dict[str, Any]:
    return {"step": box.step_id, **{k: getattr(box, k) for k in REPLAYED}}


def replay_boxes(session: Session, start: dict[int, dict[str, Any]], after_id: int) -> dict[int, dict[str, Any]]:
    """The boxes the audit log says there should be: `start` with every box entry after `after_id` applied
    in order. Equal to the stored boxes when no edit was lost or written around the log."""
    boxes = {k: dict(v) for k, v in start.items()}
    entries = session.execute(select(AuditEntry).where(AuditEntry.id > after_id, AuditEntry.entity == "action_box")
                              .order_by(AuditEntry.id)).scalars()
    for entry in entries:
        apply_entry(boxes, entry)
    return boxes


def apply_entry(boxes: dict[int, dict[str, Any]], entry: AuditEntry) -> None:
    """One box entry of the log applied to `boxes` (id -> step and fields)."""
    change = entry.changes or {}
    if entry.action in ("create", "restore"):
        boxes[entry.entity_id] = {"step": change["step"], **{k: change["after"].get(k) for k in REPLAYED}}
    elif entry.action == "update":
        boxes[entry.entity_id].update({k: v for k, v in change["after"].items() if k in REPLAYED})
    elif entry.action == "delete":
        boxes.pop(entry.entity_id, None)


def stored_boxes(session: Session) -> dict[int, dict[str, Any]]:
    return {b.id: _box_dict(b) for b in session.execute(select(ActionBox)).scalars()}
