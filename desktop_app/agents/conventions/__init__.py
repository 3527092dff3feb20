"""Output conventions: the registry of parsers from a model's raw answer to a ParsedAction.

Every convention reads one family's trained syntax and declares one coordinate space; points come
back in ORIGINAL image pixels (boxes as their centre, the box kept in `box`), never clamped, so
out-of-image answers reach scoring. No input raises: what cannot be used gives wrong_format=True.

Every convention also recognises an ASK (a question to the user, for ambiguous-task runs): a JSON or
Python object whose action is ask / call_user / ask_user, or a line `ASK: ...`, `ASK [...]`,
`ask(...)` / `call_user(...)` where the model states its action. It parses to action_type "ask" with
the question in `text` (None when no question was given). The full rule is in `ask.py`;
ASK_INSTRUCTION is a one-sentence syntax every convention understands, and each Convention's
`ask_instruction` phrases it in the family's own syntax.

    parse_action("uitars", "Action: click(start_box='(500,500)')", 1280, 800).point == (640.0, 400.0)
"""

from __future__ import annotations

from desktop_app.agents.actions import ParsedAction
from desktop_app.agents.geometry import Geometry

from . import cogagent, json_text, os_atlas, point, qwen, seeclick, showui, uitars
from .ask import ASK_INSTRUCTION
from .base import Convention

# The one registry; order is the order users see in `list_conventions()`.
CONVENTIONS: dict[str, Convention] = {
    c.name: c
    for module in (json_text, uitars, qwen, seeclick, cogagent, os_atlas, showui, point)
    for c in module.CONVENTIONS
}


def list_conventions() -> list[Convention]:
    return list(CONVENTIONS.values())


def get_convention(name: str) -> Convention:
    try:
        return CONVENTIONS[name]
    except KeyError:
        raise ValueError(f"unknown output convention {name!r}; known: {', '.join(CONVENTIONS)}") from None


def parse_action(convention: str, text: str, width: int, height: int, **resize) -> ParsedAction:
    """Parse one answer. `resize` (factor, min_pixels, max_pixels) overrides the convention's defaults,
    e.g. when a server was started with a smaller max_pixels. An unknown convention name or a
    non-positive image size is a caller error and raises ValueError; the model's text never does."""
    unknown = set(resize) - {"factor", "min_pixels", "max_pixels"}
    if unknown:
        raise ValueError(f"unknown resize parameter(s): {', '.join(sorted(unknown))}")
    conv = get_convention(convention)
    return conv.parse(text, Geometry(width, height, **resize))


__all__ = ["ASK_INSTRUCTION", "CONVENTIONS", "Convention", "Geometry", "get_convention", "list_conventions", "parse_action"]
