"""Runs and their metrics in the Python API: the runs of a project, `evaluate` (what `screenlab eval` prints), and
every answer with each rule set's flags. Apart from the rest of the API (desktop_app/api/whole.py) so that
`screenlab eval`, which a user waits for, imports only what scoring needs (issue 36).
"""

from __future__ import annotations

from collections.abc import Iterator

from desktop_app.evaluation.rows import iter_prediction_rows, prediction_rows
from desktop_app.runs.evaluate import DEFAULT_RULES, list_runs
from desktop_app.runs.evaluate import evaluate as _evaluate
from desktop_app.store.models import Run
from desktop_app.store.project import Project

__all__ = ["evaluate", "iter_per_sample", "per_sample", "runs"]


def runs(project: Project) -> list[Run]:
    """Every run in id order (typed rows: protocol, agent, model, status, failure, totals)."""
    return list_runs(project)


def evaluate(project: Project, run_ids: list[int] | None = None, rules: tuple[str, ...] = DEFAULT_RULES,
             text_metric: str = "auto") -> dict:
    """Metrics of runs (default: every run) under the rule sets: {"rules", "runs": {id: {..., "metrics"}}}.
    Single-screen runs: `metrics[rules]["overall" | "by_scenario"][...]` = n, acc_gold, acc_dist,
    acc_other, acc_inv (None when n = 0) with `*_ci95` Wilson intervals, wrong_format, errors, excluded.
    text_metric: how the envdistraction rules score text answers: "auto" (the authors' choice), "f1" (their
    `f1_v2`, token F1) or "result-id" (their `google_id`)."""
    return _evaluate(project, run_ids, tuple(rules), text_metric)


def per_sample(project: Project, run_ids: list[int], rules: tuple[str, ...] = DEFAULT_RULES,
               text_metric: str = "auto") -> list[dict]:
    """One dict per prediction of single-screen runs: the answer, its parse, each rule set's flags."""
    return prediction_rows(project, run_ids, tuple(rules), text_metric)


def iter_per_sample(project: Project, run_ids: list[int], rules: tuple[str, ...] = DEFAULT_RULES,
                    text_metric: str = "auto") -> Iterator[dict]:
    """per_sample one row at a time, read a chunk at a time: a million predictions in bounded memory."""
    return iter_prediction_rows(project, run_ids, tuple(rules), text_metric)
