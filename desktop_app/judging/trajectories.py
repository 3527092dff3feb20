"""Trajectories: what an agent did on a task, step by step, to be judged as a whole.

A trajectory is an episode of kind "trajectory" (docs/decisions/0017): its steps are the screens the
agent saw, step.meta["action"] the action it took there (judging/actions.py), and
episode.meta["trajectory"] the policy that acted, its final response to the user, the platform and
where it came from (the authors' dataset path and task index, for their evals/*.jsonl lines).
They come from the authors' UnifiedTrajectory layout (formats/unified_trajectory.py), from our
labelled episodes (the gold path: a human demonstration) and from our episode runs (the agent's
answer at every step).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import func, select

from desktop_app.evaluation.rules.screenlab import Target, match_point
from desktop_app.formats.trajectory_layout import (
    KIND,
    TrajectoryAction,
    info_of,
    screenlab_action,
    trajectory_meta,
)
from desktop_app.store import audit
from desktop_app.store import models as m
from desktop_app.store.project import Project

DEMONSTRATION = "demonstration"


@dataclass(frozen=True)
class TrajectoryStep:
    index: int
    step_id: int
    screen_id: int
    sha256: str
    ext: str
    width: int
    height: int
    action: TrajectoryAction


@dataclass(frozen=True)
class Trajectory:
    episode_id: int
    key: str
    intent: str
    policy: str
    response: str
    platform: str
    steps: tuple[TrajectoryStep, ...]
    source: dict = field(default_factory=dict, compare=False)

    @property
    def actions_text(self) -> str:
        """`1: tap\\n2: swipe on screen\\n...`, the numbered history a judge reads."""
        return "".join(f"{i + 1}: {s.action.text}\n" for i, s in enumerate(self.steps))


def load_trajectory(project: Project, episode_id: int) -> Trajectory:
    with project.reading() as s:
        episode = s.get(m.Episode, episode_id)
        if episode is None or episode.kind != KIND:
            raise ValueError(f"no trajectory {episode_id} in this project")
        rows = s.execute(select(m.Step, m.Screen).join(m.Screen, m.Screen.id == m.Step.screen_id)
                         .where(m.Step.episode_id == episode_id).order_by(m.Step.index)).all()
        info = info_of(episode.meta)
        steps = tuple(TrajectoryStep(st.index, st.id, sc.id, sc.sha256, sc.ext, sc.width, sc.height,
                                     TrajectoryAction.from_json((st.meta or {}).get("action")))
                      for st, sc in rows)
        return Trajectory(episode.id, episode.key, episode.goal, str(info.get("policy", "")),
                          str(info.get("response", "")), str(info.get("platform", "web")), steps,
                          dict(info.get("source") or {}))


@dataclass(frozen=True)
class TrajectoryRow:
    """One line of the trajectory list: enough to show and filter, without the steps."""

    episode_id: int
    key: str
    intent: str
    policy: str
    steps: int
    labels: dict[str, str]  # annotator -> outcome
    source: dict = field(default_factory=dict, compare=False)  # dataset path, task index, uid (evals lines)


def list_trajectories(project: Project, policy: str = "", text: str = "",
                      unlabelled_by: str | None = None) -> list[TrajectoryRow]:
    """Trajectories in import order. unlabelled_by: only those this annotator has not labelled
    ("" -> those nobody has labelled)."""
    with project.reading() as s:
        counts = dict(s.execute(select(m.Step.episode_id, func.count()).join(m.Episode)
                                .where(m.Episode.kind == KIND).group_by(m.Step.episode_id)).all())
        labels: dict[int, dict[str, str]] = {}
        for eid, annotator, outcome in s.execute(select(m.TrajectoryLabel.episode_id, m.TrajectoryLabel.annotator,
                                                        m.TrajectoryLabel.outcome)):
            labels.setdefault(eid, {})[annotator] = outcome
        query = select(m.Episode.id, m.Episode.key, m.Episode.goal, m.Episode.meta).where(m.Episode.kind == KIND)
        if text:
            query = query.where(m.Episode.goal.ilike(f"%{text}%") | m.Episode.key.ilike(f"%{text}%"))
        rows = []
        for eid, key, goal, meta in s.execute(query.order_by(m.Episode.id)):
            info = info_of(meta)
            row = TrajectoryRow(eid, key, goal, str(info.get("policy", "")), counts.get(eid, 0),
                                labels.get(eid, {}), dict(info.get("source") or {}))
            if policy and row.policy != policy:
                continue
            if unlabelled_by is not None and (unlabelled_by in row.labels if unlabelled_by else row.labels):
                continue
            rows.append(row)
        return rows


def policies(project: Project) -> list[str]:
    return sorted({r.policy for r in list_trajectories(project)})


def _add(session, key: str, intent: str, meta: dict, steps: list[tuple[int, str, TrajectoryAction]]) -> int:
    """One trajectory episode; steps: (screen id, instruction, action)."""
    episode = m.Episode(key=key, goal=intent, kind=KIND, scenario=KIND, meta=meta)
    session.add(episode)
    session.flush()
    for index, (screen_id, instruction, action) in enumerate(steps):
        session.add(m.Step(episode_id=episode.id, index=index, screen_id=screen_id, instruction=instruction,
                           meta={"action": action.to_json()}))
    return episode.id


def _existing_keys(session, keys: list[str]) -> set[str]:
    return set(session.execute(select(m.Episode.key).where(m.Episode.key.in_(keys))).scalars()) if keys else set()


def trajectories_from_episodes(project: Project, episode_ids: list[int], policy: str = DEMONSTRATION) -> list[int]:
    """Each labelled episode's gold path as a trajectory (a human demonstration): per step, the first
    gold box's action. Episodes already turned into trajectories are skipped."""
    made = []
    with project.transaction() as s:
        episodes = s.execute(select(m.Episode).where(m.Episode.id.in_(episode_ids), m.Episode.kind == "sample")
                             .order_by(m.Episode.id)).scalars().all()
        taken = _existing_keys(s, [f"{policy}:{e.key}" for e in episodes])
        for e in episodes:
            key = f"{policy}:{e.key}"
            if key in taken:
                continue
            steps = []
            for step, screen in s.execute(select(m.Step, m.Screen).join(m.Screen).where(m.Step.episode_id == e.id)
                                          .order_by(m.Step.index)).all():
                gold = s.execute(select(m.ActionBox).where(m.ActionBox.step_id == step.id,
                                                           m.ActionBox.label == "gold")
                                 .order_by(m.ActionBox.id)).scalars().first()
                if gold is None:
                    action = TrajectoryAction("other", "no action", (), "")
                else:
                    centre = ((gold.x1 + gold.x2) / 2, (gold.y1 + gold.y2) / 2) if gold.has_box else None
                    action = screenlab_action(gold.action_type, gold.element_text, gold.type_text, centre,
                                              (screen.width, screen.height))
                steps.append((screen.id, step.instruction, action))
            if not steps:
                continue
            made.append(_add(s, key, e.goal, trajectory_meta(policy, "", screen_platform(s, steps[0][0]),
                                                             {"episode": e.key}), steps))
        audit.record(s, "create", "trajectory", None, {"from_episodes": len(made), "policy": policy})
    return made


def trajectories_from_run(project: Project, run_id: int) -> list[int]:
    """An episode run's answers as trajectories: per episode, the agent's parsed action at each step it
    answered (up to its first failed request), the policy named after the run."""
    made = []
    with project.transaction() as s:
        run = s.get(m.Run, run_id)
        if run is None:
            raise ValueError(f"no run {run_id} in this project")
        if run.protocol == "judge":
            raise ValueError(f"run {run_id} is a judge run; only a run of agents acting on episodes has trajectories")
        if run.protocol == "live":  # its answers are on the trajectories' own steps: they would be copied again
            raise ValueError(f"run {run_id} is a live run: its trajectories were stored as it ran (policy "
                             f"{run.name or f'run {run_id}'!r}, keys live{run_id}:...)")
        policy = run.name or f"run {run_id}"
        rows = s.execute(select(m.Episode, m.Step, m.Screen, m.Prediction)
                         .join(m.Step, m.Step.episode_id == m.Episode.id).join(m.Screen, m.Screen.id == m.Step.screen_id)
                         .join(m.Prediction, (m.Prediction.step_id == m.Step.id) & (m.Prediction.run_id == run_id))
                         .order_by(m.Episode.id, m.Step.index)).all()
        boxes: dict[int, list[Target]] = {}  # step id -> its labelled boxes, in annotation order
        for box in s.execute(select(m.ActionBox).join(m.Prediction, m.Prediction.step_id == m.ActionBox.step_id)
                             .where(m.Prediction.run_id == run_id).order_by(m.ActionBox.id)).scalars():
            if box.has_box:
                boxes.setdefault(box.step_id, []).append(
                    Target(box.id, box.label, box.element_text, (box.x1, box.y1, box.x2, box.y2)))
        by_episode: dict[int, list] = {}
        for episode, step, screen, prediction in rows:
            by_episode.setdefault(episode.id, []).append((episode, step, screen, prediction))
        taken = _existing_keys(s, [f"run{run_id}:{v[0][0].key}" for v in by_episode.values()])
        for steps in by_episode.values():
            episode = steps[0][0]
            key = f"run{run_id}:{episode.key}"
            if key in taken:
                continue
            actions, response = [], ""
            for _, step, screen, p in steps:
                if p.verdict == "error":
                    break
                parsed = p.parsed or {}
                action_type = parsed.get("action_type") or "other"
                if action_type == "answer":
                    response = parsed.get("text") or ""
                point = (p.x, p.y) if p.x is not None and p.y is not None else None
                # a point-only agent names no element: the labelled box its point falls in (the smallest, as
                # scoring decides) names it for the judge, who never sees coordinates
                name = p.element_text or parsed.get("element") or ""
                if not name and point is not None:
                    found = match_point(point[0], point[1], boxes.get(step.id, []))
                    name = found.text if found else ""
                actions.append((screen.id, step.instruction,
                                screenlab_action(action_type, name, parsed.get("text") or "", point,
                                                 (screen.width, screen.height))))
            if actions:
                made.append(_add(s, key, episode.goal, trajectory_meta(
                    policy, response, screen_platform(s, actions[0][0]), {"run": run_id, "episode": episode.key}),
                    actions))
        audit.record(s, "create", "trajectory", None, {"from_run": run_id, "trajectories": len(made)})
    return made


def screen_platform(session, screen_id: int) -> str:
    screen = session.get(m.Screen, screen_id)
    return screen.platform if screen else "web"
