"""What an agent said, after parsing: the one shape every convention produces."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

# Action types shared by all conventions. Model-specific names map onto these
# (left_click -> click, input_text / type_text -> type, call_user -> ask, ...).
ACTION_TYPES = ("click", "double_click", "right_click", "long_press", "hover", "type", "select", "scroll",
                "drag", "key", "press_back", "press_home", "open_app", "wait", "finished", "ask", "other")


@dataclass
class ParsedAction:
    raw: str  # the model's whole answer, untouched
    action_type: str | None = None  # one of ACTION_TYPES, None when nothing parsed
    point: tuple[float, float] | None = None  # in ORIGINAL image pixels (boxes become their centre)
    box: tuple[float, float, float, float] | None = None  # the predicted box, original pixels, if one was given
    element: str | None = None  # element text, for text-answering models ("Close (x)")
    text: str | None = None  # text to type, or the question of an ASK
    wrong_format: bool = False  # nothing usable could be parsed
    extra: dict[str, Any] = field(default_factory=dict)  # convention-specific details (direction, key, thought)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["point"] = list(self.point) if self.point else None
        out["box"] = list(self.box) if self.box else None
        return out


def stored_action(raw: str, parsed: dict | None) -> ParsedAction:
    """The stored parse of an answer (Prediction.parsed), back as a ParsedAction."""
    p = parsed or {}
    return ParsedAction(raw=raw, action_type=p.get("action_type"),
                        point=tuple(p["point"]) if p.get("point") else None,
                        box=tuple(p["box"]) if p.get("box") else None, element=p.get("element"),
                        text=p.get("text"), wrong_format=bool(p.get("wrong_format")), extra=p.get("extra") or {})
