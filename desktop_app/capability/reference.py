"""Recorded tasks of a project as trajectories, and the check that each passes its own evaluators.

A task's evaluators are written by hand; the recorded (reference) trajectory shows the task can be done,
so every evaluator must hold on it. One that does not is a wrong evaluator (or a wrong recording), found
here before any agent is scored against it.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from desktop_app.a11y.stored import parse_stored
from desktop_app.capability.evaluators import (
    EvaluatorError,
    build_trace,
    describe,
    parse_evaluators,
    reference_check,
)
from desktop_app.store import edits
from desktop_app.store.models import Episode, Step
from desktop_app.store.orm import select
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter
from desktop_app.store.trees import trees_of_steps


@dataclass
class ReferenceCheck:
    episode_id: int
    key: str
    goal: str
    evaluators: list[tuple[str, bool]]  # (the evaluator in words, whether the reference passes it)
    problem: str = ""  # why the task could not be checked (no tree on a screen, a bad evaluator)

    @property
    def passed(self) -> bool:
        return not self.problem and all(ok for _, ok in self.evaluators)


def capability_info(episode: Episode) -> dict:
    return (episode.meta or {}).get("capability") or {}


def check_references(project: Project, flt: EpisodeFilter = EpisodeFilter()) -> list[ReferenceCheck]:
    """Every recorded task (an episode with evaluators) checked on its reference trajectory."""
    out = []
    with project.reading() as s:
        episodes = [e for e in s.execute(select(Episode).where(*flt.where()).order_by(Episode.id)).scalars()
                    if "evaluators" in capability_info(e)]
        for episode in episodes:
            steps = list(s.execute(select(Step).where(Step.episode_id == episode.id).order_by(Step.index)).scalars())
            out.append(_check(episode, steps, trees_of_steps(s, steps)))
    return out


def check_task(project: Project, episode_id: int, evaluators: list | None = None) -> ReferenceCheck:
    """One recorded task's reference against its evaluators, or against `evaluators` (JSON as in
    evaluator.json) that an editor is about to save; a bad evaluator is reported in `problem`."""
    with project.reading() as s:
        episode = s.get(Episode, episode_id)
        if episode is None:
            raise KeyError(f"no episode {episode_id}")
        steps = list(s.execute(select(Step).where(Step.episode_id == episode_id).order_by(Step.index)).scalars())
        trees = trees_of_steps(s, steps)
    return _check(episode, steps, trees, evaluators)


def _check(episode: Episode, steps: list[Step], trees: dict, candidate: list | None = None) -> ReferenceCheck:
    info = capability_info(episode)
    check = ReferenceCheck(episode.id, episode.key, episode.goal, [])
    try:
        evaluators = parse_evaluators(info.get("evaluators", []) if candidate is None else candidate)
    except EvaluatorError as exc:
        check.problem = f"evaluator {exc.path}: {exc.message}"
        return check
    missing = [st.index for st in steps if st.id not in trees]
    if missing:
        check.problem = f"step {missing[0] + 1} has no accessibility tree"
        return check
    actions = [st.meta.get("reference_action") or {"type": "stop", "element": None} for st in steps]
    activities = [st.meta.get("activity") for st in steps]
    trace = build_trace([parse_stored(trees[st.id]).tree for st in steps],
                        activities if all(a is not None for a in activities) else None, actions)
    results = reference_check(evaluators, trace)
    check.evaluators = [(describe(e), ok) for e, ok in zip(evaluators, results, strict=True)]
    return check


def set_evaluators(project: Project, episode_id: int, evaluators: list, actor: str | None = None) -> ReferenceCheck:
    """Replace a recorded task's evaluators (checked first: a bad one is refused with its path) and return
    how its reference trajectory fares against them (saved even when it fails: the recording may be wrong)."""
    try:
        parse_evaluators(evaluators)
    except EvaluatorError as exc:
        raise ValueError(f"evaluator {exc.path}: {exc.message}") from None
    with project.reading() as s:
        episode = s.get(Episode, episode_id)
        if episode is None or "evaluators" not in capability_info(episode):
            raise KeyError(f"episode {episode_id} is not a recorded task with evaluators")
        meta = copy.deepcopy(episode.meta or {})
    meta["capability"]["evaluators"] = evaluators
    edits.update_episode(project, episode_id, {"meta": meta}, actor)
    return check_task(project, episode_id)


def set_completion(project: Project, step_id: int, label: str, actor: str | None = None) -> None:
    """Override a step's completion label (continue / stop); the derived one is the last step = stop."""
    if label not in ("continue", "stop"):
        raise ValueError("a completion label is continue or stop")
    edits.update_step_meta(project, step_id, {"completion": label}, actor)
