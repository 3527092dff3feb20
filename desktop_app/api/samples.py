"""Browsing samples in the Python API: the sample list's pages and counts, the choices its filters offer, an
episode with its steps, the screens of steps (one, a few, the first of each of a page of episodes) and the
runs the lists show.

Each function opens one read session, makes every query its answer needs in it, and closes it: the window's
list, grid and canvas ask here (tests/layers.py, rule 6: the UI holds no session, since a session is SQL),
and a call is one round of reads on a server as it was when the widgets made the queries themselves
(store/queries.py holds the queries, written and indexed once).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from desktop_app.store import queries as _q
from desktop_app.store.models import EPISODE_REVIEW_STATUSES, ActionBox, Episode, Run, Screen, Step
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter
from desktop_app.store.work_states import STATES as WORK_STATES
from desktop_app.store.work_states import skip_reasons
from desktop_app.teams.views import own_copy_in
from desktop_app.teams.work_review import Reviewed, open_return_in

__all__ = ["EPISODE_REVIEW_STATUSES", "WORK_STATES", "Episode", "EpisodeFilter", "EpisodeView", "FilterChoices",
           "ListStart", "Screen", "Step", "count_samples", "editors", "filter_choices", "first_screens", "latest_runs",
           "list_start", "open_episode", "page_starts", "position_of", "runs_with_tallies", "sample_rows",
           "screen_and_boxes", "screens_by_id", "splits", "step_screen_at"]


# -- the sample list ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ListStart:
    """What a list shows first: the whole count, or (a big project, where counting takes a while) the first
    page and how many rows it holds so far."""

    count: int  # rows known now
    first_page: list[tuple] | None  # read only when the count is not whole yet (else None: read on demand)
    whole: bool  # count is every row under the filter; False: count the rest with page_starts


def list_start(project: Project, flt: EpisodeFilter, page: int, annotator: str | None = None,
               count_below: int = 100_000) -> ListStart:
    """Count the filter's rows at once when the project has fewer than `count_below` episodes (read off the
    primary key); in a bigger one, read the first page instead and say whether there may be more."""
    with project.reading() as s:
        if _q.largest_episode_id(s) < count_below:
            return ListStart(_q.count_episodes(s, flt), None, True)
        first = _q.episode_rows(s, flt, 0, page, annotator)
    return ListStart(len(first), first, len(first) < page)


def sample_rows(project: Project, flt: EpisodeFilter, offset: int, limit: int, annotator: str | None = None,
                after_id: int | None = None) -> list[tuple]:
    """One page of the sample list: (id, key, goal, scenario, review status, boxes per label, annotation state
    as `annotator` sees it, who works on it). after_id: the rows after that episode (offset then counts
    from there), found by the index where a deep OFFSET walks every row before it."""
    with project.reading() as s:
        return _q.episode_rows(s, flt, offset, limit, annotator, after_id)


def count_samples(project: Project, flt: EpisodeFilter = EpisodeFilter()) -> int:
    with project.reading() as s:
        return _q.count_episodes(s, flt)


def page_starts(project: Project, flt: EpisodeFilter, page: int) -> tuple[int, list[int]]:
    """(rows under the filter, the id each `page` of them starts at), from one walk of the filter's ids."""
    with project.reading() as s:
        return _q.page_starts(s, flt, page)


def position_of(project: Project, flt: EpisodeFilter, episode_id: int) -> int | None:
    """Where an episode stands in the list under this filter (id order); None when the filter leaves it out."""
    with project.reading() as s:
        return _q.position_of(s, flt, episode_id)


@dataclass(frozen=True)
class FilterChoices:
    scenarios: list[str]  # every scenario episodes have, in order (the empty one too)
    splits: list[str]


def filter_choices(project: Project) -> FilterChoices:
    """The scenarios and splits the list's filters offer, in one session."""
    with project.reading() as s:
        return FilterChoices(_q.scenarios(s), _q.splits(s))


def splits(project: Project) -> list[str]:
    """Every split episodes are in, in order (the empty one too)."""
    with project.reading() as s:
        return _q.splits(s)


def editors(project: Project) -> list[str]:
    """Everyone who changed an episode or drew a box (the list's "changed by" filter)."""
    with project.reading() as s:
        return _q.editors(s)


# -- runs as the lists show them ------------------------------------------------------------------------------
def latest_runs(project: Project, limit: int = 6) -> list[tuple[int, str]]:
    """(id, name) of the newest runs, newest first (the list's outcome filters)."""
    with project.reading() as s:
        return _q.latest_runs(s, limit)


def runs_with_tallies(project: Project) -> list[tuple[Run, dict[str, int]]]:
    """Every run (oldest first) with how many of its predictions got each verdict, no prediction loaded."""
    with project.reading() as s:
        return _q.runs_with_tallies(s)


# -- an episode and its screens --------------------------------------------------------------------------------
@dataclass(frozen=True)
class EpisodeView:
    """An episode as a person opens it: its steps, the screen and boxes of one of them, and their team work on
    it. episode None: it is gone (or not theirs to see)."""

    episode: Episode | None
    steps: list[Step]
    step: Step | None  # the one asked for (the last when there are fewer), None without steps
    screen: Screen | None
    boxes: list[ActionBox]  # the step's, in the order they were made
    own_copy: int | None  # this person's private copy of the sample, where their edits of it belong
    open_return: Reviewed | None  # a reviewer's comment returning the work labelled here
    skipped: list = field(default_factory=list)  # (who, why) of each skip of it (store/work_states.skip_reasons)


def open_episode(project: Project, episode_id: int, person: str, step_index: int = 0) -> EpisodeView:
    """Everything a screen shows of an episode, in one session (on a server: one round of reads)."""
    with project.reading() as s:
        episode, steps = _q.episode_and_steps(s, episode_id)
        # a sample the person labels blind on a copy: an annotator on a server never sees such an original
        # before their copy is finished, so only staff and local projects need to ask
        asks = episode is not None and episode.kind == "sample" and (
            not project.on_server or project.identity.is_staff)
        own_copy = own_copy_in(s, episode_id, person) if asks else None
        open_return = open_return_in(s, episode_id) if episode is not None else None
        skipped = skip_reasons(s, [episode_id]).get(episode_id, []) if episode is not None else []
        step, screen, boxes = None, None, []
        if steps:
            step = steps[min(step_index, len(steps) - 1)]
            screen, boxes = _q.screen_and_boxes(s, step)
    return EpisodeView(episode, steps, step, screen, boxes, own_copy, open_return, skipped)


def screen_and_boxes(project: Project, step: Step) -> tuple[Screen | None, list[ActionBox]]:
    """A step's screen (None without one) and its boxes in the order they were made."""
    with project.reading() as s:
        return _q.screen_and_boxes(s, step)


def step_screen_at(project: Project, episode_id: int, step_index: int) -> Screen | None:
    """The screen of an episode's step at this index (None: no such step, or a question with no screen)."""
    with project.reading() as s:
        return _q.step_screen_at(s, episode_id, step_index)


def screens_by_id(project: Project, ids: Sequence[int | None]) -> dict[int, Screen]:
    """Screens by id, in one query (None ids are skipped)."""
    with project.reading() as s:
        return _q.screens_by_id(s, ids)


def first_screens(project: Project, ids: Sequence[int]) -> dict[int, tuple[str, str, int, int]]:
    """Each episode's first screenshot as (sha256, ext, width, height), a page of the grid in one query; an
    episode with no screen is left out."""
    with project.reading() as s:
        return _q.first_screens(s, ids)
