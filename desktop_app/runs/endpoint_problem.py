"""A run's trouble with its endpoint in one line: which endpoint, what failed, what to check. The runs list shows
it under the run's row (ui/eval/runs_panel.py), so a run whose server answers 500 or cannot be reached says so
where the user looks, not only in a tooltip or a log."""

from __future__ import annotations

from collections import Counter

from sqlalchemy import select

from desktop_app.runs.state import error_summary
from desktop_app.store import models as m
from desktop_app.store.project import Project

_CONNECTION = ("APIConnectionError", "APITimeoutError", "TimeoutError", "ConnectError", "ReadTimeout")


def _advice(kind: str, model: str) -> str:
    code = kind.removeprefix("HTTP ").strip()
    if code in ("401", "403"):
        return "the key was refused; check the API key the agent profile reads"
    if code == "404":
        return f"not found; check the base URL (usually ending in /v1) and the model '{model}'"
    if code == "429":
        return "rate-limited or out of quota; lower the concurrency or the requests per minute"
    if code.isdigit() and code.startswith("5"):
        return f"the server failed; check that it runs, its log and the model '{model}'"
    if code.isdigit() and code.startswith("4"):
        return f"the request was refused; check the model '{model}' and the profile's options"
    if kind in _CONNECTION:
        return "not reached; check that the server runs and the base URL"
    return "check the server and the agent profile"


def problem_line(kinds: Counter | dict[str, int], endpoint: str, model: str, failure: str = "") -> str:
    """'' when nothing failed; else one line: the run's failure (the run stopped), or its failed requests by
    kind, the endpoint they went to and what to check."""
    if failure.strip():
        return f"Failed: {failure.strip().splitlines()[0]}"
    kinds = Counter(kinds)
    if not sum(kinds.values()):
        return ""
    where = f" from {endpoint}" if endpoint else ""
    return (f"{error_summary(kinds)}{where}: {_advice(kinds.most_common(1)[0][0], model)}. "
            "Resume asks them again.")


def run_endpoints(project: Project, run_ids: list[int]) -> dict[int, str]:
    """run id -> the base URL of the profile it was created with ('' for an offline baseline)."""
    with project.reading() as s:
        rows = s.execute(select(m.Run.id, m.AgentProfile.base_url).join(m.AgentProfile,
                                                                        m.AgentProfile.id == m.Run.profile_id)
                         .where(m.Run.id.in_(run_ids))).all()
    return {run_id: base_url or "" for run_id, base_url in rows}
