"""A step as a run sees it: the screen, the goal, the annotated actions (in annotation order).

Loaded 500 episodes at a time as a run goes (item_chunks), as plain frozen data: workers on the event
loop never touch the ORM or a session.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property

from sqlalchemy import select

from desktop_app.agents.prompts import Sample, shuffled_choices
from desktop_app.evaluation.rules.base import Target
from desktop_app.store import models as m
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter, episode_ids

MIME = {"png": "image/png", "jpg": "image/jpeg", "webp": "image/webp"}


@dataclass(frozen=True)
class Action:
    """An annotated action (an ActionBox) without the ORM."""

    id: int
    label: str
    action_type: str
    text: str
    type_text: str = ""
    box: tuple[float, float, float, float] | None = None
    meta: dict = field(default_factory=dict, hash=False, compare=False)


@dataclass(frozen=True)
class WorkItem:
    step_id: int
    step_index: int
    episode_id: int
    episode_key: str
    goal: str
    scenario: str
    instruction: str
    sha256: str
    ext: str
    width: int
    height: int
    actions: tuple[Action, ...] = ()
    source_target: str = ""  # the EnvDistraction `target` of an imported sample
    screen_id: int = 0
    platform: str = "web"
    # a trajectory's action at this step, and its policy / response (judging/trajectories.py)
    step_meta: dict = field(default_factory=dict, hash=False, compare=False)
    episode_meta: dict = field(default_factory=dict, hash=False, compare=False)

    @cached_property
    def targets(self) -> tuple[Target, ...]:
        return tuple(Target(a.id, a.label, a.text, a.box, a.meta.get("role", ""),
                            bool(a.meta.get("out_of_screen"))) for a in self.actions)

    def sample(self, project: Project, image: bool = True) -> Sample:
        """What the prompt may show: the image and goal, and the annotated texts shuffled, labels hidden.
        image=False: without the image's bytes (a cache lookup keys images by their hash)."""
        image = project.media.read(self.sha256, self.ext) if image else b""
        return Sample(self.episode_id, self.step_id, self.episode_key, self.goal, self.scenario, self.sha256,
                      self.width, self.height, image, MIME[self.ext], self.instruction,
                      shuffled_choices([a.text for a in self.actions], f"{self.episode_key}:{self.step_id}"))


def action_of(box) -> Action:
    return Action(box.id, box.label, box.action_type, box.element_text, box.type_text,
                  (box.x1, box.y1, box.x2, box.y2) if box.x1 is not None else None, dict(box.meta or {}))


_EPISODE_COLUMNS = (m.Episode.id, m.Episode.key, m.Episode.goal, m.Episode.scenario, m.Episode.meta)
_STEP_COLUMNS = (m.Step.episode_id, m.Step.id, m.Step.index, m.Step.instruction, m.Step.meta, m.Screen.sha256,
                 m.Screen.ext, m.Screen.width, m.Screen.height, m.Screen.id, m.Screen.platform)
_BOX_COLUMNS = (m.ActionBox.step_id, m.ActionBox.id, m.ActionBox.label, m.ActionBox.action_type,
                m.ActionBox.element_text, m.ActionBox.type_text, m.ActionBox.x1, m.ActionBox.y1, m.ActionBox.x2,
                m.ActionBox.y2, m.ActionBox.meta)


def load_items(project: Project, flt: EpisodeFilter) -> list[WorkItem]:
    """Every step of the selected episodes, episodes by id, steps in order, boxes by id.

    Plain column queries, no ORM objects: a run's wall time starts here (10,000 trajectory steps
    load in about a fifth of the time the ORM bundles took, benchmarks/judge.py)."""
    items = []
    with project.reading() as s:
        ids = episode_ids(s, flt)
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            episodes = {r[0]: r for r in s.execute(select(*_EPISODE_COLUMNS).where(m.Episode.id.in_(chunk)))}
            # outer join: a knowledge probe's steps have no screen (their screen columns come back empty)
            rows = s.execute(select(*_STEP_COLUMNS).outerjoin(m.Screen, m.Screen.id == m.Step.screen_id)
                             .where(m.Step.episode_id.in_(chunk)).order_by(m.Step.episode_id, m.Step.index)).all()
            boxes: dict[int, list[Action]] = {}
            step_ids = [r[1] for r in rows]
            for at in range(0, len(step_ids), 500):
                for b in s.execute(select(*_BOX_COLUMNS).where(m.ActionBox.step_id.in_(step_ids[at:at + 500]))
                                   .order_by(m.ActionBox.id)):
                    boxes.setdefault(b[0], []).append(Action(b[1], b[2], b[3], b[4], b[5],
                                                             (b[6], b[7], b[8], b[9]) if b[6] is not None else None,
                                                             dict(b[10] or {})))
            for eid, sid, index, instruction, smeta, sha, ext, width, height, screen_id, platform in rows:
                _, key, goal, scenario, emeta = episodes[eid]
                emeta = emeta or {}  # one dict per episode, shared by its steps (nobody writes to it)
                source = emeta.get("envdistraction", {}).get("target", "")
                items.append(WorkItem(sid, index, eid, key, goal, scenario, instruction, sha or "", ext or "",
                                      width or 0, height or 0, tuple(boxes.get(sid, ())),
                                      source if isinstance(source, str) else "", screen_id or 0, platform or "",
                                      smeta or {}, emeta))
    return items


def item_chunks(project: Project, flt: EpisodeFilter, size: int = 500) -> Iterator[list[WorkItem]]:
    """load_items `size` episodes at a time (every protocol's units are whole episodes): a run holds one chunk,
    not its selection (about 2.8 KB a step: a million steps took 2.8 GB)."""
    with project.reading() as s:
        ids = episode_ids(s, flt)
    for start in range(0, len(ids), size):
        yield load_items(project, EpisodeFilter(ids=tuple(ids[start:start + size]), kind=None))
