"""Evaluate runs of any protocol: what every run reports (state, failures, tokens) around the
protocol's own metrics. `screenlab eval`, `screenlab report` and desktop_app.api call this."""

from __future__ import annotations

from sqlalchemy import select

from desktop_app.evaluation.rules import RULES, TEXT_METRICS, check_text_metric
from desktop_app.runs.error_counts import error_kinds
from desktop_app.runs.protocols import get_protocol
from desktop_app.runs.state import error_summary
from desktop_app.store import models as m
from desktop_app.store.project import Project

DEFAULT_RULES = tuple(RULES)  # every rule set, side by side


def list_runs(project: Project, run_ids: list[int] | None = None) -> list[m.Run]:
    """The project's runs in id order (all, or these; an unknown id is an error that names the known ones)."""
    with project.reading() as s:
        runs = list(s.execute(select(m.Run).order_by(m.Run.id)).scalars())
    if run_ids is None:
        return runs
    known = {r.id for r in runs}
    missing = [i for i in run_ids if i not in known]
    if missing:
        raise ValueError(f"no run {', '.join(map(str, missing))} in this project (runs: "
                         f"{', '.join(map(str, sorted(known))) or 'none'})")
    wanted = set(run_ids)
    return [r for r in runs if r.id in wanted]


def run_info(run: m.Run, errors: dict[str, int]) -> dict:
    return {"id": run.id, "name": run.name, "protocol": run.protocol, "agent": run.agent, "kind": run.kind,
            "model": run.model, "pattern": run.pattern, "convention": run.convention, "status": run.status,
            "failure": run.failure, "failed_requests": sum(errors.values()), "error_summary": error_summary(errors),
            "prompt_tokens": run.prompt_tokens, "completion_tokens": run.completion_tokens, "cost": run.cost,
            "cached": run.cached, "executions": run.executions}


def evaluate(project: Project, run_ids: list[int] | None = None,
             rules: tuple[str, ...] = DEFAULT_RULES, text_metric: str = "auto") -> dict:
    """{"rules": [...], "runs": {run_id: {...run_info, "metrics": the protocol's}}}, runs in id order.
    text_metric: auto, f1 or result-id, how the envdistraction rules score text answers; said in the result
    ("text_metric") when it is not auto."""
    for name in rules:
        if name not in RULES:
            raise ValueError(f"unknown rule set {name!r} (one of {', '.join(RULES)})")
    check_text_metric(rules, text_metric)
    runs = list_runs(project, run_ids)
    kinds = error_kinds(project, [r.id for r in runs])
    by_protocol: dict[str, list[m.Run]] = {}
    for run in runs:
        by_protocol.setdefault(run.protocol, []).append(run)
    metrics: dict[int, dict] = {}
    for name, mine in by_protocol.items():
        metrics.update(get_protocol(name).evaluate(project, mine, rules, text_metric))
    # the text metric is said only when chosen: the default's output stays what it was (tests/data/expected)
    return {"rules": list(rules), **({"text_metric": text_metric} if text_metric != "auto" else {}),
            "runs": {r.id: {**run_info(r, kinds[r.id]), "metrics": metrics.get(r.id, {})} for r in runs}}


def summary_lines(result: dict) -> list[str]:
    """`screenlab eval`'s text: one block per run."""
    rules = tuple(result["rules"])
    text_metric = result.get("text_metric", "auto")
    lines = [] if text_metric == "auto" else [f"text answers under the envdistraction rules scored by {text_metric} "
                                               f"(the authors' {TEXT_METRICS[text_metric]}), not as their code chooses"]
    for run_id, info in result["runs"].items():
        head = f"run {run_id}  {info['name']}  [{info['protocol']}, {info['status']}]"
        if info["failed_requests"]:
            head += f"  failed requests: {info['error_summary']}"
        lines.append(head)
        if info["failure"]:
            lines.append(f"    failure: {info['failure']}")
        lines += ["    " + line for line in get_protocol(info["protocol"]).summary(info["metrics"], rules)]
    return lines
