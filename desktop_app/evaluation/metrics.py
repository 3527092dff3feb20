"""Acc_gold, Acc_dist, Acc_other, Acc_inv (EnvDistraction Eq. 6) with 95 % Wilson intervals.

A row is one prediction: {"verdict", "wrong_format"} and, when a rule set scored it with independent
flags, {"gold", "distracted", "available", "excluded"} (evaluation/rules/base.py). Without flags they
follow from the verdict. Requests that failed (verdict "error") and samples a rule set excludes are
left out of n and counted on their own; a rate over n = 0 is None, shown as "-", never as 0 %.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

Z95 = 1.959963984540054
RATES = (("acc_gold", "gold"), ("acc_dist", "distracted"), ("acc_other", "other"), ("acc_inv", "invalid"))


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of successes / n at normal quantile z (95 % by default), clipped to [0, 1].

    None when n == 0 (ADR 0031): no data is None, shown "-" and written empty, never the interval (0, 0),
    which reads as certainty that the rate is 0 %.
    """
    if not 0 <= successes <= n:
        raise ValueError(f"a Wilson interval needs 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return None
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def row_flags(row: dict) -> tuple[bool, bool, bool]:
    """(gold, distracted, available) of a row: its own flags, else those of its single verdict."""
    if "available" in row:
        return bool(row["gold"]), bool(row["distracted"]), bool(row["available"])
    verdict = row.get("verdict")
    return verdict == "gold", verdict == "distracted", verdict in ("gold", "distracted", "other")


@dataclass
class Metric:
    n: int = 0
    gold: int = 0
    distracted: int = 0
    other: int = 0  # available but neither gold nor distracted
    invalid: int = 0  # matched no annotated action
    both: int = 0  # gold and distracted at once (only rule sets with independent flags)
    wrong_format: int = 0
    errors: int = 0  # no answer obtained: left out of the rates, reported
    excluded: int = 0  # the rule set does not count the sample (e.g. no distracted label)

    def add(self, verdict: str, wrong_format: bool = False) -> None:
        self.add_row({"verdict": verdict, "wrong_format": wrong_format})

    def add_row(self, row: dict, times: int = 1) -> None:
        """Count the row, as `times` predictions that have it (metrics of a million count distinct rows)."""
        if row.get("verdict") == "error":
            self.errors += times
            return
        if row.get("excluded"):
            self.excluded += times
            return
        gold, distracted, available = row_flags(row)
        self.n += times
        self.gold += gold * times
        self.distracted += distracted * times
        self.other += (available and not gold and not distracted) * times
        self.invalid += (not available) * times
        self.both += (gold and distracted) * times
        self.wrong_format += bool(row.get("wrong_format")) * times

    def rate(self, name: str) -> float | None:
        return getattr(self, name) / self.n if self.n else None

    def as_dict(self) -> dict:
        out = {"n": self.n, "errors": self.errors, "wrong_format": self.wrong_format, "excluded": self.excluded,
               "both": self.both}
        for key, field in RATES:
            rate, ci = self.rate(field), wilson(getattr(self, field), self.n)
            out[key] = None if rate is None else round(rate, 6)
            out[key + "_ci95"] = None if ci is None else [round(v, 6) for v in ci]
        out["wrong_format_rate"] = round(self.wrong_format / self.n, 6) if self.n else None
        return out


def summarize(rows: Iterable[dict], by: tuple[str, ...] = ()) -> dict:
    """rows: prediction rows (see the module docstring) -> overall and grouped metrics."""
    return summarize_counted(((row, 1) for row in rows), by)


def summarize_counted(counted: Iterable[tuple[dict, int]], by: tuple[str, ...] = ()) -> dict:
    """summarize() of (row, how many predictions have it) pairs (rows.counted_rows)."""
    overall = Metric()
    groups: dict[str, dict[str, Metric]] = {key: defaultdict(Metric) for key in by}
    for row, times in counted:
        overall.add_row(row, times)
        for key in by:
            groups[key][str(row.get(key, "") or "")].add_row(row, times)
    out = {"overall": overall.as_dict()}
    for key in by:
        out["by_" + key] = {name: m.as_dict() for name, m in sorted(groups[key].items())}
    return out
