"""Where moved, duplicated and pasted boxes land: always inside the image they label.

Coordinates are image pixels, (0, 0) top left, the image `width` x `height`. A box without a place (a
text-only target, x1 None) is left where it is: it has nothing to clamp.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

DUPLICATE_OFFSET = 10  # pixels right and down: the copy is seen beside its original, not hidden under it


def nudged(boxes: Iterable[Any], dx: float, dy: float, width: float, height: float) -> dict[int, dict]:
    """box id -> its new corners, moved by (dx, dy) but no further than the image's edge; the box keeps
    its size (a box already touching the edge does not move that way)."""
    after = {}
    for box in boxes:
        if box.x1 is None:
            continue
        ddx = min(max(dx, -box.x1), width - box.x2)
        ddy = min(max(dy, -box.y1), height - box.y2)
        after[box.id] = {"x1": box.x1 + ddx, "y1": box.y1 + ddy, "x2": box.x2 + ddx, "y2": box.y2 + ddy}
    return after


def placed(values: dict, dx: float, dy: float, width: float, height: float) -> dict:
    """A copied box's values as a new manual box, shifted by (dx, dy) and kept inside the image: same size
    when it fits (a box copied from a wider screen slides in from the right), cut to the image when it is
    bigger than the image."""
    values = dict(values, source="manual")
    if values.get("x1") is None:
        return values
    w, h = values["x2"] - values["x1"], values["y2"] - values["y1"]
    x1 = min(max(values["x1"] + dx, 0), max(width - w, 0))
    y1 = min(max(values["y1"] + dy, 0), max(height - h, 0))
    values.update(x1=x1, y1=y1, x2=min(x1 + w, width), y2=min(y1 + h, height))
    return values


def duplicated(values: dict, width: float, height: float) -> dict:
    return placed(values, DUPLICATE_OFFSET, DUPLICATE_OFFSET, width, height)


def pasted(values: dict, width: float, height: float) -> dict:
    return placed(values, 0, 0, width, height)
