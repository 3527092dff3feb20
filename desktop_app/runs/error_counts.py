"""How a run's requests failed, counted by kind: what the Runs panel shows beside each run.

Apart from runs/engine.py so that the panel, built when a project opens, reads these counts without importing
the engine (its protocols, clients and formats: most of a second of a launch, ADR 0057).
"""

from __future__ import annotations

from collections import Counter

from sqlalchemy import func, select

from desktop_app.runs.state import error_kind
from desktop_app.store import models as m
from desktop_app.store.project import Project


def error_kinds(project: Project, run_ids: list[int]) -> dict[int, Counter]:
    """Per run, its failed requests by kind ("HTTP 500" -> 3), from the stored predictions."""
    out: dict[int, Counter] = {r: Counter() for r in run_ids}
    with project.reading() as s:
        for run_id, error, n in s.execute(
                select(m.Prediction.run_id, m.Prediction.error, func.count())
                .where(m.Prediction.run_id.in_(run_ids), m.Prediction.verdict == "error")
                .group_by(m.Prediction.run_id, m.Prediction.error)):
            out[run_id][error_kind(error or "")] += n
    return out
