"""Metrics of single-screen runs under one or more rule sets: what `screenlab eval` prints for them.

Per run and rule set: overall and by scenario (metrics.summarize), plus every selected run pooled by
agent, pattern and scenario. runs/evaluate.py adds what every protocol reports (status, failures,
tokens) around this.
"""

from __future__ import annotations

from desktop_app.evaluation.metrics import summarize
from desktop_app.evaluation.rows import rule_rows
from desktop_app.store.project import Project


def screen_metrics(project: Project, run_ids: list[int], rules: tuple[str, ...] = ("screenlab",)) -> dict:
    """{"runs": {run_id: {rules: {"overall", "by_scenario"}}}, "combined": {rules: {...}}}"""
    per_run: dict[int, dict] = {r: {} for r in run_ids}
    combined = {}
    for name in rules:
        rows = rule_rows(project, run_ids, name)
        for run_id in run_ids:
            per_run[run_id][name] = summarize([r for r in rows if r["run"] == run_id], by=("scenario",))
        combined[name] = summarize(rows, by=("agent", "pattern", "scenario"))
    return {"runs": per_run, "combined": combined}
