"""A recording stored as an episode, through the one write path every import takes (formats/ingest.py).

Each action is a step: its screenshot (sensitive fields already painted over), the acted element as the gold
box (its DOM box, action type and typed text; a sensitive field's text is never there), the page's other
actionable elements as "other" boxes, the tree, and in step.meta.action what a replay needs (selector, URL,
timing). The episode is pending review, so it waits in the verification queue for a person to correct it.
"""

from __future__ import annotations

import re
import secrets
from datetime import UTC, datetime
from pathlib import Path

from desktop_app.formats.ingest import ingest
from desktop_app.formats.records import BoxRecord, EpisodeRecord, StepRecord, Where
from desktop_app.record.recorder import Action, Recording
from desktop_app.store.project import Project

SCENARIO = "recorded"
FORMAT = "screenlab-recorder"
AUTHOR = "recorder"
ACTION_TYPES = {"click": "click", "type": "type", "select": "select", "key": "key", "scroll": "scroll",
                "navigate_back": "navigate_back", "navigate": "other"}


def _clip(box, size: tuple[int, int]) -> tuple[float, float, float, float] | None:
    w, h = size
    x1, y1, x2, y2 = max(0.0, box[0]), max(0.0, box[1]), min(float(w), box[2]), min(float(h), box[3])
    return (x1, y1, x2, y2) if x2 - x1 >= 1 and y2 - y1 >= 1 else None


def _step(action: Action, index: int, key: str, size: tuple[int, int]) -> StepRecord:
    before = action.before
    boxes = []
    gold_selector = action.element["selector"] if action.element else None
    if action.element is not None or action.kind in ("navigate_back", "navigate", "scroll", "key"):
        element = action.element or {}
        boxes.append(BoxRecord(
            label="gold", box=_clip(element["box"], size) if element else None, element_text=element.get("text", ""),
            action_type=ACTION_TYPES[action.kind], type_text="" if action.masked else action.text, source="dom",
            author=AUTHOR, meta={"selector": gold_selector or "", **({"masked": True} if action.masked else {})}))
    for other in before.info["elements"]:
        if other["selector"] == gold_selector:
            continue
        box = _clip(other["box"], size)
        if box is not None:
            boxes.append(BoxRecord(label="other", box=box, element_text=other["text"], source="dom", author=AUTHOR,
                                   action_type="type" if other["tag"] in ("input", "textarea") and other["type"] not in
                                   ("checkbox", "radio", "button", "submit") else
                                   "select" if other["tag"] == "select" else "click",
                                   meta={"selector": other["selector"]}))
    meta = {"kind": action.kind, "url": action.url, "t": action.t, "selector": gold_selector or "",
            "element_text": (action.element or {}).get("text", ""),
            "box": list(action.element["box"]) if action.element else None, "masked": action.masked}
    if action.kind in ("type", "select", "key", "navigate") and not action.masked:
        meta["text"] = action.text
    if action.value:
        meta["value"] = action.value
    if action.scroll is not None:
        meta["scroll"] = list(action.scroll)
    return StepRecord(image=Path(f"{key}-{index}.png"), image_bytes=before.png, boxes=boxes, platform="web",
                      screen_source=before.info["url"],
                      screen_meta={"url": before.info["url"], "title": before.info["title"],
                                   "scroll": before.info["scroll"]},
                      meta={"action": meta}, tree_xml=before.tree_xml)


def episode_key(goal: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", goal.lower()).strip("-")[:40] or "task"
    return f"rec-{datetime.now(UTC):%Y%m%d-%H%M%S}-{slug}-{secrets.token_hex(2)}"


def to_record(recording: Recording, key: str) -> EpisodeRecord:
    size = recording.viewport
    steps = [_step(a, i, key, size) for i, a in enumerate(recording.actions)]
    final = recording.final.info if recording.final is not None else {}
    meta = {"record": {"start": recording.location, "start_url": recording.start_url,
                       "viewport": list(size), "final_url": final.get("url", ""),
                       "evaluator": final.get("evaluator", {}), "blocked_requests": len(recording.blocked),
                       "recorded_at": datetime.now(UTC).isoformat(timespec="seconds")}}
    return EpisodeRecord(key=key, where=Where(Path(recording.location or "recording")), goal=recording.goal,
                         scenario=SCENARIO, review_status="pending", meta=meta, steps=steps)


def save_recording(project: Project, recording: Recording) -> int:
    """Store the recording as a new episode; its id."""
    from sqlalchemy import select

    from desktop_app.store.models import Episode

    if not recording.actions:
        raise ValueError("nothing was recorded: no action was taken on the page")
    key = episode_key(recording.goal)
    ingest(project, [to_record(recording, key)], FORMAT, recording.location)
    with project.reading() as session:
        return session.execute(select(Episode.id).where(Episode.key == key)).scalar_one()
