"""ScreenLab's own rules (the default): one verdict per prediction, gold, distracted, other or invalid.

Points: inside a box, bounds inclusive; where boxes overlap, the smallest box containing the point
decides (the authors' code counted such a point twice); overlap="first" uses annotation order (box
id) instead. Texts: token F1 >= threshold against every annotated action, with or without a box;
the best match decides. A parse failure is invalid and flagged wrong_format. Decisions 0010, 0015.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop_app.agents.actions import ParsedAction
from desktop_app.evaluation.rules.base import Flags, ScoringInput, Target
from desktop_app.textmatch import CHAT_THRESHOLD, DEFAULT_THRESHOLD, best_f1

POSITIONAL = {"click", "double_click", "right_click", "long_press", "hover", "type", "select", "drag"}

__all__ = ["POSITIONAL", "ScoringOptions", "ScreenLabRules", "Target", "Verdict", "judge", "match_point",
           "match_text", "threshold_for"]


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


def match_point(x: float, y: float, targets, overlap: str = "smallest") -> Target | None:
    """`targets` in annotation order (callers load boxes ORDER BY id): "first" relies on it."""
    inside = [t for t in targets if t.box and t.box[0] <= x <= t.box[2] and t.box[1] <= y <= t.box[3]]
    if not inside:
        return None
    return min(inside, key=lambda t: t.area) if overlap == "smallest" else inside[0]


def match_text(element: str, targets, threshold: float) -> tuple[Target | None, float]:
    best, best_score = None, 0.0
    for target in targets:
        score = best_f1(element, target.text, target.role)
        if score > best_score:
            best, best_score = target, score
    return (best, best_score) if best is not None and best_score >= threshold else (None, best_score)


def judge(action: ParsedAction, targets, scenario: str = "", options: ScoringOptions = ScoringOptions()) -> Verdict:
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


def flags_of(verdict: str, wrong_format: bool = False, **extra) -> Flags:
    """The flags of a single verdict (also used for verdicts read back from the database)."""
    return Flags(gold=verdict == "gold", distracted=verdict == "distracted",
                 available=verdict in ("gold", "distracted", "other"), wrong_format=wrong_format,
                 verdict=verdict, **extra)


class ScreenLabRules:
    name = "screenlab"
    title = "ScreenLab (one verdict per answer)"
    description = ("each answer gets exactly one verdict; the smallest box containing a point decides; "
                   "text answers match by token F1 (filler words never lower it); wrong formats counted")

    def __init__(self, options: ScoringOptions = ScoringOptions()):
        self.options = options

    def score(self, item: ScoringInput) -> Flags:
        v = judge(item.parsed, item.targets, item.scenario, self.options)
        return flags_of(v.verdict, v.wrong_format, target_id=v.target_id, how=v.how, score=v.score)
