"""Messages for each working pattern (EnvDistraction §3.4), from templates in resources/prompts/agents.

direct: task + screenshot. cot: a first call lists the interactable elements, the
second decides with that list. action_annotation: the screen's annotated actions,
labels hidden, offered as numbered choices. goal_tagged: the task wrapped in marker
tokens, with the instruction that only marked text is the user's (paper §5.2).
"""

from __future__ import annotations

import base64
import json
import random
import re
from dataclasses import dataclass, field
from functools import lru_cache

import jinja2

from desktop_app.paths import resources_dir

GOAL_OPEN, GOAL_CLOSE = "<user_goal>", "</user_goal>"


@dataclass
class Sample:
    """One screen to act on, with what the prompt may show."""

    episode_id: int
    step_id: int
    episode_key: str
    goal: str
    scenario: str
    sha256: str
    width: int
    height: int
    image: bytes
    mime: str = "image/png"
    step_instruction: str = ""
    choices: list[str] = field(default_factory=list)  # annotated element texts, shuffled, labels hidden
    history: list[str] = field(default_factory=list)
    observation: str = ""  # what else the agent is told of the screen (a live page's URL, its tree)


@lru_cache(maxsize=8)
def prompt_templates(*folders: str) -> jinja2.Environment:
    """The templates of resources/prompts/<folder>/ (several: searched in order). Plain text for a model,
    not HTML, so nothing is escaped; an unknown variable is an error, never an empty string."""
    root = resources_dir() / "prompts"
    return jinja2.Environment(loader=jinja2.FileSystemLoader([root / f for f in folders]),
                              undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                              autoescape=False)


def _env() -> jinja2.Environment:
    return prompt_templates("agents")


def shuffled_choices(texts: list[str], seed: str) -> list[str]:
    """Annotated texts in an order that does not reveal the labels, the same on every rerun."""
    unique = list(dict.fromkeys(t for t in texts if t.strip()))
    random.Random(seed).shuffle(unique)
    return unique


def image_content(image: bytes, mime: str, detail: str = "high") -> dict:
    """An image as a chat message part (a data URL: nothing is fetched from anywhere)."""
    url = f"data:{mime};base64," + base64.b64encode(image).decode()
    return {"type": "image_url", "image_url": {"url": url, "detail": detail}}


def image_part(sample: Sample, detail: str) -> dict:
    return image_content(sample.image, sample.mime, detail)


def action_messages(sample: Sample, pattern: str, instruction: str, detail: str = "auto",
                    elements: list[str] | None = None, allow_ask: bool = False) -> list[dict]:
    env = _env()
    common = {"pattern": pattern, "open_tag": GOAL_OPEN, "close_tag": GOAL_CLOSE}
    system = env.get_template("system.j2").render(instruction=instruction, allow_ask=allow_ask, **common)
    user = env.get_template("user.j2").render(
        goal=sample.goal, instruction_step=sample.step_instruction, history=sample.history,
        choices=sample.choices if pattern == "action_annotation" else [],
        elements=elements or [], observation=sample.observation, **common)
    return [{"role": "system", "content": system.strip()},
            {"role": "user", "content": [{"type": "text", "text": user.strip()}, image_part(sample, detail)]}]


def listing_messages(sample: Sample, detail: str = "auto") -> list[dict]:
    text = _env().get_template("list_elements.j2").render()
    return [{"role": "user", "content": [{"type": "text", "text": text.strip()}, image_part(sample, detail)]}]


def parse_element_list(text: str) -> list[str]:
    """The CoT first call's answer: a JSON list of {"element_name": ...}; tolerant of prose and fences."""
    match = re.search(r"\[.*\]", text, re.S)
    if match:
        try:
            items = json.loads(match.group(0))
            names = [str(i.get("element_name", "")) if isinstance(i, dict) else str(i) for i in items]
            return [n.strip() for n in names if n.strip()][:100]
        except ValueError:
            pass
    names = re.findall(r'"element_name"\s*:\s*"([^"]+)"', text)
    return names or [line.strip("-* ").strip() for line in text.splitlines() if line.strip()][:100]


def cache_view(messages: list[dict], sha256s: list[str]) -> list[dict]:
    """Messages with image data replaced by the image hash: the response cache key does not
    change with base64 formatting, and stays small."""
    out = []
    images = iter(sha256s)
    for m in messages:
        content = m["content"]
        if isinstance(content, list):
            content = [{"type": "image", "sha256": next(images, "?"), "detail": c["image_url"].get("detail")}
                       if c.get("type") == "image_url" else c for c in content]
        out.append({"role": m["role"], "content": content})
    return out
