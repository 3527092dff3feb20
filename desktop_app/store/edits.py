"""Edits: each call is one transaction with its audit entries.

A multi-box edit (delete three boxes, move a selection) is one transaction, so
it lands whole or not at all. The GUI's undo commands and the CLI call these;
nothing here keeps state between calls, so an edit the caller saw succeed is on disk.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import select

from desktop_app.store import audit
from desktop_app.store.models import ACTION_TYPES, LABELS, ActionBox, Episode, Step
from desktop_app.store.project import Project
from desktop_app.store.types import utcnow

BOX_FIELDS = ("x1", "y1", "x2", "y2", "label", "action_type", "element_text", "type_text", "source", "meta")
EPISODE_FIELDS = ("goal", "scenario", "split", "review_status", "meta")


class EditConflict(RuntimeError):
    """The row changed (or vanished) since the caller read it."""


def _check_box_values(values: dict[str, Any]) -> None:
    unknown = set(values) - set(BOX_FIELDS)
    if unknown:
        raise ValueError(f"not editable: {', '.join(sorted(unknown))}")
    if "label" in values and values["label"] not in LABELS:
        raise ValueError(f"unknown label '{values['label']}'")
    if "action_type" in values and values["action_type"] not in ACTION_TYPES:
        raise ValueError(f"unknown action type '{values['action_type']}'")


def box_values(box: ActionBox) -> dict[str, Any]:
    """The editable state of a box: what undo restores."""
    return {k: getattr(box, k) for k in BOX_FIELDS}


def _jsonable(values: dict[str, Any]) -> dict[str, Any]:
    return {k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in values.items()}


def create_boxes(project: Project, step_id: int, values: list[dict[str, Any]],
                 actor: str | None = None) -> list[ActionBox]:
    actor = actor or audit.current_actor()
    for v in values:
        _check_box_values(v)
    with project.transaction() as s:
        boxes = [ActionBox(step_id=step_id, author=actor, **v) for v in values]
        s.add_all(boxes)
        s.flush()
        for box in boxes:
            audit.record(s, "create", "action_box", box.id, {"after": _jsonable(box_values(box))}, actor)
    return boxes


def update_boxes(project: Project, changes: list[tuple[int, dict[str, Any]]], actor: str | None = None,
                 expected_versions: dict[int, int] | None = None) -> list[ActionBox]:
    actor = actor or audit.current_actor()
    for _, c in changes:
        _check_box_values(c)
    out = []
    with project.transaction() as s:
        for box_id, change in changes:
            box = s.get(ActionBox, box_id)
            if box is None:
                raise EditConflict(f"action {box_id} no longer exists")
            if expected_versions and box.version != expected_versions.get(box_id, box.version):
                raise EditConflict(f"action {box_id} was changed elsewhere")
            before = {k: getattr(box, k) for k in change}
            for key, value in change.items():
                setattr(box, key, value)
            box.version += 1
            box.updated_at = utcnow()
            s.add(box)
            audit.record(s, "update", "action_box", box_id,
                         {"before": _jsonable(before), "after": _jsonable(change)}, actor)
            out.append(box)
    return out


def delete_boxes(project: Project, ids: list[int], actor: str | None = None) -> dict[int, dict[str, Any]]:
    """Delete and return, per id, what restore_boxes needs to bring them back."""
    actor = actor or audit.current_actor()
    saved = {}
    with project.transaction() as s:
        for box_id in ids:
            box = s.get(ActionBox, box_id)
            if box is None:
                raise EditConflict(f"action {box_id} no longer exists")
            saved[box_id] = {"step_id": box.step_id, "author": box.author, "created_at": box.created_at,
                             "version": box.version, **box_values(box)}
            s.delete(box)
            audit.record(s, "delete", "action_box", box_id, {"before": _jsonable(saved[box_id])}, actor)
    return saved


def restore_boxes(project: Project, saved: dict[int, dict[str, Any]], actor: str | None = None) -> list[ActionBox]:
    """Undo of a delete: boxes come back under their old ids (ids are never reused)."""
    actor = actor or audit.current_actor()
    with project.transaction() as s:
        boxes = []
        for box_id, values in saved.items():
            box = ActionBox(id=box_id, **values)
            box.version += 1
            box.updated_at = utcnow()
            boxes.append(box)
        s.add_all(boxes)
        s.flush()
        for box in boxes:
            audit.record(s, "restore", "action_box", box.id, {"after": _jsonable(box_values(box))}, actor)
    return boxes


def boxes_of_step(project: Project, step_id: int) -> list[ActionBox]:
    with project.reading() as s:
        return list(s.exec(select(ActionBox).where(ActionBox.step_id == step_id).order_by(ActionBox.id)))


def update_episode(project: Project, episode_id: int, changes: dict[str, Any], actor: str | None = None) -> Episode:
    actor = actor or audit.current_actor()
    unknown = set(changes) - set(EPISODE_FIELDS)
    if unknown:
        raise ValueError(f"not editable: {', '.join(sorted(unknown))}")
    with project.transaction() as s:
        episode = s.get(Episode, episode_id)
        if episode is None:
            raise EditConflict(f"episode {episode_id} no longer exists")
        before = {k: getattr(episode, k) for k in changes}
        for key, value in changes.items():
            setattr(episode, key, value)
        episode.version += 1
        episode.updated_at = utcnow()
        s.add(episode)
        audit.record(s, "update", "episode", episode_id,
                     {"before": _jsonable(before), "after": _jsonable(changes)}, actor)
    return episode


def update_step_meta(project: Project, step_id: int, changes: dict[str, Any], actor: str | None = None) -> Step:
    """Set keys of a step's meta (None removes a key), e.g. a completion label overridden by hand."""
    actor = actor or audit.current_actor()
    with project.transaction() as s:
        step = s.get(Step, step_id)
        if step is None:
            raise EditConflict(f"step {step_id} no longer exists")
        meta = dict(step.meta or {})
        before = {k: meta.get(k) for k in changes}
        for key, value in changes.items():
            if value is None:
                meta.pop(key, None)
            else:
                meta[key] = value
        step.meta = meta
        s.add(step)
        audit.record(s, "update", "step", step_id, {"before": {"meta": before}, "after": {"meta": changes}}, actor)
    return step
