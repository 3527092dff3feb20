"""The words of trajectory judging: outcomes, step labels and review tags (shared by labels, parsing, views)."""

from __future__ import annotations

from desktop_app.store.models import OUTCOMES

DECIDING = ("success", "failure", "impossible")  # outcomes that say whether the agent succeeded
# the per-step labels of the paper's step evaluator, with what each means and its default reward
STEP_LABELS = {
    "goal-reached": ("completes the task", 1.0),
    "towards-the-goal": ("makes progress", 0.5),
    "not-sure": ("unclear", 0.0),
    "away-from-the-goal": ("does not contribute", -1.0),
}
# why a judge got a trajectory wrong (the paper's error analysis), plus its "right verdict, wrong reasoning"
REVIEW_TAGS = ("misread screenshot", "caption lost information", "reasoning error", "ambiguous task",
               "right verdict, wrong reasoning")

__all__ = ["DECIDING", "OUTCOMES", "REVIEW_TAGS", "STEP_LABELS"]
