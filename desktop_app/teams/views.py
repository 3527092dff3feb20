"""What the team windows show, read from the project (no Qt): the screenshot of each step of a
double-annotated sample, and the key and goal of the samples in a list.

The windows (ui/team/) call these instead of reading the database themselves; the CLI and notebooks may
use them too.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import func, select

from desktop_app.store.models import Assignment, Episode, Screen, Step
from desktop_app.store.project import Project
from desktop_app.store.queries import annotators


@dataclass(frozen=True)
class StepScreen:
    """A step's screenshot: where its file is and how large it is (a placeholder of that size stands in
    when the file is gone). `path` is None for a step without a screen (a knowledge probe's question)."""

    path: Path | None
    width: int
    height: int
    instruction: str = ""


@dataclass(frozen=True)
class SampleHead:
    episode_id: int
    key: str
    goal: str
    steps: int


def version_screens(project: Project, episode_id: int) -> dict[int, StepScreen]:
    """Step index -> screenshot of a sample. Its private copies share the sample's screens and step
    indices, so these are the pictures under every annotator's version."""
    with project.reading() as s:
        rows = s.execute(select(Step.index, Step.instruction, Screen)
                         .outerjoin(Screen, Screen.id == Step.screen_id)
                         .where(Step.episode_id == episode_id).order_by(Step.index)).all()
        return {index: StepScreen(project.image_path(screen), screen.width, screen.height, instruction or "")
                if screen else StepScreen(None, 0, 0, instruction or "")
                for index, instruction, screen in rows}


def sample_heads(project: Project, episode_ids: list[int]) -> list[SampleHead]:
    """Key, goal and step count of these samples, in the order given (ids no longer stored are left out)."""
    if not episode_ids:
        return []
    with project.reading() as s:
        found = {row.id: row for row in s.execute(select(Episode.id, Episode.key, Episode.goal)
                                                  .where(Episode.id.in_(episode_ids))).all()}
        steps = dict(s.execute(select(Step.episode_id, func.count()).where(Step.episode_id.in_(episode_ids))
                               .group_by(Step.episode_id)).all())
    return [SampleHead(i, found[i].key, found[i].goal, steps.get(i, 0)) for i in episode_ids if i in found]


@dataclass(frozen=True)
class QueueChoices:
    """Which lists the window offers the person: their own queue, everyone's samples and other people's
    queues only to those who may see them (a lead or reviewer, or the one person of a local project), and
    which to start on: on a server, their queue when they have work in it (a local project is one person's:
    it opens on everything, as a screen they marked puts it in their queue too)."""

    me: str
    everyone: bool
    others: tuple[str, ...]
    start_mine: bool


def queue_choices(project: Project) -> QueueChoices:
    me = project.identity
    with project.reading() as s:
        people = annotators(s)
        mine = s.execute(select(Assignment.id).where(Assignment.annotator == me.user).limit(1)).first() is not None
    if not me.is_staff:  # an annotator on a server: their own work is all there is to list
        return QueueChoices(me.user, False, (), True)
    return QueueChoices(me.user, True, tuple(p for p in people if p != me.user), mine and project.on_server)


def own_copy_of(project: Project, episode_id: int, person: str) -> int | None:
    """The person's private copy of this sample while they are still labelling it: where their edits of
    the sample belong (blind double annotation); None when they have none or finished it."""
    with project.reading() as s:
        return own_copy_in(s, episode_id, person)


def own_copy_in(s, episode_id: int, person: str) -> int | None:
    """own_copy_of within the caller's session."""
    return s.execute(select(Assignment.copy_id).where(
        Assignment.episode_id == episode_id, Assignment.annotator == person, Assignment.copy_id.is_not(None),
        Assignment.copy_id != episode_id, Assignment.state.in_(("todo", "in_progress")))).scalar()
