"""Who labels what, and how far they got: assigning samples, marking them done or skipped, time spent.

One transaction per call, with its audit entry; every front end (window, CLI, API) calls these.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from sqlalchemy import or_, select

from desktop_app.store import audit
from desktop_app.store.edits import EditRefused
from desktop_app.store.models import Assignment, Episode
from desktop_app.store.orm import Session
from desktop_app.store.project import NotAllowed, Project
from desktop_app.store.queries import EpisodeFilter, episode_ids
from desktop_app.store.types import utcnow
from desktop_app.teams import members
from desktop_app.teams.copies import make_copy

# offered when skipping (any other text is accepted too)
SKIP_REASONS = ("screen is blank or broken", "no action on the screen serves the goal", "goal is unclear",
                "duplicate of another screen", "not my language or domain")
MAX_VISIT_S = 600.0  # one visit counts at most this long: a screen left open over lunch is not work
FINISHED = ("done", "skipped")  # final for the annotator: a lead or reviewer reopens it


@dataclass
class AssignReport:
    samples: int = 0  # samples given out now
    double: int = 0  # of them, labelled by two people (blind copies)
    already_assigned: int = 0  # left as they were
    per_annotator: dict[str, int] = field(default_factory=dict)


def _annotators(names) -> list[str]:
    people = list(dict.fromkeys(n.strip() for n in names if n and n.strip()))
    if not people:
        raise ValueError("name at least one annotator")
    too_long = [n for n in people if len(n) > 64]
    if too_long:
        raise ValueError(f"annotator name longer than 64 characters: {too_long[0][:70]}")
    return people


def assign(project: Project, where: EpisodeFilter | list[int], annotators, overlap: float = 0.0,
           limit: int | None = None, lead: str | None = None, seed: int = 0) -> AssignReport:
    """Give the selected samples that nobody has yet to `annotators`, in turn. A share `overlap` (0..1) of
    them, drawn with `seed`, goes to two annotators, each labelling a private copy blind."""
    people = _annotators(annotators)
    if not 0.0 <= overlap <= 1.0:
        raise ValueError(f"overlap is a share between 0 and 1, not {overlap}")
    if overlap > 0 and len(people) < 2:
        raise ValueError("double annotation needs at least two annotators")
    lead = project.actor(lead)
    if project.on_server:
        me = project.identity
        if not me.can_assign:
            raise NotAllowed(f"you are {me.user} ({me.role}): only the team's lead gives out work")
        team = {m.login for m in members.members(project)}
        strangers = [p for p in people if p not in team]
        if strangers:
            raise ValueError(f"not in this project's team: {', '.join(strangers)} (people: {', '.join(sorted(team))}); "
                             "a lead adds people with: screenlab team add-member PROJECT LOGIN --role annotator")
    report = AssignReport(per_annotator={p: 0 for p in people})
    with project.transaction() as s:
        ids = list(where) if isinstance(where, list) else episode_ids(s, where)
        taken = set(s.execute(select(Assignment.episode_id).distinct()).scalars())
        free = [i for i in ids if i not in taken]
        report.already_assigned = len(ids) - len(free)
        if limit is not None:
            free = free[:max(limit, 0)]
        doubled = set(random.Random(seed).sample(free, round(overlap * len(free))))
        samples = {}
        for start in range(0, len(free), 1000):  # one query per thousand, not one per sample
            chunk = free[start:start + 1000]
            samples.update((e.id, e) for e in s.execute(select(Episode).where(Episode.id.in_(chunk))).scalars())
        for n, episode_id in enumerate(free):
            sample = samples.get(episode_id)
            if sample is None or sample.kind != "sample":
                raise ValueError(f"episode {episode_id} is not a sample; only samples are labelled by a team")
            # the least loaded first (ties in turn), so a doubled sample never piles onto one person
            order = sorted(range(len(people)), key=lambda i: (report.per_annotator[people[i]],
                                                              (i - n) % len(people)))
            who = [people[i] for i in order[:2 if episode_id in doubled else 1]]
            for person in who:
                copy = make_copy(s, sample, person) if len(who) > 1 else None
                s.add(Assignment(episode_id=episode_id, annotator=person, assigned_by=lead,
                                 copy_id=copy.id if copy else None))
                report.per_annotator[person] += 1
            report.double += len(who) > 1
        report.samples = len(free)
        audit.record(s, "assign", "assignment", None,
                     {"annotators": people, "overlap": overlap, "samples": report.samples,
                      "double": report.double, "seed": seed}, lead)
    return report


def row_of(s: Session, episode_id: int, annotator: str) -> Assignment | None:
    """The annotator's assignment for this episode: found by the sample or by their private copy."""
    return s.execute(select(Assignment).where(
        Assignment.annotator == annotator,
        or_(Assignment.copy_id == episode_id, Assignment.episode_id == episode_id))).scalars().first()


def _row_or_new(s: Session, episode_id: int, annotator: str) -> Assignment:
    row = row_of(s, episode_id, annotator)
    if row is not None:
        return row
    episode = s.get(Episode, episode_id)
    if episode is None:
        raise ValueError(f"no episode {episode_id} in your view of this project")
    if episode.kind != "sample":
        raise ValueError(f"episode {episode.key} is a {episode.kind}, not a sample: it has no annotation state")
    blind = s.execute(select(Assignment.annotator).where(Assignment.episode_id == episode_id,
                                                         Assignment.copy_id.is_not(None))).scalars().all()
    if blind:
        raise ValueError(f"{episode.key} is labelled blind on copies by {', '.join(sorted(blind))}: "
                         "a state belongs to one of those copies")
    row = Assignment(episode_id=episode_id, annotator=annotator, state="in_progress")
    s.add(row)
    return row


def set_state(project: Project, episode_id: int, state: str, annotator: str | None = None,
              reason: str = "") -> Assignment:
    """Mark a person's work on this sample (or their copy of it): done, skipped (a reason is required),
    in_progress or todo. `annotator`: whose work (default: yours); someone else's only for a lead or reviewer
    and only a member of the team. Finished work (done, skipped) is final for its annotator; a lead or
    reviewer reopens it. A sample nobody was given gets a row for whoever marks it."""
    annotator = members.person(project, annotator)
    actor = project.actor()
    if state not in ("todo", "in_progress", "done", "skipped"):
        raise ValueError(f"unknown state '{state}' (todo, in_progress, done, skipped)")
    if state == "skipped" and not reason.strip():
        raise ValueError("say why the sample is skipped (a reason is required)")
    with project.transaction() as s:
        row = _row_or_new(s, episode_id, annotator)
        before = row.state
        if before in FINISHED and not project.identity.is_staff:
            raise EditRefused(f"you marked this {before}: it is final for you; a lead or reviewer can reopen it")
        row.state, row.reason = state, reason.strip() if state == "skipped" else ""
        row.done_at = utcnow() if state == "done" else None
        row.updated_at = utcnow()
        row.version = (row.version or 1) + 1
        s.add(row)
        s.flush()
        audit.record(s, "state", "assignment", row.id,
                     {"episode": episode_id, "annotator": annotator, "before": before, "after": state,
                      "reason": row.reason}, actor)
    return row


def note_work(project: Project, episode_id: int, seconds: float, edited: bool,
              annotator: str | None = None, wait_s: float | None = None) -> Assignment | None:
    """A visit to a screen ended: add its time (capped) to the annotator's row; an edit starts a sample
    that was only assigned (todo -> in_progress). A visit without edits to a sample not theirs is not work.
    `wait_s`: how long to wait for another writer's lock before giving up (the window passes a short one)."""
    annotator = project.actor(annotator)
    seconds = max(0.0, min(float(seconds), MAX_VISIT_S))
    with project.transaction(wait_s) as s:
        row = row_of(s, episode_id, annotator)
        if row is not None and row.state in FINISHED:
            return row  # looking at finished work again is not labelling it (and it is final on a server)
        if row is None:
            if not edited:
                return None
            episode = s.get(Episode, episode_id)
            if episode is None or episode.kind != "sample":
                return None
            try:
                row = _row_or_new(s, episode_id, annotator)
            except ValueError:  # the original of a sample labelled blind: its work is on the copies
                return None
        row.seconds = (row.seconds or 0.0) + seconds
        if edited and row.state == "todo":
            row.state = "in_progress"
        row.updated_at = utcnow()
        s.add(row)
    return row

