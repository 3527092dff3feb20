"""Metrics of single-screen runs under one or more rule sets: what `screenlab eval` prints for them.

Per run and rule set: overall and by scenario (metrics.summarize), plus every selected run pooled by
agent, pattern and scenario. runs/evaluate.py adds what every protocol reports (status, failures,
tokens) around this.
"""

from __future__ import annotations

from sqlalchemy import select

from desktop_app.evaluation.metrics import summarize_counted
from desktop_app.evaluation.rows import counted_rows
from desktop_app.gc_pause import gc_paused
from desktop_app.store import models as m
from desktop_app.store.project import Project


def screen_metrics(project: Project, run_ids: list[int], rules: tuple[str, ...] = ("screenlab",),
                   text_metric: str = "auto") -> dict:
    """{"runs": {run_id: {rules: {"overall", "by_scenario"}}}, "combined": {rules: {...}}}. Counted, not listed:
    a million predictions are a few thousand distinct rows (rows.counted_rows)."""
    with project.reading() as s:
        runs = {r.id: r for r in s.execute(select(m.Run).where(m.Run.id.in_(run_ids))).scalars()}
    per_run: dict[int, dict] = {r: {} for r in run_ids}
    combined = {}
    for name in rules:
        with gc_paused():  # one collection after, not one per chunk (columns.gc_paused)
            counted = [({**row, "agent": runs[row["run"]].agent, "pattern": runs[row["run"]].pattern}, n)
                       for row, n in counted_rows(project, run_ids, name, text_metric=text_metric)]
        for run_id in run_ids:
            per_run[run_id][name] = summarize_counted([(row, n) for row, n in counted if row["run"] == run_id],
                                                      by=("scenario",))
        combined[name] = summarize_counted(counted, by=("agent", "pattern", "scenario"))
    return {"runs": per_run, "combined": combined}
