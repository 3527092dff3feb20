"""Failure modes from the Sphinx paper, named on each failed item from what was stored about it.

The paper's categories (its case studies and discussion): goal misunderstanding, missing app knowledge;
planning (stopped too early, failed to stop, an extra action after the task was done); grounding (wrong
element, wrong action type, a point off the target); instruction following (format error); end to end
(a wrong path: the agent left the recorded path). A tag is derived, not judged: it says where an item went
wrong, and the item's answer shows why.
"""

from __future__ import annotations

from collections import Counter

FORMAT_ERROR = "format error"
MODES = ("goal misunderstanding", "missing app knowledge", "stopped too early", "failed to stop",
         "wrong element", "wrong action type", "point off the target", "wrong path", FORMAT_ERROR)


def grounding_mode(verdict: str, parsed: dict) -> str | None:
    if verdict == "gold":
        return None
    if verdict == "invalid":
        return FORMAT_ERROR
    why = parsed.get("why", "")
    if why.startswith("action "):
        return "wrong action type"
    if "node" in parsed:
        return "wrong element"
    return "point off the target"


def completion_mode(truth: str | None, said: str | None) -> str | None:
    if said is None:
        return FORMAT_ERROR
    if said == truth:
        return None
    return "stopped too early" if said == "stop" else "failed to stop"


def replay_mode(task: dict) -> str | None:
    """A failed replayed task (metrics' per-task detail): how its run ended."""
    if task.get("success"):
        return None
    ended = task.get("ended", "")
    if ended == "format error":
        return FORMAT_ERROR
    if ended == "stopped" and task.get("acted", 0) < task.get("steps", 0):
        return "stopped too early"
    return "wrong path"  # it left the recording, or its path missed what the evaluators ask


def probe_mode(level: str, right: bool | None) -> str | None:
    if right is None:
        return FORMAT_ERROR
    if right:
        return None
    return "goal misunderstanding" if level == "goal" else "missing app knowledge"


def tally(modes) -> dict[str, int]:
    """Counts of the modes named (None = not failed), most frequent first."""
    return dict(Counter(m for m in modes if m).most_common())
