"""Generic point JSON for models without a trained syntax (GPT-4o, Claude, Gemini, AndroidControl data).

{"action_type": "click", "point": [x, y]}, {"action_type": "click", "x": 561, "y": 2011},
{"action_type": "type", "text": "..."}, a "box"/"bbox" of 4 numbers (centre used), or a bare [x, y].
One parser, three spaces: original pixels, 0-1 fractions, 0-1000 grid.
"""

from __future__ import annotations

from .base import Found, make
from .textscan import finite_numbers, first_coords, first_str, iter_objects

_POINT_KEYS = ("point", "coordinate", "coordinates", "coords", "position", "click_point", "box", "bbox")


def _coords(obj: dict):
    for key in _POINT_KEYS:
        if obj.get(key) is not None:
            return finite_numbers(obj[key])
    if "x" in obj and "y" in obj:
        return finite_numbers([obj["x"], obj["y"]])
    return None


def parse(text: str) -> Found | None:
    for obj in iter_objects(text):
        name = first_str(obj, "action_type", "action", "type")
        coords = _coords(obj)
        if name is None and coords is None:
            continue
        end = obj.get("end_point", obj.get("end"))
        extra = {"direction": first_str(obj, "direction"), "app": first_str(obj, "app_name", "app"),
                 "key": first_str(obj, "key")}
        return Found(name=name, coords=coords if coords and len(coords) in (2, 4) else None,
                     end=finite_numbers(end) if end is not None else None,
                     text=first_str(obj, "text", "content", "value"), extra=extra)
    coords = first_coords(text)
    return Found(name=None, coords=coords.values) if coords else None


_BASE = ('Answer with one JSON object, e.g. {"action_type": "click", "point": [x, y]}. Other actions: '
         '{"action_type": "double_click" | "right_click" | "long_press" | "hover", "point": [x, y]}, '
         '{"action_type": "type", "point": [x, y], "text": "..."}, {"action_type": "scroll", "direction": '
         '"up" | "down" | "left" | "right"}, {"action_type": "key", "key": "enter"}, {"action_type": '
         '"open_app", "app_name": "..."}, {"action_type": "press_back"}, {"action_type": "press_home"}, '
         '{"action_type": "wait"}, {"action_type": "finished"}. ')
_ASK = 'If the task is ambiguous, answer {"action_type": "ask", "question": "<your question>"} instead.'

CONVENTIONS = [
    make("point-px", "Generic point (pixels)", "abs_px_original",
         "Generic JSON point in pixels of the original screenshot.",
         _BASE + "x and y are integer pixels of the screenshot, origin at the top-left corner.", parse,
         ask_instruction=_ASK),
    make("point-rel1", "Generic point (0-1)", "rel_1",
         "Generic JSON point as 0-1 fractions of width and height.",
         _BASE + "x and y are decimals from 0 to 1: the fraction of the screenshot's width and height.", parse,
         ask_instruction=_ASK),
    make("point-rel1000", "Generic point (0-1000)", "rel_1000",
         "Generic JSON point on a 0-1000 grid.",
         _BASE + "x and y are integers from 0 to 1000 relative to the screenshot's width and height.", parse,
         ask_instruction=_ASK),
]
