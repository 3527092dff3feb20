"""Agreement maths for annotation teams: IoU, optimal box matching, Cohen's and Fleiss' kappa.

Every expected number is worked by hand in the comment next to it.
"""

from __future__ import annotations

from itertools import permutations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.stats.kappa import NO_ITEMS, ONE_LABEL
from desktop_app.teams.agreement import (
    NO_BOX_MATCHED_BY_ALL,
    NO_MATCHED_BOX,
    NO_SHARED_SCREEN,
    UNUSED_LABEL,
    Box,
    ScreenPair,
    cohen_kappa,
    fleiss_kappa,
    iou,
    match_boxes,
    pair_agreement,
    team_agreement,
)


def span(x1, x2, label="gold", ref=None):
    """A box 10 px high, so its IoU with another span is the 1-D interval IoU."""
    return Box(x1, 0, x2, 10, label, ref)


# --------------------------------------------------------------------------- iou


def test_iou_identical_disjoint_half_overlap():
    assert iou(Box(0, 0, 10, 10, "gold"), Box(0, 0, 10, 10, "other")) == 1.0
    assert iou(Box(0, 0, 10, 10, "gold"), Box(20, 20, 30, 30, "gold")) == 0.0
    # Touching edges share no area.
    assert iou(Box(0, 0, 10, 10, "gold"), Box(10, 0, 20, 10, "gold")) == 0.0
    # Shifted by half its width: intersection 5*10 = 50, union 100 + 100 - 50 = 150 -> 1/3.
    assert iou(Box(0, 0, 10, 10, "gold"), Box(5, 0, 15, 10, "gold")) == pytest.approx(1 / 3)
    # The top half of a box: intersection 50, union 100 -> 1/2.
    assert iou(Box(0, 0, 10, 10, "gold"), Box(0, 0, 10, 5, "gold")) == 0.5


def test_iou_degenerate_boxes_are_zero():
    # Two identical points: 0/0 -> 0.0 by convention.
    assert iou(Box(5, 5, 5, 5, "gold"), Box(5, 5, 5, 5, "gold")) == 0.0
    # A zero-width line inside a box: intersection 0, union 100 -> 0.
    assert iou(Box(5, 0, 5, 10, "gold"), Box(0, 0, 10, 10, "gold")) == 0.0


# --------------------------------------------------------------------------- matching


def test_match_below_threshold_is_no_match():
    a, b = [span(0, 10)], [span(5, 15)]  # IoU 5/15 = 1/3
    assert match_boxes(a, b) == ([], a, b)
    assert match_boxes(a, b, threshold=0.3) == ([(a[0], b[0])], [], [])
    # The threshold is inclusive: top half of a box has IoU exactly 0.5.
    whole, top = Box(0, 0, 10, 10, "gold"), Box(0, 0, 10, 5, "gold")
    assert match_boxes([whole], [top]) == ([(whole, top)], [], [])


def greedy(a, b, threshold):
    """Highest-IoU-first matching, the approach match_boxes must beat."""
    candidates = sorted(((iou(x, y), i, j) for i, x in enumerate(a) for j, y in enumerate(b)), reverse=True)
    used_a, used_b, pairs = set(), set(), []
    for value, i, j in candidates:
        if value >= threshold and i not in used_a and j not in used_b:
            used_a.add(i)
            used_b.add(j)
            pairs.append((i, j))
    return pairs


def test_optimal_beats_greedy():
    a1, a2 = span(0, 10, ref="a1"), span(3, 13, ref="a2")
    b1, b2 = span(1, 11, ref="b1"), span(-2, 8, ref="b2")
    # a1-b1: inter [1,10] = 9, union [0,11] = 11 -> 0.818   (the best pair, greedy takes it first)
    # a1-b2: inter [0,8] = 8, union [-2,10] = 12 -> 0.667
    # a2-b1: inter [3,11] = 8, union [1,13] = 12 -> 0.667
    # a2-b2: inter [3,8] = 5, union [-2,13] = 15 -> 0.333  (below 0.5)
    # Greedy: a1-b1, then a2 is left with b2 only -> 1 match. Optimal: a1-b2 and a2-b1 -> 2 matches.
    assert greedy([a1, a2], [b1, b2], 0.5) == [(0, 0)]
    pairs, only_a, only_b = match_boxes([a1, a2], [b1, b2])
    assert [(x.ref, y.ref) for x, y in pairs] == [("a1", "b2"), ("a2", "b1")]
    assert only_a == [] and only_b == []


def test_more_matches_win_over_more_iou():
    a1, a2 = span(0, 10, ref="a1"), span(5, 15, ref="a2")
    b1, b2 = span(0, 10, ref="b1"), span(-5, 5, ref="b2")
    # a1-b1 = 1.0 alone (total 1.0), or a1-b2 = 5/15 and a2-b1 = 5/15 (two matches, total 0.667); a2-b2 = 0.
    pairs, _, _ = match_boxes([a1, a2], [b1, b2], threshold=0.3)
    assert [(x.ref, y.ref) for x, y in pairs] == [("a1", "b2"), ("a2", "b1")]


def test_equal_counts_then_highest_total_iou():
    a = [span(0, 10, ref="a1"), span(1, 11, ref="a2")]
    b = [span(1, 11, ref="b1"), span(0, 10, ref="b2")]
    # Straight: a1-b1 = a2-b2 = 9/11 (total 1.64); crossed: a1-b2 = a2-b1 = 1.0 (total 2.0).
    pairs, _, _ = match_boxes(a, b)
    assert [(x.ref, y.ref) for x, y in pairs] == [("a1", "b2"), ("a2", "b1")]


def test_match_keeps_orders_refs_and_empty_sides():
    a = [span(100, 110, ref=1), span(0, 10, ref=2), span(50, 60, ref=3)]
    b = [span(0, 10, ref=7), span(100, 110, ref=8), span(300, 310, ref=9)]
    pairs, only_a, only_b = match_boxes(a, b)
    assert [(x.ref, y.ref) for x, y in pairs] == [(1, 8), (2, 7)]  # in a's order
    assert [x.ref for x in only_a] == [3] and [y.ref for y in only_b] == [9]
    assert span(0, 10, ref=1) == span(0, 10, ref=2)  # ref is carried, not compared
    assert match_boxes([], b) == ([], [], b)
    assert match_boxes(a, []) == ([], a, [])


def best_by_brute_force(a, b, threshold):
    """(number of matches, total IoU) of the best matching, trying every injection of the smaller side."""
    small, large, swap = (a, b, False) if len(a) <= len(b) else (b, a, True)
    best = (0, 0.0)
    for chosen in permutations(range(len(large)), len(small)):
        values = [iou(small[i], large[j]) for i, j in enumerate(chosen)]
        kept = [v for v in values if v >= threshold and v > 0]
        best = max(best, (len(kept), sum(kept)))
    return best


boxes = st.lists(st.builds(lambda x, y, w, h: Box(x, y, x + w, y + h, "gold"),
                           st.integers(0, 30), st.integers(0, 30), st.integers(1, 20), st.integers(1, 20)),
                 max_size=5)


@settings(max_examples=200, deadline=None)
@given(boxes, boxes, st.sampled_from([0.1, 0.3, 0.5]))
def test_matching_is_optimal_against_brute_force(a, b, threshold):
    pairs, only_a, only_b = match_boxes(a, b, threshold)
    count, total = best_by_brute_force(a, b, threshold)
    assert len(pairs) == count
    assert sum(iou(x, y) for x, y in pairs) == pytest.approx(total)
    assert len(pairs) + len(only_a) == len(a) and len(pairs) + len(only_b) == len(b)


# --------------------------------------------------------------------------- Cohen's kappa


def test_cohen_kappa_textbook_two_by_two():
    pairs = [("yes", "yes")] * 20 + [("yes", "no")] * 5 + [("no", "yes")] * 10 + [("no", "no")] * 15
    # po = (20 + 15) / 50 = 0.7; A: yes 25, no 25; B: yes 30, no 20.
    # pe = (25*30 + 25*20) / 50^2 = 1250 / 2500 = 0.5; kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4.
    assert cohen_kappa(pairs) == pytest.approx(0.4)


def test_cohen_kappa_three_labels():
    pairs = ([("gold", "gold")] * 3 + [("distracted", "distracted")] * 2 + [("other", "other")]
             + [("gold", "distracted"), ("distracted", "other"), ("distracted", "other"), ("other", "gold")])
    # po = 6/10. A: gold 4, distracted 4, other 2. B: gold 4, distracted 3, other 3.
    # pe = (4*4 + 4*3 + 2*3) / 100 = 34/100; kappa = (0.60 - 0.34) / 0.66 = 13/33.
    assert cohen_kappa(pairs) == pytest.approx(13 / 33)


def test_cohen_kappa_degenerate_and_empty():
    # Both used "gold" for everything: pe = 1, po = 1 -> 0/0, undefined (ADR 0031), not 1.0.
    assert cohen_kappa([("gold", "gold")] * 5) is None
    # Complete disagreement with disjoint labels: po = 0, pe = (5*0 + 0*5) / 25 = 0 -> 0.
    assert cohen_kappa([("gold", "other")] * 5) == 0.0
    assert cohen_kappa([]) is None


# --------------------------------------------------------------------------- Fleiss' kappa


def test_fleiss_kappa_four_items_three_raters():
    items = [["g", "g", "g"], ["g", "g", "d"], ["d", "d", "o"], ["o", "o", "o"]]
    # P_i = (sum n_ij^2 - 3) / (3*2): (9-3)/6 = 1, (4+1-3)/6 = 1/3, 1/3, 1 -> P_bar = (8/3)/4 = 2/3.
    # Totals over 12 ratings: g 5, d 3, o 4 -> P_e = (25 + 9 + 16) / 144 = 25/72.
    # kappa = (2/3 - 25/72) / (1 - 25/72) = (23/72) / (47/72) = 23/47.
    assert fleiss_kappa(items) == pytest.approx(23 / 47)


def test_fleiss_kappa_two_raters_matches_scotts_pi():
    # With two raters Fleiss is Scott's pi: po = 1/2; pooled g 3/4, o 1/4 -> pe = 10/16; (8/16 - 10/16) / (6/16).
    assert fleiss_kappa([["g", "g"], ["g", "o"]]) == pytest.approx(-1 / 3)


def test_fleiss_kappa_degenerate_empty_and_unequal():
    assert fleiss_kappa([["gold"] * 3] * 4) is None  # P_e = P_bar = 1: 0/0, as in cohen_kappa (ADR 0031)
    assert fleiss_kappa([]) is None
    with pytest.raises(ValueError, match="item 2"):
        fleiss_kappa([["g", "g"], ["g", "o"], ["g", "g", "o"]])
    with pytest.raises(ValueError, match="item 0"):
        fleiss_kappa([["g"], ["o"]])


# --------------------------------------------------------------------------- pair agreement


def test_pair_agreement_by_hand():
    s1 = ScreenPair("s1",
                    a=(Box(0, 0, 10, 10, "gold"), Box(20, 0, 30, 10, "distracted"),
                       Box(100, 100, 110, 110, "other")),  # nobody else drew this one
                    b=(Box(0, 0, 10, 10, "gold"), Box(20, 0, 30, 10, "other")))
    s2 = ScreenPair("s2",
                    a=(Box(0, 0, 10, 10, "gold"), Box(50, 50, 60, 60, "distracted")),
                    b=(Box(1, 0, 11, 10, "gold"),  # IoU 9/11
                       Box(50, 50, 60, 60, "distracted"), Box(200, 200, 210, 210, "gold")))  # b's extra box
    result = pair_agreement("ann", "bob", [s1, s2])
    # Matched label pairs: (gold, gold), (distracted, other), (gold, gold), (distracted, distracted).
    assert (result.annotator_a, result.annotator_b, result.screens) == ("ann", "bob", 2)
    assert (result.matched, result.unmatched_a, result.unmatched_b, result.label_agree) == (4, 1, 1, 3)
    assert result.observed == 0.75
    # A: gold 2, distracted 2; B: gold 2, other 1, distracted 1. pe = (2*2 + 2*1) / 16 = 0.375.
    # kappa = (0.75 - 0.375) / 0.625 = 0.6.
    assert result.kappa == pytest.approx(0.6)
    assert result.box_f1 == pytest.approx(0.8)  # 2*4 / (2*4 + 1 + 1)
    assert result.confusion == {("distracted", "distracted"): 1, ("distracted", "other"): 1, ("gold", "gold"): 2}
    # gold vs rest: (T,T) (F,F) (T,T) (F,F) -> po 1, pe (2*2 + 2*2)/16 = 0.5 -> kappa 1.
    # distracted vs rest: (F,F) (T,F) (F,F) (T,T) -> po 3/4; A T2 F2, B T1 F3: pe = (2 + 6)/16 = 0.5 -> 0.5.
    # other vs rest: (F,F) (F,T) (F,F) (F,F) -> po 3/4; A T0 F4, B T1 F3: pe = 12/16 -> (0.75 - 0.75)/0.25 = 0.
    # a's unmatched "other" box does not count in "a" (matched boxes only).
    assert result.per_label == {
        "distracted": {"a": 2, "b": 1, "agree": 1, "specific_agreement": pytest.approx(2 / 3),
                       "kappa": pytest.approx(0.5), "kappa_note": ""},
        "gold": {"a": 2, "b": 2, "agree": 2, "specific_agreement": 1.0, "kappa": pytest.approx(1.0),
                 "kappa_note": ""},
        "other": {"a": 0, "b": 1, "agree": 0, "specific_agreement": 0.0, "kappa": pytest.approx(0.0),
                  "kappa_note": ""},
    }
    assert result.kappa_note == ""


def test_pair_agreement_with_one_label_throughout_has_no_kappa_and_says_why():
    # Two screens, both annotators boxed the same two elements "gold": po = 1 but pe = 1 too.
    screen = ScreenPair("s", a=(span(0, 10), span(20, 30)), b=(span(0, 10), span(20, 30)))
    result = pair_agreement("ann", "bob", [screen, screen])
    assert (result.matched, result.observed, result.kappa, result.kappa_note) == (4, 1.0, None, ONE_LABEL)
    # Per label, "gold" against the rest is (T, T) on every box: the same 0/0.
    assert result.per_label["gold"]["kappa"] is None and result.per_label["gold"]["kappa_note"] == ONE_LABEL


def test_pair_agreement_with_nothing_to_compare():
    empty = pair_agreement("ann", "bob", [ScreenPair("s", (), ())])
    assert (empty.screens, empty.matched, empty.observed, empty.kappa, empty.box_f1) == (1, 0, None, None, None)
    assert empty.kappa_note == NO_MATCHED_BOX
    assert empty.confusion == {} and empty.per_label == {}
    # Boxes but no match: box F1 = 0 / (0 + 1 + 1) = 0; label kappas undefined.
    apart = pair_agreement("ann", "bob", [ScreenPair("s", (span(0, 10),), (span(50, 60, "other"),))])
    assert (apart.box_f1, apart.observed, apart.kappa) == (0.0, None, None)
    assert apart.per_label["gold"] == {"a": 0, "b": 0, "agree": 0, "specific_agreement": None, "kappa": None,
                                       "kappa_note": UNUSED_LABEL}


# --------------------------------------------------------------------------- team agreement


def test_team_agreement_three_annotators():
    box_1, box_2, box_3 = (0, 0, 10, 10), (20, 0, 30, 10), (50, 50, 60, 60)
    screens = {
        "cat": {"s1": [Box(*box_1, "gold"), Box(*box_2, "other")],
                "s2": [Box(*box_1, "other")]},  # cat missed box_3 on s2
        "ann": {"s1": [Box(*box_1, "gold"), Box(*box_2, "distracted")],
                "s2": [Box(*box_1, "other"), Box(*box_3, "gold")],
                "s3": [Box(*box_1, "gold")]},
        "bob": {"s1": [Box(*box_1, "gold"), Box(*box_2, "distracted")],
                "s2": [Box(*box_1, "other"), Box(*box_3, "gold")],
                "s3": [Box(*box_1, "distracted")]},
        "dan": {"s4": [Box(*box_1, "gold")]},  # shares no screen with anyone
    }
    result = team_agreement(screens)
    assert result["labels"] == ["distracted", "gold", "other"]
    pairs = {(p.annotator_a, p.annotator_b): p for p in result["pairs"]}
    assert list(pairs) == [("ann", "bob"), ("ann", "cat"), ("bob", "cat")]
    ann_bob = pairs["ann", "bob"]
    # s1: 2 matched, s2: 2, s3: 1 -> 5; labels agree except s3 (gold, distracted) -> 4.
    assert (ann_bob.screens, ann_bob.matched, ann_bob.unmatched_a, ann_bob.label_agree) == (3, 5, 0, 4)
    ann_cat = pairs["ann", "cat"]
    # s1: 2 matched, s2: 1 matched and ann's box_3 unmatched; (distracted, other) disagrees.
    assert (ann_cat.screens, ann_cat.matched, ann_cat.unmatched_a, ann_cat.unmatched_b) == (2, 3, 1, 0)
    assert ann_cat.label_agree == 2
    assert ann_cat.box_f1 == pytest.approx(6 / 7)  # 2*3 / (2*3 + 1)
    # Screens by number of annotators: s1, s2 -> 3; s3 -> 2; s4 -> 1 (ignored). Most common k = 3.
    # Items (ann's boxes matched by bob and cat): s1 box_1 [g,g,g], s1 box_2 [d,d,o], s2 box_1 [o,o,o];
    # s2 box_3 is missing in cat's set, so it is no item.
    # P_i: 1, (4+1-3)/6 = 1/3, 1 -> P_bar = 7/9. Totals over 9: g 3, d 2, o 4 -> P_e = (9+4+16)/81 = 29/81.
    # kappa = (63/81 - 29/81) / (52/81) = 34/52 = 17/26.
    assert result["fleiss"] == {"kappa": pytest.approx(17 / 26), "items": 3, "raters": 3, "kappa_note": ""}


def test_team_agreement_fleiss_over_two_raters_and_no_team():
    # Only two annotators: every shared screen has k = 2; items are their matched pairs.
    two = team_agreement({"bob": {"s": [span(0, 10, "gold"), span(20, 30, "other")]},
                          "ann": {"s": [span(0, 10, "gold"), span(20, 30, "gold"), span(50, 60)]}})
    # Items [g,g], [g,o] (ann first): Scott's pi as above = -1/3.
    assert two["fleiss"] == {"kappa": pytest.approx(-1 / 3), "items": 2, "raters": 2, "kappa_note": ""}
    assert [(p.annotator_a, p.unmatched_a) for p in two["pairs"]] == [("ann", 1)]
    alone = team_agreement({"ann": {"s": [span(0, 10)]}, "bob": {"t": [span(0, 10)]}})
    assert alone == {"pairs": [], "fleiss": {"kappa": None, "items": 0, "raters": 0, "kappa_note": NO_SHARED_SCREEN},
                     "labels": ["gold"]}
    # Two annotators on one screen whose boxes lie apart: a screen to share but no item for Fleiss.
    apart = team_agreement({"ann": {"s": [span(0, 10)]}, "bob": {"s": [span(50, 60)]}})
    assert apart["fleiss"] == {"kappa": None, "items": 0, "raters": 2, "kappa_note": NO_BOX_MATCHED_BY_ALL}
    # Everyone labelled every matched box "gold": Fleiss' kappa is 0/0 too.
    same = team_agreement({name: {"s": [span(0, 10)]} for name in ("ann", "bob", "cat")})
    assert same["fleiss"] == {"kappa": None, "items": 1, "raters": 3, "kappa_note": ONE_LABEL}
    assert NO_ITEMS  # (stats.kappa's reason for no items at all; the teams say which items were missing)
