"""Inter-annotator agreement on double-annotated screens.

Two annotators' boxes on one screen are paired by an optimal one-to-one matching on IoU. Agreement is then
measured twice: on the boxes (an F1 where a box only one annotator drew counts against both) and on the labels
of the matched pairs (Cohen's kappa for a pair of annotators, Fleiss' kappa for a team).

Standard library only, so reports and tests can use it without the GUI, numpy or a database. The kappas
are desktop_app/stats/kappa.py's, shared with the judges: None, with the reason beside it (kappa_note), when
there is nothing to measure or both used one label throughout (ADR 0031).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations

from desktop_app.stats import kappa
from desktop_app.stats.kappa import fleiss_kappa  # noqa: F401  (a public name of this module, as before)

# Why a kappa is None here, beside stats.kappa's ONE_LABEL (shown as the tooltip of its "-").
NO_MATCHED_BOX = "no box matched between the two: no label to compare"
UNUSED_LABEL = "neither annotator gave this label to a matched box"
NO_SHARED_SCREEN = "no screen done by two or more annotators"
NO_BOX_MATCHED_BY_ALL = "no box matched by every annotator of its screen"


@dataclass(frozen=True)
class Box:
    """One annotator's box on one screen, in pixels (x2 >= x1, y2 >= y1)."""

    x1: float
    y1: float
    x2: float
    y2: float
    label: str
    # Carried so results lead back to the stored box; not compared, since each annotator's copy has its own id.
    ref: object = field(default=None, compare=False)


@dataclass(frozen=True)
class ScreenPair:
    """What two annotators did on the same screen (step)."""

    screen: object
    a: tuple[Box, ...]
    b: tuple[Box, ...]


@dataclass
class PairAgreement:
    annotator_a: str
    annotator_b: str
    screens: int
    matched: int
    unmatched_a: int
    unmatched_b: int
    label_agree: int
    observed: float | None
    kappa: float | None
    box_f1: float | None
    confusion: dict[tuple[str, str], int]
    per_label: dict[str, dict]
    kappa_note: str = ""  # why kappa is None ("" when it is a number), for a tooltip or a note under a table


def iou(a: Box, b: Box) -> float:
    inter = max(0.0, min(a.x2, b.x2) - max(a.x1, b.x1)) * max(0.0, min(a.y2, b.y2) - max(a.y1, b.y1))
    union = (a.x2 - a.x1) * (a.y2 - a.y1) + (b.x2 - b.x1) * (b.y2 - b.y1) - inter
    # Two zero-area boxes at the same spot would give 0/0; a point or a line is no region to agree on.
    return inter / union if union > 0 else 0.0


# --------------------------------------------------------------------------- optimal matching


def _augment(row: int, weight: list[list[float]], u: list[float], v: list[float], owner: list[int]) -> None:
    """Add one row to the assignment along a shortest augmenting path (costs are negated weights)."""
    n = len(weight)
    owner[0] = row  # column 0 is a virtual start column holding the new row
    slack = [float("inf")] * (n + 1)
    prev = [0] * (n + 1)
    used = [False] * (n + 1)
    col = 0
    while owner[col]:
        used[col] = True
        i, delta, next_col = owner[col], float("inf"), 0
        for j in range(1, n + 1):
            if not used[j]:
                reduced = -weight[i - 1][j - 1] - u[i] - v[j]
                if reduced < slack[j]:
                    slack[j], prev[j] = reduced, col
                if slack[j] < delta:
                    delta, next_col = slack[j], j
        for j in range(n + 1):
            if used[j]:
                u[owner[j]] += delta
                v[j] -= delta
            else:
                slack[j] -= delta
        col = next_col
    while col:
        owner[col] = owner[prev[col]]
        col = prev[col]


def _max_weight_assignment(weight: list[list[float]]) -> list[int]:
    """Column of each row in a maximum-weight assignment of a square matrix (Kuhn-Munkres, O(n^3))."""
    n = len(weight)
    u, v = [0.0] * (n + 1), [0.0] * (n + 1)  # potentials; index 0 belongs to the virtual column
    owner = [0] * (n + 1)  # owner[j]: 1-based row assigned to column j, 0 when free
    for row in range(1, n + 1):
        _augment(row, weight, u, v, owner)
    cols = [0] * n
    for j in range(1, n + 1):
        cols[owner[j] - 1] = j - 1
    return cols


def _match_indices(a: list[Box], b: list[Box], threshold: float) -> list[tuple[int, int]]:
    n = max(len(a), len(b))
    # Each admissible pair weighs big + IoU, with big above any possible IoU total: one more match always beats
    # any gain in IoU, so we maximise the number of matches first and the total IoU second. Greedy matching by
    # highest IoU can strand a box whose only partner was taken. Non-overlapping boxes never match, even at
    # threshold 0. Padding rows and columns (weight 0) make the matrix square.
    big = min(len(a), len(b)) + 1.0
    weight = [[0.0] * n for _ in range(n)]
    for i, box_a in enumerate(a):
        for j, box_b in enumerate(b):
            overlap = iou(box_a, box_b)
            if overlap >= threshold and overlap > 0:
                weight[i][j] = big + overlap
    cols = _max_weight_assignment(weight)
    return [(i, cols[i]) for i in range(len(a)) if weight[i][cols[i]] > 0]


def match_boxes(a: list[Box], b: list[Box], threshold: float = 0.5
                ) -> tuple[list[tuple[Box, Box]], list[Box], list[Box]]:
    """(matched pairs in a's order, unmatched boxes of a, unmatched boxes of b)."""
    pairs = _match_indices(a, b, threshold)
    used_a, used_b = {i for i, _ in pairs}, {j for _, j in pairs}
    return ([(a[i], b[j]) for i, j in pairs],
            [box for i, box in enumerate(a) if i not in used_a],
            [box for j, box in enumerate(b) if j not in used_b])


# --------------------------------------------------------------------------- kappas


def cohen_kappa(pairs: list[tuple[str, str]]) -> float | None:
    """Cohen's kappa of (label of annotator a, label of annotator b) pairs: stats.kappa's, with its rule
    that one label throughout gives None, not 1.0 (ADR 0031)."""
    return kappa.cohen_kappa([x for x, _ in pairs], [y for _, y in pairs])


def _cohen(pairs: list[tuple[object, object]]) -> kappa.Kappa:
    return kappa.cohen([x for x, _ in pairs], [y for _, y in pairs])


# --------------------------------------------------------------------------- pairs and teams


def _label_stats(label: str, pairs: list[tuple[str, str]]) -> dict:
    a, b = sum(x == label for x, _ in pairs), sum(y == label for _, y in pairs)
    agree = sum(x == y == label for x, y in pairs)
    # This label against all the others. A label neither annotator put on a matched box has nothing to agree
    # on (without this test it would read "one label throughout": "not this label", everywhere).
    found = _cohen([(x == label, y == label) for x, y in pairs]) if a + b else kappa.Kappa(None, UNUSED_LABEL)
    return {"a": a, "b": b, "agree": agree,
            "specific_agreement": 2 * agree / (a + b) if a + b else None, "kappa": found.value,
            "kappa_note": found.why_none}


def pair_agreement(annotator_a: str, annotator_b: str, screens: list[ScreenPair],
                   threshold: float = 0.5) -> PairAgreement:
    label_pairs: list[tuple[str, str]] = []
    unmatched_a = unmatched_b = 0
    seen: set[str] = set()
    for screen in screens:
        pairs, only_a, only_b = match_boxes(list(screen.a), list(screen.b), threshold)
        label_pairs += [(x.label, y.label) for x, y in pairs]
        unmatched_a += len(only_a)
        unmatched_b += len(only_b)
        seen.update(box.label for box in (*screen.a, *screen.b))
    matched = len(label_pairs)
    agree = sum(x == y for x, y in label_pairs)
    boxes = 2 * matched + unmatched_a + unmatched_b
    found = _cohen(label_pairs) if label_pairs else kappa.Kappa(None, NO_MATCHED_BOX)
    return PairAgreement(
        annotator_a=annotator_a, annotator_b=annotator_b, screens=len(screens), matched=matched,
        unmatched_a=unmatched_a, unmatched_b=unmatched_b, label_agree=agree,
        observed=agree / matched if matched else None, kappa=found.value, kappa_note=found.why_none,
        box_f1=2 * matched / boxes if boxes else None,
        confusion=dict(sorted(Counter(label_pairs).items())),
        per_label={label: _label_stats(label, label_pairs) for label in sorted(seen)})


def _chained_items(box_lists: list[list[Box]], threshold: float) -> list[list[str]]:
    """Labels of each first-annotator box that every other annotator matched, first annotator's label first."""
    first, others = box_lists[0], box_lists[1:]
    partners = [dict(_match_indices(first, other, threshold)) for other in others]
    return [[box.label] + [other[found[i]].label for other, found in zip(others, partners, strict=True)]
            for i, box in enumerate(first) if all(i in found for found in partners)]


def _team_fleiss(by_annotator: dict[str, dict[object, list[Box]]], threshold: float) -> dict:
    raters_of: dict[object, list[str]] = {}  # screen -> its annotators in alphabetical order
    for name in sorted(by_annotator):
        for screen in by_annotator[name]:
            raters_of.setdefault(screen, []).append(name)
    sizes = Counter(len(raters) for raters in raters_of.values() if len(raters) >= 2)
    if not sizes:
        return {"kappa": None, "items": 0, "raters": 0, "kappa_note": NO_SHARED_SCREEN}
    # Fleiss needs the same number of raters on every item; on a tie, more raters per item is the stronger test.
    k = max(sizes, key=lambda size: (sizes[size], size))
    items: list[list[str]] = []
    for screen, raters in raters_of.items():
        if len(raters) == k:
            items += _chained_items([list(by_annotator[name][screen]) for name in raters], threshold)
    found = kappa.fleiss(items) if items else kappa.Kappa(None, NO_BOX_MATCHED_BY_ALL)
    return {"kappa": found.value, "items": len(items), "raters": k, "kappa_note": found.why_none}


def team_agreement(screens_by_annotator: dict[str, dict[object, list[Box]]], threshold: float = 0.5) -> dict:
    """Pairwise agreement for every two annotators sharing a screen, and Fleiss' kappa for the team.

    A screen counts as labelled by an annotator when it is a key of theirs, even with no boxes (they saw
    nothing to box). Fleiss' items are the alphabetically first annotator's boxes matched by all the others.
    """
    pairs = []
    for name_a, name_b in combinations(sorted(screens_by_annotator), 2):
        of_a, of_b = screens_by_annotator[name_a], screens_by_annotator[name_b]
        common = [ScreenPair(key, tuple(of_a[key]), tuple(of_b[key])) for key in of_a if key in of_b]
        if common:
            pairs.append(pair_agreement(name_a, name_b, common, threshold))
    labels = sorted({box.label for screens in screens_by_annotator.values()
                     for boxes in screens.values() for box in boxes})
    return {"pairs": pairs, "fleiss": _team_fleiss(screens_by_annotator, threshold), "labels": labels}
