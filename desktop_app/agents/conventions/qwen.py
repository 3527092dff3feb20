"""Qwen2-VL, Qwen2.5-VL and Qwen3-VL.

Qwen2-VL grounds with <|object_ref_start|>label<|object_ref_end|><|box_start|>(x1,y1),(x2,y2)<|box_end|>
on a 0-1000 grid. Served through vLLM the special tokens vanish and the label runs into the box
("图片(460,66),(683,252)", vLLM #27636), so the tokens are optional and the leading text is the label.

Qwen2.5-VL answers in pixels of its smart-resized input: tool calls
<tool_call>{"name": "computer_use" | "mobile_use", "arguments": {"action": ..., "coordinate": [x, y]}}</tool_call>
and detection lists [{"bbox_2d": [x1, y1, x2, y2], "label": ...}] (or "point_2d": [x, y]).
Qwen3-VL uses the same JSON shapes but went back to a 0-1000 grid (Qwen3-VL #1485).
"""

from __future__ import annotations

import json
import re

from desktop_app.agents.geometry import QWEN25VL_RESIZE

from .base import Found, make
from .names import normalize
from .textscan import finite_numbers, first_coords, first_str, iter_objects

_REF = re.compile(r"<\|object_ref_start\|>([^<]*)<\|object_ref_end\|>")
_TOKENS = re.compile(r"<\|[a-z_]+\|>")


def parse_grounding(text: str) -> Found | None:
    coords = first_coords(text)
    if coords is None:
        return None
    if m := _REF.search(text):
        label = m.group(1).strip()
    else:  # tokens stripped: whatever short text sits right before the box is the object reference
        before = _TOKENS.sub("", text[:coords.start]).strip().splitlines()
        label = before[-1].strip() if before and len(before[-1]) <= 80 else None
    return Found(name=None, coords=coords.values, extra={"label": label or None})


# system_button values of mobile_use.
_BUTTONS = {"back": "press_back", "home": "press_home", "enter": "key"}


def _arguments(obj: dict) -> dict | None:
    args = obj.get("arguments")
    if isinstance(args, str):  # some OpenAI-compatible servers hand the arguments over as a JSON string
        try:
            args = json.loads(args)
        except (ValueError, RecursionError):  # not JSON, or lists nested thousands deep inside the string
            return None
    if isinstance(args, dict):
        return args
    return obj if "action" in obj and ("coordinate" in obj or "name" not in obj) else None


def _from_tool_call(args: dict) -> Found | None:
    action = args.get("action")
    if not isinstance(action, str):
        return None
    name = normalize(action)
    extra = {"time": args.get("time"), "status": args.get("status"), "pixels": args.get("pixels")}
    typed = first_str(args, "text")
    action_type = None
    if name == "key":
        keys = args.get("keys")
        extra["key"] = "+".join(map(str, keys)) if isinstance(keys, list) else (typed or first_str(args, "key"))
        typed = None
    elif name == "system_button":
        button = first_str(args, "button") or ""
        extra["button"] = button
        action_type = _BUTTONS.get(button.strip().lower(), "other")
        if action_type == "key":
            extra["key"] = "enter"
    elif name == "open":
        extra["app"], typed = typed, None
    elif name == "scroll" and isinstance(args.get("pixels"), int | float):
        # computer_use: positive pixels scroll up, negative scroll down.
        extra["direction"] = "up" if args["pixels"] > 0 else "down" if args["pixels"] < 0 else None
    return Found(name=action, coords=finite_numbers(args.get("coordinate")),
                 end=finite_numbers(args.get("coordinate2")), text=typed, extra=extra, action_type=action_type)


def parse_json(text: str) -> Found | None:
    saw_tool_call = False
    for obj in iter_objects(text):
        args = _arguments(obj)
        if args is not None:
            saw_tool_call = True
            if found := _from_tool_call(args):
                return found
            continue
        for key in ("bbox_2d", "point_2d", "bbox", "point"):
            if key in obj:
                return Found(name=None, coords=finite_numbers(obj[key]), extra={"label": first_str(obj, "label")})
    if saw_tool_call:  # a tool call without a usable action is malformed, not a grounding answer
        return None
    coords = first_coords(text)  # bare [x, y] / (x, y)
    return Found(name=None, coords=coords.values) if coords else None


_TOOL = ('<tool_call>\n{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [x, y]}}\n'
         "</tool_call>\nOther actions: mouse_move, right_click, double_click, left_click_drag (coordinate), "
         'type (text), key (keys: ["ctrl", "c"]), scroll (coordinate, pixels: positive = up), wait (time), '
         'terminate (status). On a phone use "name": "mobile_use" with click, long_press, swipe (coordinate, '
         "coordinate2), type (text), system_button (button: Back | Home | Enter), open (text), wait, terminate. "
         'To only locate an element, answer [{"bbox_2d": [x1, y1, x2, y2], "label": "<element>"}].')
_ASK = ('If the task is ambiguous, call <tool_call>\n{"name": "computer_use", "arguments": {"action": "ask", '
        '"question": "<your question>"}}\n</tool_call> instead.')

CONVENTIONS = [
    make(
        "qwen2vl", "Qwen2-VL", "rel_1000",
        "Grounding boxes <|box_start|>(x1,y1),(x2,y2)<|box_end|> on a 0-1000 grid; stripped tokens tolerated.",
        "Output the bounding box of the element to act on as "
        "<|object_ref_start|>element<|object_ref_end|><|box_start|>(x1,y1),(x2,y2)<|box_end|>, with integer "
        "coordinates from 0 to 1000 relative to the screenshot's width and height.",
        parse_grounding,
        ask_instruction="If the task is ambiguous, answer ASK: <your question> instead of a box.",
    ),
    make(
        "qwen25vl", "Qwen2.5-VL", "abs_px_resized",
        "computer_use / mobile_use tool calls and bbox_2d detection JSON, in pixels of the smart-resized image.",
        "Act with exactly one tool call; coordinates are integer pixels of the screenshot as you see it.\n" + _TOOL,
        parse_json, resize_defaults=QWEN25VL_RESIZE, ask_instruction=_ASK,
    ),
    make(
        "qwen3vl", "Qwen3-VL", "rel_1000",
        "Same tool-call and detection JSON as Qwen2.5-VL, on a 0-1000 grid.",
        "Act with exactly one tool call; coordinates are integers from 0 to 1000 relative to the screenshot's "
        "width and height.\n" + _TOOL,
        parse_json, ask_instruction=_ASK,
    ),
]
