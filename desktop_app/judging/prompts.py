"""Messages for judges and captioners, from the versioned templates in resources/prompts/judge/<version>/.

A template set is a folder: changing a prompt means a new folder (v2), so a stored verdict always
says which wording produced it (Prediction.parsed["prompt"]).
"""

from __future__ import annotations

import jinja2

from desktop_app.agents.prompts import image_content, prompt_templates

VERSIONS = ("v1",)
SURFACES = {  # platform -> (what the agent operates, short name of one state)
    "web": ("a web browser", "web page"),
    "android": ("an Android phone", "phone screen"),
    "ios": ("an iPhone", "phone screen"),
    "desktop": ("a desktop computer", "screen"),
}
EVIDENCE = {"end_to_end": "one or more screenshots of the final state",
            "caption": "text descriptions of the final state"}
STOPPED = "(the agent stopped after this action: there is no later state)"


def _env(version: str) -> jinja2.Environment:
    if version not in VERSIONS:
        raise ValueError(f"unknown judge prompt version {version!r} (one of {', '.join(VERSIONS)})")
    return prompt_templates(f"judge/{version}")


def _surface(platform: str) -> tuple[str, str]:
    return SURFACES.get(platform, SURFACES["web"])


def verdict_messages(version: str, mode: str, platform: str, intent: str, actions: str, response: str,
                     images: list[tuple[bytes, str]] = (), captions: list[str] = ()) -> list[dict]:
    """A whole-trajectory question: end_to_end (images of the last frames) or caption (their descriptions)."""
    env = _env(version)
    surface, short = _surface(platform)
    system = env.get_template("system.j2").render(surface=surface, evidence=EVIDENCE[mode])
    if mode == "end_to_end":
        text = env.get_template("end_to_end.j2").render(intent=intent, actions=actions.rstrip("\n"),
                                                        frames=len(images), surface_short=short, response=response)
        content = [{"type": "text", "text": text}] + [image_content(data, mime) for data, mime in images]
        return [{"role": "system", "content": system}, {"role": "user", "content": content}]
    text = env.get_template("caption_reason.j2").render(intent=intent, actions=actions.rstrip("\n"),
                                                        captions=list(captions), surface_short=short,
                                                        response=response)
    return [{"role": "system", "content": system}, {"role": "user", "content": text}]


def caption_messages(version: str, image: bytes, mime: str, ocr: str) -> list[dict]:
    """The captioner's question: the screenshot first, then the request (and OCR text); never the task."""
    text = _env(version).get_template("captioner.j2").render(ocr=ocr.strip())
    return [{"role": "user", "content": [image_content(image, mime), {"type": "text", "text": text}]}]


def step_messages(version: str, platform: str, intent: str, action: str, number: int, total: int,
                  before: tuple[bytes, str] | None = None, after: tuple[bytes, str] | None = None,
                  before_caption: str | None = None, after_caption: str | None = None) -> list[dict]:
    """One step's question: the states before and after the action as images, or as captions."""
    env = _env(version)
    surface, short = _surface(platform)
    system = env.get_template("step_system.j2").render(surface=surface)
    text = env.get_template("step_user.j2").render(
        intent=intent, action=action, number=number, total=total, surface_short=short, last=after is None,
        before_caption=before_caption, after_caption=after_caption if after_caption is not None else STOPPED)
    if before_caption is not None:
        return [{"role": "system", "content": system}, {"role": "user", "content": text}]
    content = [{"type": "text", "text": text}]
    content += [image_content(*state) for state in (before, after) if state is not None]
    return [{"role": "system", "content": system}, {"role": "user", "content": content}]
