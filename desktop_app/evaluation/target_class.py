"""The class of what an answer was meant to hit, for results split by class (ADR 0047: a box's class is not
its role, and no rule set reads it): the classes of the step's gold boxes ("button", "Car"), so a table can say
whether agents find icons less often than buttons. A step whose gold boxes have no class is NO_CLASS; one
whose gold boxes have several classes counts under them joined ("button + icon"), not under each twice.

    rows = with_target_class(project, rule_rows(project, run_ids))   # each row gains "class"
    tables.breakdown_table(rows, "class")

One query over the runs' steps, however many predictions: only boxes with a class are read.
"""

from __future__ import annotations

from sqlalchemy import select

from desktop_app.store import models as m
from desktop_app.store.project import Project

NO_CLASS = "(no class)"
JOIN = " + "


def target_classes(project: Project, run_ids: list[int]) -> dict[int, str]:
    """step id -> its gold boxes' classes (sorted, joined), for the steps these runs answered that have any."""
    if not run_ids:
        return {}
    answered = select(m.Prediction.step_id).where(m.Prediction.run_id.in_(run_ids))
    with project.reading() as s:
        found = s.execute(select(m.ActionBox.step_id, m.ActionBox.category).distinct()
                          .where(m.ActionBox.label == "gold", m.ActionBox.category != "",
                                 m.ActionBox.step_id.in_(answered))).all()
    by_step: dict[int, set[str]] = {}
    for step_id, category in found:
        by_step.setdefault(step_id, set()).add(category)
    return {step_id: JOIN.join(sorted(names)) for step_id, names in by_step.items()}


def with_target_class(project: Project, rows: list[dict]) -> list[dict]:
    """The rows (evaluation.rows dicts), each with "class": its step's target class, or NO_CLASS."""
    classes = target_classes(project, sorted({int(r["run"]) for r in rows if r.get("run") is not None}))
    return [{**row, "class": classes.get(row.get("step_id"), NO_CLASS)} for row in rows]


def any_class(rows: list[dict]) -> bool:
    """Whether a split by class says anything: some row's target has a class."""
    return any(row.get("class", NO_CLASS) != NO_CLASS for row in rows)
