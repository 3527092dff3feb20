"""Reading a judge's answer: data, never code.

The paper's prompts ask for two lines, `Thoughts: ...` and `Status: "success"|"failure"` (per step:
`Response: "towards-the-goal"|...`); the authors read the text after each prefix up to the line's end
and strip the quotes. Older prompts asked for JSON with a 3-way status (task-possible-bot-success,
task-possible-bot-fail, task-impossible). Anything else is a parse failure, flagged, never guessed:
a verdict the model did not give must not count as one it gave.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from desktop_app.judging.vocabulary import STEP_LABELS

_JSON_STATUS = {"task-possible-bot-success": "success", "task-possible-bot-fail": "failure",
                "task-impossible": "impossible"}
_PLAIN_STATUS = {"success": "success", "failure": "failure", "fail": "failure", "failed": "failure",
                 "successful": "success", "impossible": "impossible", "task-impossible": "impossible"}
# short codes for the database's verdict column (16 characters at most)
STEP_CODES = {"goal-reached": "reached", "towards-the-goal": "towards", "not-sure": "not_sure",
              "away-from-the-goal": "away"}
CODE_STEPS = {v: k for k, v in STEP_CODES.items()}


@dataclass(frozen=True)
class Verdict:
    status: str  # success | failure | impossible | a step label | "" when nothing could be read
    thoughts: str
    how: str  # "lines", "json" or "" (parse failure)

    @property
    def failed(self) -> bool:
        return not self.status


def _after(text: str, prefix: str) -> str | None:
    """The text after the last line that starts with `prefix` (case-insensitive, ** allowed), to the line's end."""
    pattern = re.compile(rf"^[\s*#>-]*{re.escape(prefix)}\**\s*:?\**\s*(.*)$", re.IGNORECASE | re.MULTILINE)
    found = pattern.findall(text)
    return found[-1].strip() if found else None


def _clean(value: str) -> str:
    return value.strip().strip('"\'`*.').strip().lower()


def _thoughts(text: str) -> str:
    """Everything from `Thoughts:` up to the status line (thoughts often run over several lines)."""
    match = re.search(r"thoughts\**\s*:\**\s*(.*?)(?=^[\s*#>-]*(status|response)\**\s*:|\Z)", text,
                      re.IGNORECASE | re.DOTALL | re.MULTILINE)
    return match.group(1).strip().rstrip('"').strip() if match else ""


def _json_verdict(text: str) -> Verdict | None:
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        data = json.loads(text[start:end + 1])
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    status = _JSON_STATUS.get(_clean(str(data.get("status", ""))))
    if status is None:
        status = _PLAIN_STATUS.get(_clean(str(data.get("status", ""))))
    if status is None:
        return None
    return Verdict(status, str(data.get("thoughts", "")), "json")


def parse_verdict(text: str) -> Verdict:
    """A trajectory verdict: success, failure or impossible; status "" when the answer has none."""
    value = _after(text, "Status")
    if value is not None:
        status = _PLAIN_STATUS.get(_clean(value)) or _JSON_STATUS.get(_clean(value))
        if status:
            return Verdict(status, _thoughts(text), "lines")
    found = _json_verdict(text)
    if found:
        return found
    return Verdict("", _thoughts(text) or text.strip(), "")


def parse_step_label(text: str) -> Verdict:
    """A per-step label (goal-reached, towards-the-goal, not-sure, away-from-the-goal)."""
    value = _after(text, "Response")
    if value is not None:
        label = _clean(value)
        if label in STEP_LABELS:
            return Verdict(label, _thoughts(text), "lines")
    return Verdict("", _thoughts(text) or text.strip(), "")
