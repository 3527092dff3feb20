"""Where the annotation of a sample stands: unlabelled, in progress, done or skipped.

Stored per annotator (the assignment table); what a list shows is either one person's state (their own
row, found through their private copy when they label blind) or the sample's state over everyone:

- done: adjudicated, or someone labelling it in place marked it done;
- skipped: else someone labelling it in place skipped it;
- in progress: else someone started it (a copy counts here until adjudication), or it holds boxes;
- to do: none of these, but it is in someone's queue;
- unlabelled: none of these.

After review (teams/work_review.py), work whose latest decision returned it and that is not finished again
shows "returned" (a kind of in progress), and done work whose latest decision accepted it shows "accepted"
(a kind of done): filtering by "in progress" or "done" still finds them. "To review" filters done work no
decision accepted yet (a reviewer's list; it shows as "done").

Both the SQL filters and the per-row reading below follow these rules, so a list filtered by a state
shows rows that say that state.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import and_, exists, func, or_, select

from desktop_app.store.models import ActionBox, Adjudication, Assignment, Episode, Step, WorkReview
from desktop_app.store.orm import Session

# "to do" is a sample given to someone and not started: theirs to label, though it may hold imported boxes
STATES = ("to do", "unlabelled", "in progress", "done", "skipped", "returned", "accepted", "to review")
# the states a review decides: (the latest decision, or None for "not accepted", and the stored states)
REVIEWED = {"returned": ("return", ("todo", "in_progress")), "accepted": ("accept", ("done",)),
            "to review": (None, ("done",))}  # a filter only: done work no review accepted yet (shown "done")
SHOWN = {"todo": "to do", "in_progress": "in progress", "done": "done", "skipped": "skipped"}
# in one person's queue nothing is unlabelled but what they have not started
STORED = {**{shown: stored for stored, shown in SHOWN.items()}, "unlabelled": "todo"}


def work_episode():
    """The episode an assignment's work happens on: the private copy, or the sample itself."""
    return func.coalesce(Assignment.copy_id, Assignment.episode_id)


def _row(*where):
    return exists().where(*where)


def _in_place(*states: str):
    return _row(Assignment.episode_id == Episode.id, Assignment.copy_id.is_(None), Assignment.state.in_(states))


def _own_copy(*states: str):
    # a copy episode's own state is its annotator's row
    return _row(Assignment.copy_id == Episode.id, Assignment.state.in_(states))


def _latest_decision():
    return (select(WorkReview.decision).where(WorkReview.assignment_id == Assignment.id)
            .order_by(WorkReview.id.desc()).limit(1).scalar_subquery())


def _reviewed(state: str, *where):
    decision, stored = REVIEWED[state]
    latest = _latest_decision()
    decided = latest == decision if decision else or_(latest.is_(None), latest != "accept")
    return _row(*where, Assignment.state.in_(stored), decided)


def overall_clause(state: str):
    """SQL: the episode is in `state` over everyone (the rules in the module docstring)."""
    if state in REVIEWED:  # the work labelled on this episode (in place, or this copy)
        return _reviewed(state, work_episode() == Episode.id)
    done = or_(_row(Adjudication.episode_id == Episode.id), _in_place("done"), _own_copy("done"))
    skipped = or_(_in_place("skipped"), _own_copy("skipped"))
    started = or_(_row(Assignment.episode_id == Episode.id, Assignment.state.in_(("in_progress", "done"))),
                  _own_copy("in_progress"),
                  _row(Step.episode_id == Episode.id, ActionBox.step_id == Step.id))
    if state == "done":
        return done
    if state == "skipped":
        return and_(~done, skipped)
    if state == "in progress":
        return and_(~done, ~skipped, started)
    given = or_(_row(Assignment.episode_id == Episode.id), _own_copy("todo"))
    if state == "to do":  # given to someone, nobody has started it
        return and_(~done, ~skipped, ~started, given)
    if state == "unlabelled":
        return and_(~done, ~skipped, ~started, ~given)
    raise ValueError(f"unknown annotation state '{state}' (one of {', '.join(STATES)})")


def person_clause(annotator: str, states: Sequence[str]):
    """SQL: the episode is in the annotator's queue and their row is in one of `states` (as shown)."""
    stored = [STORED[s] for s in states if s in STORED]
    unknown = [s for s in states if s not in STORED and s not in REVIEWED]
    if unknown:
        raise ValueError(f"unknown annotation state '{unknown[0]}' (one of {', '.join(STATES)})")
    mine = (Assignment.annotator == annotator, work_episode() == Episode.id)
    clauses = [_reviewed(s, *mine) for s in states if s in REVIEWED]
    if stored:
        clauses.append(_row(*mine, Assignment.state.in_(stored)))
    return or_(*clauses)


def queue_clause(annotator: str):
    """SQL: the episode is work of this annotator (a sample labelled in place or their private copy)."""
    return Episode.id.in_(select(work_episode()).where(Assignment.annotator == annotator))


def states_of(session: Session, ids: Sequence[int], annotator: str | None = None) -> dict[int, tuple[str, str]]:
    """Per episode id: (state as shown, who works on it); the annotator's own state where they have a row."""
    if not ids:
        return {}
    ids = list(ids)
    rows = session.execute(select(Assignment.episode_id, Assignment.copy_id, Assignment.annotator,
                                  Assignment.state, _latest_decision().label("decision"))
                           .where(or_(Assignment.episode_id.in_(ids), Assignment.copy_id.in_(ids)))).all()
    adjudicated = set(session.execute(select(Adjudication.episode_id)
                                      .where(Adjudication.episode_id.in_(ids))).scalars())
    boxed = set(session.execute(select(Step.episode_id).join(ActionBox, ActionBox.step_id == Step.id)
                                .where(Step.episode_id.in_(ids)).distinct()).scalars())
    by_episode: dict[int, list] = {}
    for r in rows:  # grouped once: a page of 200 must not rescan every row per episode
        by_episode.setdefault(r.episode_id, []).append(r)
        if r.copy_id is not None and r.copy_id != r.episode_id:
            by_episode.setdefault(r.copy_id, []).append(r)
    out = {}
    for episode_id in ids:
        mine = by_episode.get(episode_id, [])
        people = ", ".join(sorted({r.annotator for r in mine if r.episode_id == episode_id or r.copy_id}))
        own = [r for r in mine if annotator and r.annotator == annotator]
        if own:
            out[episode_id] = (_shown(own[0]), people)
            continue
        worked = [r for r in mine if r.copy_id == episode_id or (r.copy_id is None and r.episode_id == episode_id)]
        if len(worked) == 1 and episode_id not in adjudicated and _shown(worked[0]) in REVIEWED:
            out[episode_id] = (_shown(worked[0]), people)
            continue
        here = [r.state for r in mine if (r.copy_id is None and r.episode_id == episode_id)
                or r.copy_id == episode_id]
        started = any(r.state in ("in_progress", "done") for r in mine if r.episode_id == episode_id) or \
            "in_progress" in here
        if episode_id in adjudicated or "done" in here:
            state = "done"
        elif "skipped" in here:
            state = "skipped"
        elif started or episode_id in boxed:
            state = "in progress"
        elif mine:
            state = "to do"
        else:
            state = "unlabelled"
        out[episode_id] = (state, people)
    return out


def skip_reasons(session: Session, ids: Sequence[int]) -> dict[int, list[tuple[str, str]]]:
    """Per episode id that someone skipped (in place, or on their copy): (annotator, the reason they gave), by
    name. Episodes nobody skipped are left out."""
    if not ids:
        return {}
    ids = list(ids)
    rows = session.execute(select(Assignment.episode_id, Assignment.copy_id, Assignment.annotator, Assignment.reason)
                           .where(or_(Assignment.episode_id.in_(ids), Assignment.copy_id.in_(ids)),
                                  Assignment.state == "skipped")
                           .order_by(Assignment.annotator)).all()
    wanted, out = set(ids), {}
    for episode_id, copy_id, annotator, reason in rows:
        for shown in {episode_id, copy_id} & wanted:  # the sample, and the copy it was skipped on
            out.setdefault(shown, []).append((annotator, reason or ""))
    return out


def skip_note(reasons: Sequence[tuple[str, str]]) -> str:
    """ "Skipped by ana: the page did not load; ben: ..." for a tooltip or a panel ("" when nobody skipped)."""
    return ("Skipped by " + "; ".join(f"{who}: {why or '(no reason given)'}" for who, why in reasons)) \
        if reasons else ""


def _shown(row) -> str:
    """One person's work as shown: its state, or returned / accepted after a review."""
    for state, (decision, stored) in REVIEWED.items():
        if decision and row.decision == decision and row.state in stored:
            return state
    return SHOWN[row.state]
