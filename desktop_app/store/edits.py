"""Edits: each call is one transaction with its audit entries.

A multi-box edit (delete three boxes, move a selection) is one transaction, so
it lands whole or not at all. The GUI's undo commands and the CLI call these;
nothing here keeps state between calls, so an edit the caller saw succeed is on disk. Once an edit of
boxes has committed, what has to follow it runs wherever the edit came from (store/box_listeners.py:
evaluation re-scores the agents' answers on those steps, ADR 0024).

Optimistic versioning, per episode: every edit of an episode or of anything on its steps first raises the
episode's version in one conditional UPDATE. That row lock orders concurrent writers of one screen (so the
audit log's order is the order the edits landed), and a caller that passes the version it loaded
(`expected_version`) has a stale write refused with StaleEdit instead of overwriting a colleague's change.
After a successful edit with `expected_version=v` the episode is at version v + 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import exists, or_, text, update

from desktop_app.store import audit, box_listeners, label_set
from desktop_app.store.models import ACTION_TYPES, ActionBox, Assignment, Episode, Step
from desktop_app.store.orm import Session, select
from desktop_app.store.project import Project
from desktop_app.store.types import utcnow

BOX_FIELDS = ("x1", "y1", "x2", "y2", "label", "category", "action_type", "element_text", "type_text", "source", "meta")
EPISODE_FIELDS = ("goal", "scenario", "split", "review_status", "meta")


class EditConflict(RuntimeError):
    """The row changed (or vanished) since the caller read it."""


class EditRefused(EditConflict):
    """The edit is not this person's to make (a finished copy, or on a server a screen outside their queue);
    the message says why and who can change it."""


class StaleEdit(EditConflict):
    """Someone else changed the screen since the caller loaded it; nothing of this edit was written."""

    def __init__(self, episode_id: int | None, expected: int, actual: int | None, by: str = ""):
        self.episode_id, self.expected, self.actual, self.by = episode_id, expected, actual, by
        who = f"{by} " if by else "someone else "
        what = f"version {expected} -> {actual}" if actual is not None else "a box you changed was deleted"
        super().__init__(f"{who}changed this screen since you read it ({what}); nothing of your edit was written")


def _finished_copy(episode_id_column):
    """SQL: the episode is a private copy whose annotator has finished it (done or skipped): frozen."""
    return exists().where(Assignment.copy_id == episode_id_column, Assignment.state.in_(("done", "skipped")))


def claim_episode(s: Session, episode_id: int, expected: int | None = None, actor: str = "") -> int:
    """Raise the episode's version (refused with StaleEdit when it is not `expected`, with EditRefused when the
    episode is a finished copy or, on a server, not this login's to change); returns the new one."""
    stmt = update(Episode).where(Episode.id == episode_id, ~_finished_copy(Episode.id))
    if expected is not None:
        stmt = stmt.where(Episode.version == expected)
    row = s.execute(stmt.values(version=Episode.version + 1, updated_at=utcnow(), updated_by=actor[:64])
                    .returning(Episode.version)).first()
    if row is not None:
        return row[0]
    found = s.execute(select(Episode.version, Episode.updated_by).where(Episode.id == episode_id)).first()
    if found is None:
        if _hidden_from_me(s):
            raise EditRefused(f"episode {episode_id} is not in your queue (or no longer exists)")
        raise EditConflict(f"episode {episode_id} no longer exists")
    frozen = s.execute(select(Assignment.annotator, Assignment.state)
                       .where(Assignment.copy_id == episode_id, Assignment.state.in_(("done", "skipped")))).first()
    if frozen is not None:
        raise EditRefused(f"this is {frozen.annotator}'s copy, marked {frozen.state}: it is kept as they finished "
                          "it (a lead or reviewer can reopen it)")
    if expected is not None and found.version != expected:
        raise StaleEdit(episode_id, expected, found.version, found.updated_by)
    raise EditRefused(why_not_yours(s, episode_id))


def _hidden_from_me(s: Session) -> bool:
    """On a server, an annotator sees only their own work: a missing episode may just be someone else's."""
    if s.get_bind().dialect.name != "postgresql":
        return False
    return s.execute(text("SELECT to_regprocedure('screenlab_role()') IS NOT NULL AND screenlab_role() = "
                          "'annotator'")).scalar_one()


def why_not_yours(s: Session, episode_id: int) -> str:
    """Why the server let this login see an episode but not change it (row-level security, ADR 0029)."""
    me = s.execute(text("SELECT session_user")).scalar_one() if s.get_bind().dialect.name == "postgresql" else ""
    rows = s.execute(select(Assignment).where(or_(Assignment.episode_id == episode_id,
                                                  Assignment.copy_id == episode_id))).scalars().all()
    mine = [r for r in rows if r.annotator == me]
    if any(r.state in ("done", "skipped") for r in mine):
        return "you marked this screen finished; a lead or reviewer can reopen it for you"
    if any(r.copy_id is not None and r.copy_id != episode_id for r in mine):
        return "you label this sample blind on your own copy: open it from My queue"
    return "this screen is not in your queue (ask your lead to assign it to you)"


def _claim_steps(s: Session, step_ids, expected: int | None, actor: str) -> None:
    episodes = sorted(set(s.execute(select(Step.episode_id).where(Step.id.in_(set(step_ids)))).scalars()))
    if not episodes:
        gone = f"step {min(set(step_ids), default=0)}"
        if _hidden_from_me(s):
            raise EditRefused(f"{gone} is not in your queue (or no longer exists)")
        raise EditConflict(f"{gone} no longer exists")
    if expected is not None and len(episodes) > 1:
        raise ValueError("expected_version applies to an edit of one episode")
    for episode_id in episodes:  # in id order: two multi-episode edits never wait on each other
        claim_episode(s, episode_id, expected, actor)


def _check_box_values(values: dict[str, Any], classes: tuple[str, ...]) -> None:
    unknown = set(values) - set(BOX_FIELDS)
    if unknown:
        raise ValueError(f"not editable: {', '.join(sorted(unknown))}")
    if "label" in values and values["label"] not in label_set.ROLES:
        raise ValueError(f"unknown role '{values['label']}' (gold, distracted or other; a class is set as "
                         "category)")
    if values.get("category") and values["category"] not in classes:
        raise ValueError(f"unknown class '{values['category']}' (this project's classes: "
                         f"{', '.join(classes) or 'none yet'})")
    if "action_type" in values and values["action_type"] not in ACTION_TYPES:
        raise ValueError(f"unknown action type '{values['action_type']}'")


def box_values(box: ActionBox) -> dict[str, Any]:
    """The editable state of a box: what undo restores."""
    return {k: getattr(box, k) for k in BOX_FIELDS}


def _jsonable(values: dict[str, Any]) -> dict[str, Any]:
    return {k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in values.items()}


def create_boxes(project: Project, step_id: int, values: list[dict[str, Any]],
                 actor: str | None = None, expected_version: int | None = None) -> list[ActionBox]:
    actor = project.actor(actor)
    allowed = label_set.classes(project.engine) if any(v.get("category") for v in values) else ()
    for v in values:
        _check_box_values(v, allowed)
    with project.transaction() as s:
        _claim_steps(s, [step_id], expected_version, actor)
        return add_boxes_in(s, step_id, values, actor)


def add_boxes_in(s: Session, step_id: int, values: list[dict[str, Any]], actor: str,
                 author: str | None = None) -> list[ActionBox]:
    """Within a caller's transaction (its episode already claimed): new boxes and their audit entries."""
    boxes = [ActionBox(step_id=step_id, author=author or actor, **v) for v in values]
    s.add_all(boxes)
    s.flush()
    box_listeners.note(s, [step_id])
    for box in boxes:
        audit.record(s, "create", "action_box", box.id, {"step": step_id, "after": _jsonable(box_values(box))},
                     actor)
    return boxes


def _box_steps(s: Session, ids, expected: int | None = None) -> list[int]:
    found = dict(s.execute(select(ActionBox.id, ActionBox.step_id).where(ActionBox.id.in_(set(ids)))).all())
    for box_id in ids:
        if box_id not in found:
            if expected is not None:  # the caller loaded the screen with that box: someone deleted it since
                raise StaleEdit(None, expected, None)
            if _hidden_from_me(s):
                raise EditRefused(f"box {box_id} is not in your queue (or no longer exists)")
            raise EditConflict(f"action {box_id} no longer exists")
    return list(found.values())


def update_boxes(project: Project, changes: list[tuple[int, dict[str, Any]]], actor: str | None = None,
                 expected_versions: dict[int, int] | None = None,
                 expected_version: int | None = None) -> list[ActionBox]:
    actor = project.actor(actor)
    allowed = label_set.classes(project.engine) if any(c.get("category") for _, c in changes) else ()
    for _, c in changes:
        _check_box_values(c, allowed)
    out = []
    with project.transaction() as s:
        _claim_steps(s, _box_steps(s, [box_id for box_id, _ in changes], expected_version), expected_version, actor)
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
            box_listeners.note(s, [box.step_id])
            audit.record(s, "update", "action_box", box_id,
                         {"before": _jsonable(before), "after": _jsonable(change)}, actor)
            out.append(box)
    return out


def delete_boxes(project: Project, ids: list[int], actor: str | None = None,
                 expected_version: int | None = None) -> dict[int, dict[str, Any]]:
    """Delete and return, per id, what restore_boxes needs to bring them back."""
    actor = project.actor(actor)
    with project.transaction() as s:
        _claim_steps(s, _box_steps(s, ids, expected_version), expected_version, actor)
        return delete_boxes_in(s, ids, actor)


def delete_boxes_in(s: Session, ids: list[int], actor: str) -> dict[int, dict[str, Any]]:
    """Within a caller's transaction (its episode already claimed): delete, audit, return what restores."""
    saved = {}
    for box_id in ids:
        box = s.get(ActionBox, box_id)
        if box is None:
            raise EditConflict(f"action {box_id} no longer exists")
        saved[box_id] = {"step_id": box.step_id, "author": box.author, "created_at": box.created_at,
                         "version": box.version, **box_values(box)}
        s.delete(box)
        audit.record(s, "delete", "action_box", box_id, {"before": _jsonable(saved[box_id])}, actor)
    s.flush()
    box_listeners.note(s, [v["step_id"] for v in saved.values()])
    return saved


def restore_boxes(project: Project, saved: dict[int, dict[str, Any]], actor: str | None = None,
                  expected_version: int | None = None) -> list[ActionBox]:
    """Undo of a delete: boxes come back under their old ids (ids are never reused)."""
    actor = project.actor(actor)
    with project.transaction() as s:
        _claim_steps(s, [v["step_id"] for v in saved.values()], expected_version, actor)
        boxes = []
        for box_id, values in saved.items():
            box = ActionBox(id=box_id, **values)
            box.version += 1
            box.updated_at = utcnow()
            boxes.append(box)
        s.add_all(boxes)
        s.flush()
        box_listeners.note(s, [box.step_id for box in boxes])
        for box in boxes:
            audit.record(s, "restore", "action_box", box.id,
                         {"step": box.step_id, "after": _jsonable(box_values(box))}, actor)
    return boxes


@dataclass(frozen=True)
class ScreenBoxes:
    """A step's boxes as stored together with its episode's version: pass `version` as expected_version to
    an edit, which is then refused (StaleEdit) if anyone changed the screen since this read."""

    step_id: int
    episode_id: int
    step_index: int
    version: int
    boxes: list[ActionBox]


def read_screen(project: Project, step_id: int) -> ScreenBoxes:
    """The boxes of a step and the version they belong to. Every edit raises the version first and commits
    with its boxes, so a version read equal before and after the boxes proves they are that version's."""
    while True:
        with project.reading() as s:
            step = s.get(Step, step_id)
            if step is None:
                raise ValueError(f"no step {step_id} in your view of this project")
            version = s.execute(select(Episode.version).where(Episode.id == step.episode_id)).scalar_one()
            boxes = list(s.exec(select(ActionBox).where(ActionBox.step_id == step_id).order_by(ActionBox.id)))
            again = s.execute(select(Episode.version).where(Episode.id == step.episode_id)).scalar_one()
        if again == version:
            return ScreenBoxes(step_id, step.episode_id, step.index, version, boxes)


def boxes_of_step(project: Project, step_id: int) -> list[ActionBox]:
    with project.reading() as s:
        return list(s.exec(select(ActionBox).where(ActionBox.step_id == step_id).order_by(ActionBox.id)))


def update_episode(project: Project, episode_id: int, changes: dict[str, Any], actor: str | None = None,
                   expected_version: int | None = None) -> Episode:
    actor = project.actor(actor)
    unknown = set(changes) - set(EPISODE_FIELDS)
    if unknown:
        raise ValueError(f"not editable: {', '.join(sorted(unknown))}")
    with project.transaction() as s:
        claim_episode(s, episode_id, expected_version, actor)  # read below, after the lock: the latest row
        episode = s.get(Episode, episode_id, populate_existing=True)
        before = {k: getattr(episode, k) for k in changes}
        for key, value in changes.items():
            setattr(episode, key, value)
        s.add(episode)
        if "scenario" in changes and changes["scenario"] != before["scenario"]:
            # judging an answer reads the scenario (its text-match threshold): the steps are judged again
            box_listeners.note(s, s.execute(select(Step.id).where(Step.episode_id == episode_id)).scalars())
        audit.record(s, "update", "episode", episode_id,
                     {"before": _jsonable(before), "after": _jsonable(changes)}, actor)
    return episode


def update_step_meta(project: Project, step_id: int, changes: dict[str, Any], actor: str | None = None,
                     expected_version: int | None = None) -> Step:
    """Set keys of a step's meta (None removes a key), e.g. a completion label overridden by hand."""
    actor = project.actor(actor)
    with project.transaction() as s:
        _claim_steps(s, [step_id], expected_version, actor)
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
