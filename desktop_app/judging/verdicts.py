"""What a judge run said about each trajectory, read back from its stored predictions.

Whole-trajectory modes store one prediction, on the trajectory's last step. Per-step mode stores one
per step (a step label); the trajectory's verdict is then "success" when the last step is labelled
goal-reached (the task is complete after the agent's final action), else "failure". A parse failure
or a failed request gives no verdict: it is counted apart, never as a failure.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select

from desktop_app.judging.parse import CODE_STEPS
from desktop_app.store import models as m
from desktop_app.store.project import Project

TRAJECTORY_VERDICTS = ("success", "failure", "impossible")


@dataclass(frozen=True)
class JudgeVerdict:
    status: str  # success | failure | impossible | "" (no verdict: parse failure or failed request)
    thoughts: str
    raw_text: str
    wrong_format: bool
    error: str
    step_labels: tuple[str, ...] = ()  # per-step mode: the label of each step ("" where none)
    latency_ms: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


def verdicts_of(project: Project, run_id: int) -> dict[int, JudgeVerdict]:
    """Per trajectory (episode id) the run's verdict."""
    with project.reading() as s:
        rows = s.execute(select(m.Step.episode_id, m.Step.index, m.Prediction)
                         .join(m.Prediction, m.Prediction.step_id == m.Step.id)
                         .where(m.Prediction.run_id == run_id).order_by(m.Step.episode_id, m.Step.index)).all()
        judged = {episode_id for episode_id, _, _ in rows}
        lengths = dict(s.execute(select(m.Step.episode_id, func.max(m.Step.index))
                                 .where(m.Step.episode_id.in_(judged)).group_by(m.Step.episode_id)).all())
    by_episode: dict[int, list] = {}
    for episode_id, index, prediction in rows:
        by_episode.setdefault(episode_id, []).append((index, prediction))
    out = {}
    for episode_id, predictions in by_episode.items():
        last_index = lengths.get(episode_id, 0)
        modes = {(p.parsed or {}).get("mode") for _, p in predictions}
        if "per_step" in modes:
            out[episode_id] = _per_step(predictions, last_index)
        else:
            _, p = predictions[-1]
            parsed = p.parsed or {}
            status = p.verdict if p.verdict in TRAJECTORY_VERDICTS else ""
            out[episode_id] = JudgeVerdict(status, str(parsed.get("thoughts", "")), p.raw_text, p.wrong_format,
                                           p.error, (), p.latency_ms, p.prompt_tokens, p.completion_tokens)
    return out


def _per_step(predictions: list, last_index: int) -> JudgeVerdict:
    labels = {index: CODE_STEPS.get(p.verdict, "") for index, p in predictions}
    step_labels = tuple(labels.get(i, "") for i in range(last_index + 1))
    last = next((p for index, p in predictions if index == last_index), None)
    final = labels.get(last_index, "")
    status = ("success" if final == "goal-reached" else "failure") if final else ""
    thoughts = str((last.parsed or {}).get("thoughts", "")) if last else ""
    return JudgeVerdict(status, thoughts, last.raw_text if last else "", bool(last and last.wrong_format),
                        last.error if last else "no prediction for the last step", step_labels,
                        sum(p.latency_ms or 0 for _, p in predictions),
                        sum(p.prompt_tokens or 0 for _, p in predictions),
                        sum(p.completion_tokens or 0 for _, p in predictions))
