"""How well a trajectory judge agrees with human labels, and how well rankings of agents agree.

Agent-Eval-Refine (Pan et al., 2024) validates a judge two ways: per trajectory (accuracy, precision,
recall, F1 and Cohen's kappa of "success" verdicts against human labels) and per policy (does the judge
rank agents the way human success rates do: Kendall's tau). This module holds only that arithmetic,
in plain Python, so it can be checked by hand and runs wherever the app runs.

Convention shared with evaluation/metrics.py: a rate whose denominator is 0 is None, never 0, so "no data"
is shown as "-" and cannot be mistaken for 0 %. Cohen's kappa is desktop_app/stats/kappa.py's, the one the
teams use too: None when both raters used one label throughout (ADR 0031), with the reason beside it.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from desktop_app.stats import kappa
from desktop_app.stats.kappa import cohen_kappa  # noqa: F401  (a public name of this module, as before)


def _ratio(numerator: int, denominator: int) -> float | None:
    """numerator / denominator, or None when there is nothing to divide by (no data is not 0 %)."""
    if denominator == 0:
        return None
    return numerator / denominator


# --------------------------------------------------------------------------- judge vs human, per trajectory


@dataclass(frozen=True)
class Confusion:
    """Counts of judge verdicts against human labels, with "success" as the positive class.

    Every rate is None when its denominator is 0. The authors' code (Agent-Eval-Refine) returns 0 for
    precision, recall and F1 in that case; we return None instead, because a judge that was never asked
    about a successful trajectory has an unknown recall, not a recall of 0, and averaging or plotting a
    fake 0 would blame the judge for data that does not exist.
    """

    tp: int = 0  # human: success, judge: success
    fp: int = 0  # human: failure, judge: success
    tn: int = 0  # human: failure, judge: failure
    fn: int = 0  # human: success, judge: failure

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.tn + self.fn

    @property
    def accuracy(self) -> float | None:
        return _ratio(self.tp + self.tn, self.n)

    @property
    def precision(self) -> float | None:
        """Of the trajectories the judge passes, the share that really succeeded (None if it passes none)."""
        return _ratio(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float | None:
        """Of the successful trajectories, the share the judge passes (None if none succeeded)."""
        return _ratio(self.tp, self.tp + self.fn)

    @property
    def f1(self) -> float | None:
        """2tp / (2tp + fp + fn): equal to the harmonic mean of precision and recall when both exist.

        Written this way it stays defined when only one of them is: a judge that passes nothing on a set
        with successes has F1 = 0 (it did fail), while a set with no positives on either side gives None.
        """
        return _ratio(2 * self.tp, 2 * self.tp + self.fp + self.fn)

    @property
    def fnr(self) -> float | None:
        """fn / (fn + tp): a successful trajectory the judge calls failed (what makes a filter waste data)."""
        return _ratio(self.fn, self.fn + self.tp)

    @property
    def fpr(self) -> float | None:
        """fp / (fp + tn): a failed trajectory the judge lets through (what poisons a refinement set)."""
        return _ratio(self.fp, self.fp + self.tn)

    def to_json(self) -> dict[str, Any]:
        return {
            "tp": self.tp, "fp": self.fp, "tn": self.tn, "fn": self.fn, "n": self.n,
            "accuracy": self.accuracy, "precision": self.precision, "recall": self.recall,
            "f1": self.f1, "fnr": self.fnr, "fpr": self.fpr,
        }


def binary_confusion(pairs: Iterable[tuple[bool, bool]]) -> Confusion:
    """Count (reference, predicted) pairs: reference is the human "success" label, predicted the judge's."""
    counts = Counter((bool(reference), bool(predicted)) for reference, predicted in pairs)
    return Confusion(tp=counts[True, True], fp=counts[False, True], tn=counts[False, False],
                     fn=counts[True, False])


def _agreement(a: Sequence[Hashable], b: Sequence[Hashable]) -> float | None:
    return _ratio(sum(x == y for x, y in zip(a, b, strict=True)), len(a))


def pairwise_kappa(ratings: Mapping[Hashable, Mapping[Hashable, Hashable]]) -> dict[str, Any]:
    """Inter-annotator agreement: Cohen's kappa for every pair of raters over the items both labelled.

    ratings maps item -> {rater: label}; a label of None counts as "not labelled" so a form left blank
    does not become a category of its own. Pairwise Cohen rather than Fleiss' kappa because annotators
    rarely label the same items: Fleiss needs a fixed number of ratings per item, pairs need only overlap.
    Raters are paired in order of first appearance, so the output is stable without sorting labels of
    mixed types. mean_kappa averages only the pairs whose kappa is defined: a pair that shares no item
    says nothing about agreement and must not pull the mean towards 0.
    """
    raters: dict[Hashable, None] = {}
    for labels in ratings.values():
        for rater, label in labels.items():
            if label is not None:
                raters.setdefault(rater)
    pairs = []
    for rater_a, rater_b in itertools.combinations(raters, 2):
        shared = [(labels[rater_a], labels[rater_b]) for labels in ratings.values()
                  if labels.get(rater_a) is not None and labels.get(rater_b) is not None]
        a = [x for x, _ in shared]
        b = [y for _, y in shared]
        found = kappa.cohen(a, b)
        pairs.append({"a": rater_a, "b": rater_b, "n": len(shared), "kappa": found.value,
                      "kappa_note": found.why_none, "agreement": _agreement(a, b)})
    defined = [pair["kappa"] for pair in pairs if pair["kappa"] is not None]
    return {"pairs": pairs, "mean_kappa": sum(defined) / len(defined) if defined else None}


# --------------------------------------------------------------------------- rankings of agents


@dataclass(frozen=True)
class PairCounts:
    """How the n(n-1)/2 pairs of items compare across two lists: the ingredients of every Kendall tau."""

    concordant: int = 0  # P: ordered the same way in both lists
    discordant: int = 0  # Q: ordered opposite ways
    tied_x: int = 0  # T_x: tied in x only
    tied_y: int = 0  # T_y: tied in y only
    tied_both: int = 0  # tied in both lists: counted in neither T_x nor T_y

    @property
    def total(self) -> int:
        return self.concordant + self.discordant + self.tied_x + self.tied_y + self.tied_both

    @property
    def tied(self) -> int:
        """Pairs tied in at least one list: neither concordant nor discordant."""
        return self.tied_x + self.tied_y + self.tied_both


def _sign(a: Any, b: Any) -> int:
    # Comparisons rather than subtraction, so any ordered values work (ranks, rates, Fractions).
    return (a > b) - (a < b)


def pair_counts(x: Sequence[Any], y: Sequence[Any]) -> PairCounts:
    """Classify every pair of positions; O(n^2), which is fine for n = number of agents."""
    x, y = list(x), list(y)
    if len(x) != len(y):
        raise ValueError(f"Kendall's tau needs two equal-length sequences, got {len(x)} and {len(y)}")
    counts = Counter()
    for i, j in itertools.combinations(range(len(x)), 2):
        dx, dy = _sign(x[i], x[j]), _sign(y[i], y[j])
        if dx == 0 and dy == 0:
            counts["tied_both"] += 1
        elif dx == 0:
            counts["tied_x"] += 1
        elif dy == 0:
            counts["tied_y"] += 1
        elif dx == dy:
            counts["concordant"] += 1
        else:
            counts["discordant"] += 1
    return PairCounts(**counts)


def kendall_tau_b(x: Sequence[Any], y: Sequence[Any]) -> float | None:
    """Kendall's tau-b, the tie-corrected variant scipy.stats.kendalltau computes by default.

    (P - Q) / sqrt((P + Q + T_x) * (P + Q + T_y)). The correction keeps a ranking with ties able to
    reach +-1 when it agrees as far as its ties allow. None with fewer than 2 items, or when one list is
    all ties: it then orders nothing, and no correlation exists (scipy returns nan).
    """
    c = pair_counts(x, y)
    ordered = c.concordant + c.discordant
    denominator = (ordered + c.tied_x) * (ordered + c.tied_y)
    if denominator == 0:
        return None
    return (c.concordant - c.discordant) / math.sqrt(denominator)


def kendall_tau_a(x: Sequence[Any], y: Sequence[Any]) -> float | None:
    """Kendall's tau-a, (P - Q) / (n(n-1)/2): the share of pairs in the same order minus the share reversed.

    This is what the paper's "66.7 % with one discordant pair out of six" means for 4 policies:
    (5 - 1) / 6. Without ties T_x = T_y = 0 and P + Q = n(n-1)/2, so tau-a == tau-b. Ties count as
    neither agreement nor disagreement here (an all-tied list gives 0, not None), so read tau-b when
    success rates tie. None with fewer than 2 items.
    """
    c = pair_counts(x, y)
    return _ratio(c.concordant - c.discordant, c.total)


def success_rates(outcomes: Mapping[Hashable, Iterable[bool]]) -> dict[Hashable, dict[str, Any]]:
    """Per group (agent, policy, judge): n, successes and rate; rate is None for a group with no runs."""
    rates = {}
    for group, results in outcomes.items():
        results = [bool(r) for r in results]
        successes = sum(results)
        rates[group] = {"n": len(results), "successes": successes, "rate": _ratio(successes, len(results))}
    return rates


def _has_value(value: Any) -> bool:
    # NaN never compares as less or greater, so it would silently count as a tie with everything.
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def ranking_agreement(reference: Mapping[Hashable, float | None],
                      other: Mapping[Hashable, float | None]) -> dict[str, Any]:
    """Do two scorings of the same groups (e.g. human vs judge success rates) rank them alike?

    Only groups with a value in both are compared: a policy one side never scored cannot be ranked.
    tied_pairs counts pairs tied in either scoring (T_x + T_y + pairs tied in both).
    """
    groups = [g for g in reference if g in other and _has_value(reference[g]) and _has_value(other[g])]
    x = [reference[g] for g in groups]
    y = [other[g] for g in groups]
    c = pair_counts(x, y)
    return {"n": len(groups), "tau_b": kendall_tau_b(x, y), "tau_a": kendall_tau_a(x, y),
            "discordant_pairs": c.discordant, "concordant_pairs": c.concordant, "tied_pairs": c.tied}
