"""Human labels of trajectories, the reference they make, and reviews of judge verdicts.

A trajectory's outcome is success, failure or impossible (the task cannot be done); unsure and
emulator_error (the authors' annotation app has both) are kept but say nothing about success.
The reference a judge is measured against is, per trajectory: the verdict of the latest review
that accepted a judge's verdict (the human label was wrong: the authors' LABEL_CORRECTION, kept
with who and why), else the majority of the human labels (success against failure + impossible);
a tie, or no usable label, leaves the trajectory without a reference (not scored).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from sqlalchemy import func, select

from desktop_app.judging.verdicts import verdicts_of
from desktop_app.judging.vocabulary import DECIDING, OUTCOMES, REVIEW_TAGS, STEP_LABELS
from desktop_app.store import audit
from desktop_app.store import models as m
from desktop_app.store.project import Project
from desktop_app.store.types import utcnow


class LabelError(ValueError):
    pass


@dataclass(frozen=True)
class Label:
    annotator: str
    outcome: str
    step_labels: tuple[str, ...] = ()
    comment: str = ""


def set_label(project: Project, episode_id: int, annotator: str, outcome: str,
              step_labels: list[str] | tuple[str, ...] | None = None, comment: str = "") -> Label:
    """Store (or replace) one annotator's label of a trajectory."""
    annotator = annotator.strip()
    if not annotator:
        raise LabelError("the annotator's name is empty (set it in Settings or pass --annotator)")
    if outcome not in OUTCOMES:
        raise LabelError(f"unknown outcome {outcome!r} (one of {', '.join(OUTCOMES)})")
    steps = [s or "" for s in (step_labels or ())]
    unknown = sorted({s for s in steps if s and s not in STEP_LABELS})
    if unknown:
        raise LabelError(f"unknown step label(s) {', '.join(unknown)} (one of {', '.join(STEP_LABELS)})")
    with project.transaction() as s:
        episode = s.get(m.Episode, episode_id)
        if episode is None or episode.kind != "trajectory":
            raise LabelError(f"no trajectory {episode_id} in this project")
        n_steps = s.execute(select(func.count()).where(m.Step.episode_id == episode_id)).scalar_one()
        if len(steps) > n_steps:
            raise LabelError(f"{len(steps)} step labels for a trajectory of {n_steps} steps")
        row = s.execute(select(m.TrajectoryLabel).where(m.TrajectoryLabel.episode_id == episode_id,
                                                        m.TrajectoryLabel.annotator == annotator)).scalar_one_or_none()
        before = {"outcome": row.outcome, "comment": row.comment} if row else None
        if row is None:
            row = m.TrajectoryLabel(episode_id=episode_id, annotator=annotator, outcome=outcome)
        else:
            row.version += 1
        row.outcome, row.step_labels, row.comment, row.updated_at = outcome, steps, comment, utcnow()
        s.add(row)
        audit.record(s, "update" if before else "create", "trajectory_label", episode_id,
                     {"annotator": annotator, "outcome": outcome, "before": before}, actor=annotator)
    return Label(annotator, outcome, tuple(steps), comment)


def labels_of(project: Project, episode_ids: list[int] | None = None) -> dict[int, dict[str, Label]]:
    """Per trajectory, per annotator, the label."""
    out: dict[int, dict[str, Label]] = {}
    with project.reading() as s:
        query = select(m.TrajectoryLabel)
        if episode_ids is not None:
            query = query.where(m.TrajectoryLabel.episode_id.in_(episode_ids))
        for row in s.execute(query.order_by(m.TrajectoryLabel.id)).scalars():
            out.setdefault(row.episode_id, {})[row.annotator] = Label(row.annotator, row.outcome,
                                                                      tuple(row.step_labels or ()), row.comment)
    return out


def success_of(outcome: str) -> bool | None:
    """Whether an outcome says the agent succeeded (None: it says nothing)."""
    return {"success": True, "failure": False, "impossible": False}.get(outcome)


def majority(labels: dict[str, Label] | None) -> bool | None:
    votes = Counter(v for v in (success_of(label.outcome) for label in (labels or {}).values()) if v is not None)
    if not votes or votes[True] == votes[False]:
        return None
    return votes[True] > votes[False]


@dataclass(frozen=True)
class Reference:
    success: bool | None  # None: no reference (no usable label, or a tie)
    source: str  # "humans" | "review" | ""


def references(project: Project) -> dict[int, Reference]:
    """Per trajectory, the reference outcome the judges are measured against (see the module's text)."""
    with project.reading() as s:
        ids = list(s.execute(select(m.Episode.id).where(m.Episode.kind == "trajectory")).scalars())
        corrected: dict[int, bool] = {}
        for eid, judged in s.execute(select(m.JudgeReview.episode_id, m.JudgeReview.judged)
                                     .where(m.JudgeReview.decision == "accept").order_by(m.JudgeReview.updated_at,
                                                                                         m.JudgeReview.id)):
            value = success_of(judged)
            if value is not None:
                corrected[eid] = value
    labels = labels_of(project)
    out = {}
    for eid in ids:
        if eid in corrected:
            out[eid] = Reference(corrected[eid], "review")
        else:
            value = majority(labels.get(eid))
            out[eid] = Reference(value, "humans" if value is not None else "")
    return out


@dataclass(frozen=True)
class Review:
    run_id: int
    episode_id: int
    reviewer: str
    decision: str
    judged: str
    tags: tuple[str, ...]
    note: str


def review_verdict(project: Project, run_id: int, episode_id: int, reviewer: str, decision: str,
                   tags: list[str] | tuple[str, ...] = (), note: str = "") -> Review:
    """Decide on a judge's verdict: accept (the judge was right: the reference becomes its verdict)
    or override (the human label stands); tags say what went wrong."""
    if decision not in m.REVIEW_DECISIONS:
        raise LabelError(f"unknown decision {decision!r} (accept or override)")
    unknown = sorted(set(tags) - set(REVIEW_TAGS))
    if unknown:
        raise LabelError(f"unknown tag(s) {', '.join(unknown)} (one of {', '.join(REVIEW_TAGS)})")
    if not reviewer.strip():
        raise LabelError("the reviewer's name is empty")
    judged = verdicts_of(project, run_id).get(episode_id)
    if judged is None or judged.status not in DECIDING:
        raise LabelError(f"run {run_id} has no verdict on trajectory {episode_id} to review")
    with project.transaction() as s:
        row = s.execute(select(m.JudgeReview).where(m.JudgeReview.run_id == run_id,
                                                    m.JudgeReview.episode_id == episode_id)).scalar_one_or_none()
        if row is None:
            row = m.JudgeReview(run_id=run_id, episode_id=episode_id, decision=decision)
        row.reviewer, row.decision, row.judged = reviewer.strip(), decision, judged.status
        row.tags, row.note, row.updated_at = list(tags), note, utcnow()
        s.add(row)
        audit.record(s, "review", "judge_review", episode_id,
                     {"run": run_id, "decision": decision, "judged": judged.status, "tags": list(tags), "note": note},
                     actor=reviewer.strip())
    return Review(run_id, episode_id, reviewer.strip(), decision, judged.status, tuple(tags), note)


def reviews_of(project: Project, run_ids: list[int] | None = None) -> dict[tuple[int, int], Review]:
    with project.reading() as s:
        query = select(m.JudgeReview)
        if run_ids is not None:
            query = query.where(m.JudgeReview.run_id.in_(run_ids))
        return {(r.run_id, r.episode_id): Review(r.run_id, r.episode_id, r.reviewer, r.decision, r.judged,
                                                 tuple(r.tags or ()), r.note)
                for r in s.execute(query).scalars()}


__all__ = ["DECIDING", "OUTCOMES", "REVIEW_TAGS", "STEP_LABELS", "Label", "LabelError", "Reference", "Review",
           "labels_of", "majority", "references", "review_verdict", "reviews_of", "set_label", "success_of"]
