"""Where to put a small label on the canvas (a box caption, an agent's verdict tag) so it hides least.

Pure geometry, no Qt: rectangles are (x1, y1, x2, y2) tuples in one coordinate system (the canvas
lays labels out in view pixels at the current zoom). A caller lists candidate positions in order of
preference and what is in the way, each obstacle with a weight (the cost of covering one square
pixel of it); the cheapest candidate wins and ties go to the earlier one, so "above the box" stays
the rule and the other places are only taken when above hides more.

InkMap measures the screenshot itself: text, icons and borders are where neighbouring pixels differ,
so a label over plain background hides nothing, whether or not that content has a box.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy is imported by the functions that use it: a launch paints its first screen without it
    import numpy as np  # (50 ms; ADR 0071)


Rect = tuple[float, float, float, float]  # x1, y1, x2, y2

GRID_CELL = 64.0  # obstacle buckets; a label is a few cells at most
BIG_CELLS = 64  # obstacles spanning more cells than this are checked for every query instead
INK_STEP = 24  # grey-level jump between neighbouring pixels that counts as drawn content
RANK_COST = 1.0  # per place in the preference order: only breaks ties


def overlap(a: Rect, b: Rect) -> float:
    """Area of the intersection of two rectangles (0 when they only touch)."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def area(rect: Rect) -> float:
    return max(rect[2] - rect[0], 0.0) * max(rect[3] - rect[1], 0.0)


def contains(outer: Rect, inner: Rect) -> bool:
    return outer[0] <= inner[0] and outer[1] <= inner[1] and outer[2] >= inner[2] and outer[3] >= inner[3]


def outside(rect: Rect, bounds: Rect) -> float:
    """Area of `rect` that lies outside `bounds`."""
    return area(rect) - overlap(rect, bounds)


def sized(x: float, y: float, w: float, h: float) -> Rect:
    return (x, y, x + w, y + h)


@dataclass(frozen=True)
class _Obstacle:
    rect: Rect
    weight: float
    is_area: bool  # a box's area: ignored for labels of boxes it contains (they cannot leave it)


class Obstacles:
    """Weighted rectangles, bucketed in a coarse grid so that a query looks at its neighbours only."""

    def __init__(self):
        self._items: list[_Obstacle] = []
        self._grid: dict[tuple[int, int], list[int]] = {}
        self._big: list[int] = []

    def __len__(self) -> int:
        return len(self._items)

    def add(self, rect: Rect, weight: float, is_area: bool = False) -> None:
        if area(rect) <= 0 or weight <= 0:
            return
        index = len(self._items)
        self._items.append(_Obstacle(rect, weight, is_area))
        cells = _cells(rect)
        if len(cells) > BIG_CELLS:
            self._big.append(index)
            return
        for cell in cells:
            self._grid.setdefault(cell, []).append(index)

    def add_all(self, rects: Iterable[Rect], weight: float, is_area: bool = False) -> None:
        for rect in rects:
            self.add(rect, weight, is_area)

    def cost(self, rect: Rect, owner: Rect | None = None) -> float:
        """Weighted area of the obstacles under `rect`. Areas that contain `owner` (the labelled box
        itself and the boxes around it) are skipped: every place near the box lies in them anyway."""
        indices: set[int] = set(self._big)
        for cell in _cells(rect):
            indices.update(self._grid.get(cell, ()))
        x1, y1, x2, y2 = rect
        total = 0.0
        for index in indices:  # overlap() inlined: this loop is most of the time a caption layout takes
            item = self._items[index]
            o = item.rect
            w = min(x2, o[2]) - max(x1, o[0])
            h = min(y2, o[3]) - max(y1, o[1])
            if w > 0 and h > 0 and not (item.is_area and owner is not None and contains(o, owner)):
                total += item.weight * w * h
        return total


def _cells(rect: Rect) -> list[tuple[int, int]]:
    x1, y1 = int(rect[0] // GRID_CELL), int(rect[1] // GRID_CELL)
    x2, y2 = int(rect[2] // GRID_CELL), int(rect[3] // GRID_CELL)
    return [(x, y) for x in range(x1, x2 + 1) for y in range(y1, y2 + 1)]


def cheapest(candidates: list[Rect], cost: Callable[[Rect], float], good_enough: float = 0.0) -> int:
    """Index of the candidate with the lowest cost; the preference order breaks ties. The search stops
    at the first candidate costing at most `good_enough` (what hiding next to nothing costs)."""
    best, best_cost = 0, float("inf")
    for rank, rect in enumerate(candidates):
        if best_cost <= rank * RANK_COST + good_enough:
            break  # the usual case: above the box, with nothing (or next to nothing) in the way
        value = cost(rect) + rank * RANK_COST
        if value < best_cost:
            best, best_cost = rank, value
    return best


def caption_candidates(box: Rect, w: float, h: float, lift: float = 0.0) -> tuple[list[Rect], list[Rect]]:
    """(outside, inside) places for a w x h caption of `box`: above it, then below, each aligned left
    then right; then its inside corners. `lift` keeps outside places clear of the box's handles."""
    x1, y1, x2, y2 = box
    above, below = y1 - lift - h, y2 + lift
    outer = [sized(x1, above, w, h), sized(x1, below, w, h), sized(x2 - w, above, w, h), sized(x2 - w, below, w, h)]
    inner = [sized(x1, y1, w, h), sized(x1, y2 - h, w, h), sized(x2 - w, y1, w, h), sized(x2 - w, y2 - h, w, h)]
    return outer, inner


def tag_candidates_at_point(x: float, y: float, w: float, h: float, reach: float) -> list[Rect]:
    """Places for a w x h tag around a marker at (x, y) whose arms reach `reach` pixels: right, left,
    then the four diagonals, then straight above and below."""
    mid = y - h / 2
    return [sized(x + reach, mid, w, h), sized(x - reach - w, mid, w, h),
            sized(x + reach / 2, y - reach - h, w, h), sized(x + reach / 2, y + reach, w, h),
            sized(x - reach / 2 - w, y - reach - h, w, h), sized(x - reach / 2 - w, y + reach, w, h),
            sized(x - w / 2, y - reach - h, w, h), sized(x - w / 2, y + reach, w, h)]


def tag_candidates_at_box(box: Rect, w: float, h: float, gap: float) -> list[Rect]:
    """Places for a w x h tag next to an outlined box: beside its top corners, then above and below."""
    x1, y1, x2, y2 = box
    return [sized(x2 + gap, y1, w, h), sized(x1 - gap - w, y1, w, h),
            sized(x2 - w, y1 - gap - h, w, h), sized(x2 - w, y2 + gap, w, h),
            sized(x1, y1 - gap - h, w, h), sized(x1, y2 + gap, w, h)]


class InkMap:
    """How much drawn content lies under a rectangle of the screenshot, read from a summed-area table
    of "ink" cells, so a query costs four reads. A cell is a block of pixels whose grey levels span
    more than INK_STEP: text strokes, icons and borders; plain background is not ink.

    ink: one bool per cell; factor: cells per image pixel (<= 1)."""

    def __init__(self, ink: np.ndarray, factor: float):
        import numpy as np
        self.factor = factor
        self._table = np.zeros((ink.shape[0] + 1, ink.shape[1] + 1), dtype=np.int32)
        np.cumsum(ink, axis=0, dtype=np.int32, out=self._table[1:, 1:])
        np.cumsum(self._table[1:, 1:], axis=1, out=self._table[1:, 1:])

    @classmethod
    def of_channel(cls, channel: np.ndarray, max_width: int) -> InkMap:
        """From one colour channel (2-D uint8, any strides): blocks of 2x2 pixels, merged again until
        the map is at most `max_width` cells wide. A block's span catches a one-pixel stroke that
        sampling every other pixel would miss, and takes a few milliseconds for a 1280 x 800 screen."""
        import numpy as np
        hi = lo = channel
        factor = 1.0
        while True:
            h, w = hi.shape[0] // 2 * 2, hi.shape[1] // 2 * 2
            if h == 0 or w == 0:
                break
            hi, lo = hi[:h, :w], lo[:h, :w]
            hi = np.maximum(np.maximum(hi[0::2, 0::2], hi[1::2, 0::2]), np.maximum(hi[0::2, 1::2], hi[1::2, 1::2]))
            lo = np.minimum(np.minimum(lo[0::2, 0::2], lo[1::2, 0::2]), np.minimum(lo[0::2, 1::2], lo[1::2, 1::2]))
            factor /= 2
            if hi.shape[1] <= max_width:
                break
        return cls((hi - lo) > INK_STEP, factor)

    def pixels(self, rect: Rect) -> float:
        """Ink under `rect` (image pixels), in square image pixels."""
        rows, cols = self._table.shape[0] - 1, self._table.shape[1] - 1
        f = self.factor
        x1, y1 = min(max(int(rect[0] * f), 0), cols), min(max(int(rect[1] * f), 0), rows)
        x2, y2 = min(max(math.ceil(rect[2] * f), 0), cols), min(max(math.ceil(rect[3] * f), 0), rows)
        if x2 <= x1 or y2 <= y1:
            return 0.0
        at = self._table.item  # plain ints: numpy scalar indexing costs more than the sum
        return (at(y2, x2) - at(y1, x2) - at(y2, x1) + at(y1, x1)) / (f * f)

    def pixels_scaled(self, rect: Rect, scale: float) -> float:
        """Ink under `rect` given in view pixels at zoom `scale`, in square view pixels."""
        inv = 1.0 / max(scale, 1e-9)
        return self.pixels((rect[0] * inv, rect[1] * inv, rect[2] * inv, rect[3] * inv)) * scale * scale
