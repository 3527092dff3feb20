"""The review stage after annotation (CVAT's annotation -> validation -> acceptance): a reviewer or the lead
accepts an annotator's finished work on a sample, or returns it to them with a comment, pinned to a box or
a point of one of its screens when that helps. A returned sample is back in its annotator's queue ("returned",
the comment shown where they label it); their next "done" puts it before a reviewer again.

Decisions are rows of work_review, only ever added: the latest one is where the work stands, all of them
give each annotator's acceptance rate. On a server only staff may write them (table grants) and the
reviewer recorded is the login (a trigger); an annotator reads the decisions on their own work only.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, or_, select

from desktop_app.store import audit, work_states
from desktop_app.store.models import ActionBox, Assignment, Episode, Screen, Step, WorkReview
from desktop_app.store.orm import Session
from desktop_app.store.project import NotAllowed, Project
from desktop_app.store.types import utcnow

DECISIONS = ("accept", "return")
SHOWN = {"accept": "accepted", "return": "returned"}


@dataclass(frozen=True)
class Pin:
    """Where a comment points: a step of the work (its index), and a box on that step's screen or a point
    (image pixels); neither means the whole screen."""

    step_index: int
    box_id: int | None = None
    x: float | None = None
    y: float | None = None

    def __str__(self) -> str:
        """"step 0, box 17", "step 1, point 10,190" or "step 2" (steps counted from 0, as the CLI takes them)."""
        if self.box_id is not None:
            return f"step {self.step_index}, box {self.box_id}"
        if self.x is not None:
            return f"step {self.step_index}, point {self.x:g},{self.y:g}"
        return f"step {self.step_index}"


@dataclass(frozen=True)
class Reviewed:
    """A decision as read back: whose work, on which episode (their copy or the sample), and the pin."""

    id: int
    annotator: str
    reviewer: str
    decision: str
    comment: str
    work_episode_id: int
    sample_id: int
    pin: Pin | None
    at: object


def latest_decision_sql():
    """SQL: the latest decision on the assignment of the enclosing query (None when never reviewed)."""
    return (select(WorkReview.decision).where(WorkReview.assignment_id == Assignment.id)
            .order_by(WorkReview.id.desc()).limit(1).scalar_subquery())


def _assignment(s: Session, episode_id: int, annotator: str | None) -> Assignment:
    """The work reviewed: a copy's one assignment, or the sample's (naming the annotator when two labelled it)."""
    rows = s.execute(select(Assignment).where(or_(Assignment.copy_id == episode_id,
                                                  Assignment.episode_id == episode_id))).scalars().all()
    copy = [r for r in rows if r.copy_id == episode_id]
    if copy:
        rows = copy
    if annotator:
        rows = [r for r in rows if r.annotator == annotator]
    if not rows:
        who = f" by {annotator}" if annotator else ""
        raise ValueError(f"no work{who} on episode {episode_id} to review (nobody was given it or marked it)")
    if len(rows) > 1:
        names = ", ".join(sorted(r.annotator for r in rows))
        raise ValueError(f"episode {episode_id} was labelled by {names}: say whose work you review")
    return rows[0]


def _checked_pin(s: Session, work_episode: int, pin: Pin | None) -> Pin | None:
    if pin is None:
        return None
    step = s.execute(select(Step).where(Step.episode_id == work_episode, Step.index == pin.step_index)).scalars().first()
    if step is None:
        raise ValueError(f"the work has no step {pin.step_index}")
    if pin.box_id is not None:
        box = s.get(ActionBox, pin.box_id)
        if box is None or box.step_id != step.id:
            raise ValueError(f"box {pin.box_id} is not on step {pin.step_index} of this work")
        return Pin(pin.step_index, pin.box_id)
    if (pin.x is None) != (pin.y is None):
        raise ValueError("a point needs both x and y")
    if pin.x is not None:
        screen = s.get(Screen, step.screen_id) if step.screen_id else None
        if screen is not None and not (0 <= pin.x <= screen.width and 0 <= pin.y <= screen.height):
            raise ValueError(f"point ({pin.x:g}, {pin.y:g}) is outside the {screen.width}x{screen.height} screen")
    return pin


def review_work(project: Project, episode_id: int, decision: str, comment: str = "", annotator: str | None = None,
                pin: Pin | None = None) -> Reviewed:
    """Accept finished work, or return it to its annotator with a comment (required) and an optional pin.
    `episode_id`: the annotator's copy, or the sample (then `annotator` when two people labelled it)."""
    if decision not in DECISIONS:
        raise ValueError(f"decision is accept or return, not '{decision}'")
    me = project.identity
    if not me.is_staff:
        raise NotAllowed(f"you are {me.user} ({me.role}): a reviewer or the lead reviews work")
    comment = comment.strip()
    if decision == "return" and not comment:
        raise ValueError("say what to fix: a returned sample needs a comment for its annotator")
    actor = project.actor()
    with project.transaction() as s:
        work = _assignment(s, episode_id, annotator)
        work_episode = work.copy_id or work.episode_id
        state = work_states.SHOWN[work.state]
        if decision == "accept" and work.state != "done":
            raise ValueError(f"{work.annotator}'s work is {state}, not done: only finished work is accepted")
        if decision == "return" and work.state not in ("done", "skipped"):
            raise ValueError(f"{work.annotator}'s work is {state}: it is theirs already")
        pin = _checked_pin(s, work_episode, pin)
        row = WorkReview(assignment_id=work.id, annotator=work.annotator, reviewer=actor[:64], decision=decision,
                         comment=comment, step_index=pin.step_index if pin else None,
                         box_id=pin.box_id if pin else None, x=pin.x if pin else None, y=pin.y if pin else None)
        s.add(row)
        if decision == "return":  # back in their queue, to be fixed and marked done again
            work.state, work.reason, work.done_at = "in_progress", "", None
            work.updated_at = utcnow()
            work.version = (work.version or 1) + 1
            s.add(work)
        s.flush()
        audit.record(s, "review", "assignment", work.id,
                     {"episode": work_episode, "annotator": work.annotator, "decision": decision,
                      "comment": comment, "pin": pin.__dict__ if pin else None}, actor)
        return _reviewed(row, work)


def _reviewed(row: WorkReview, work: Assignment) -> Reviewed:
    pin = Pin(row.step_index, row.box_id, row.x, row.y) if row.step_index is not None else None
    return Reviewed(row.id, row.annotator, row.reviewer, row.decision, row.comment, work.copy_id or work.episode_id,
                    work.episode_id, pin, row.created_at)


def decisions(project: Project, episode_id: int | None = None, annotator: str | None = None) -> list[Reviewed]:
    """Decisions, oldest first: on one episode's work (a copy or a sample), of one annotator, or all."""
    with project.reading() as s:
        stmt = select(WorkReview, Assignment).join(Assignment, Assignment.id == WorkReview.assignment_id)
        if episode_id is not None:
            stmt = stmt.where(or_(Assignment.copy_id == episode_id,
                                  (Assignment.episode_id == episode_id) & Assignment.copy_id.is_(None)))
        if annotator:
            stmt = stmt.where(WorkReview.annotator == annotator)
        return [_reviewed(r, a) for r, a in s.execute(stmt.order_by(WorkReview.id)).all()]


def open_return(project: Project, episode_id: int) -> Reviewed | None:
    """The comment to act on where this episode is labelled (a copy, or a sample labelled in place): the
    latest decision on that work, when it returned it and the work has not been marked done since."""
    with project.reading() as s:
        return open_return_in(s, episode_id)


def open_return_in(s: Session, episode_id: int) -> Reviewed | None:
    """open_return within the caller's session: one query, and a second only when there is a comment."""
    works = s.execute(select(Assignment, latest_decision_sql().label("decision")).where(
        or_(Assignment.copy_id == episode_id, (Assignment.episode_id == episode_id) & Assignment.copy_id.is_(None)),
        Assignment.state.in_(("todo", "in_progress")))).all()
    for work, decision in works:
        if decision == "return":
            row = s.execute(select(WorkReview).where(WorkReview.assignment_id == work.id)
                            .order_by(WorkReview.id.desc()).limit(1)).scalars().first()
            return _reviewed(row, work)
    return None


@dataclass(frozen=True)
class Acceptance:
    annotator: str
    accepted: int
    returned: int

    @property
    def reviewed(self) -> int:
        return self.accepted + self.returned

    @property
    def rate(self) -> float | None:
        """Accepted decisions over all decisions on their work (None before any review)."""
        return self.accepted / self.reviewed if self.reviewed else None


def acceptance(project: Project) -> dict[str, Acceptance]:
    """Per annotator: how many decisions accepted and returned their work."""
    with project.reading() as s:
        rows = s.execute(select(WorkReview.annotator, WorkReview.decision, func.count())
                         .group_by(WorkReview.annotator, WorkReview.decision)).all()
    counts: dict[str, dict[str, int]] = {}
    for who, decision, n in rows:
        counts.setdefault(who, {})[decision] = n
    return {who: Acceptance(who, c.get("accept", 0), c.get("return", 0)) for who, c in sorted(counts.items())}


def awaiting_review(project: Project) -> list[tuple[int, str]]:
    """(work episode, annotator) of finished work whose latest decision is not an accept: what a reviewer
    looks at next, oldest finished first."""
    with project.reading() as s:
        rows = s.execute(select(Assignment.copy_id, Assignment.episode_id, Assignment.annotator)
                         .join(Episode, Episode.id == Assignment.episode_id)
                         .where(Assignment.state == "done",
                                func.coalesce(latest_decision_sql(), "") != "accept")
                         .order_by(Assignment.done_at, Assignment.id)).all()
    return [(copy or sample, who) for copy, sample, who in rows]
