"""Per-prediction rows and metric tables for runs: what `screenlab eval` and the dashboard show."""

from __future__ import annotations

from sqlalchemy import func, select

from desktop_app.evaluation.metrics import summarize
from desktop_app.store import models as m
from desktop_app.store.project import Project


def latest_run_id(project: Project) -> int | None:
    with project.reading() as s:
        return s.execute(select(func.max(m.Run.id))).scalar()


def runs(project: Project) -> list[m.Run]:
    with project.reading() as s:
        return list(s.execute(select(m.Run).order_by(m.Run.id)).scalars())


def prediction_rows(project: Project, run_ids: list[int]) -> list[dict]:
    with project.reading() as s:
        rows = s.execute(
            select(m.Prediction, m.Run, m.Episode, m.Step)
            .join(m.Run, m.Run.id == m.Prediction.run_id)
            .join(m.Step, m.Step.id == m.Prediction.step_id)
            .join(m.Episode, m.Episode.id == m.Step.episode_id)
            .where(m.Prediction.run_id.in_(run_ids)).order_by(m.Prediction.run_id, m.Episode.id, m.Step.index)
        ).all()
    out = []
    for p, run, episode, step in rows:
        out.append({
            "run": run.id, "agent": run.meta.get("agent", ""), "pattern": run.meta.get("pattern", ""),
            "convention": run.meta.get("convention", ""), "episode": episode.key, "step": step.index,
            "goal": episode.goal, "scenario": episode.scenario,
            "action_type": (p.parsed or {}).get("action_type"),
            "point": [p.x, p.y] if p.x is not None else None, "element": p.element_text or None,
            "verdict": p.verdict, "wrong_format": p.wrong_format, "matched_box": p.matched_box_id,
            "latency_ms": p.latency_ms, "error": p.error or None, "raw": p.raw_text,
        })
    return out


def run_metrics(project: Project, run_ids: list[int]) -> dict:
    """Per run: overall and by scenario; plus all runs together by agent, pattern and scenario."""
    rows = prediction_rows(project, run_ids)
    by_run = {}
    meta = {r.id: r for r in runs(project) if r.id in run_ids}
    for run_id in run_ids:
        mine = [r for r in rows if r["run"] == run_id]
        run = meta.get(run_id)
        by_run[str(run_id)] = {
            "name": run.name if run else "", "agent": run.meta.get("agent") if run else None,
            "pattern": run.meta.get("pattern") if run else None, "status": run.status if run else None,
            "tokens": {k: run.meta.get(k, 0) for k in ("prompt_tokens", "completion_tokens")} if run else {},
            "cost": run.meta.get("cost", 0.0) if run else 0.0,
            **summarize(mine, by=("scenario",)),
        }
    return {"runs": by_run, "combined": summarize(rows, by=("agent", "pattern", "scenario"))}
