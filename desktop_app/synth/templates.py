"""Scenario page templates (resources/scenarios/*.html.j2), rendered with Jinja2.

Autoescaping is on: the content comes from an LLM and is data, never markup.
StrictUndefined turns a missing field into an error instead of an empty hole
in the page.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import jinja2

from desktop_app.paths import resources_dir
from desktop_app.render.renderer import ORIGIN, Viewport

SCENARIOS = ("popup", "search", "recommendation", "chat")
POPUP_LAYOUTS = ("submit_input", "two_options", "checkbox_form")


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(resources_dir() / "scenarios"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render_html(scenario: str, content: dict[str, Any], viewport: Viewport) -> str:
    if scenario not in (*SCENARIOS, "overlay"):
        raise ValueError(f"unknown scenario '{scenario}' (one of {', '.join(SCENARIOS)})")
    template = environment().get_template(f"{scenario}.html.j2")
    return template.render(c=content, viewport=viewport.name, origin=ORIGIN)
