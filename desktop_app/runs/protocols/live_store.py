"""How a live run's tasks are kept and scored: one trajectory episode per task, read back for SR and steps.

A task's episode (kind "trajectory", key `live<run>:<task key>`) is written whole when the task ends,
through the one write path imports take (formats/ingest.py): each step is the screen the agent saw, its
tree, and in step.meta.action the action as judges read it (formats/trajectory_layout.py); the run's
prediction on that step holds the answer (raw text, parsed point). episode.meta.live holds the outcome:
success, the actions taken, how it ended and, for a failure, the step that failed in words. The judges
(Agent-Eval-Refine) label and judge these episodes like any other trajectory. A task whose request failed
is written too (so a user sees why), and taken away when a resumed run does it again.
"""

from __future__ import annotations

import statistics
from pathlib import Path

from sqlalchemy import delete, select

from desktop_app.agents.kept_answer import cut_all
from desktop_app.capability.metrics import Rate
from desktop_app.evaluation.parsed_answers import parse_rows
from desktop_app.formats.ingest import ingest
from desktop_app.formats.records import EpisodeRecord
from desktop_app.store import models as m
from desktop_app.store.project import Project

FORMAT = "screenlab-live"
PASSED = "evaluator passed"
STOPPED = "stopped"
CAP = "step cap"
FORMAT_ERROR = "format error"
ERROR = "error"  # a request failed: asked again on resume


def live_key(run_id: int, task_key: str) -> str:
    return f"live{run_id}:{task_key}"


def run_prefix(run_id: int) -> str:
    """What the keys of a run's trajectories start with (runs/run_transfer.py renames them for a new run)."""
    return f"live{run_id}:"


def forget_attempt(project: Project, run_id: int, task_key: str) -> None:
    """Take away what an earlier attempt at this task left (one that ended in a failed request)."""
    with project.transaction() as s:
        s.execute(delete(m.Episode).where(m.Episode.key == live_key(run_id, task_key)))


def write_task(project: Project, run_id: int, record: EpisodeRecord, predictions: list[dict | None]) -> int:
    """Store a finished task's trajectory and the run's predictions on its steps; the episode's id."""
    forget_attempt(project, run_id, record.key.removeprefix(run_prefix(run_id)))
    ingest(project, [record], FORMAT, f"run {run_id}")
    with project.transaction() as s:
        episode_id = s.execute(select(m.Episode.id).where(m.Episode.key == record.key)).scalar_one()
        step_ids = s.execute(select(m.Step.id).where(m.Step.episode_id == episode_id).order_by(m.Step.index)).scalars()
        rows = [m.Prediction(run_id=run_id, step_id=step_id, **cut_all(values))
                for step_id, values in zip(step_ids, predictions, strict=False) if values is not None]
        s.add_all(rows)
        s.flush()
        parse_rows(s, [row.id for row in rows])  # the answers as the rules read them, parsed once (ADR 0052)
    return episode_id


def step_image_name(key: str, index: int) -> Path:
    return Path(f"{key}-{index}.png")


def outcomes(project: Project, run_id: int) -> list[dict]:
    """The run's tasks as written (episode.meta.live plus the trajectory's id), in the order they were done."""
    with project.reading() as s:
        rows = s.execute(select(m.Episode.id, m.Episode.meta).where(m.Episode.key.like(run_prefix(run_id) + "%"),
                                                                    m.Episode.kind == "trajectory")
                         .order_by(m.Episode.id)).all()
    return [{**(meta or {}).get("live", {}), "trajectory": episode_id} for episode_id, meta in rows]


def done_tasks(project: Project, run_id: int) -> set[int]:
    """The task episodes this run finished (those whose request failed are not: resume does them again)."""
    return {o["task_id"] for o in outcomes(project, run_id) if o.get("ended") != ERROR and "task_id" in o}


def live_metrics(tasks: list[dict], planned: int, options: dict) -> dict:
    """SR over the finished tasks, steps to success, and each task's outcome (per_episode: `eval --per-sample`)."""
    finished = [t for t in tasks if t.get("ended") != ERROR]
    won = [t for t in finished if t.get("success")]
    steps = [int(t.get("steps", 0)) for t in won]
    return {
        "tasks": len(finished), "unfinished": max(0, planned - len(finished)),
        "rates": {"success": Rate(len(won), len(finished), sum(t.get("ended") == FORMAT_ERROR for t in finished))
                  .as_dict()},
        "steps_to_success": {"n": len(steps), "mean": statistics.fmean(steps) if steps else None,
                             "median": statistics.median(steps) if steps else None,
                             "min": min(steps) if steps else None, "max": max(steps) if steps else None},
        "ended": {e: sum(t.get("ended") == e for t in finished) for e in (PASSED, STOPPED, CAP, FORMAT_ERROR)},
        "blocked_requests": sum(int(t.get("blocked", 0)) for t in tasks),
        "max_steps": options.get("max_steps"), "observation": options.get("observation", ""),
        "per_episode": [{"task": t.get("task", ""), "goal": t.get("goal", ""), "trajectory": t["trajectory"],
                         "success": bool(t.get("success")), "steps": t.get("steps", 0), "ended": t.get("ended", ""),
                         "failure": t.get("failure", "")} for t in tasks],
    }


def summary_lines(metrics: dict) -> list[str]:
    from desktop_app.runs.protocols.capability import rate_text

    sr = metrics["rates"]["success"]
    lines = [f"{'SR':<12} {rate_text(sr)}" if sr.get("n") else f"{'SR':<12} - (no task finished)"]
    steps = metrics["steps_to_success"]
    if steps["n"]:
        lines.append(f"{'steps':<12} {steps['mean']:.1f} to success (median {steps['median']:g}, "
                     f"{steps['min']}-{steps['max']}, {steps['n']} task{'s' if steps['n'] != 1 else ''}; "
                     f"cap {metrics['max_steps']}, {metrics['observation']})")
    for task in metrics["per_episode"]:
        if not task["success"]:
            name = task["goal"] if len(task["goal"]) <= 60 else task["goal"][:57] + "..."
            lines.append(f"{'not done' if task['ended'] == ERROR else 'failed':<12} {name!r}")
            # the step that failed, then the check that failed, each on a line of its own: a narrow panel shows them
            lines += [f"{'':<14}{part}" for part in task["failure"].split("; ")]
    if metrics["unfinished"]:
        lines.append(f"{metrics['unfinished']} tasks not finished: a request failed or the run stopped "
                     "(--resume does them again)")
    if metrics["blocked_requests"]:
        lines.append(f"{metrics['blocked_requests']} outside requests blocked (pages served offline)")
    return lines
