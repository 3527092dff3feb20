"""Cohen's and Fleiss' kappa: the one implementation the teams' box labels and the judges' verdicts use.

kappa = (po - pe) / (1 - pe): po the observed agreement, pe the agreement expected by chance (Cohen: each
rater labelling at random with their own label frequencies; Fleiss: every rater with the pooled frequencies).

The rule for the degenerate case (ADR 0031): when pe == 1 kappa is None, with the reason ONE_LABEL. pe == 1
happens only when every rater used one and the same label for every item; po is then 1 too and kappa is 0/0.
Reading it as 1.0 ("perfect") would praise agreement that chance alone predicts: a judge that says "success"
to everything scores 1.0 on a set where everything succeeded, two annotators who label every box "gold" on
screens that have only gold boxes look perfect though they were never asked to tell anything apart. sklearn
returns nan there; we return None, the project's "no data" (shown "-"), and keep the raw agreement beside it
where a view shows kappa. When only one rater is constant, pe < 1 and kappa is defined (0: no better than
chance). No items at all is None too (NO_ITEMS).

Computed on integer counts, so pe == 1 is detected exactly rather than through float rounding.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

NO_ITEMS = "no item rated by both"
ONE_LABEL = ("undefined: one and the same label throughout, so chance accounts for all of the agreement "
             "(kappa is 0/0)")


@dataclass(frozen=True)
class Kappa:
    value: float | None
    why_none: str = ""  # when value is None: why (NO_ITEMS, ONE_LABEL); "" when value is a number


def cohen(a: Sequence[Hashable], b: Sequence[Hashable]) -> Kappa:
    """Cohen's kappa of two raters over the same items (a[i] and b[i] label item i), any number of labels."""
    a, b = list(a), list(b)
    if len(a) != len(b):
        raise ValueError(f"Cohen's kappa needs two equal-length sequences, got {len(a)} and {len(b)}")
    n = len(a)
    if n == 0:
        return Kappa(None, NO_ITEMS)
    agree = sum(x == y for x, y in zip(a, b, strict=True))
    count_a, count_b = Counter(a), Counter(b)
    # po = agree / n and pe = chance / n^2, so kappa = (n * agree - chance) / (n^2 - chance), all integers.
    chance = sum(count_a[label] * count_b[label] for label in count_a)
    if chance == n * n:
        return Kappa(None, ONE_LABEL)
    return Kappa((n * agree - chance) / (n * n - chance))


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float | None:
    """cohen(a, b).value: the number, or None (no items, or pe == 1: see the module's rule)."""
    return cohen(a, b).value


def fleiss(items: Sequence[Sequence[Hashable]]) -> Kappa:
    """Fleiss' kappa: items[i] holds the labels the raters gave item i, the same number (>= 2) per item."""
    if not items:
        return Kappa(None, NO_ITEMS)
    n = len(items[0])
    for index, item in enumerate(items):
        if len(item) != n or n < 2:
            raise ValueError(f"item {index} has {len(item)} ratings; every item needs the same number (>= 2) "
                             f"as item 0, which has {n}")
    totals: Counter = Counter()
    agreeing_pairs = 0  # over all items, ordered pairs of raters who gave the item the same label
    for item in items:
        counts = Counter(item)
        totals.update(counts)
        agreeing_pairs += sum(c * (c - 1) for c in counts.values())
    if len(totals) == 1:  # one label throughout: pe = sum of squared shares = 1
        return Kappa(None, ONE_LABEL)
    ratings = len(items) * n
    p_bar = agreeing_pairs / (len(items) * n * (n - 1))
    p_e = sum((total / ratings) ** 2 for total in totals.values())
    return Kappa((p_bar - p_e) / (1 - p_e))


def fleiss_kappa(items: Sequence[Sequence[Hashable]]) -> float | None:
    """fleiss(items).value."""
    return fleiss(items).value
