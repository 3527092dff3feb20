"""Dual-Stream Trajectory Evaluation (Navi-plus, App. F) with the open cases decided
(docs/decisions/0012-ambiguous-tasks.md).

Pure functions: given the gold steps, the first stream (one prediction per step, made in
order with the ambiguous task) and the second-stream predictions (a step predicted again
after an ASK was answered), they decide which steps are correct and how the ASKs count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from desktop_app.agents.actions import ParsedAction
from desktop_app.textmatch import normalize, token_f1

# predicted action types that mean the same as the dataset's
_SAME = {"press_back": "navigate_back", "press_home": "navigate_home", "long_press": "long_press",
         "double_click": "click", "select": "click"}


@dataclass(frozen=True)
class GoldStep:
    index: int
    action_type: str
    box: tuple[float, float, float, float] | None = None
    is_point: bool = False  # a tap point without an element box
    text: str = ""  # typed text
    direction: str = ""
    app: str = ""
    width: int = 0
    height: int = 0


@dataclass(frozen=True)
class StepOptions:
    distance: float = 0.14  # of the screen diagonal, for gold points without a box (AITW's rule)
    fuzzy_text: bool = True  # typed text: token F1 >= text_f1, else exact after normalisation
    text_f1: float = 0.8


@dataclass
class EpisodeScore:
    steps: int
    correct: list[bool]
    ask_steps: list[int]  # annotated
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    question_f1: list[float] = field(default_factory=list)
    question_pairs: list[tuple[str, str]] = field(default_factory=list)  # (reference, the agent's) per matched ASK
    events: list[str] = field(default_factory=list)  # what happened, for the per-episode report

    @property
    def ssr(self) -> float:
        return sum(self.correct) / self.steps if self.steps else 0.0

    @property
    def success(self) -> bool:
        return bool(self.steps) and all(self.correct)

    def ssr_split(self) -> tuple[float | None, float | None]:
        """Step success before the first annotated ASK step, and from it on."""
        if not self.ask_steps:
            return None, None
        j = self.ask_steps[0]
        before, after = self.correct[:j], self.correct[j:]
        return (sum(before) / len(before) if before else None, sum(after) / len(after) if after else None)


def _kind(action_type: str | None) -> str:
    return _SAME.get(action_type or "", action_type or "")


def _inside(point, box) -> bool:
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def step_correct(action: ParsedAction, gold: GoldStep, options: StepOptions = StepOptions()) -> bool:
    if action.wrong_format or action.action_type is None:
        return False
    kind, want = _kind(action.action_type), _kind(gold.action_type)
    if kind != want:
        return False
    if want in ("click", "long_press"):
        if action.point is None or gold.box is None:
            return False
        if gold.is_point:
            limit = options.distance * math.hypot(gold.width, gold.height)
            return math.dist(action.point, gold.box[:2]) <= limit
        return _inside(action.point, gold.box)
    if want == "type":
        typed = action.text or ""
        if options.fuzzy_text:
            return token_f1(typed, gold.text) >= options.text_f1 or normalize(typed) == normalize(gold.text)
        return normalize(typed) == normalize(gold.text)
    if want == "scroll":
        return (action.extra.get("direction") or "").lower() == gold.direction.lower()
    if want == "open_app":
        return token_f1(action.extra.get("app") or action.text or "", gold.app) >= options.text_f1
    return True  # navigate_back, navigate_home, wait: the type is the action


def score_episode(golds: list[GoldStep], first: list[ParsedAction], second: dict[int, ParsedAction],
                  ask_steps: list[int], questions: dict[int, str] | None = None,
                  options: StepOptions = StepOptions()) -> EpisodeScore:
    """first[t]: the first stream's prediction at step t; second[t]: the prediction made again
    after the ASK at t was answered; ask_steps: annotated ASK positions (sorted);
    questions: reference question per annotated ASK step."""
    questions = questions or {}
    pending = list(ask_steps)  # annotated ASKs not matched yet, in order
    score = EpisodeScore(steps=len(golds), correct=[False] * len(golds), ask_steps=list(ask_steps))
    asked_steps = set()
    for t, gold in enumerate(golds):
        action = first[t] if t < len(first) else ParsedAction(raw="", wrong_format=True)
        while pending and pending[0] < t:  # an annotated ASK position passed without a question
            score.fn += 1
            score.events.append(f"missed ASK at step {pending.pop(0)}")
        if action.action_type == "ask":
            asked_steps.add(t)
            if pending and t <= pending[0]:
                j = pending.pop(0)
                score.tp += 1
                score.question_f1.append(token_f1(action.text or "", questions.get(j, "")))
                score.question_pairs.append((questions.get(j, ""), action.text or ""))
                score.events.append(f"ASK at step {t} for step {j}: {'on time' if t == j else 'early'}")
            else:
                score.fp += 1
                score.events.append(f"ASK at step {t}: {'late' if ask_steps and t > ask_steps[0] else 'extra'}")
            action = second.get(t, ParsedAction(raw="", wrong_format=True))
        score.correct[t] = step_correct(action, gold, options)
    score.fn += len(pending)
    score.events += [f"missed ASK at step {j}" for j in pending]
    positives = set(ask_steps)
    score.tn = sum(1 for t in range(len(golds)) if t not in asked_steps and t not in positives)
    return score


def summarize(scores: list[EpisodeScore]) -> dict:
    """Episode-averaged SSR / SR / SSR before and after the ASK step; pooled ASK timing."""
    n = len(scores)

    def mean(values):
        values = [v for v in values if v is not None]
        return round(sum(values) / len(values), 6) if values else None

    tp, fp, fn, tn = (sum(getattr(s, k) for s in scores) for k in ("tp", "fp", "fn", "tn"))
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / (tp + fn) if tp + fn else None
    f1 = (2 * precision * recall / (precision + recall)) if precision and recall else (0.0 if tp + fp + fn else None)
    splits = [s.ssr_split() for s in scores]
    return {
        "episodes": n, "steps": sum(s.steps for s in scores),
        "ssr": mean([s.ssr for s in scores]), "sr": mean([float(s.success) for s in scores]),
        "ssr_before_ask": mean([b for b, _ in splits]), "ssr_after_ask": mean([a for _, a in splits]),
        "ask": {"tp": tp, "fp": fp, "fn": fn, "tn": tn,
                "precision": round(precision, 6) if precision is not None else None,
                "recall": round(recall, 6) if recall is not None else None,
                "fpr": round(fp / (fp + tn), 6) if fp + tn else None,
                "f1": round(f1, 6) if f1 is not None else None},
        "question_f1": mean([q for s in scores for q in s.question_f1]),
    }
