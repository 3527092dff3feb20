"""Vectorised point scoring for large prediction sets (re-scoring whole projects, benchmarks).

Same rule as scoring.judge for points: inclusive bounds, the smallest containing box
decides. A test checks both give the same verdicts.
"""

from __future__ import annotations

import numpy as np

LABEL_CODES = {"gold": 0, "distracted": 1, "other": 2}
INVALID = 3
CODE_NAMES = ("gold", "distracted", "other", "invalid")


def score_points(px: np.ndarray, py: np.ndarray, box_sample: np.ndarray, boxes: np.ndarray,
                 box_label: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """px, py: (N,) predicted points (NaN = no point). boxes: (M, 4) x1 y1 x2 y2, box_sample: (M,) index of
    the prediction each box belongs to, box_label: (M,) label codes. Returns (verdict codes (N,),
    index of the deciding box or -1)."""
    def smallest(hit: np.ndarray) -> np.ndarray:
        return (boxes[hit, 2] - boxes[hit, 0]) * (boxes[hit, 3] - boxes[hit, 1])

    return first_hit_per_sample(px, py, box_sample, boxes, box_label, smallest)


def first_hit_per_sample(px: np.ndarray, py: np.ndarray, box_sample: np.ndarray, boxes: np.ndarray,
                         box_label: np.ndarray, rank) -> tuple[np.ndarray, np.ndarray]:
    """The point-in-box rule both rule sets share: per sample, among the boxes containing its point
    (bounds inclusive), the one with the lowest rank(hit indices) decides, ties by array order.
    Returns (verdict codes (N,), index of the deciding box or -1)."""
    n = len(px)
    x, y = px[box_sample], py[box_sample]
    inside = (x >= boxes[:, 0]) & (x <= boxes[:, 2]) & (y >= boxes[:, 1]) & (y <= boxes[:, 3])
    hit = np.flatnonzero(inside)
    verdict = np.full(n, INVALID, dtype=np.int8)
    chosen = np.full(n, -1, dtype=np.int64)
    if hit.size:
        order = np.lexsort((hit, rank(hit), box_sample[hit]))  # by sample, then rank, then array order
        ordered = hit[order]
        samples = box_sample[ordered]
        first = np.ones(len(ordered), dtype=bool)
        first[1:] = samples[1:] != samples[:-1]
        winners = ordered[first]
        verdict[box_sample[winners]] = box_label[winners]
        chosen[box_sample[winners]] = winners
    return verdict, chosen
