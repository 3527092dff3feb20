"""The one Cohen's and Fleiss' kappa (desktop_app/stats/kappa.py), which the teams and the judges both use.

Pinned values are worked by hand in the comment beside them. The property tests compare with the textbook
formula written here from a confusion matrix (Cohen) or a table of counts per item (Fleiss) with numpy: a
second, independent way to the same number. sklearn is not installed; scipy has no Cohen's kappa.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.judging import agreement_math
from desktop_app.stats.kappa import NO_ITEMS, ONE_LABEL, cohen, cohen_kappa, fleiss, fleiss_kappa
from desktop_app.teams import agreement as team_agreement

# --------------------------------------------------------------------------- pinned by hand


def test_cohen_by_hand_two_labels():
    # 12 items, a/b: (y,y) x5, (y,n) x2, (n,y) x1, (n,n) x4.
    # po = (5 + 4) / 12 = 3/4. a: y 7, n 5; b: y 6, n 6 -> pe = (7*6 + 5*6) / 144 = 72/144 = 1/2.
    # kappa = (3/4 - 1/2) / (1 - 1/2) = 1/2.
    a = ["y"] * 5 + ["y"] * 2 + ["n"] * 1 + ["n"] * 4
    b = ["y"] * 5 + ["n"] * 2 + ["y"] * 1 + ["n"] * 4
    assert cohen_kappa(a, b) == pytest.approx(0.5)


def test_cohen_by_hand_three_labels():
    # a = g g g d d o, b = g g d d o o: agree at positions 1, 2, 4, 6 -> po = 4/6 = 2/3.
    # a: g 3, d 2, o 1; b: g 2, d 2, o 2 -> pe = (3*2 + 2*2 + 1*2) / 36 = 12/36 = 1/3.
    # kappa = (2/3 - 1/3) / (2/3) = 1/2.
    assert cohen_kappa(list("gggddo"), list("ggddoo")) == pytest.approx(0.5)
    # Worse than chance: a = x x y y, b = y y x x -> po = 0, pe = (2*2 + 2*2) / 16 = 1/2 -> (0 - 1/2) / (1/2) = -1.
    assert cohen_kappa(list("xxyy"), list("yyxx")) == pytest.approx(-1.0)


def test_cohen_degenerate_case_is_none_with_the_reason():
    # One label for everything on both sides: po = 1, pe = 5*5 / 25 = 1 -> 0/0: None, not 1.0 (ADR 0031).
    result = cohen(["gold"] * 5, ["gold"] * 5)
    assert (result.value, result.why_none) == (None, ONE_LABEL)
    # Only one rater constant: a = g g g o, b = g g g g -> po = 3/4, pe = (3*4 + 1*0) / 16 = 3/4 -> 0, defined.
    assert cohen(list("gggo"), list("gggg")).value == pytest.approx(0.0)
    # Both constant but on different labels: po = 0, pe = 0 -> 0 / 1 = 0, defined.
    assert cohen(["g"] * 3, ["o"] * 3).value == 0.0
    assert (cohen([], []).value, cohen([], []).why_none) == (None, NO_ITEMS)
    with pytest.raises(ValueError, match="equal-length"):
        cohen(["g"], [])


def test_fleiss_by_hand():
    # 3 items x 2 raters: [g, g], [g, o], [o, o]. Agreeing ordered pairs per item: 2, 0, 2 -> P_bar = 4 / (3*2*1) = 2/3.
    # Pooled shares: g 3/6, o 3/6 -> P_e = 1/4 + 1/4 = 1/2. kappa = (2/3 - 1/2) / (1/2) = 1/3.
    assert fleiss_kappa([["g", "g"], ["g", "o"], ["o", "o"]]) == pytest.approx(1 / 3)
    result = fleiss([["g", "g", "g"]] * 3)  # one label throughout: P_e = 1 -> 0/0
    assert (result.value, result.why_none) == (None, ONE_LABEL)
    assert (fleiss([]).value, fleiss([]).why_none) == (None, NO_ITEMS)


def test_teams_and_judges_reach_the_same_kappa_and_the_same_rule():
    a, b = list("gggddo"), list("ggddoo")
    assert team_agreement.cohen_kappa(list(zip(a, b, strict=True))) == agreement_math.cohen_kappa(a, b) == 0.5
    assert team_agreement.cohen_kappa([("gold", "gold")] * 3) is None
    assert agreement_math.cohen_kappa(["success"] * 3, ["success"] * 3) is None
    assert team_agreement.fleiss_kappa([["g", "g"]] * 2) is None


# --------------------------------------------------------------------------- against the formula, with numpy


def _cohen_from_confusion(a: list, b: list) -> float | None:
    labels = sorted(set(a) | set(b))
    index = {label: i for i, label in enumerate(labels)}
    confusion = np.zeros((len(labels), len(labels)))
    for x, y in zip(a, b, strict=True):
        confusion[index[x], index[y]] += 1
    p = confusion / confusion.sum()
    po = np.trace(p)
    pe = float(p.sum(axis=1) @ p.sum(axis=0))  # row marginals times column marginals
    return None if np.isclose(pe, 1.0) else (po - pe) / (1 - pe)


LABELS = st.sampled_from(["gold", "distracted", "other", "none"])


@given(st.lists(st.tuples(LABELS, LABELS), min_size=1, max_size=60))
def test_cohen_equals_the_confusion_matrix_formula(pairs):
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    expected = _cohen_from_confusion(a, b)
    got = cohen_kappa(a, b)
    if expected is None:
        assert got is None and cohen(a, b).why_none == ONE_LABEL
    else:
        assert got == pytest.approx(expected, abs=1e-9)
        assert team_agreement.cohen_kappa(pairs) == got  # the teams' door: the same number


def _fleiss_from_counts(items: list[list[str]]) -> float | None:
    labels = sorted({label for item in items for label in item})
    counts = np.array([[item.count(label) for label in labels] for item in items], dtype=float)  # items x labels
    raters = counts.sum(axis=1)[0]
    p_i = ((counts ** 2).sum(axis=1) - raters) / (raters * (raters - 1))
    p_j = counts.sum(axis=0) / counts.sum()
    p_bar, p_e = p_i.mean(), float((p_j ** 2).sum())
    return None if np.isclose(p_e, 1.0) else (p_bar - p_e) / (1 - p_e)


@given(st.integers(2, 5).flatmap(lambda k: st.lists(st.lists(LABELS, min_size=k, max_size=k), min_size=1,
                                                    max_size=30)))
def test_fleiss_equals_the_formula_over_counts(items):
    expected = _fleiss_from_counts(items)
    got = fleiss_kappa(items)
    if expected is None:
        assert got is None
    else:
        assert got == pytest.approx(expected, abs=1e-9)


# statsmodels as an independent oracle (a dev dependency, never shipped): its Cohen's kappa over a confusion
# table and its Fleiss' kappa over per-item counts; on the degenerate case it gives nan or 1.0 where our
# rule gives None, so those draws are checked by the tests above instead.
@settings(deadline=None)  # the first draw imports statsmodels
@given(st.lists(st.tuples(LABELS, LABELS), min_size=2, max_size=60))
def test_cohen_matches_statsmodels(pairs):
    from statsmodels.stats.inter_rater import cohens_kappa

    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    labels = sorted(set(a) | set(b))
    table = np.array([[sum(x == r and y == c for x, y in pairs) for c in labels] for r in labels])
    ours = cohen_kappa(a, b)
    if ours is not None:
        assert ours == pytest.approx(cohens_kappa(table).kappa, abs=1e-9)


@given(st.integers(2, 5).flatmap(lambda k: st.lists(st.lists(LABELS, min_size=k, max_size=k), min_size=2,
                                                    max_size=30)))
@settings(deadline=None)
def test_fleiss_matches_statsmodels(items):
    from statsmodels.stats.inter_rater import aggregate_raters
    from statsmodels.stats.inter_rater import fleiss_kappa as their_fleiss

    ours = fleiss_kappa(items)
    if ours is not None:
        counts, _ = aggregate_raters(np.array(items, dtype=object))
        assert ours == pytest.approx(their_fleiss(counts), abs=1e-9)
