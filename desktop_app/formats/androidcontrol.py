"""AndroidControl episodes (Li et al. 2024), converted from the released TFRecords to JSON.

A folder of `.json` files, one episode each (a file may also hold a list of episodes):

    episode_id         int or str             the episode's key
    goal               str                    the high-level task
    step_instructions  [str]                  one low-level instruction per action
    screenshots        [str]                  image paths, relative to the JSON file or to --images
    actions            [object | JSON str]    {"action_type": "click", "x": 561, "y": 2011}, ...
    element_boxes?     [[x1, y1, x2, y2] | null]   per action: the target element, in pixels

AndroidControl stores len(actions) + 1 screenshots: step i acts on screenshots[i], and the
last one shows the screen after the last action. That final screen has no action, so it is
not imported as a step; its path is kept in the episode's meta (androidcontrol.final_screenshot).
`accessibility_trees` are not read (they are dropped if present).

Each action becomes the step's one gold action (docs/decisions/0012-ambiguous-tasks.md):
click / long_press: the element box when given, else a zero-size box at (x, y) with meta
{"point": true} (with a box, the tap point is kept as meta x, y); scroll: no box, meta
direction; input_text (and type): action type `type`, text in type_text, the element box when
given; open_app: meta app_name; navigate_back, navigate_home, wait: the type alone.
The step's meta keeps the original action (parsed when it was a JSON string).
"""

from __future__ import annotations

import json
from pathlib import Path

from desktop_app.formats.records import (
    BoxRecord,
    EpisodeRecord,
    StepRecord,
    Where,
    finite,
    got,
    optional,
    parse_box,
    read_json_objects,
    require,
    resolve_image,
    shown,
)
from desktop_app.formats.spec import FormatSpec
from desktop_app.formats.writing import json_number

SCENARIO = "navigation"
PLATFORM = "android"
_POINTING = ("click", "long_press")
_TEXT = ("input_text", "type")
_BARE = ("navigate_back", "navigate_home", "wait")
KNOWN_ACTIONS = (*_POINTING, "scroll", *_TEXT, "open_app", *_BARE)
_DROPPED = {"accessibility_trees", "screenshots", "actions", "step_instructions", "element_boxes", "goal",
            "episode_id"}


def _number(obj: dict, key: str, where: Where, name: str) -> float:
    value = finite(require(obj, key, (int, float), where, name + "."))
    if value is None or value < 0:
        raise where.error(f"expected a pixel coordinate >= 0, got {shown(obj[key])}", f"{name}.{key}")
    return value


def _action(raw, where: Where, name: str) -> dict:
    if isinstance(raw, str):  # the TFRecords store each action as a JSON string
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise where.error(f"invalid JSON in the action string: {exc.msg} at column {exc.colno}", name) from None
        except (ValueError, RecursionError):  # a number past 4,300 digits, thousands of nested lists
            raise where.error("the action string holds a number too long or lists nested too deep to read",
                              name) from None
    if not isinstance(raw, dict):
        raise where.error(f"expected an object or a JSON string, got {got(raw)}", name)
    kind = require(raw, "action_type", str, where, name + ".")
    if kind not in KNOWN_ACTIONS:
        raise where.error(f"unknown action type '{kind}' (one of {', '.join(KNOWN_ACTIONS)})", name + ".action_type")
    return raw


def gold_box(action: dict, element, where: Where, name: str, box_name: str) -> BoxRecord:
    """The annotated action of one step as ScreenLab's gold box (decision 0012)."""
    kind = action["action_type"]
    if kind in _POINTING:
        x, y = _number(action, "x", where, name), _number(action, "y", where, name)
        if element is not None:
            return BoxRecord(label="gold", box=element, action_type=kind, meta={"x": json_number(x), "y": json_number(y)}, field=box_name)
        return BoxRecord(label="gold", box=(x, y, x, y), action_type=kind, meta={"point": True}, field=name)
    if kind == "scroll":
        direction = require(action, "direction", str, where, name + ".").strip().lower()
        if not direction:
            raise where.error("empty scroll direction", name + ".direction")
        return BoxRecord(label="gold", box=None, action_type="scroll", meta={"direction": direction}, field=name)
    if kind in _TEXT:
        text = require(action, "text", str, where, name + ".")
        if element is None and "x" in action and "y" in action:  # `type` may carry the field's position
            x, y = _number(action, "x", where, name), _number(action, "y", where, name)
            return BoxRecord(label="gold", box=(x, y, x, y), action_type="type", type_text=text,
                             meta={"point": True}, field=name)
        return BoxRecord(label="gold", box=element, action_type="type", type_text=text,
                         field=box_name if element is not None else name)
    if kind == "open_app":
        app = require(action, "app_name", str, where, name + ".")
        return BoxRecord(label="gold", box=None, action_type="open_app", meta={"app_name": app}, field=name)
    return BoxRecord(label="gold", box=None, action_type=kind, field=name)


def _episode(obj, where: Where, bases: list[Path], prefix: str) -> EpisodeRecord:
    if not isinstance(obj, dict):
        raise where.error("expected an episode object", prefix.rstrip(".") or None)
    key = require(obj, "episode_id", (str, int), where, prefix)
    goal = require(obj, "goal", str, where, prefix)
    actions = require(obj, "actions", list, where, prefix)
    instructions = require(obj, "step_instructions", list, where, prefix)
    screenshots = require(obj, "screenshots", list, where, prefix)
    boxes = optional(obj, "element_boxes", list, where, [None] * len(actions), prefix)
    if not actions:
        raise where.error("episode has no actions", prefix + "actions")
    if len(instructions) != len(actions):
        raise where.error(f"{len(instructions)} instructions for {len(actions)} actions (expected one per action)",
                          prefix + "step_instructions")
    if len(screenshots) not in (len(actions), len(actions) + 1):
        raise where.error(f"{len(screenshots)} screenshots for {len(actions)} actions "
                          f"(expected {len(actions) + 1}: one per action and the final screen)", prefix + "screenshots")
    if len(boxes) != len(actions):
        raise where.error(f"{len(boxes)} element boxes for {len(actions)} actions (use null where there is none)",
                          prefix + "element_boxes")
    steps = []
    for i, raw in enumerate(actions):
        name = f"{prefix}actions[{i}]"
        instruction = instructions[i]
        if not isinstance(instruction, str):
            raise where.error(f"expected text, got {got(instruction)}", f"{prefix}step_instructions[{i}]")
        shot = screenshots[i]
        if not isinstance(shot, str):
            raise where.error(f"expected an image path, got {got(shot)}", f"{prefix}screenshots[{i}]")
        box_name = f"{prefix}element_boxes[{i}]"
        element = None if boxes[i] is None else parse_box(boxes[i], where, box_name)
        action = _action(raw, where, name)
        steps.append(StepRecord(
            image=resolve_image(shot, bases, where, f"{prefix}screenshots[{i}]"),
            boxes=[gold_box(action, element, where, name, box_name)],
            platform=PLATFORM, screen_source=shot, instruction=instruction,
            meta={"action": action}, field=f"{prefix}screenshots[{i}].", image_field=f"{prefix}screenshots[{i}]",
        ))
    extra = {k: v for k, v in obj.items() if k not in _DROPPED}
    if len(screenshots) == len(actions) + 1:
        extra["final_screenshot"] = screenshots[-1]
    return EpisodeRecord(key=str(key), where=where, goal=goal, scenario=SCENARIO,
                         meta={"androidcontrol": extra}, steps=steps)


def read(path: Path, options) -> list[EpisodeRecord]:
    return read_json_objects(path, options.images_dir, _episode, "episodes")


SPEC = FormatSpec(
    name="androidcontrol",
    description="AndroidControl episodes as JSON (episode_id, goal, step_instructions, screenshots, actions)",
    read=read,
)
