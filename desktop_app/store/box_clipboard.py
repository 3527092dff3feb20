"""Boxes on the clipboard: what a copy puts there, and what a paste accepts.

The clipboard is shared with every program on the machine, so its text is checked like a file's: anything
that is not boxes copied by a ScreenLab window (of this or another project) reads as None, never as an
error. A label name is not checked here: the store refuses one the project lacks and says which it has.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

from desktop_app.store.models import ACTION_TYPES

CLIPBOARD_KEY = "screenlab/boxes"
COPIED_FIELDS = ("x1", "y1", "x2", "y2", "label", "action_type", "element_text", "type_text", "meta")
MAX_CLIPBOARD_CHARS = 10_000_000  # a bigger text is no copy of boxes: not parsed at all
COORDS = ("x1", "y1", "x2", "y2")


def copied(boxes: Iterable[Any]) -> list[dict]:
    """What copying these boxes keeps of each (not the step, the author or the source)."""
    return [{k: getattr(box, k) for k in COPIED_FIELDS} for box in boxes]


def clipboard_text(values: list[dict]) -> str:
    return json.dumps({CLIPBOARD_KEY: values})


def _number(value: object) -> bool:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer too large for a float: no coordinate
        return False


def _checked(box: dict) -> dict | None:
    coords = [box.get(k) for k in COORDS]
    if all(c is None for c in coords):
        pass  # a box without a place (a text-only target)
    elif not all(_number(c) for c in coords) or coords[0] > coords[2] or coords[1] > coords[3]:
        return None
    action = box.get("action_type", "click")
    if not isinstance(box.get("label"), str) or not box["label"] or not isinstance(action, str) \
            or action not in ACTION_TYPES:
        return None
    texts = [box.get(k, "") for k in ("element_text", "type_text")]
    meta = box.get("meta", {})
    if not all(isinstance(t, str) for t in texts) or not isinstance(meta, dict):
        return None
    return {**dict(zip(COORDS, coords, strict=True)), "label": box["label"], "action_type": action,
            "element_text": texts[0], "type_text": texts[1], "meta": meta}


def boxes_from_clipboard(text: str) -> list[dict] | None:
    """The boxes a ScreenLab window copied, with only the fields a copy keeps; None for anything else
    (one bad box refuses the whole paste: half a paste would be a surprise)."""
    if not isinstance(text, str) or not text.lstrip().startswith("{") or len(text) > MAX_CLIPBOARD_CHARS:
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    boxes = data.get(CLIPBOARD_KEY) if isinstance(data, dict) else None
    if not isinstance(boxes, list) or not all(isinstance(b, dict) for b in boxes):
        return None
    valid = [_checked(box) for box in boxes]
    return None if any(v is None for v in valid) else valid
