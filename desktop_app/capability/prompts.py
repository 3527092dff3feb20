"""Messages for the capability probes, from the templates in resources/prompts/capability/<version>/.

The observation is given as the mode says (a11y/observe.py): the screenshot, the screenshot with
numbered marks, the whole tree as text, or the list of elements. The wording is ours; the paper
published no full prompt.
"""

from __future__ import annotations

import jinja2

from desktop_app.a11y import observe
from desktop_app.a11y.tree import UiTree
from desktop_app.agents.prompts import image_content, prompt_templates

VERSIONS = ("v1",)
INTROS = {
    "image": "You see a screenshot of the screen.",
    "marks": "You see a screenshot on which each element you can act on carries a red dot with its number.",
    "tree": "You read the screen's accessibility tree: one element per line, indented under its parent; each "
            "element you can act on starts with its number in square brackets.",
    "list": "You read the list of elements you can act on, each with its number in square brackets.",
}


def answer_form(mode: str) -> str:
    """How the agent names a target: element numbers, except on the plain screenshot (coordinates)."""
    return "coordinate" if mode == "image" else "element"


def _env(version: str) -> jinja2.Environment:
    if version not in VERSIONS:
        raise ValueError(f"unknown capability prompt version {version!r} (one of {', '.join(VERSIONS)})")
    return prompt_templates(f"capability/{version}")


def _observation(mode: str, image: bytes, mime: str, tree: UiTree | None, detail: str) -> tuple[str, list]:
    """(text for the user message, image parts)."""
    if mode == "tree" or mode == "list":
        return observe.observation_text(tree, mode), []
    if mode == "marks":
        return "", [image_content(observe.marks_png(image, tree), "image/png", detail)]
    return "", [image_content(image, mime, detail)]


PROBES = ("grounding", "completion", "navigation", "focused")  # <probe>.j2 (system) + <probe>_user.j2 (the step)


def messages(version: str, probe: str, mode: str, image: bytes, mime: str, tree: UiTree | None,
             detail: str = "high", **values) -> list[dict]:
    """The request for one step of a probe: the system text (with the grammar in the mode's form) and the
    step (values: instruction, or goal and history) with the observation in the mode."""
    if probe not in PROBES:
        raise ValueError(f"unknown probe {probe!r} (one of {', '.join(PROBES)})")
    env = _env(version)
    system = env.get_template(f"{probe}.j2").render(observation_intro=INTROS[mode], form=answer_form(mode))
    text, images = _observation(mode, image, mime, tree, detail)
    user = env.get_template(f"{probe}_user.j2").render(observation_text=text, **values)
    return [{"role": "system", "content": system},
            {"role": "user", "content": [{"type": "text", "text": user}, *images]}]


def probe_messages(version: str, question: str, probe: dict, ask: str, option: str = "") -> list[dict]:
    """A knowledge probe asked one way: the multiple-choice question ("mcq"), or whether one option is
    right ("bq", with the option's letter). No screen: the question is about the goal or the app."""
    env = _env(version)
    values = {"apps": ", ".join(probe.get("apps") or []) or "an app", "category": probe.get("category", ""),
              "question": question}
    if ask == "mcq":
        text = env.get_template("probe_mcq.j2").render(options=probe["options"], **values)
    else:
        text = env.get_template("probe_bq.j2").render(option=probe["options"][option], **values)
    return [{"role": "user", "content": text.strip()}]


def repair_messages(version: str, required: str, answer: str) -> list[dict]:
    """A second model asked to put an answer into the required format (the repair pass)."""
    text = _env(version).get_template("repair.j2").render(required=required, answer=answer)
    return [{"role": "user", "content": text.strip()}]


def describe_action(action: dict) -> str:
    """A reference action in words, for the history shown to the agent."""
    kind = action.get("type", "")
    element = action.get("element") or {}
    name = (element.get("text") or element.get("content-desc") or element.get("resource-id", "").split("/")[-1]
            or element.get("class", "").rsplit(".", 1)[-1] or "an element").strip()
    if kind in ("input", "text"):
        return f'typed "{action.get("message", "")}" into {name}'
    if kind in ("click", "longclick", "swipe"):
        verb = {"click": "tapped", "longclick": "long-pressed", "swipe": "swiped on"}[kind]
        return f"{verb} {name}" + (f" ({action['direction']})" if action.get("direction") else "")
    return f"pressed {kind}"
