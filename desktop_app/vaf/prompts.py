"""The browsing and mention-judge messages, from resources/prompts/vaf/<version>/ (our wording; the
paper's prompts are the model of what each must say, not the text)."""

from __future__ import annotations

import json

from desktop_app.agents.prompts import image_content, prompt_templates
from desktop_app.vaf.browse import at_ends, coordinate_words, describe
from desktop_app.vaf.pages import PageSpec
from desktop_app.vaf.render import SCROLL_STEP

VERSIONS = ("v1",)


def _env(version: str):
    if version not in VERSIONS:
        raise ValueError(f"unknown VAF prompt version {version!r} (one of {', '.join(VERSIONS)})")
    return prompt_templates(f"vaf/{version}")


def browse_messages(version: str, spec: PageSpec, page_height: int, history: list[dict], current: tuple[int, bytes],
                    window: int, detail: str = "high", convention: str = "point-px", resize: dict | None = None
                    ) -> list[dict]:
    """System, the task, then the last `window` earlier screens each with the agent's answer, then the
    current screen. history: per earlier step {"scroll_y", "raw", "action", "image"}; current: (scroll, png).
    Earlier steps beyond the window are told as text lines."""
    env = _env(version)
    space, point = coordinate_words(convention, resize)
    words = {"scroll_x": point[0], "scroll_y": point[1], "step": SCROLL_STEP, "coordinates": space}
    shown = history[-window:] if window > 0 else []
    told = history[:len(history) - len(shown)]
    task = env.get_template("browse_user.j2").render(
        category=spec.category, page_type=spec.page_type, clickable=spec.clickable, item_plural=spec.item_plural,
        item_singular=spec.item_singular, fields=spec.fields,
        earlier=[f"{i + 1}. {describe(h['action'], h['scroll_y'])}" for i, h in enumerate(told)], **words)
    messages = [{"role": "system", "content": env.get_template("browse.j2").render(**words)},
                {"role": "user", "content": task}]
    screen = env.get_template("screen.j2")
    first = len(told)
    for offset, h in enumerate(shown):
        top, bottom = at_ends(h["scroll_y"], page_height)
        messages.append({"role": "user", "content": [
            {"type": "text", "text": screen.render(number=first + offset + 1, scroll=h["scroll_y"], at_top=top,
                                                   at_bottom=bottom)},
            image_content(h["image"], "image/png", detail)]})
        messages.append({"role": "assistant", "content": h["raw"]})
    scroll, png = current
    top, bottom = at_ends(scroll, page_height)
    messages.append({"role": "user", "content": [
        {"type": "text", "text": screen.render(number=len(history) + 1, scroll=scroll, at_top=top, at_bottom=bottom)},
        image_content(png, "image/png", detail)]})
    return messages


def judge_messages(version: str, spec: PageSpec, thoughts: list[str]) -> list[dict]:
    response = "\n".join(f"Step {i + 1}: {t.strip() or '(no reasoning)'}" for i, t in enumerate(thoughts))
    text = _env(version).get_template("judge.j2").render(scenario=spec.title or spec.page_type,
                                                         target=spec.target_name or spec.target, response=response)
    return [{"role": "user", "content": text}]


class JudgeReplyError(ValueError):
    pass


def read_judge(text: str) -> tuple[int, str]:
    """(score, reasoning) from the judge's reply: a JSON object with semantic_understanding_score 0 or 1.
    A reasoning model's <think> part is skipped; the object may sit in a code fence or in prose."""
    body = text.rsplit("</think>", 1)[-1]
    start = body.find("{")
    while start != -1:
        try:
            data, _ = json.JSONDecoder().raw_decode(body[start:])
        except json.JSONDecodeError:
            start = body.find("{", start + 1)
            continue
        if isinstance(data, dict) and "semantic_understanding_score" in data:
            score = data["semantic_understanding_score"]
            if isinstance(score, bool) or score not in (0, 1, "0", "1"):
                raise JudgeReplyError(f"semantic_understanding_score is {score!r}, not 0 or 1")
            return int(score), str(data.get("reasoning", ""))[:2000]
        start = body.find("{", start + 1)
    raise JudgeReplyError("no JSON object with semantic_understanding_score in the reply")
