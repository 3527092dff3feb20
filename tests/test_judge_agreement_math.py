"""Judge-vs-human agreement arithmetic: confusion rates, Cohen's kappa, Kendall's tau.

Every expected value is worked out by hand in the comment next to it, never computed with the code under
test. scipy, when installed, is only a second opinion in its own test.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop_app.judging.agreement_math import (
    Confusion,
    binary_confusion,
    cohen_kappa,
    kendall_tau_a,
    kendall_tau_b,
    pair_counts,
    pairwise_kappa,
    ranking_agreement,
    success_rates,
)
from desktop_app.stats.kappa import NO_ITEMS

T, F = True, False

# --------------------------------------------------------------------------- confusion


def test_confusion_on_ten_pairs():
    # (human, judge): 3 x (T,T) -> tp=3, 1 x (F,T) -> fp=1, 4 x (F,F) -> tn=4, 2 x (T,F) -> fn=2.
    pairs = [(T, T)] * 3 + [(F, T)] + [(F, F)] * 4 + [(T, F)] * 2
    c = binary_confusion(pairs)
    assert (c.tp, c.fp, c.tn, c.fn, c.n) == (3, 1, 4, 2, 10)
    assert c.accuracy == pytest.approx(0.7)  # (tp+tn)/n = (3+4)/10
    assert c.precision == pytest.approx(0.75)  # tp/(tp+fp) = 3/4
    assert c.recall == pytest.approx(0.6)  # tp/(tp+fn) = 3/5
    # 2tp/(2tp+fp+fn) = 6/9 = 0.6667; same as 2*0.75*0.6/(0.75+0.6) = 0.9/1.35.
    assert c.f1 == pytest.approx(2 / 3)
    assert c.fnr == pytest.approx(0.4)  # fn/(fn+tp) = 2/5
    assert c.fpr == pytest.approx(0.2)  # fp/(fp+tn) = 1/5
    assert c.to_json() == pytest.approx({"tp": 3, "fp": 1, "tn": 4, "fn": 2, "n": 10, "accuracy": 0.7,
                                         "precision": 0.75, "recall": 0.6, "f1": 2 / 3, "fnr": 0.4,
                                         "fpr": 0.2})


def test_confusion_is_frozen_and_accepts_truthy_values():
    # 1/0 and "yes"/"" are read as bools: (1,1) tp, ("yes","") fn.
    c = binary_confusion([(1, 1), ("yes", "")])
    assert c == Confusion(tp=1, fn=1)
    with pytest.raises(AttributeError):
        c.tp = 5  # type: ignore[misc]


def test_empty_confusion_has_no_rates():
    # n = 0: every denominator is 0 -> None, not 0 %.
    c = binary_confusion([])
    assert c.n == 0
    rates = ("accuracy", "precision", "recall", "f1", "fnr", "fpr")
    assert all(getattr(c, name) is None for name in rates)
    assert all(c.to_json()[name] is None for name in rates)
    assert c.to_json()["n"] == 0


def test_fnr_without_positives_is_none():
    # Human says failure everywhere: 3 x (F,F) -> tn=3, 1 x (F,T) -> fp=1, tp = fn = 0.
    c = binary_confusion([(F, F)] * 3 + [(F, T)])
    assert c.fnr is None  # fn/(fn+tp) = 0/0
    assert c.recall is None  # tp/(tp+fn) = 0/0
    assert c.fpr == pytest.approx(0.25)  # fp/(fp+tn) = 1/4
    assert c.precision == 0.0  # tp/(tp+fp) = 0/1: a real 0, the judge passed a failure
    assert c.f1 == 0.0  # 2*0/(0+1+0) = 0
    assert c.accuracy == pytest.approx(0.75)  # 3/4


def test_f1_none_only_without_any_positive():
    # All (F,F): tp = fp = fn = 0 -> 2tp+fp+fn = 0 -> None; accuracy 2/2 = 1.
    c = binary_confusion([(F, F)] * 2)
    assert c.f1 is None and c.precision is None and c.accuracy == 1.0


# --------------------------------------------------------------------------- Cohen's kappa


def test_kappa_two_by_two():
    # 10 items, (human, judge): both T 4, T/F 1, F/T 2, both F 3 (Wikipedia's 50-item example / 5).
    # po = (4+3)/10 = 0.7. human T 5/10, judge T 6/10 -> pe = 0.5*0.6 + 0.5*0.4 = 0.3 + 0.2 = 0.5.
    # kappa = (0.7-0.5)/(1-0.5) = 0.4.
    a = [T] * 4 + [T] + [F] * 2 + [F] * 3
    b = [T] * 4 + [F] + [T] * 2 + [F] * 3
    assert cohen_kappa(a, b) == pytest.approx(0.4)


def test_kappa_three_categories():
    # a = x x x x y y y z z z, b = x x x y y y z z z y.
    # Agreements at positions 1-3 (x), 5-6 (y), 8-9 (z) -> 7, po = 0.7.
    # a: x 4, y 3, z 3; b: x 3, y 4, z 3 -> pe = (4*3 + 3*4 + 3*3)/100 = 33/100 = 0.33.
    # kappa = (0.70-0.33)/(1-0.33) = 0.37/0.67 = 37/67 = 0.55224.
    a = list("xxxxyyyzzz")
    b = list("xxxyyyzzzy")
    assert cohen_kappa(a, b) == pytest.approx(37 / 67)


def test_kappa_perfect_and_opposite():
    # Same labels, two categories: po = 1, pe = 0.5*0.5*2 = 0.5 -> (1-0.5)/0.5 = 1.
    assert cohen_kappa([T, F, T, F], [T, F, T, F]) == pytest.approx(1.0)
    # Always opposite: po = 0, pe = 0.5 -> (0-0.5)/0.5 = -1.
    assert cohen_kappa([T, F, T, F], [F, T, F, T]) == pytest.approx(-1.0)


def test_kappa_one_constant_rater_is_chance():
    # Judge always T, human T T F T: po = 3/4, pe = 1*(3/4) + 0*(1/4) = 3/4 -> (3/4-3/4)/(1/4) = 0.
    assert cohen_kappa([T, T, F, T], [T, T, T, T]) == pytest.approx(0.0)


def test_kappa_undefined():
    # Both raters "success" throughout: po = 1, pe = 1*1 = 1 -> 0/0 -> None (sklearn: nan).
    assert cohen_kappa(["success"] * 5, ["success"] * 5) is None
    # No items: nothing to agree on.
    assert cohen_kappa([], []) is None


def test_kappa_unequal_lengths_raise():
    with pytest.raises(ValueError, match="equal-length"):
        cohen_kappa([T, F], [T])


# --------------------------------------------------------------------------- pairwise kappa


def test_pairwise_kappa_three_raters_one_pair_without_overlap():
    ratings = {
        "i1": {"ann": T, "bob": T},
        "i2": {"ann": T, "bob": F},
        "i3": {"ann": F, "bob": F},
        "i4": {"ann": F, "bob": F},
        "i5": {"ann": T, "cat": T},
        "i6": {"ann": F, "cat": F},
        "i7": {"ann": T, "cat": T},
        "i8": {"ann": F, "cat": F},
    }
    result = pairwise_kappa(ratings)
    by_pair = {(p["a"], p["b"]): p for p in result["pairs"]}
    assert list(by_pair) == [("ann", "bob"), ("ann", "cat"), ("bob", "cat")]  # order of first appearance
    # ann/bob on i1-i4: (T,T) (T,F) (F,F) (F,F) -> po = 3/4; ann T 2/4, bob T 1/4
    # -> pe = 0.5*0.25 + 0.5*0.75 = 0.5 -> kappa = (0.75-0.5)/0.5 = 0.5.
    assert by_pair["ann", "bob"]["n"] == 4
    assert by_pair["ann", "bob"]["agreement"] == pytest.approx(0.75)
    assert by_pair["ann", "bob"]["kappa"] == pytest.approx(0.5)
    # ann/cat on i5-i8: all agree -> po = 1; ann T 2/4, cat T 2/4 -> pe = 0.5 -> kappa = 0.5/0.5 = 1.
    assert by_pair["ann", "cat"]["n"] == 4
    assert by_pair["ann", "cat"]["agreement"] == pytest.approx(1.0)
    assert by_pair["ann", "cat"]["kappa"] == pytest.approx(1.0)
    # bob/cat share no item: n = 0, kappa and agreement None.
    assert by_pair["bob", "cat"] == {"a": "bob", "b": "cat", "n": 0, "kappa": None, "agreement": None,
                                     "kappa_note": NO_ITEMS}
    # Mean over defined kappas only: (0.5 + 1)/2 = 0.75 (counting bob/cat as 0 would give 0.5).
    assert result["mean_kappa"] == pytest.approx(0.75)


def test_pairwise_kappa_none_label_is_not_a_label():
    # i2's None for bob means "not labelled": shared items are i1, i3 only.
    # (T,T) (F,F) -> po = 1; ann T 1/2, bob T 1/2 -> pe = 0.5 -> kappa 1.
    ratings = {"i1": {"ann": T, "bob": T}, "i2": {"ann": T, "bob": None}, "i3": {"ann": F, "bob": F}}
    (pair,) = pairwise_kappa(ratings)["pairs"]
    assert pair["n"] == 2 and pair["kappa"] == pytest.approx(1.0)


def test_pairwise_kappa_single_rater_has_no_pairs():
    assert pairwise_kappa({"i1": {"ann": T}}) == {"pairs": [], "mean_kappa": None}


# --------------------------------------------------------------------------- Kendall's tau


def test_tau_b_ties_in_x():
    # x = 1 2 2 3, y = 1 2 3 4. Pairs (i,j): (0,1) C, (0,2) C, (0,3) C, (1,2) x 2=2 -> T_x, (1,3) C, (2,3) C.
    # P=5 Q=0 Tx=1 Ty=0 -> tau_b = 5/sqrt((5+0+1)*(5+0+0)) = 5/sqrt(30) = 0.91287; tau_a = 5/6.
    x, y = [1, 2, 2, 3], [1, 2, 3, 4]
    c = pair_counts(x, y)
    assert (c.concordant, c.discordant, c.tied_x, c.tied_y, c.tied_both) == (5, 0, 1, 0, 0)
    assert kendall_tau_b(x, y) == pytest.approx(5 / math.sqrt(30))
    assert kendall_tau_b(x, y) == pytest.approx(0.912871, abs=1e-6)
    assert kendall_tau_a(x, y) == pytest.approx(5 / 6)


def test_tau_b_ties_in_y():
    # x = 1 2 3 4, y = 2 1 3 3. (0,1) y 2>1 -> D, (0,2) C, (0,3) C, (1,2) C, (1,3) C, (2,3) y 3=3 -> T_y.
    # P=4 Q=1 Tx=0 Ty=1 -> tau_b = (4-1)/sqrt((4+1+0)*(4+1+1)) = 3/sqrt(30) = 0.54772; tau_a = 3/6.
    x, y = [1, 2, 3, 4], [2, 1, 3, 3]
    c = pair_counts(x, y)
    assert (c.concordant, c.discordant, c.tied_x, c.tied_y, c.tied_both) == (4, 1, 0, 1, 0)
    assert kendall_tau_b(x, y) == pytest.approx(3 / math.sqrt(30))
    assert kendall_tau_b(x, y) == pytest.approx(0.547723, abs=1e-6)
    assert kendall_tau_a(x, y) == pytest.approx(0.5)


def test_tau_b_ties_in_both():
    # x = 1 1 2 2 3, y = 1 1 2 3 2; 10 pairs:
    # (0,1) 1=1 and 1=1 -> tied in both (in neither T_x nor T_y);
    # (0,2) (0,3) (0,4) (1,2) (1,3) (1,4): x and y both increase -> 6 C;
    # (2,3) x 2=2, y 2<3 -> T_x; (2,4) x 2<3, y 2=2 -> T_y; (3,4) x 2<3, y 3>2 -> D.
    # P=6 Q=1 Tx=1 Ty=1 -> tau_b = (6-1)/sqrt((6+1+1)*(6+1+1)) = 5/8 = 0.625; tau_a = 5/10.
    # Check with n0 - n1 form: n0 = 10, ties in x groups {1,1},{2,2} = 2, in y {1,1},{2,2} = 2 -> 5/sqrt(8*8).
    x, y = [1, 1, 2, 2, 3], [1, 1, 2, 3, 2]
    c = pair_counts(x, y)
    assert (c.concordant, c.discordant, c.tied_x, c.tied_y, c.tied_both) == (6, 1, 1, 1, 1)
    assert c.tied == 3 and c.total == 10
    assert kendall_tau_b(x, y) == pytest.approx(0.625)
    assert kendall_tau_a(x, y) == pytest.approx(0.5)


def test_paper_four_policies():
    # Human success rates rank A > B > C > D.
    human = {"A": 0.8, "B": 0.6, "C": 0.4, "D": 0.2}
    # Action matching swaps C and D: AB AC AD BC BD concordant, CD discordant -> P=5 Q=1, no ties.
    # tau_a = (5-1)/6 = 0.667; tau_b = 4/sqrt((5+1+0)*(5+1+0)) = 4/6, the same without ties.
    action_matching = {"A": 0.7, "B": 0.5, "C": 0.2, "D": 0.3}
    r = ranking_agreement(human, action_matching)
    assert r == {"n": 4, "tau_b": pytest.approx(4 / 6), "tau_a": pytest.approx(4 / 6),
                 "discordant_pairs": 1, "concordant_pairs": 5, "tied_pairs": 0}
    assert r["tau_a"] == pytest.approx(0.667, abs=1e-3)
    # Judge with the same order: P=6 Q=0 -> 6/6 = 1.
    judge = {"A": 0.75, "B": 0.55, "C": 0.35, "D": 0.1}
    r = ranking_agreement(human, judge)
    assert r["tau_b"] == pytest.approx(1.0) and r["tau_a"] == pytest.approx(1.0)
    assert (r["concordant_pairs"], r["discordant_pairs"]) == (6, 0)
    # Reversed order: P=0 Q=6 -> -6/6 = -1.
    reversed_ = {"A": 0.1, "B": 0.2, "C": 0.3, "D": 0.4}
    r = ranking_agreement(human, reversed_)
    assert r["tau_b"] == pytest.approx(-1.0) and r["tau_a"] == pytest.approx(-1.0)
    assert r["discordant_pairs"] == 6


def test_ranking_agreement_uses_groups_scored_on_both_sides():
    # E is None on one side and F missing from the reference: only A-D compare.
    # A-D as in the paper's action-matching case: P=5 Q=1 -> 4/6.
    human = {"A": 0.8, "B": 0.6, "C": 0.4, "D": 0.2, "E": 0.1}
    other = {"A": 0.7, "B": 0.5, "C": 0.2, "D": 0.3, "E": None, "F": 0.9}
    r = ranking_agreement(human, other)
    assert r["n"] == 4 and r["tau_b"] == pytest.approx(4 / 6)
    # NaN is missing too: dropping D leaves A B C in the same order -> 3/3 = 1.
    other["D"] = float("nan")
    r = ranking_agreement(human, other)
    assert r["n"] == 3 and r["tau_b"] == pytest.approx(1.0)


def test_ranking_agreement_counts_ties():
    # human A .5, B .5, C .2; other A .9, B .4, C .4.
    # AB: human tie -> T_x; AC: .5>.2, .9>.4 -> C; BC: .5>.2, other tie -> T_y. P=1 Q=0 tied 2.
    # tau_b = 1/sqrt((1+0+1)*(1+0+1)) = 1/2; tau_a = 1/3.
    r = ranking_agreement({"A": 0.5, "B": 0.5, "C": 0.2}, {"A": 0.9, "B": 0.4, "C": 0.4})
    assert r == {"n": 3, "tau_b": pytest.approx(0.5), "tau_a": pytest.approx(1 / 3),
                 "discordant_pairs": 0, "concordant_pairs": 1, "tied_pairs": 2}


def test_tau_fewer_than_two_items_is_none():
    # 0 or 1 item: no pair to compare.
    assert kendall_tau_b([], []) is None and kendall_tau_a([], []) is None
    assert kendall_tau_b([1], [2]) is None and kendall_tau_a([1], [2]) is None
    r = ranking_agreement({"A": 0.5}, {"A": 0.7, "B": 0.1})
    assert r == {"n": 1, "tau_b": None, "tau_a": None, "discordant_pairs": 0, "concordant_pairs": 0,
                 "tied_pairs": 0}


def test_tau_b_all_tied_in_one_list_is_none():
    # y = 5 5 5: all 3 pairs tied in y -> P=Q=Tx=0, Ty=3 -> sqrt((0+0+0)*(0+0+3)) = 0 -> None.
    assert kendall_tau_b([1, 2, 3], [5, 5, 5]) is None
    assert kendall_tau_b([5, 5, 5], [1, 2, 3]) is None
    # tau_a has no tie correction: (0-0)/3 = 0.
    assert kendall_tau_a([1, 2, 3], [5, 5, 5]) == 0.0


def test_tau_unequal_lengths_raise():
    with pytest.raises(ValueError, match="equal-length"):
        kendall_tau_b([1, 2], [1])


@given(st.lists(st.integers(), min_size=2, max_size=8, unique=True), st.randoms(use_true_random=False))
def test_tau_a_equals_tau_b_without_ties(values, rng):
    # Without ties T_x = T_y = 0 and P + Q = n(n-1)/2, so both denominators are the same.
    other = values[:]
    rng.shuffle(other)
    assert kendall_tau_a(values, other) == pytest.approx(kendall_tau_b(values, other))


def test_tau_b_matches_scipy():
    # A second opinion only: the hand-worked tests above are the real checks.
    from scipy import stats  # a dev dependency: the oracle always runs
    cases = ([[1, 2, 2, 3], [1, 2, 3, 4]], [[1, 2, 3, 4], [2, 1, 3, 3]], [[1, 1, 2, 2, 3], [1, 1, 2, 3, 2]],
             [[0.8, 0.6, 0.4, 0.2], [0.7, 0.5, 0.2, 0.3]])
    for x, y in cases:
        assert kendall_tau_b(x, y) == pytest.approx(stats.kendalltau(x, y).statistic)


# --------------------------------------------------------------------------- success rates


def test_success_rates():
    # A: T T F T -> 3/4; B: no runs -> None (not 0 %); C: F -> 0/1 = 0.
    rates = success_rates({"A": [T, T, F, T], "B": [], "C": [F]})
    assert rates == {"A": {"n": 4, "successes": 3, "rate": 0.75},
                     "B": {"n": 0, "successes": 0, "rate": None},
                     "C": {"n": 1, "successes": 0, "rate": 0.0}}
