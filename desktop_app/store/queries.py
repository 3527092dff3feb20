"""Read-side queries: filtering, paging, counting and loading whole episodes.

Everything here pages through the database; nothing loads a whole project.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from sqlalchemy import String, cast, exists, func, or_, select
from sqlalchemy.orm import aliased

from desktop_app.store import work_states
from desktop_app.store.models import ActionBox, Assignment, Episode, Prediction, ReviewItem, Run, Screen, Step
from desktop_app.store.orm import Session


@dataclass(frozen=True)
class EpisodeFilter:
    """Which episodes to show, export or run. Empty fields do not filter."""

    scenarios: tuple[str, ...] = ()
    review_statuses: tuple[str, ...] = ()
    splits: tuple[str, ...] = ()
    has_label: str | None = None  # at least one box with this role (gold, distracted, other)
    classes: tuple[str, ...] = ()  # at least one box of one of these classes (ActionBox.category, case kept)
    has_boxes: bool | None = None  # True: some box; False: no box at all
    text: str = ""  # substring of the goal, the episode id, or a box's element or typed text
    ids: tuple[int, ...] = ()
    # by how agents did: ("verdict", run, verdict) | ("wrong_format", run) | ("disagree", run_a, run_b)
    outcome: tuple = ()
    # samples (what agents act on) unless asked: trajectories are judged, not labelled box by box
    kind: str | None = "sample"
    # a run's selection frozen when it was created: its episodes' ids as [first, last] ranges, or (for a
    # selection too scattered for that) the highest id then, so episodes imported later never join it
    id_ranges: tuple = ()
    max_id: int | None = None
    # annotation work (store/work_states.py): states as shown, and whose queue (their private copies included)
    work_states: tuple[str, ...] = ()
    assignee: str | None = None
    # who changed it (the episode's last edit, or any of its boxes' author) and since when
    changed_by: str | None = None
    changed_since: datetime | None = None

    def where(self) -> list:
        clauses = []
        if self.kind == "sample" and self.assignee:
            clauses.append(Episode.kind.in_(("sample", "copy")))  # blind copies are a sample's work
        elif self.kind:
            clauses.append(Episode.kind == self.kind)
        if self.assignee:
            clauses.append(work_states.queue_clause(self.assignee))
        if self.work_states and self.assignee:
            clauses.append(work_states.person_clause(self.assignee, self.work_states))
        elif self.work_states:
            clauses.append(or_(*(work_states.overall_clause(s) for s in self.work_states)))
        if self.scenarios:
            clauses.append(Episode.scenario.in_(self.scenarios))
        if self.review_statuses:
            clauses.append(Episode.review_status.in_(self.review_statuses))
        if self.splits:
            clauses.append(Episode.split.in_(self.splits))
        if self.ids:
            clauses.append(Episode.id.in_(self.ids))
        if self.id_ranges:
            clauses.append(or_(*(Episode.id.between(first, last) for first, last in self.id_ranges)))
        if self.max_id is not None:
            clauses.append(Episode.id <= self.max_id)
        if self.text:
            pattern = f"%{self.text}%"
            # a box's texts, and its attributes (store/attributes.py: in its meta, searched as JSON text)
            in_box = exists().where(Step.episode_id == Episode.id, ActionBox.step_id == Step.id,
                                    or_(ActionBox.element_text.ilike(pattern), ActionBox.type_text.ilike(pattern),
                                        cast(ActionBox.meta, String).ilike(pattern)))
            clauses.append(or_(Episode.goal.ilike(pattern), Episode.key.ilike(pattern), in_box))
        if self.changed_by:
            clauses.append(or_(Episode.updated_by == self.changed_by,
                               exists().where(Step.episode_id == Episode.id, ActionBox.step_id == Step.id,
                                              ActionBox.author == self.changed_by)))
        if self.changed_since is not None:
            clauses.append(Episode.updated_at >= self.changed_since)
        if self.has_label:
            clauses.append(exists().where(Step.episode_id == Episode.id, ActionBox.step_id == Step.id,
                                          ActionBox.label == self.has_label))
        if self.classes:
            clauses.append(exists().where(Step.episode_id == Episode.id, ActionBox.step_id == Step.id,
                                          ActionBox.category.in_(self.classes)))
        if self.has_boxes is not None:
            any_box = exists().where(Step.episode_id == Episode.id, ActionBox.step_id == Step.id)
            clauses.append(any_box if self.has_boxes else ~any_box)
        if self.outcome:
            clauses.append(_outcome_clause(self.outcome))
        return clauses


def _outcome_clause(outcome: tuple):
    kind = outcome[0]
    if kind == "verdict":
        _, run_id, verdict = outcome
        return exists().where(Step.episode_id == Episode.id, Prediction.step_id == Step.id,
                              Prediction.run_id == run_id, Prediction.verdict == verdict)
    if kind == "wrong_format":
        return exists().where(Step.episode_id == Episode.id, Prediction.step_id == Step.id,
                              Prediction.run_id == outcome[1], Prediction.wrong_format.is_(True))
    if kind == "disagree":
        a, b = aliased(Prediction), aliased(Prediction)
        return exists().where(Step.episode_id == Episode.id, a.step_id == Step.id, b.step_id == Step.id,
                              a.run_id == outcome[1], b.run_id == outcome[2], a.verdict != b.verdict)
    raise ValueError(f"unknown outcome filter {outcome!r}")


@dataclass
class StepBundle:
    step: Step
    screen: Screen
    boxes: list[ActionBox]


@dataclass
class EpisodeBundle:
    episode: Episode
    steps: list[StepBundle]
    reviews: list[ReviewItem] = field(default_factory=list)


def count_episodes(session: Session, flt: EpisodeFilter = EpisodeFilter()) -> int:
    return session.execute(select(func.count()).select_from(Episode).where(*flt.where())).scalar_one()


def list_episodes(session: Session, flt: EpisodeFilter = EpisodeFilter(), offset: int = 0,
                  limit: int = 100, after_id: int | None = None) -> Sequence[Episode]:
    """In id order. after_id: the episodes after that one (offset then counts from there): a page next to
    one already read is found by the index, where an OFFSET deep in a filtered million walks every row
    before it."""
    stmt = select(Episode).where(*flt.where())
    if after_id is not None:
        stmt = stmt.where(Episode.id > after_id)
    stmt = stmt.order_by(Episode.id).offset(offset).limit(limit)
    return session.execute(stmt).scalars().all()


def page_starts(session: Session, flt: EpisodeFilter, page: int) -> tuple[int, list[int]]:
    """(episodes under the filter, the id that starts each `page` of them in id order), from one walk of the
    filter's ids, as long as counting them: page k is then read after id starts[k] - 1 by the index, where an
    OFFSET deep into a filtered million walks every row before it (0.27 s at row 500,000; benchmarks/project_1m.py)."""
    numbered = (select(Episode.id, func.row_number().over(order_by=Episode.id).label("n"))
                .where(*flt.where()).subquery())
    starts = list(session.execute(select(numbered.c.id).where((numbered.c.n - 1) % page == 0)
                                  .order_by(numbered.c.id)).scalars())
    if not starts:
        return 0, []
    last = session.execute(select(func.count()).select_from(Episode)  # the last page: at most `page` rows
                           .where(*flt.where(), Episode.id >= starts[-1])).scalar_one()
    return (len(starts) - 1) * page + last, starts


def largest_episode_id(session: Session) -> int:
    """An upper bound on the number of episodes, read off the primary key at once (however many there are)."""
    return session.execute(select(func.max(Episode.id))).scalar() or 0


def episode_rows(session: Session, flt: EpisodeFilter, offset: int, limit: int,
                 annotator: str | None = None, after_id: int | None = None) -> list[tuple]:
    """One page of the sample list: (id, key, goal, scenario, review status, boxes per label, annotation
    state as `annotator` sees it, who works on it, why it was skipped), in four queries whatever the page size.
    after_id: as list_episodes."""
    episodes = list_episodes(session, flt, offset, limit, after_id)
    ids = [e.id for e in episodes]
    counts: dict[int, dict[str, int]] = {i: {} for i in ids}
    if ids:
        rows = session.execute(select(Step.episode_id, ActionBox.label, func.count())
                               .join(ActionBox, ActionBox.step_id == Step.id)
                               .where(Step.episode_id.in_(ids)).group_by(Step.episode_id, ActionBox.label))
        for episode_id, label, n in rows:
            counts[episode_id][label] = n
    states = work_states.states_of(session, ids, annotator)
    skipped = work_states.skip_reasons(session, ids)
    return [(e.id, e.key, e.goal, e.scenario, e.review_status, counts[e.id], *states[e.id],
             work_states.skip_note(skipped.get(e.id, ()))) for e in episodes]


def annotators(session: Session) -> list[str]:
    """Everyone who was given or marked work in this project."""
    return list(session.execute(select(Assignment.annotator).distinct().order_by(Assignment.annotator)).scalars())


def editors(session: Session) -> list[str]:
    """Everyone who changed an episode or drew a box in this project (the list's "changed by" filter)."""
    people = set(session.execute(select(Episode.updated_by).distinct()).scalars())
    people |= set(session.execute(select(ActionBox.author).distinct()).scalars())
    return sorted(p for p in people if p)


def episode_ids(session: Session, flt: EpisodeFilter = EpisodeFilter()) -> list[int]:
    return list(session.execute(select(Episode.id).where(*flt.where()).order_by(Episode.id)).scalars())


def load_bundles(session: Session, ids: Sequence[int]) -> list[EpisodeBundle]:
    """Whole episodes (steps, screens, boxes, reviews) in the order of `ids`, in four queries."""
    if not ids:
        return []
    episodes = {e.id: e for e in session.execute(select(Episode).where(Episode.id.in_(ids))).scalars()}
    step_rows = session.execute(
        select(Step, Screen).join(Screen, Step.screen_id == Screen.id)
        .where(Step.episode_id.in_(ids)).order_by(Step.episode_id, Step.index)
    ).all()
    step_ids = [step.id for step, _ in step_rows]
    boxes: dict[int, list[ActionBox]] = {sid: [] for sid in step_ids}
    for start in range(0, len(step_ids), 500):
        chunk = step_ids[start:start + 500]
        for box in session.execute(select(ActionBox).where(ActionBox.step_id.in_(chunk))
                                   .order_by(ActionBox.id)).scalars():
            boxes[box.step_id].append(box)
    steps: dict[int, list[StepBundle]] = {i: [] for i in ids}
    for step, screen in step_rows:
        steps[step.episode_id].append(StepBundle(step, screen, boxes[step.id]))
    reviews: dict[int, list[ReviewItem]] = {i: [] for i in ids}
    for review in session.execute(select(ReviewItem).where(ReviewItem.episode_id.in_(ids))
                                  .order_by(ReviewItem.id)).scalars():
        reviews[review.episode_id].append(review)
    return [EpisodeBundle(episodes[i], steps[i], reviews[i]) for i in ids if i in episodes]


def iter_bundles(session: Session, flt: EpisodeFilter = EpisodeFilter(), batch: int = 500) -> Iterator[EpisodeBundle]:
    """Whole episodes in id order, `batch` at a time. Their ids are read a page at a time (id > the last
    one), not all first, so a million episodes stream in bounded memory; the highest id selected at the
    start bounds the pages, so an episode added meanwhile does not join an export under way."""
    where = flt.where()
    highest = session.execute(select(func.max(Episode.id)).where(*where)).scalar()
    last = None
    while highest is not None and (last is None or last < highest):
        page = select(Episode.id).where(*where, Episode.id <= highest).order_by(Episode.id).limit(batch)
        ids = list(session.execute(page if last is None else page.where(Episode.id > last)).scalars())
        if not ids:
            return
        yield from load_bundles(session, ids)
        last = ids[-1]


def project_counts(session: Session) -> dict:
    """What `screenlab info` shows (store/counts.py)."""
    from desktop_app.store import counts

    return counts.project_counts(session)


def last_edited_by(session: Session, actor: str) -> int | None:
    """The episode this person changed last (store/edits.py records who raised each version): where the
    window reopens a project, as labelme reopens the last file."""
    return session.execute(select(Episode.id).where(Episode.updated_by == actor[:64])
                           .order_by(Episode.updated_at.desc(), Episode.id.desc()).limit(1)).scalar()


MAX_FROZEN_RANGES = 500


def frozen(session: Session, flt: EpisodeFilter) -> EpisodeFilter:
    """The filter as it selects now, for a run: its episodes' ids as ranges (or the highest id when they are
    too scattered), so a later import does not add to a run being resumed."""
    ids = episode_ids(session, flt)
    ranges: list[list[int]] = []
    for i in ids:
        if ranges and i == ranges[-1][1] + 1:
            ranges[-1][1] = i
        else:
            ranges.append([i, i])
    if not ids:
        return replace(flt, max_id=0)
    if len(ranges) <= MAX_FROZEN_RANGES:
        return replace(flt, id_ranges=tuple(tuple(r) for r in ranges))
    return replace(flt, max_id=ids[-1])


def first_screens(session: Session, ids: Sequence[int]) -> dict[int, tuple[str, str, int, int]]:
    """Each episode's first screenshot as (sha256, ext, width, height), for a page of the thumbnail grid in one
    query; an episode with no screen (a probe's question) is left out."""
    if not ids:
        return {}
    first = (select(Step.episode_id, func.min(Step.index).label("first_index"))
             .where(Step.episode_id.in_(ids), Step.screen_id.is_not(None)).group_by(Step.episode_id).subquery())
    rows = session.execute(
        select(Step.episode_id, Screen.sha256, Screen.ext, Screen.width, Screen.height)
        .join(first, (Step.episode_id == first.c.episode_id) & (Step.index == first.c.first_index))
        .join(Screen, Screen.id == Step.screen_id))
    return {episode_id: (sha256, ext, width, height) for episode_id, sha256, ext, width, height in rows}


# -- what the window's lists and panels read (widgets hold no SQL: tests/layers.py) ------------------------
def position_of(session: Session, flt: EpisodeFilter, episode_id: int) -> int | None:
    """Where an episode stands in the list under this filter (episodes in id order); None when the filter
    leaves it out."""
    inside = session.execute(select(func.count()).select_from(Episode)
                             .where(*flt.where(), Episode.id == episode_id)).scalar_one()
    if not inside:
        return None
    return session.execute(select(func.count()).select_from(Episode)
                           .where(*flt.where(), Episode.id < episode_id)).scalar_one()


def scenarios(session: Session) -> list[str]:
    """Every scenario episodes have, in order (the empty one too)."""
    return list(session.execute(select(Episode.scenario).distinct().order_by(Episode.scenario)).scalars())


def splits(session: Session) -> list[str]:
    """Every split episodes are in, in order (the empty one too)."""
    return list(session.execute(select(Episode.split).distinct().order_by(Episode.split)).scalars())


def latest_runs(session: Session, limit: int = 6) -> list[tuple[int, str]]:
    """(id, name) of the newest runs, newest first."""
    return [(run_id, name) for run_id, name in
            session.execute(select(Run.id, Run.name).order_by(Run.id.desc()).limit(limit))]


def runs_with_tallies(session: Session) -> list[tuple[Run, dict[str, int]]]:
    """Every run (oldest first) with how many of its predictions got each verdict ("error" too), in two
    grouped queries: no prediction is loaded."""
    tally: dict[int, dict[str, int]] = {}
    for run_id, verdict, n in session.execute(select(Prediction.run_id, Prediction.verdict, func.count())
                                              .group_by(Prediction.run_id, Prediction.verdict)):
        tally.setdefault(run_id, {})[verdict] = n
    return [(run, tally.get(run.id, {})) for run in session.execute(select(Run).order_by(Run.id)).scalars()]


def episode_and_steps(session: Session, episode_id: int) -> tuple[Episode | None, list[Step]]:
    """An episode and its steps in order (None and [] when it is gone)."""
    episode = session.get(Episode, episode_id)
    steps = session.execute(select(Step).where(Step.episode_id == episode_id).order_by(Step.index)).scalars()
    return episode, list(steps)


def step_screen_at(session: Session, episode_id: int, step_index: int) -> Screen | None:
    """The screen of an episode's step at this index (None without one: no such step, or a probe's)."""
    return session.execute(select(Screen).join(Step, Step.screen_id == Screen.id)
                           .where(Step.episode_id == episode_id, Step.index == step_index)).scalars().first()


def screen_and_boxes(session: Session, step: Step) -> tuple[Screen | None, list[ActionBox]]:
    """A step's screen and its boxes in the order they were made (None for a step without a screen)."""
    screen = session.get(Screen, step.screen_id) if step.screen_id is not None else None
    boxes = session.execute(select(ActionBox).where(ActionBox.step_id == step.id).order_by(ActionBox.id)).scalars()
    return screen, list(boxes)


def screens_by_id(session: Session, ids: Sequence[int | None]) -> dict[int, Screen]:
    wanted = {i for i in ids if i is not None}
    if not wanted:
        return {}
    return {s.id: s for s in session.execute(select(Screen).where(Screen.id.in_(wanted))).scalars()}


def review_items_of(session: Session, episode_id: int) -> list[ReviewItem]:
    """What generated an episode and what its reviewers said, oldest first."""
    return list(session.execute(select(ReviewItem).where(ReviewItem.episode_id == episode_id)
                                .order_by(ReviewItem.id)).scalars())


def no_match(session: Session, flt: EpisodeFilter) -> str:
    """"" when `flt` selects an episode; else what it missed, in words, with what there is to select:
    "selects no sample (scenarios in this project: popup, search)". A selection that selects nothing is
    refused by the doors that act on it (a run, pre-labelling, derived samples) rather than done empty."""
    if count_episodes(session, flt):
        return ""
    kind = flt.kind or "episode"
    of_kind = [Episode.kind == flt.kind] if flt.kind else []
    if flt.review_statuses and count_episodes(session, replace(flt, review_statuses=())):
        found = session.execute(select(Episode.review_status).distinct().where(*replace(flt, review_statuses=())
                                                                               .where())).scalars()
        return (f"selects no {kind} in review status {', '.join(flt.review_statuses)} (those it matches are "
                f"{', '.join(sorted(found))}; name them with status=...)")
    if flt.classes and count_episodes(session, replace(flt, classes=())):
        from desktop_app.store.label_set import classes_in_use

        used = classes_in_use(session)
        return (f"selects no {kind} with a box of class {', '.join(flt.classes)} (classes boxes have: "
                f"{', '.join(used[:20]) + (', ...' if len(used) > 20 else '') if used else 'none'}; "
                "names are case-sensitive)")
    names = session.execute(select(Episode.scenario).distinct().where(*of_kind).order_by(Episode.scenario)).scalars()
    shown = [n or "(none)" for n in names]
    there = f"scenarios in this project: {', '.join(shown[:20])}{', ...' if len(shown) > 20 else ''}" if shown \
        else f"this project has no {'trajectories' if kind == 'trajectory' else kind + 's'}"
    return f"selects no {kind} ({there})"
