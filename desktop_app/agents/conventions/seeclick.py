"""SeeClick: points as 0-1 fractions.

Grounding: `(0.49,0.40)` (2 numbers = point, 4 = box -> centre). Its AITW / Mind2Web fine-tunes answer a
Python dict with numeric action codes: {"action_type": 4, "click_point": (0.49, 0.40)},
{"action_type": 3, "typed_text": "..."} / {"action_type": 3, "click_point": ..., "value": "..."}.
"""

from __future__ import annotations

from .base import Found, make
from .textscan import finite_numbers, first_coords, first_str, iter_objects

# AITW codes (3 TYPE, 4 DUAL_POINT, 5 BACK, 6 HOME, 7 ENTER, 10 COMPLETE, 11 IMPOSSIBLE) and
# Mind2Web's 2 SELECT; they do not collide.
_CODES = {2: "select", 3: "type", 4: "click", 5: "press_back", 6: "press_home", 7: "key", 10: "finished", 11: "other"}


def parse(text: str) -> Found | None:
    for obj in iter_objects(text):
        if "action_type" not in obj and "click_point" not in obj:
            continue
        code = obj.get("action_type")
        action_type = None
        if isinstance(code, int) and not isinstance(code, bool):
            action_type = _CODES.get(code, "other")
        elif code is None:
            action_type = "click"
        return Found(name=None if code is None else str(code), coords=finite_numbers(obj.get("click_point")),
                     text=first_str(obj, "typed_text", "value"), action_type=action_type,
                     extra={"key": "enter" if code == 7 else None})
    coords = first_coords(text)
    return Found(name=None, coords=coords.values) if coords else None


CONVENTIONS = [
    make(
        "seeclick", "SeeClick", "rel_1",
        "A point (x,y) as 0-1 fractions of width and height; 4 numbers are a box (centre used).",
        "Answer only with the position of the element as (x,y), where x and y are decimals from 0 to 1 "
        "giving the fraction of the screenshot's width and height, e.g. (0.49,0.40).",
        parse,
        ask_instruction="If the task is ambiguous, answer ASK: <your question> instead of a position.",
    ),
]
