"""Judge stored predictions again under ScreenLab's rules after a label fix, so every view agrees with the
current labels. `desktop_app.opening.keep_verdicts_current(project)` makes every committed change of boxes
on that project call `rescore_after_edit` (store/box_listeners.py, ADR 0024); `open_project` / `init_project`
there (and in the API) do it on opening, so the window, the CLI, the API and a script that opened through
them all get it.

On a server an annotator may not write verdicts (a verdict written by hand would change what the team
measures: ADR 0029). Their edits put the steps in `rescore_due`, and a lead or reviewer reading results
judges those first (`catch_up`, called by every reader of verdicts in evaluation/rows.py and the window's
answers on a step), in one transaction with emptying the queue."""

from __future__ import annotations

from sqlalchemy import delete, exists, select
from sqlalchemy.dialects.postgresql import insert

from desktop_app.agents.actions import stored_action
from desktop_app.evaluation.rules.base import target_of
from desktop_app.evaluation.rules.screenlab import ScoringOptions, judge
from desktop_app.store import models as m
from desktop_app.store.orm import Session
from desktop_app.store.project import Project
from desktop_app.store.server_roles import STAFF
from desktop_app.store.types import utcnow

STEPS_PER_QUERY = 500  # an edit of many steps (adjudication) stays under SQLite's limit of bound values


def rescore(project: Project, step_ids: list[int] | None = None, run_ids: list[int] | None = None,
            scoring: ScoringOptions = ScoringOptions()) -> int:
    """Single-screen predictions judged again against the current boxes. Returns how many changed."""
    with project.transaction() as s:
        return rescore_in(s, step_ids, run_ids, scoring)


def rescore_in(s: Session, step_ids: list[int] | None = None, run_ids: list[int] | None = None,
               scoring: ScoringOptions = ScoringOptions()) -> int:
    """rescore() within the caller's transaction."""
    changed = 0
    stmt = (select(m.Prediction, m.Episode.scenario).join(m.Step, m.Step.id == m.Prediction.step_id)
            .join(m.Episode, m.Episode.id == m.Step.episode_id).join(m.Run, m.Run.id == m.Prediction.run_id)
            .where(m.Prediction.verdict != "error", m.Run.protocol == "screen"))
    if step_ids is not None:
        stmt = stmt.where(m.Prediction.step_id.in_(step_ids))
    if run_ids is not None:
        stmt = stmt.where(m.Prediction.run_id.in_(run_ids))
    rows = s.execute(stmt).all()
    steps = {p.step_id for p, _ in rows}
    boxes: dict[int, list] = {sid: [] for sid in steps}
    for box in s.execute(select(m.ActionBox).where(m.ActionBox.step_id.in_(steps))
                         .order_by(m.ActionBox.id)).scalars():  # annotation order: overlap="first"
        boxes[box.step_id].append(box)
    for prediction, scenario in rows:
        v = judge(stored_action(prediction.raw_text, prediction.parsed),
                  [target_of(b) for b in boxes[prediction.step_id]], scenario, scoring)
        if (v.verdict, v.target_id) != (prediction.verdict, prediction.matched_box_id):
            prediction.verdict, prediction.matched_box_id = v.verdict, v.target_id
            prediction.parsed = {**prediction.parsed, "how": v.how, "score": v.score}
            s.add(prediction)
            changed += 1
    return changed


def _judged_by_staff(project: Project) -> bool:
    """On a server, whether this login may not write verdicts (an annotator): their steps wait for staff."""
    return project.on_server and project.identity.role not in STAFF


def rescore_after_edit(project: Project, step_ids: list[int]) -> int:
    """The store calls this after boxes of these steps changed; returns how many verdicts changed (or, for
    an annotator on a server, how many steps now wait for a lead or reviewer to judge them)."""
    if _judged_by_staff(project):
        with project.transaction() as s:
            s.execute(insert(m.RescoreDue).values([{"step_id": i, "created_at": utcnow()} for i in step_ids])
                      .on_conflict_do_nothing())  # no conflict target: an annotator may not read the queue
        return len(step_ids)
    return sum(rescore(project, step_ids=step_ids[i:i + STEPS_PER_QUERY])
               for i in range(0, len(step_ids), STEPS_PER_QUERY))


def catch_up(project: Project) -> int:
    """Judge the answers on the steps annotators changed since (a lead's or reviewer's read of results
    calls this first); returns how many verdicts changed. Nothing to do on SQLite or for an annotator."""
    if not project.on_server or project.identity.role not in STAFF:
        return 0
    with project.reading() as s:
        if not s.execute(select(exists().where(m.RescoreDue.step_id.is_not(None)))).scalar():
            return 0
    with project.transaction() as s:
        steps = list(s.execute(delete(m.RescoreDue).returning(m.RescoreDue.step_id)).scalars())
        return sum(rescore_in(s, steps[i:i + STEPS_PER_QUERY]) for i in range(0, len(steps), STEPS_PER_QUERY))
