"""Snap a roughly drawn box onto the element under it.

The annotator's box is a sloppy copy of the element's edges, so a candidate is accepted only
when each of its four edges lies within a tolerance of the corresponding rough edge
(max(10 px, 10 % of the box size)). That rules out the card around a button and the icon
inside a padded button alike; among acceptable candidates the one with the smallest total
edge distance wins. Candidates, in order:
  1. element proposals with a drawn outline (button, input, icon, card);
  2. the extent of the OCR words at least half inside the rough box, or with their centre
     in it (links, tabs);
  3. a box copied from a sibling: one the annotator already placed, else an outlined element
     in the same row or column (neighbours.sibling_boxes);
  4. the extent of non-background pixels inside the rough box grown by 4 px (bare icons).
Text (2) and ink (4) are taken only when the rough box hugs them (on average at most HUG px
outside): a box drawn with a margin around a label means the element has padding.
Nothing acceptable (padding the same colour as the page): a row of an abutting list meets its
neighbours halfway (`stacked`), else the box is centred on its content where the content sits
roughly centred in it (`centre_on`), else it stays as drawn (only clipped).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from desktop_app.ocr.base import Box, Proposal, Word
from desktop_app.ocr.elements import find_rects
from desktop_app.ocr.ink import clip_box, content_extent
from desktop_app.ocr.neighbours import sibling_boxes, stacked_rows

GROW = 4  # px added around the rough box before looking for content
FRAMED = ("button", "input", "icon", "card")
# px: a rough box on average farther than this outside the text or ink around it was drawn around
# padding. Measured on benchmarks/ocr.py: 4-6 px all within 0.001 mean IoU; 3 px starts cutting links.
HUG = 6.0


def tolerance(rough: Box) -> tuple[float, float]:
    w, h = rough[2] - rough[0], rough[3] - rough[1]
    # 10 px covers a hurried drag; measured on benchmarks/ocr.py, wider tolerances start
    # shrinking boxes of padded buttons onto their label more often than they help links
    return max(10.0, 0.1 * w), max(10.0, 0.1 * h)


def edge_distance(rough: Box, candidate: Box) -> float | None:
    """Sum of edge distances, or None when any edge is farther than the tolerance."""
    tx, ty = tolerance(rough)
    d = [abs(candidate[i] - rough[i]) for i in range(4)]
    if d[0] > tx or d[2] > tx or d[1] > ty or d[3] > ty:
        return None
    return sum(d)


def _best(rough: Box, candidates: list[Box]) -> Box | None:
    scored = [(d, c) for c in candidates if (d := edge_distance(rough, c)) is not None]
    return min(scored, key=lambda t: t[0])[1] if scored else None


def _share_inside(box: Box, outer: Box) -> float:
    ix = max(0.0, min(box[2], outer[2]) - max(box[0], outer[0]))
    iy = max(0.0, min(box[3], outer[3]) - max(box[1], outer[1]))
    area = (box[2] - box[0]) * (box[3] - box[1])
    return ix * iy / area if area > 0 else 0.0


def _centre_inside(box: Box, outer: Box) -> bool:
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return outer[0] <= cx <= outer[2] and outer[1] <= cy <= outer[3]


def hugs(rough: Box, candidate: Box) -> bool:
    return ((candidate[0] - rough[0]) + (candidate[1] - rough[1])
            + (rough[2] - candidate[2]) + (rough[3] - candidate[3])) / 4 <= HUG


def snap_box(image: np.ndarray, rough_box: Box, words: list[Word] | None = None,
             proposals: list[Proposal] | None = None, others: Sequence[Box] = ()) -> Box:
    """The element box under rough_box (x1, y1, x2, y2, image pixels); rough_box when unsure."""
    return snap(image, rough_box, words, proposals, others)[0]


def snap(image: np.ndarray, rough_box: Box, words: list[Word] | None = None,
         proposals: list[Proposal] | None = None, others: Sequence[Box] = ()) -> tuple[Box, str]:
    """(box, rule): rule is "element", "text", "sibling", "content", "stacked", "centred" or "none"
    (the rough box, clipped), so the GUI can say what the box snapped to. `others` are the boxes
    already on the screen (not the one being snapped)."""
    h, w = image.shape[:2]
    x1, y1, x2, y2 = (float(v) for v in rough_box)
    rough = clip_box((min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2)), w, h)
    if rough[2] - rough[0] < 2 or rough[3] - rough[1] < 2:
        return rough, "none"
    if proposals is None:
        proposals = [Proposal(b, "card", "", s) for b, s in find_rects(image)]

    outlined = [p.box for p in proposals if p.kind in FRAMED]
    found = _best(rough, outlined)
    if found is not None:
        return clip_box(found, w, h), "element"
    # a word belongs when mostly inside, or when its centre is (a box drawn inside the text)
    inside = [wd.xyxy for wd in words or ()
              if _share_inside(wd.xyxy, rough) >= 0.5 or _centre_inside(wd.xyxy, rough)]
    if inside:
        extent = (min(b[0] for b in inside), min(b[1] for b in inside),
                  max(b[2] for b in inside), max(b[3] for b in inside))
        found = _best(rough, [extent])
        if found is not None and hugs(rough, found):
            return clip_box(found, w, h), "text"
    content = content_extent(image, rough)
    if content is not None:
        # boxes the annotator placed first; then outlined elements, which are often the
        # highlighted member of a row of plain ones (the active tab or nav link)
        candidates = sibling_boxes(image, rough, content, others)
        candidates += sibling_boxes(image, rough, content, outlined, icons=False)
        found = next((c for c in candidates if edge_distance(rough, c) is not None), None)
        if found is not None:
            return clip_box(found, w, h), "sibling"
    grown = (rough[0] - GROW, rough[1] - GROW, rough[2] + GROW, rough[3] + GROW)
    extent = content_extent(image, grown)
    if extent is not None and (found := _best(rough, [extent])) is not None and hugs(rough, found):
        return clip_box(found, w, h), "content"
    if content is not None:
        settled, rule = settle(image, rough, content)
        if settled != rough:
            return clip_box(settled, w, h), rule
    return rough, "none"


def settle(image: np.ndarray, rough: Box, content: Box) -> tuple[Box, str]:
    """The rough box with invisible edges placed from the layout: rows of a list meet halfway
    ("stacked"), otherwise each axis is centred on the content (`centre_on`)."""
    out = list(centre_on(rough, content))
    rows = stacked_rows(image, rough, content, tolerance(rough)[1])
    if rows is not None:
        out[1], out[3] = rows
        return tuple(out), "stacked"
    return tuple(out), "centred"


def centre_on(rough: Box, content: Box) -> Box:
    """Padding nobody can see (same colour as the page) is usually the same on both sides: on each
    axis where the content sits roughly centred in the rough box, average the two margins, which
    halves the hand's error instead of keeping it. Off-centre content (a left-aligned label in a
    wide row) leaves that axis as drawn. No edge moves farther than the snap tolerance: the shift is
    half the margins' difference, and that difference may be at most 2 * tol (allowing only 1 * tol
    measured worse on benchmarks/ocr.py: 0.75 vs 0.77 mean IoU on invisible-padding elements)."""
    out = list(rough)
    for lo, hi, tol in ((0, 2, tolerance(rough)[0]), (1, 3, tolerance(rough)[1])):
        before, after = content[lo] - rough[lo], rough[hi] - content[hi]
        # a zero margin means the ink touches the drawn edge: its true extent is unknown
        if before > 0 and after > 0 and abs(before - after) <= 2 * tol:
            pad = (before + after) / 2
            out[lo], out[hi] = content[lo] - pad, content[hi] + pad
    return tuple(out)
