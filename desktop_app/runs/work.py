"""A step as a run sees it: the screen, the goal, the annotated actions (in annotation order).

Loaded once per execution, 500 episodes at a time, as plain frozen data: workers on the event loop
never touch the ORM or a session.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from desktop_app.agents.prompts import Sample, shuffled_choices
from desktop_app.evaluation.rules.base import Target
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter, episode_ids, load_bundles

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
        return tuple(Target(a.id, a.label, a.text, a.box, a.meta.get("role", ""), bool(a.meta.get("out_of_screen")))
                     for a in self.actions)

    def sample(self, project: Project) -> Sample:
        """What the prompt may show: the image and goal, and the annotated texts shuffled, labels hidden."""
        image = project.media.read(self.sha256, self.ext)
        return Sample(self.episode_id, self.step_id, self.episode_key, self.goal, self.scenario, self.sha256,
                      self.width, self.height, image, MIME[self.ext], self.instruction,
                      shuffled_choices([a.text for a in self.actions], f"{self.episode_key}:{self.step_id}"))


def action_of(box) -> Action:
    return Action(box.id, box.label, box.action_type, box.element_text, box.type_text,
                  (box.x1, box.y1, box.x2, box.y2) if box.x1 is not None else None, dict(box.meta or {}))


def load_items(project: Project, flt: EpisodeFilter) -> list[WorkItem]:
    """Every step of the selected episodes, episodes by id, steps in order, boxes by id."""
    items = []
    with project.reading() as s:
        ids = episode_ids(s, flt)
        for start in range(0, len(ids), 500):
            for bundle in load_bundles(s, ids[start:start + 500]):
                e = bundle.episode
                source = (e.meta or {}).get("envdistraction", {}).get("target", "")
                for sb in bundle.steps:
                    items.append(WorkItem(
                        sb.step.id, sb.step.index, e.id, e.key, e.goal, e.scenario, sb.step.instruction,
                        sb.screen.sha256, sb.screen.ext, sb.screen.width, sb.screen.height,
                        tuple(action_of(b) for b in sb.boxes), source if isinstance(source, str) else "",
                        sb.screen.id, sb.screen.platform, dict(sb.step.meta or {}), dict(e.meta or {})))
    return items
