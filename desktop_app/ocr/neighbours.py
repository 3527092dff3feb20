"""Where an invisible edge lies, judged from what surrounds the element.

Padding in the page's own colour leaves no pixel to snap to (a nav link in a 34 px strip, a
chat row, a toolbar icon in a 40 px hit area). Two things around such an element often say
where its edges are:
  - boxes already placed on the screen: tabs, nav links, list rows and toolbar icons repeat
    their siblings' padding, and siblings in a row share a top and bottom, siblings in a
    column a left and right;
  - the rows of a vertical list usually abut: when the nearest ink above and below the
    content is equally far away, the rows meet halfway.
Both only propose; snap.py accepts a proposal when it lies near the annotator's rough box.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from desktop_app.ocr.base import Box
from desktop_app.ocr.ink import content_extent, ink_mask, int_box, ring_background

NEAR = 2.0  # px: content of siblings in a row is centred on the same line to within this
ICON = 32  # px: content no larger than this, and not a wide line of text, is an icon


def _overlap(a0: float, a1: float, b0: float, b1: float) -> float:
    return max(0.0, min(a1, b1) - max(a0, b0))


def _icon(width: float, height: float) -> bool:
    # a short word is as small as an icon but twice as wide as it is tall; a "⋮" is taller than wide
    return max(width, height) <= ICON and width <= 2 * height


def sibling_boxes(image: np.ndarray, rough: Box, content: Box, others: Sequence[Box],
                  icons: bool = True) -> list[Box]:
    """Boxes for the element whose ink is `content`, each copied from a sibling in `others`,
    nearest sibling first. icons=False skips icon siblings (for outlined proposals: the outlined
    button next to a bare icon is seldom the icon's sibling)."""
    cw, ch = content[2] - content[0], content[3] - content[1]
    if not icons and _icon(cw, ch):
        return []
    found: list[tuple[float, Box]] = []
    for other in others:
        # side by side, not nested: the container around the element is no sibling of it
        in_row = (_overlap(rough[1], rough[3], other[1], other[3]) > 0
                  and _overlap(content[0], content[2], other[0], other[2]) == 0)
        in_column = (_overlap(rough[0], rough[2], other[0], other[2]) > 0.5 * (other[2] - other[0])
                     and _overlap(content[1], content[3], other[1], other[3]) == 0)
        if not (in_row or in_column):
            continue
        ink = content_extent(image, other)
        if ink is None:
            continue
        iw, ih = ink[2] - ink[0], ink[3] - ink[1]
        same_line = abs((content[1] + content[3]) - (ink[1] + ink[3])) / 2 <= NEAR
        icon = _icon(cw, ch) and _icon(iw, ih)
        if in_row and same_line and abs(ch - ih) <= max(4.0, 0.3 * max(ch, ih)):
            if icon:
                # icons differ in width (a "⋮" against a magnifier) but sit in equal hit areas
                mid, half = (content[0] + content[2]) / 2, (other[2] - other[0]) / 2
                x1, x2 = mid - half, mid + half
            else:
                x1, x2 = content[0] - (ink[0] - other[0]), content[2] + (other[2] - ink[2])
            found.append((abs((content[0] + content[2]) - (ink[0] + ink[2])) / 2, (x1, other[1], x2, other[3])))
        if in_column and abs(content[0] - ink[0]) <= NEAR:
            box = (other[0], content[1] - (ink[1] - other[1]), other[2], content[3] + (other[3] - ink[3]))
            found.append((abs((content[1] + content[3]) - (ink[1] + ink[3])) / 2, box))
    found.sort(key=lambda t: t[0])
    return [box for _, box in found]


def ink_beyond(image: np.ndarray, content: Box, side: int, reach: int, background: np.ndarray) -> float | None:
    """The edge of the nearest ink outside `content` on one side (0 left, 1 top, 2 right, 3 bottom),
    looking along the content's own rows or columns up to `reach` px; None when there is none."""
    h, w = image.shape[:2]
    x1, y1, x2, y2 = int_box(content, w, h)
    limit = (x1, y1, w - x2, h - y2)[side]
    reach = min(reach, limit)
    if reach <= 0 or x2 <= x1 or y2 <= y1:
        return None
    if side == 0:
        strip, start = image[y1:y2, x1 - reach:x1], x1 - reach
    elif side == 1:
        strip, start = image[y1 - reach:y1, x1:x2], y1 - reach
    elif side == 2:
        strip, start = image[y1:y2, x2:x2 + reach], x2
    else:
        strip, start = image[y2:y2 + reach, x1:x2], y2
    hits = np.flatnonzero(ink_mask(strip, background).any(axis=1 if side % 2 else 0))
    if hits.size == 0:
        return None
    return float(start + hits[-1] + 1) if side < 2 else float(start + hits[0])


def stacked_rows(image: np.ndarray, rough: Box, content: Box, tol: float) -> tuple[float, float] | None:
    """(top, bottom) of a row in a list of abutting rows: halfway to the ink above and below, when
    both are equally far (within 3 px or 20 %) and both halfway lines lie within tol of the rough edges."""
    h, w = image.shape[:2]
    background = ring_background(image, int_box(content, w, h))
    # the neighbour's ink is as far again beyond the edge as this content is inside it
    above = ink_beyond(image, content, 1, int(2 * (abs(content[1] - rough[1]) + tol)) + 1, background)
    below = ink_beyond(image, content, 3, int(2 * (abs(rough[3] - content[3]) + tol)) + 1, background)
    if above is None or below is None:
        return None
    gap_above, gap_below = content[1] - above, below - content[3]
    if abs(gap_above - gap_below) > max(3.0, 0.2 * max(gap_above, gap_below)):
        return None
    top, bottom = content[1] - gap_above / 2, content[3] + gap_below / 2
    if abs(top - rough[1]) > tol or abs(bottom - rough[3]) > tol:
        return None
    return top, bottom
