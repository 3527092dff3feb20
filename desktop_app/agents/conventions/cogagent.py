"""CogAgent: the 2023 18B model and CogAgent-9B-20241220.

2023: `Grounded Operation:[link] Sign In -> CLICK at the box [[462,43,501,60]]` (or `[[x,y]]`), three-digit
numbers. EnvDistraction divides them by 999 (ScreenSpot-Pro by 1000); we follow EnvDistraction, whose
benchmark we reproduce, so the space is rel_999.
2024: `Action: <description>` / `Grounded Operation: CLICK(box=[[219,186,311,207]], element_type='...',
element_info='...')` / `<<一般操作>>` (sensitivity tag), on a 0-1000 grid.
"""

from __future__ import annotations

import re

from .base import Found, make
from .names import normalize
from .textscan import NUM, coord_value, find_call, first_coords, first_str

_OPERATION = re.compile(r"(?is)grounded\s+operation\s*[:：]\s*(.*)")
_DOUBLE_BRACKET = re.compile(rf"\[\[\s*{NUM}\s*(?:,\s*{NUM}\s*){{1,3}}\]\]")
_VERB_AFTER_ARROW = re.compile(r"->\s*([A-Za-z_]+)")
_VERB = re.compile(r"\b([A-Z][A-Z_]{2,})\b")
_TYPED = re.compile(r"(?is)\bTYPE\s*:\s*(.*?)\s*(?:\bat the box\b|$)")
_TARGET = re.compile(r"^\s*\[([^\]]*)\]\s*(.*?)\s*->")


def _operation(text: str) -> str:
    m = _OPERATION.search(text)
    return m.group(1).strip() if m else text


def parse_2023(text: str) -> Found | None:
    op = _operation(text)
    line = op.splitlines()[0] if op.strip() else op
    m = _DOUBLE_BRACKET.search(op)
    coords = coord_value(m.group()) if m else None
    if coords is None and (loose := first_coords(op)):
        coords = loose.values
    verb = _VERB_AFTER_ARROW.search(line) or _VERB.search(line)
    if verb is None:
        return Found(name=None, coords=coords) if coords else None
    extra = {}
    if target := _TARGET.search(line):
        extra["element_type"], extra["label"] = target.group(1).strip() or None, target.group(2) or None
    typed = _TYPED.search(line)
    return Found(name=verb.group(1), coords=coords, text=typed.group(1) if typed else None, extra=extra)


_NAMES_2024 = frozenset({
    "click", "double_click", "right_click", "hover", "type", "scroll_up", "scroll_down", "scroll_left",
    "scroll_right", "key_press", "launch", "end", "quote_text", "quote_clipboard", "text_fb", "llm",
    "longpress", "long_press", "gesture", "wait", "select",
})
_ACTION_DESC = re.compile(r"(?im)^\s*Action\s*[:：]\s*(.+)$")
_SENSITIVITY = re.compile(r"<<([^<>]+)>>")


def parse_2024(text: str) -> Found | None:
    op = _operation(text)
    extra = {}
    if m := _ACTION_DESC.search(text):
        extra["action_desc"] = m.group(1).strip()
    if m := _SENSITIVITY.search(text):
        extra["sensitivity"] = m.group(1).strip()
    call = find_call(op, lambda n: normalize(n) in _NAMES_2024)
    if call is None:
        coords = first_coords(op)
        return Found(name=None, coords=coords.values, extra=extra) if coords else None
    kw = call.kwargs
    extra.update(element_type=first_str(kw, "element_type"), element_info=first_str(kw, "element_info"),
                 key=first_str(kw, "key"), app=first_str(kw, "app"), step_count=first_str(kw, "step_count"))
    return Found(name=call.name, coords=coord_value(first_str(kw, "box")), text=first_str(kw, "text"), extra=extra)


CONVENTIONS = [
    make(
        "cogagent", "CogAgent-18B (2023)", "rel_999",
        "Grounded Operation: ... -> CLICK at the box [[x1,y1,x2,y2]] (or [[x,y]]), 000-999 grid, box -> centre.",
        "End your answer with one line 'Grounded Operation: [<element kind>] <element text> -> <ACTION> at the "
        "box [[x1,y1,x2,y2]]', where ACTION is CLICK or TYPE: <text>, and the four numbers are three-digit "
        "integers from 000 to 999 relative to the screenshot's width and height.",
        parse_2023,
        ask_instruction="If the task is ambiguous, end with 'Grounded Operation: ASK: <your question>' instead.",
    ),
    make(
        "cogagent-2024", "CogAgent-9B-20241220", "rel_1000",
        "Action-Operation-Sensitive format: CLICK(box=[[x1,y1,x2,y2]], element_type=..., element_info=...), 0-1000.",
        "Answer in Action-Operation-Sensitive format:\nAction: <what you will do>\nGrounded Operation: "
        "<OPERATION>\n<<sensitivity>>\nOperations: CLICK(box=[[x1,y1,x2,y2]], element_type='...', "
        "element_info='...'), DOUBLE_CLICK(...), RIGHT_CLICK(...), HOVER(...), TYPE(box=[[...]], text='...', "
        "element_type='...', element_info='...'), SCROLL_DOWN(box=[[...]], step_count=5, ...), SCROLL_UP(...), "
        "KEY_PRESS(key='Enter'), LAUNCH(app='...'), END(). Box numbers are integers from 0 to 1000 relative "
        "to the screenshot's width and height.",
        parse_2024,
        ask_instruction="If the task is ambiguous, answer 'Grounded Operation: ASK(question=\"<your question>\")'.",
    ),
]
