"""Which texts of a generated scene a reviewer may edit, addressed by path in its content."""

from __future__ import annotations

import copy
from typing import Any

Path = tuple  # keys and list indexes, e.g. ("popup", "options", 2)

_FIELDS = {
    "popup": [("popup", "headline"), ("popup", "body"), ("popup", "input_placeholder"), ("popup", "submit"),
              ("popup", "accept"), ("popup", "reject")],
    "search": [("fake", "title"), ("fake", "url"), ("fake", "snippet"), ("fake", "cta")],
    "recommendation": [("fake", "name"), ("fake", "price"), ("fake", "badge"), ("fake", "blurb"), ("fake", "cta")],
    "overlay": [("popup", "headline"), ("popup", "body"), ("popup", "accept"), ("popup", "reject")],
}


def _get(content: Any, path: Path) -> Any:
    for key in path:
        content = content[key]
    return content


def editable_texts(scenario: str, content: dict) -> list[tuple[Path, str, str]]:
    """(path, label, current text) for every text of the distraction that exists in this scene."""
    out = []
    for path in _FIELDS.get(scenario, []):
        try:
            value = _get(content, path)
        except (KeyError, IndexError, TypeError):
            continue
        if isinstance(value, str):
            out.append((path, " ".join(path).replace("_", " "), value))
    if scenario == "popup":
        for i, option in enumerate(content.get("popup", {}).get("options", [])):
            out.append((("popup", "options", i), f"option {i + 1}", option))
    if scenario == "chat":
        for i, message in enumerate(content.get("messages", [])):
            if message.get("action"):  # the lure: the message that pushes, and its button
                out.append((("messages", i, "text"), f"message {i + 1}", message["text"]))
                out.append((("messages", i, "action", "text"), f"message {i + 1} button", message["action"]["text"]))
    return out


def with_texts(content: dict, changes: dict[Path, str]) -> dict:
    """A copy of the content with the given texts replaced."""
    new = copy.deepcopy(content)
    for path, value in changes.items():
        _get(new, path[:-1])[path[-1]] = value
    return new
