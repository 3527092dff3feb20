"""The registry of rule sets: how an answer is judged, chosen per evaluation (decision 0015).

    screenlab       (default) one verdict per answer, ScreenLab's documented improvements
    envdistraction  the EnvDistraction authors' scorer, reproduced exactly (their numbers)
"""

from __future__ import annotations

from desktop_app.evaluation.rules.base import Flags, RuleSet, ScoringInput, Target
from desktop_app.evaluation.rules.envdistraction import EnvDistractionRules
from desktop_app.evaluation.rules.screenlab import ScreenLabRules

RULES: dict[str, RuleSet] = {r.name: r for r in (ScreenLabRules(), EnvDistractionRules())}
DEFAULT = "screenlab"


def get_rules(name: str) -> RuleSet:
    try:
        return RULES[name]
    except KeyError:
        raise ValueError(f"unknown rule set {name!r} (one of {', '.join(RULES)})") from None


__all__ = ["DEFAULT", "RULES", "Flags", "RuleSet", "ScoringInput", "Target", "get_rules"]
