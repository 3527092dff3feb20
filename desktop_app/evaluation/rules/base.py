"""What every rule set sees and says: one prediction with its annotated actions in, flags out.

A rule set (docs/decisions/0015-two-rule-sets.md) turns one stored prediction into flags:
    gold        the answer matches a gold action
    distracted  it matches a distracted action
    available   it matches some annotated action (gold, distracted or other); invalid = not available
The `screenlab` rules set exactly one of gold / distracted / other / invalid. The `envdistraction`
rules reproduce the authors' scorer, where gold and distracted are independent (a text may match
both), so rates need not sum to one. Metrics count flags, so both aggregate the same way.

Inputs are plain data (no ORM objects, no database), so a rule set is a pure function and a million
predictions can be scored without a session.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from desktop_app.agents.actions import ParsedAction


@dataclass(frozen=True)
class Target:
    """An annotated action as scoring sees it. Targets are given in annotation order (box id)."""

    id: int
    label: str  # gold, distracted, other
    text: str
    box: tuple[float, float, float, float] | None
    role: str = ""
    out_of_screen: bool = False  # the source marked it "<oos>" (EnvDistraction): a text with no box

    @property
    def area(self) -> float:
        x1, y1, x2, y2 = self.box
        return (x2 - x1) * (y2 - y1)

    @classmethod
    def quick(cls, id: int, label: str, text: str, box, role: str, out_of_screen: bool) -> Target:
        """Target(...) without the frozen dataclass's object.__setattr__ per field, the main cost of making
        the hundreds of thousands `screenlab eval` reads (evaluation/columns.py); the same object."""
        target = object.__new__(cls)
        object.__setattr__(target, "__dict__", {"id": id, "label": label, "text": text, "box": box, "role": role,
                                                "out_of_screen": out_of_screen})
        return target


def target_of(box) -> Target:
    """An ActionBox (or anything with its fields) as scoring sees it."""
    meta = box.meta or {}
    return Target(box.id, box.label, box.element_text,
                  (box.x1, box.y1, box.x2, box.y2) if box.x1 is not None else None,
                  meta.get("role", ""), bool(meta.get("out_of_screen")))


@dataclass(frozen=True)
class ScoringInput:
    """One answered sample: the model's raw text, ScreenLab's parse of it, and the screen's actions."""

    raw_text: str
    parsed: ParsedAction
    targets: tuple[Target, ...]
    scenario: str = ""  # popup, search, recommendation, chat, ...
    source_target: str = ""  # the EnvDistraction `target` the sample was imported with ("" for our own)
    convention: str = ""  # the agent's output convention (json-text, seeclick, cogagent, ...)
    width: int = 0  # the screenshot, in pixels
    height: int = 0


@dataclass(frozen=True)
class Flags:
    gold: bool = False
    distracted: bool = False
    available: bool = False
    wrong_format: bool = False
    verdict: str = "invalid"  # one word to show: gold, distracted, other or invalid (gold wins over distracted)
    target_id: int | None = None  # the action that decided, when one did
    how: str = ""  # point, text, result-id, none
    score: float = 0.0  # best F1 for text answers; 1.0 for a point inside a box
    excluded: str = ""  # non-empty: this rule set does not count the sample, and says why
    note: str = ""  # where the result differs from what a reader might expect (e.g. the authors' code would crash)

    @classmethod
    def quick(cls, gold: bool, distracted: bool, available: bool, wrong_format: bool, verdict: str,
              target_id: int | None, how: str, score: float, excluded: str, note: str) -> Flags:
        """Flags(...) without the frozen dataclass's object.__setattr__ per field (see Target.quick); the same
        object."""
        flags = object.__new__(cls)
        object.__setattr__(flags, "__dict__", {
            "gold": gold, "distracted": distracted, "available": available, "wrong_format": wrong_format,
            "verdict": verdict, "target_id": target_id, "how": how, "score": score, "excluded": excluded,
            "note": note})
        return flags

    @property
    def other(self) -> bool:
        return self.available and not self.gold and not self.distracted

    @property
    def invalid(self) -> bool:
        return not self.available


class RuleSet(Protocol):
    name: str  # the registry key: screenlab, envdistraction
    title: str  # one line for menus and table headers
    description: str  # what it does, for --help and tooltips

    def score(self, item: ScoringInput) -> Flags: ...
