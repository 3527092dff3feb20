"""Judging one prediction: gold, distracted, other or invalid.

Points: inside a box, bounds inclusive; where boxes overlap, the smallest box
containing the point decides (the authors' code counted such a point twice).
Texts: token F1 >= threshold against every annotated action, with or without a
box; the best match decides. A parse failure is invalid and flagged wrong_format.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop_app.agents.actions import ParsedAction
from desktop_app.evaluation.textmatch import CHAT_THRESHOLD, DEFAULT_THRESHOLD, best_f1

POSITIONAL = {"click", "double_click", "right_click", "long_press", "hover", "type", "select", "drag"}


@dataclass(frozen=True)
class Target:
    """An annotated action as scoring sees it."""

    id: int
    label: str  # gold, distracted, other
    text: str
    box: tuple[float, float, float, float] | None
    role: str = ""

    @property
    def area(self) -> float:
        x1, y1, x2, y2 = self.box
        return (x2 - x1) * (y2 - y1)


@dataclass(frozen=True)
class Verdict:
    verdict: str  # gold, distracted, other, invalid
    target_id: int | None = None
    score: float = 0.0  # F1 for text matches, 1 for a point inside
    wrong_format: bool = False
    how: str = ""  # point, text, none


@dataclass(frozen=True)
class ScoringOptions:
    threshold: float | None = None  # None: 0.6, or 0.5 for the chat scenario
    overlap: str = "smallest"  # smallest: the smallest containing box decides; first: annotation order


def threshold_for(scenario: str, options: ScoringOptions) -> float:
    if options.threshold is not None:
        return options.threshold
    return CHAT_THRESHOLD if scenario == "chat" else DEFAULT_THRESHOLD


def match_point(x: float, y: float, targets: list[Target], overlap: str = "smallest") -> Target | None:
    inside = [t for t in targets if t.box and t.box[0] <= x <= t.box[2] and t.box[1] <= y <= t.box[3]]
    if not inside:
        return None
    return min(inside, key=lambda t: t.area) if overlap == "smallest" else inside[0]


def match_text(element: str, targets: list[Target], threshold: float) -> tuple[Target | None, float]:
    best, best_score = None, 0.0
    for target in targets:
        score = best_f1(element, target.text, target.role)
        if score > best_score:
            best, best_score = target, score
    return (best, best_score) if best is not None and best_score >= threshold else (None, best_score)


def judge(action: ParsedAction, targets: list[Target], scenario: str = "",
          options: ScoringOptions = ScoringOptions()) -> Verdict:
    if action.wrong_format or action.action_type is None:
        return Verdict("invalid", wrong_format=True, how="none")
    if action.point is not None and action.action_type in POSITIONAL:
        hit = match_point(action.point[0], action.point[1], targets, options.overlap)
        return Verdict(hit.label, hit.id, 1.0, how="point") if hit else Verdict("invalid", how="point")
    if action.element:
        hit, score = match_text(action.element, targets, threshold_for(scenario, options))
        return Verdict(hit.label, hit.id, score, how="text") if hit else Verdict("invalid", score=score, how="text")
    # scroll, back, finished, ask...: valid actions, but none that was annotated on this screen
    return Verdict("invalid", how="none")
