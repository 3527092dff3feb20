"""The Convention record and the one code path every convention's answer goes through.

A family module only reads syntax: it turns text into a `Found` whose numbers are still in the
model's own space. `finish` then does what must be identical for every family: name -> action type,
space -> original pixels, box -> centre, and the wrong_format rules. `run` adds the ASK rule in
front and a last-resort guard behind, so no model answer can ever raise.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from desktop_app.agents.actions import ParsedAction
from desktop_app.agents.geometry import Geometry

from .ask import find_ask
from .names import POINTING, action_type_for, direction_from_name, implied_key


@dataclass
class Found:
    """What a family's syntax parser read, before geometry. None of it is validated yet."""

    name: str | None  # the action name as the model wrote it; None for a bare point/box (grounding answer)
    coords: tuple[float, ...] | None = None  # 2 (point) or 4 (box) numbers in the convention's space
    end: tuple[float, ...] | None = None  # drag / swipe end, same space
    element: str | None = None
    text: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    action_type: str | None = None  # set only when the family decides it (AITW codes, system buttons)
    overrides: dict[str, str] | None = None  # family-specific name meanings


Syntax = Callable[[str], Found | None]


@dataclass(frozen=True)
class Convention:
    name: str  # CLI name
    family: str  # human name, e.g. "UI-TARS 1.5"
    space: str  # rel_1000 | rel_999 | rel_1 | abs_px_resized | abs_px_original | text
    description: str
    instruction: str  # how to ask the model for this output syntax (used by the prompt builder)
    parse: Callable[[str, Geometry], ParsedAction] = field(compare=False, hash=False)
    resize_defaults: dict = field(default_factory=dict, compare=False, hash=False)
    ask_instruction: str = ""  # how to phrase a question to the user in this syntax (ambiguous-task runs)


def make(name: str, family: str, space: str, description: str, instruction: str, syntax: Syntax,
         resize_defaults: dict | None = None, ask_instruction: str = "") -> Convention:
    defaults = dict(resize_defaults or {})
    return Convention(name, family, space, description, instruction,
                      parse=partial(run, syntax, space, defaults), resize_defaults=defaults,
                      ask_instruction=ask_instruction)


def run(syntax: Syntax, space: str, resize_defaults: dict, text: str, geometry: Geometry) -> ParsedAction:
    raw = text if isinstance(text, str) else ("" if text is None else str(text))
    try:
        asked = find_ask(raw)
        if asked is not None:
            name, question, thought = asked
            extra = {"name": name, **({"thought": thought} if thought else {})}
            return ParsedAction(raw=raw, action_type="ask", text=question, extra=extra)
        return finish(raw, syntax(raw), space, geometry.with_defaults(resize_defaults))
    except Exception as exc:  # a parser bug must cost one sample, never a whole run; tests assert this stays unused
        return ParsedAction(raw=raw, wrong_format=True, extra={"parser_error": f"{type(exc).__name__}: {exc}"})


def _map_coords(values, space: str, geometry: Geometry):
    """(point, box) in original pixels; a box gives its centre as the point. Any other count of numbers (a
    JSON list nested around one number flattens to one) is no point: ValueError, reported as wrong_format."""
    if len(values) not in (2, 4):
        raise ValueError(f"expected 2 numbers (a point) or 4 (a box), got {len(values)}")
    if len(values) == 2:
        return geometry.to_original(values[0], values[1], space), None
    x1, y1 = geometry.to_original(values[0], values[1], space)
    x2, y2 = geometry.to_original(values[2], values[3], space)
    return ((x1 + x2) / 2, (y1 + y2) / 2), (x1, y1, x2, y2)


def finish(raw: str, found: Found | None, space: str, geometry: Geometry) -> ParsedAction:
    if found is None:
        return ParsedAction(raw=raw, wrong_format=True)
    extra = {"name": found.name, **found.extra}
    if found.action_type:
        action_type = found.action_type
    elif found.name:
        action_type = action_type_for(found.name, found.overrides)
    else:  # a bare point or box answers a grounding question: that is a click
        action_type = "click" if found.coords else None

    if found.name:
        if action_type == "scroll" and not extra.get("direction"):
            extra["direction"] = direction_from_name(found.name)
        if action_type == "key" and not extra.get("key"):
            extra["key"] = implied_key(found.name)
    if isinstance(extra.get("direction"), str):
        extra["direction"] = extra["direction"].strip().lower()
    extra = {k: v for k, v in extra.items() if v is not None or k == "name"}

    point = box = None
    if space != "text":
        try:
            if found.coords:
                point, box = _map_coords(found.coords, space, geometry)
            if found.end:
                extra["end_point"], _ = _map_coords(found.end, space, geometry)
        except ValueError as exc:  # e.g. an aspect ratio smart_resize refuses: the point is unknowable
            point = box = None
            extra["geometry_error"] = str(exc)
        if any(not math.isfinite(v) for v in (*(point or ()), *(box or ()), *(extra.get("end_point") or ()))):
            point = box = None  # "1e999" parses as infinity: no such point, and JSON cannot store it
            extra.pop("end_point", None)
            extra["geometry_error"] = "a coordinate is not a finite number"

    unusable = action_type in POINTING and (not found.element if space == "text" else point is None)
    if action_type is None or unusable:
        return ParsedAction(raw=raw, wrong_format=True, element=found.element, text=found.text, extra=extra)
    return ParsedAction(raw=raw, action_type=action_type, point=point, box=box, element=found.element,
                        text=found.text, extra=extra)
