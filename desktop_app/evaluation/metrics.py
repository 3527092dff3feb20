"""Acc_gold, Acc_dist, Acc_inv (EnvDistraction Eq. 6) with 95 % Wilson intervals."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

Z95 = 1.959963984540054


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    if n == 0:
        return (0.0, 0.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class Metric:
    n: int = 0
    gold: int = 0
    distracted: int = 0
    other: int = 0
    invalid: int = 0
    wrong_format: int = 0
    errors: int = 0  # no answer obtained: left out of the rates, reported

    def add(self, verdict: str, wrong_format: bool = False) -> None:
        if verdict == "error":
            self.errors += 1
            return
        self.n += 1
        setattr(self, verdict, getattr(self, verdict) + 1)
        self.wrong_format += bool(wrong_format)

    def rate(self, name: str) -> float:
        return getattr(self, name) / self.n if self.n else 0.0

    def as_dict(self) -> dict:
        out = {"n": self.n, "errors": self.errors, "wrong_format": self.wrong_format}
        for key, field in (("acc_gold", "gold"), ("acc_dist", "distracted"), ("acc_other", "other"),
                           ("acc_inv", "invalid")):
            low, high = wilson(getattr(self, field), self.n)
            out[key] = round(self.rate(field), 6)
            out[key + "_ci95"] = [round(low, 6), round(high, 6)]
        out["wrong_format_rate"] = round(self.wrong_format / self.n, 6) if self.n else 0.0
        return out


def summarize(rows: Iterable[dict], by: tuple[str, ...] = ()) -> dict:
    """rows: {"verdict", "wrong_format", and the keys named in `by`} -> overall and grouped metrics."""
    overall = Metric()
    groups: dict[str, dict[str, Metric]] = {key: defaultdict(Metric) for key in by}
    for row in rows:
        overall.add(row["verdict"], row.get("wrong_format", False))
        for key in by:
            groups[key][str(row.get(key, ""))].add(row["verdict"], row.get("wrong_format", False))
    out = {"overall": overall.as_dict()}
    for key in by:
        out["by_" + key] = {name: m.as_dict() for name, m in sorted(groups[key].items())}
    return out
