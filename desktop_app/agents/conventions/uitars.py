"""UI-TARS: `Thought: ...` then `Action: click(start_box='(x,y)')`.

v1 (7B / 72B-DPO) answers on a 0-1000 grid; UI-TARS-1.5 switched to pixels of the smart-resized
image with the same syntax (UI-TARS #157/#119: applying /1000 to 1.5 lands clicks at half scale),
hence two conventions over one parser. Accepted forms of the box argument: with or without
<|box_start|>/<|box_end|> (servers strip them), 2 numbers or a 4-number box, and the newer
`point='<point>x y</point>'` / `start_point=` / `end_point=` spelling.
"""

from __future__ import annotations

from desktop_app.agents.geometry import UITARS15_RESIZE

from .base import Found, make
from .names import known, normalize
from .textscan import action_part, coord_value, extract_thought, find_call, first_coords, first_str

_NAMES = frozenset({
    "click", "left_single", "left_double", "right_single", "drag", "select", "hotkey", "press", "keydown",
    "keyup", "release", "type", "scroll", "wait", "finished", "call_user", "long_press", "open_app",
    "press_home", "press_back", "hover", "mouse_move", "move_to",
})
# UI-TARS `select(start_box, end_box)` drags over text; it is not a drop-down choice.
_OVERRIDES = {"select": "drag"}


def _accept(name: str) -> bool:
    return normalize(name) in _NAMES or known(name)


def parse(text: str) -> Found | None:
    thought = extract_thought(text)
    extra = {"thought": thought}
    part, labelled = action_part(text)
    # After "Action:" the first call is the action whatever its name (an unknown name becomes "other");
    # without the label only known names count, so prose like "the (close) button" is not a call.
    call = find_call(part, None if labelled else _accept)
    if call is None:
        # The grounding prompt ("Output only the coordinate of one point") gets a bare "(x,y)".
        coords = first_coords(part)
        return Found(name=None, coords=coords.values, extra=extra) if coords else None
    kw = call.kwargs
    name = normalize(call.name)
    start = first_str(kw, "start_box", "point", "start_point")
    if start is None and name not in ("type", "hotkey", "press", "keydown", "keyup", "release", "open_app"):
        start = call.positional  # click('(1,2)') / click(100, 200)
    end = first_str(kw, "end_box", "end_point")
    extra.update(direction=first_str(kw, "direction"), key=first_str(kw, "key", "hotkey"),
                 app=first_str(kw, "app_name"), time=first_str(kw, "time"))
    typed = first_str(kw, "content")
    if typed is None and name == "type":
        typed = call.positional
    if extra["key"] is None and name in ("hotkey", "press", "keydown", "keyup", "release"):
        extra["key"] = call.positional
    return Found(name=call.name, coords=coord_value(start), end=coord_value(end), text=typed, extra=extra,
                 overrides=_OVERRIDES)


_ACTIONS = (
    "click(start_box='<|box_start|>(x1,y1)<|box_end|>')\n"
    "left_double(start_box='<|box_start|>(x1,y1)<|box_end|>')\n"
    "right_single(start_box='<|box_start|>(x1,y1)<|box_end|>')\n"
    "drag(start_box='<|box_start|>(x1,y1)<|box_end|>', end_box='<|box_start|>(x3,y3)<|box_end|>')\n"
    "hotkey(key='')\n"
    "type(content='')  # end the content with \\n to submit\n"
    "scroll(start_box='<|box_start|>(x1,y1)<|box_end|>', direction='down or up or right or left')\n"
    "wait()\n"
    "finished()\n"
    "call_user()  # when the task cannot be solved or you need the user"
)
_ASK = ("If the task is ambiguous and you need the user to clarify, answer Action: call_user() and put "
        "your question to the user in the Thought.")

CONVENTIONS = [
    make(
        "uitars", "UI-TARS (v1)", "rel_1000",
        "Thought/Action lines, click(start_box='(x,y)') on a 0-1000 grid; tokens optional, boxes -> centre.",
        "Answer in exactly this form:\nThought: <what you see and why you act>\nAction: <one action>\n\n"
        "Actions you can use:\n" + _ACTIONS + "\n\nCoordinates are integers from 0 to 1000, relative to the "
        "screenshot's width (x) and height (y).",
        parse, ask_instruction=_ASK,
    ),
    make(
        "uitars-1.5", "UI-TARS 1.5", "abs_px_resized",
        "Same syntax as UI-TARS v1, but x,y are pixels of the smart-resized image (factor 28).",
        "Answer in exactly this form:\nThought: <what you see and why you act>\nAction: <one action>\n\n"
        "Actions you can use:\n" + _ACTIONS + "\n\nCoordinates are integer pixel positions (x, y) in the "
        "screenshot as you see it.",
        parse, resize_defaults=UITARS15_RESIZE, ask_instruction=_ASK,
    ),
]
