"""Mind2Web tasks with screenshots (Multimodal-Mind2Web), one episode per task.

A JSON file holding a list of tasks (or one task), or a folder of such files:

    annotation_id    str         the episode's key
    confirmed_task   str         the goal
    website, domain, subdomain   kept in the episode's meta (with action_reprs)
    action_reprs?    [str]       "[button]  Search -> CLICK"; the element text is taken from it
    actions          [{action_uid, operation: {op, original_op, value}, screenshot,
                       bbox? | pos_candidates?}]

`op` is CLICK, TYPE or SELECT (original_op may say HOVER or ENTER; it is kept in the box's
meta). TYPE becomes action type `type` and SELECT `select`, both with the value in
type_text; CLICK becomes `click`. The target box is `bbox` ({x, y, width, height}, or
[x, y, width, height]) when present, else the first positive candidate whose attributes
(an object or a JSON string) carry `bounding_box_rect` ("x,y,width,height" or four numbers).
An action with neither is imported without a box (some Mind2Web actions have no positive
candidate); its screenshot is still a step. `raw_html` / `cleaned_html` are not kept.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from desktop_app.formats.records import (
    BoxRecord,
    EpisodeRecord,
    StepRecord,
    Where,
    finite,
    optional,
    read_json_objects,
    require,
    resolve_image,
    shown,
)
from desktop_app.formats.spec import FormatSpec

SCENARIO = "navigation"
PLATFORM = "web"
_OPS = {"CLICK": "click", "TYPE": "type", "SELECT": "select"}
_META_KEYS = ("website", "domain", "subdomain", "action_reprs")
_REPR = re.compile(r"^\s*\[[^\]]*\]\s*(.*?)\s*->")


def _numbers(values, where: Where, name: str) -> tuple[float, float, float, float]:
    if not isinstance(values, (list, tuple)) or len(values) != 4 or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        raise where.error(f"expected x, y, width, height, got {shown(values)}", name)
    numbers = [finite(v) for v in values]
    if None in numbers:
        raise where.error(f"a coordinate in {shown(values)} is not a finite number of pixels", name)
    x, y, w, h = numbers
    if w < 0 or h < 0:
        raise where.error(f"negative width or height in {shown(values)}", name)
    return x, y, x + w, y + h


def _xywh(value, where: Where, name: str) -> tuple[float, float, float, float]:
    """A box as {x, y, width, height}, [x, y, width, height] or "x,y,width,height" -> x1, y1, x2, y2."""
    if isinstance(value, dict):
        keys = ("x", "y", "width", "height") if "x" in value else ("left", "top", "width", "height")
        for key in keys:
            if key not in value:
                raise where.error("missing", f"{name}.{key}")
        return _numbers([value[k] for k in keys], where, name)
    if isinstance(value, str):
        try:
            value = [float(part) for part in value.replace(" ", "").split(",")]
        except ValueError:
            raise where.error(f"expected \"x,y,width,height\", got {value[:80]!r}", name) from None
    return _numbers(value, where, name)


def _attributes(candidate) -> dict:
    if isinstance(candidate, str):  # Multimodal-Mind2Web stores each candidate as a JSON string
        try:
            candidate = json.loads(candidate)
        except (ValueError, RecursionError):  # not JSON, a 5,000-digit number, thousands of nested lists
            return {}
    if not isinstance(candidate, dict):
        return {}
    attributes = candidate.get("attributes", candidate)
    if isinstance(attributes, str):
        try:
            attributes = json.loads(attributes)
        except (ValueError, RecursionError):
            return {}
    return attributes if isinstance(attributes, dict) else {}


def _target(action: dict, where: Where, name: str) -> tuple[tuple | None, str, dict]:
    """(box, field it came from, candidate details)."""
    if action.get("bbox") is not None:
        return _xywh(action["bbox"], where, name + ".bbox"), name + ".bbox", {}
    candidates = action.get("pos_candidates") or []
    if not isinstance(candidates, list):
        raise where.error("expected a list", name + ".pos_candidates")
    for i, candidate in enumerate(candidates):
        attributes = _attributes(candidate)
        rect = attributes.get("bounding_box_rect")
        if rect is None:
            continue
        field = f"{name}.pos_candidates[{i}].bounding_box_rect"
        details = {k: attributes[k] for k in ("backend_node_id",) if k in attributes}
        if isinstance(candidate, dict) and isinstance(candidate.get("tag"), str):
            details["tag"] = candidate["tag"]
        return _xywh(rect, where, field), field, details
    return None, name, {}


def _element_text(reprs: list, index: int) -> str:
    if index < len(reprs) and isinstance(reprs[index], str):
        match = _REPR.match(reprs[index])
        if match:
            return match.group(1)
    return ""


def _task(obj, where: Where, bases: list[Path], prefix: str) -> EpisodeRecord:
    if not isinstance(obj, dict):
        raise where.error("expected a task object", prefix.rstrip(".") or None)
    key = require(obj, "annotation_id", (str, int), where, prefix)
    goal = require(obj, "confirmed_task", str, where, prefix)
    actions = require(obj, "actions", list, where, prefix)
    reprs = optional(obj, "action_reprs", list, where, [], prefix)
    if not actions:
        raise where.error("task has no actions", prefix + "actions")
    steps = []
    for i, action in enumerate(actions):
        name = f"{prefix}actions[{i}]"
        if not isinstance(action, dict):
            raise where.error("expected an object", name)
        operation = require(action, "operation", dict, where, name + ".")
        op = optional(operation, "op", str, where, "", name + ".operation.")
        op = op or optional(operation, "original_op", str, where, "", name + ".operation.")
        if op.upper() not in _OPS and op.upper() not in ("HOVER", "ENTER"):
            raise where.error(f"unknown operation '{op}' (CLICK, TYPE or SELECT)", name + ".operation.op")
        kind = _OPS.get(op.upper(), "click")
        value = optional(operation, "value", str, where, "", name + ".operation.")
        shot = require(action, "screenshot", str, where, name + ".")
        uid = str(optional(action, "action_uid", (str, int), where, "", name + "."))
        box, field, details = _target(action, where, name)
        meta = {k: v for k, v in (("action_uid", uid), ("original_op", operation.get("original_op"))) if v}
        meta.update(details)
        if box is None:
            meta["no_box"] = True
        steps.append(StepRecord(
            image=resolve_image(shot, bases, where, name + ".screenshot"),
            boxes=[BoxRecord(label="gold", box=box, action_type=kind, element_text=_element_text(reprs, i),
                             type_text=value if kind in ("type", "select") else "", meta=meta, field=field)],
            platform=PLATFORM, screen_source=shot, meta={"action_uid": uid} if uid else {},
            field=name + ".", image_field=name + ".screenshot",
        ))
    extra = {k: obj[k] for k in _META_KEYS if k in obj}
    return EpisodeRecord(key=str(key), where=where, goal=goal, scenario=SCENARIO, meta={"mind2web": extra},
                         steps=steps)


def read(path: Path, options) -> list[EpisodeRecord]:
    return read_json_objects(path, options.images_dir, _task, "tasks", "images", "screenshots")


SPEC = FormatSpec(
    name="mind2web",
    description="Mind2Web tasks with screenshots (annotation_id, confirmed_task, actions: operation, screenshot, bbox)",
    read=read,
)
