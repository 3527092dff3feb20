"""ShowUI: Python-dict actions with 0-1 positions, or a bare [x, y] for grounding.

{'action': 'CLICK', 'value': None, 'position': [0.49, 0.42]}. A two-point position [[x1,y1],[x2,y2]]
is a start and an end for SWIPE / SELECT_TEXT / DRAG, and a box (centre used) for everything else.
"""

from __future__ import annotations

from .base import Found, make
from .names import normalize
from .textscan import finite_numbers, first_coords, iter_objects

_TWO_POINT = frozenset({"swipe", "select_text", "drag"})


def _position(position, name: str | None):
    values = finite_numbers(position)
    if not values or len(values) not in (2, 4):
        return None, None
    if len(values) == 4 and name and normalize(name) in _TWO_POINT:
        return values[:2], values[2:]
    return values, None


def parse(text: str) -> Found | None:
    for obj in iter_objects(text):
        if "action" not in obj and "position" not in obj:
            continue
        name = obj.get("action")
        name = str(name) if name is not None else None
        coords, end = _position(obj.get("position"), name)
        value = obj.get("value")
        value = str(value) if isinstance(value, str | int | float) and not isinstance(value, bool) else None
        extra = {}
        if name and normalize(name) in ("scroll", "swipe") and value:
            extra["direction"], value = value, None
        return Found(name=name, coords=coords, end=end, text=value, extra=extra)
    coords = first_coords(text)
    return Found(name=None, coords=coords.values) if coords else None


CONVENTIONS = [
    make(
        "showui", "ShowUI", "rel_1",
        "{'action': 'CLICK', 'value': None, 'position': [x, y]} with 0-1 positions; a bare [x, y] also works.",
        "Answer with one action as a dictionary {'action': ACTION, 'value': VALUE, 'position': [x, y]}, where "
        "x and y are decimals from 0 to 1 relative to the screenshot's width and height. ACTION is CLICK, "
        "INPUT (value = text to type), SELECT (value = option), HOVER, ENTER, SCROLL (value = up/down/left/"
        "right), SELECT_TEXT or SWIPE (position = [[x1, y1], [x2, y2]]), or ANSWER (value = your answer); "
        "use None for an unused value or position.",
        parse,
        ask_instruction="If the task is ambiguous, answer {'action': 'ASK', 'value': '<your question>', 'position': None}.",
    ),
]
