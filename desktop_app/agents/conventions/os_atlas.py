"""OS-Atlas: Base grounding models and the Pro action model, all on a 0-1000 grid.

Base-7B (Qwen2-VL): <|box_start|>(x1,y1),(x2,y2)<|box_end|>. Base-4B (InternVL): [[x,y]] or [[x1,y1,x2,y2]].
Pro: `thoughts:\n...\nactions:\nCLICK <point>[[101, 872]]</point>`, TYPE [text], SCROLL [UP],
PRESS_BACK, PRESS_HOME, ENTER, IMPOSSIBLE, COMPLETE (plus the mobile extras below).
"""

from __future__ import annotations

import re

from .base import Found, make
from .textscan import action_part, coord_value, extract_thought, first_coords

_COMMANDS = frozenset({
    "CLICK", "DOUBLE_CLICK", "RIGHT_CLICK", "LONG_PRESS", "TYPE", "SCROLL", "SWIPE", "PRESS_BACK", "PRESS_HOME",
    "PRESS_RECENT", "ENTER", "IMPOSSIBLE", "COMPLETE", "WAIT", "OPEN_APP", "HOVER",
})
# Upper case only: that is the trained syntax, and it keeps prose ("Click the ...") from posing as a command.
_COMMAND_LINE = re.compile(r"^\s*([A-Z][A-Z_]+)\b(.*)$")
# Character classes instead of .*? keep a long run of unclosed tags linear.
_POINT = re.compile(r"<point>[^<]*</point>|\[\[[^\[\]]*\]\]")
_BRACKET_ARG = re.compile(r"^\s*\[(.*)\]\s*$")
_TEXTUAL = {"TYPE": "text", "SCROLL": "direction", "SWIPE": "direction", "OPEN_APP": "app"}


def parse(text: str) -> Found | None:
    thought = extract_thought(text)
    part, _ = action_part(text)
    for line in part.splitlines():
        m = _COMMAND_LINE.match(line)
        if not m or m.group(1) not in _COMMANDS:
            continue
        name, rest = m.group(1), m.group(2)
        point = _POINT.search(rest)
        extra = {"thought": thought}
        typed = None
        arg = _BRACKET_ARG.match(_POINT.sub("", rest))
        if arg and name in _TEXTUAL:
            value = arg.group(1).strip()
            if _TEXTUAL[name] == "text":
                typed = value
            else:
                extra[_TEXTUAL[name]] = value
        return Found(name=name, coords=coord_value(point.group()) if point else None, text=typed, extra=extra)
    coords = first_coords(part)
    return Found(name=None, coords=coords.values, extra={"thought": thought}) if coords else None


CONVENTIONS = [
    make(
        "os-atlas", "OS-Atlas (Base / Pro)", "rel_1000",
        "Boxes <|box_start|>(x1,y1),(x2,y2)<|box_end|>, [[x,y]], or Pro commands like CLICK <point>[[x, y]]</point>; 0-1000.",
        "Answer in this form:\nthoughts:\n<your reasoning>\nactions:\n<one command>\n\nCommands: "
        "CLICK <point>[[x, y]]</point>, LONG_PRESS <point>[[x, y]]</point>, TYPE [text to type], "
        "SCROLL [UP | DOWN | LEFT | RIGHT], OPEN_APP [app name], PRESS_BACK, PRESS_HOME, ENTER, WAIT, "
        "IMPOSSIBLE, COMPLETE. x and y are integers from 0 to 1000 relative to the screenshot's width and height.",
        parse,
        ask_instruction="If the task is ambiguous, use the command ASK [your question].",
    ),
]
