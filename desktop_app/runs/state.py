"""Run states (store.models.RUN_STATES, checked by the database; a test keeps the two equal) and the
live progress of one execution."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from enum import StrEnum


class RunState(StrEnum):
    PENDING = "pending"  # created, never executed
    RUNNING = "running"
    DONE = "done"
    DONE_WITH_ERRORS = "done_with_errors"  # finished; some requests failed after retries (resume asks again)
    FAILED = "failed"  # stopped by an error; Run.failure says which
    CANCELLED = "cancelled"  # stopped by the user; resume continues



# States a run can be resumed from (done runs have nothing left to ask)
RESUMABLE = (RunState.PENDING, RunState.DONE_WITH_ERRORS, RunState.FAILED, RunState.CANCELLED)


@dataclass
class RunProgress:
    """One execution of a run, as it goes (the progress callback) and when it ends."""

    run_id: int
    protocol: str = ""
    total: int = 0  # samples (steps) in the run
    done: int = 0  # answered in this execution
    skipped: int = 0  # already finished before
    excluded: int = 0  # left out of the run (no goal, no labelled action)
    errors: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    elapsed_s: float = 0.0
    cancelled: bool = False
    failure: str = ""  # set when the execution stopped on an error
    verdicts: dict[str, int] = field(default_factory=dict)
    error_kinds: Counter = field(default_factory=Counter)  # "HTTP 500" -> 3, "APIConnectionError" -> 12

    def count(self, verdict: str) -> None:
        self.verdicts[verdict] = self.verdicts.get(verdict, 0) + 1

    def as_dict(self) -> dict:
        out = asdict(self)
        out["error_kinds"] = dict(self.error_kinds)
        return out


def error_kind(message: str) -> str:
    """The kind of a request error, for run-level summaries: "HTTP 500", "APIConnectionError", ..."""
    head = message.split(":", 1)[0].strip()
    return head or "error"


def error_summary(kinds: dict[str, int] | Counter) -> str:
    """'APIConnectionError x 12, HTTP 500 x 3' (most frequent first)."""
    return ", ".join(f"{kind} x {n}" for kind, n in Counter(kinds).most_common())
