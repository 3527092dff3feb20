"""Double-annotated samples: each annotator's version side by side, agreement between them, and the
lead's adjudication, which writes the chosen boxes into the sample (every version stays: the copies are
kept and the audit log holds each box deleted and written)."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import select

from desktop_app.store import audit, edits
from desktop_app.store.models import ActionBox, Adjudication, Assignment, Step
from desktop_app.store.orm import Session
from desktop_app.store.project import NotAllowed, Project
from desktop_app.teams import agreement
from desktop_app.teams.agreement import Box

COPIED_FIELDS = ("x1", "y1", "x2", "y2", "label", "action_type", "element_text", "type_text")


@dataclass
class Version:
    """One annotator's labelling of a sample: their copy, their state, their boxes per step index."""

    annotator: str
    copy_id: int
    state: str
    boxes: dict[int, list[ActionBox]] = field(default_factory=dict)


def _boxes_by_index(s: Session, episode_id: int) -> dict[int, list[ActionBox]]:
    rows = s.execute(select(Step.index, ActionBox).join(ActionBox, ActionBox.step_id == Step.id)
                     .where(Step.episode_id == episode_id).order_by(Step.index, ActionBox.id)).all()
    out: dict[int, list[ActionBox]] = {}
    for index, box in rows:
        out.setdefault(index, []).append(box)
    return out


def versions(project: Project, episode_id: int) -> list[Version]:
    """The copies of a double-annotated sample, by annotator name."""
    with project.reading() as s:
        rows = s.execute(select(Assignment).where(Assignment.episode_id == episode_id,
                                                  Assignment.copy_id.is_not(None))
                         .order_by(Assignment.annotator)).scalars().all()
        return [Version(r.annotator, r.copy_id, r.state, _boxes_by_index(s, r.copy_id)) for r in rows]


def blind_until_done(found: list[Version]) -> None:
    waiting = [v.annotator for v in found if v.state not in ("done", "skipped")]
    if waiting:
        raise ValueError(f"not every version is finished ({', '.join(waiting)} still labelling): "
                         "the versions stay blind until all are done")


def _as_agreement_box(box: ActionBox) -> Box | None:
    if box.x1 is None:
        return None  # a box with no coordinates cannot be matched by overlap
    return Box(box.x1, box.y1, box.x2, box.y2, box.label, ref=box.id)


def team_agreement(project: Project, episode_ids: list[int] | None = None, threshold: float = 0.5) -> dict:
    """Agreement over the finished double-annotated samples (all of them, or these): per annotator pair
    and per label (teams/agreement.py). Screens are (sample id, step index)."""
    with project.reading() as s:
        stmt = select(Assignment).where(Assignment.copy_id.is_not(None), Assignment.state == "done")
        if episode_ids is not None:
            stmt = stmt.where(Assignment.episode_id.in_(episode_ids))
        rows = s.execute(stmt).scalars().all()
        by_person: dict[str, dict[object, list[Box]]] = {}
        for row in rows:
            screens = by_person.setdefault(row.annotator, {})
            steps = s.execute(select(Step.index).where(Step.episode_id == row.copy_id)).scalars().all()
            boxes = _boxes_by_index(s, row.copy_id)
            for index in steps:
                screens[(row.episode_id, index)] = [b for b in map(_as_agreement_box, boxes.get(index, [])) if b]
    result = agreement.team_agreement(by_person, threshold)
    finished: dict[int, int] = {}
    for row in rows:
        finished[row.episode_id] = finished.get(row.episode_id, 0) + 1
    result["samples"] = sum(1 for n in finished.values() if n >= 2)  # compared: two or more versions done
    return result


def adjudicate(project: Project, episode_id: int, take: str | None = None, boxes: list[int] | None = None,
               lead: str | None = None, expected_version: int | None = None) -> Adjudication:
    """Make the sample's labels one annotator's version (`take`) or a merge of boxes picked from the copies
    (`boxes`: copy box ids). The sample's previous boxes are replaced; each new box keeps its author and
    says which copy box it came from."""
    lead = project.actor(lead)
    if project.on_server and not project.identity.can_assign:
        me = project.identity
        raise NotAllowed(f"you are {me.user} ({me.role}): only the team's lead adjudicates")
    if (take is None) == (boxes is None):
        raise ValueError("give either take (an annotator) or boxes (box ids from the versions)")
    found = versions(project, episode_id)
    if len(found) < 2:
        raise ValueError(f"episode {episode_id} was not labelled twice: nothing to adjudicate")
    blind_until_done(found)
    copies = {v.copy_id: v for v in found}
    if take is not None:
        chosen = next((v for v in found if v.annotator == take), None)
        if chosen is None:
            raise ValueError(f"'{take}' did not label this sample (versions: {', '.join(copies[c].annotator for c in copies)})")
        picked = [(chosen.annotator, i, b) for i, bs in chosen.boxes.items() for b in bs]
        choice = {"take": take}
    else:
        index = {b.id: (v.annotator, i, b) for v in found for i, bs in v.boxes.items() for b in bs}
        unknown = [b for b in boxes if b not in index]
        if unknown:
            raise ValueError(f"box {unknown[0]} is not in any version of this sample")
        picked = [index[b] for b in dict.fromkeys(boxes)]
        choice = {"boxes": list(dict.fromkeys(boxes))}
    with project.transaction() as s:
        edits.claim_episode(s, episode_id, expected_version, lead)
        steps = dict(s.execute(select(Step.index, Step.id).where(Step.episode_id == episode_id)).all())
        old = s.execute(select(ActionBox.id).join(Step, Step.id == ActionBox.step_id)
                        .where(Step.episode_id == episode_id)).scalars().all()
        edits.delete_boxes_in(s, list(old), lead)
        for annotator, index, box in picked:
            values = {k: getattr(box, k) for k in COPIED_FIELDS}
            values.update(source="manual", meta={**(box.meta or {}), "adjudicated_from": box.id})
            edits.add_boxes_in(s, steps[index], [values], lead, author=annotator)
        row = s.execute(select(Adjudication).where(Adjudication.episode_id == episode_id)).scalars().first()
        row = row or Adjudication(episode_id=episode_id)
        row.lead, row.choice = lead, choice
        s.add(row)
        s.flush()
        audit.record(s, "adjudicate", "episode", episode_id, {"choice": choice, "replaced": len(old),
                                                              "written": len(picked)}, lead)
    return row

