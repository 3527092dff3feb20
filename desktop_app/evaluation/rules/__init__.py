"""The registry of rule sets: how an answer is judged, chosen per evaluation (decision 0015).

    screenlab       (default) one verdict per answer, ScreenLab's documented improvements
    envdistraction  the EnvDistraction authors' scorer, reproduced exactly (their numbers)

text_metric (auto, f1, result-id) chooses the envdistraction rules' metric for text answers; every door
passes it to get_rules (`--text-metric`, the API's text_metric=, the dashboard's Text metric selector).
"""

from __future__ import annotations

from desktop_app.evaluation.rules.base import Flags, RuleSet, ScoringInput, Target
from desktop_app.evaluation.rules.envdistraction import TEXT_METRIC_HELP, TEXT_METRICS, EnvDistractionRules
from desktop_app.evaluation.rules.screenlab import ScreenLabRules

RULES: dict[str, RuleSet] = {r.name: r for r in (ScreenLabRules(), EnvDistractionRules())}
DEFAULT = "screenlab"


def get_rules(name: str, text_metric: str = "auto") -> RuleSet:
    """The rule set of this name; for envdistraction, with this text metric (other rule sets have none)."""
    try:
        rule_set = RULES[name]
    except KeyError:
        raise ValueError(f"unknown rule set {name!r} (one of {', '.join(RULES)})") from None
    if text_metric not in TEXT_METRICS:
        raise ValueError(f"unknown text metric {text_metric!r}; expected {TEXT_METRIC_HELP}")
    if text_metric != "auto" and isinstance(rule_set, EnvDistractionRules):
        return EnvDistractionRules(text_metric=text_metric)
    return rule_set


def check_text_metric(rules: tuple[str, ...], text_metric: str) -> None:
    """A text metric other than auto needs the envdistraction rules among those asked for, where it applies."""
    if text_metric not in TEXT_METRICS:
        raise ValueError(f"unknown text metric {text_metric!r}; expected {TEXT_METRIC_HELP}")
    if text_metric != "auto" and not any(isinstance(RULES.get(name), EnvDistractionRules) for name in rules):
        raise ValueError(f"the text metric {text_metric!r} chooses how the envdistraction rules score text answers; "
                         f"these rules ({', '.join(rules)}) have none: add envdistraction to the rules")


__all__ = ["DEFAULT", "RULES", "TEXT_METRICS", "Flags", "RuleSet", "ScoringInput", "Target", "check_text_metric",
           "get_rules"]
