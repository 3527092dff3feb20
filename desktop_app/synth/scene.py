"""A scene: everything needed to render one synthetic sample and to say where it came from."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

INJECTIONS = ("none", "accept", "reject", "both")  # EnvDistraction §5.1


@dataclass
class Scene:
    scenario: str
    viewport: str  # desktop, mobile
    goal: str
    content: dict[str, Any]  # the template's content (resources/scenarios/README.md)
    distractor: dict[str, str] = field(default_factory=dict)  # {"Actual purpose", "Expression"}
    persona: str = ""
    layout: str = ""  # popup layouts
    injection: str = "none"
    generator: str = "offline-bank"  # or the LLM model name
    calls: list[dict[str, Any]] = field(default_factory=list)  # provenance: prompt, raw answer, tokens
    context: dict[str, Any] = field(default_factory=dict)  # builder notes that are not rendered

    @property
    def tokens(self) -> dict[str, int]:
        return {k: sum(c.get(k) or 0 for c in self.calls) for k in ("prompt_tokens", "completion_tokens")}

    def as_meta(self) -> dict[str, Any]:
        out = asdict(self)
        del out["calls"]  # kept in the review item, not repeated on the episode
        return out
