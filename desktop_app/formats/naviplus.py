"""Navi-plus-style JSONL of ambiguous tasks (arXiv 2503.24180), exported and imported.

One line per ambiguous episode (scenario "ambiguous" with meta.navi; other episodes are
left out of an export), images under images/:

    episode          str     the ambiguous episode's key
    source_episode   str     the complete episode it was made from ("" if unknown)
    original_task    str     the complete task
    ambiguous_task   str     the task with the removed step's information taken out
    qa_pairs         [{ask_step, removed_step, question, answer, overlap, llm?}]
    steps            [{index, image, width, height, platform, instruction, step_kind,
                       action: {action_type, x, y, box, text, direction, app_name, element, meta?}}]
    review_status?, checklist?, llm?   ScreenLab's review state, so a round trip keeps it

`action` is the step's gold action (docs/decisions/0012-ambiguous-tasks.md): x, y is the
tap point (the point itself for a point without an element box, whose `box` is null; the
tap position kept in the box's meta; else the box's centre), `text` the typed or selected
text, `direction` / `app_name` for scroll and open_app, `element` the element's text.
Other (non-gold) boxes are not written. Import rebuilds the episodes with their meta.navi.
"""

from __future__ import annotations

import json
from pathlib import Path

from desktop_app.formats.records import (
    BoxRecord,
    EpisodeRecord,
    StepRecord,
    Where,
    finite,
    optional,
    parse_box,
    read_jsonl_objects,
    require,
    resolve_image,
    shown,
)
from desktop_app.formats.spec import ExportContext, ExportReport, FormatSpec
from desktop_app.formats.writing import ImageWriter, atomic_output, json_box, json_number
from desktop_app.navi.model import SCENARIO, STEP_KINDS, NaviInfo, QAPair, navi_of
from desktop_app.store.models import EPISODE_REVIEW_STATUSES

FILE_NAME = "naviplus.jsonl"
_ACTION_META = ("point", "x", "y", "direction", "app_name")  # written as action fields, not under meta


# ---------- export ----------

def _point(box) -> tuple[float | int | None, float | int | None]:
    if box.meta.get("x") is not None and box.meta.get("y") is not None:
        return json_number(box.meta["x"]), json_number(box.meta["y"])
    if not box.has_box:
        return None, None
    if box.meta.get("point"):
        return json_number(box.x1), json_number(box.y1)
    return json_number((box.x1 + box.x2) / 2), json_number((box.y1 + box.y2) / 2)


def action_json(box) -> dict | None:
    """The gold ActionBox as a Navi-plus action."""
    if box is None:
        return None
    x, y = _point(box)
    out = {
        "action_type": box.action_type, "x": x, "y": y,
        "box": None if box.meta.get("point") else json_box(box),
        "text": box.type_text or None, "direction": box.meta.get("direction"),
        "app_name": box.meta.get("app_name"), "element": box.element_text or None,
    }
    rest = {k: v for k, v in box.meta.items() if k not in _ACTION_META}
    if rest:
        out["meta"] = rest
    return out


def episode_json(bundle, info: NaviInfo, image_name) -> dict:
    e = bundle.episode
    steps = []
    for sb in bundle.steps:
        gold = next((b for b in sb.boxes if b.label == "gold"), None)
        index = sb.step.index
        steps.append({
            "index": index, "image": image_name(sb.screen), "width": sb.screen.width, "height": sb.screen.height,
            "platform": sb.screen.platform, "instruction": sb.step.instruction,
            "step_kind": info.step_kinds[index] if index < len(info.step_kinds) else "",
            "action": action_json(gold),
        })
    line = {
        "episode": e.key, "source_episode": info.source_episode, "original_task": info.original_task,
        "ambiguous_task": info.ambiguous_task or e.goal,
        "qa_pairs": [{"ask_step": p.ask_step, "removed_step": p.removed_step, "question": p.question,
                      "answer": p.answer, "overlap": p.overlap, **({"llm": p.llm} if p.llm else {})}
                     for p in info.qa_pairs],
        "steps": steps, "review_status": e.review_status,
    }
    for key in ("checklist", "llm"):
        if getattr(info, key):
            line[key] = getattr(info, key)
    return line


def write(ctx: ExportContext) -> ExportReport:
    report = ExportReport("naviplus", ctx.out, skipped_why="episodes that are not ambiguous tasks (no meta.navi)")
    with atomic_output(ctx.out) as tmp:
        images = ImageWriter(tmp, ctx.image_bytes)
        with open(tmp / FILE_NAME, "w", encoding="utf-8", newline="\n") as fh:
            for bundle in ctx.bundles:
                info = navi_of(bundle.episode)
                if bundle.episode.scenario != SCENARIO or info is None:
                    report.skipped += 1
                    continue
                fh.write(json.dumps(episode_json(bundle, info, images.add), ensure_ascii=False) + "\n")
                report.episodes += 1
                report.annotations += sum(1 for sb in bundle.steps for b in sb.boxes if b.label == "gold")
        report.images = images.count
    return report


# ---------- import ----------

def _coordinate(action: dict, key: str, where: Where, name: str) -> float | None:
    value = optional(action, key, (int, float), where, None, name + ".")
    if value is None:
        return None
    number = finite(value)
    if number is None or number < 0:
        raise where.error(f"expected a pixel coordinate >= 0, got {shown(value)}", f"{name}.{key}")
    return number


def read_action(action, where: Where, name: str) -> BoxRecord:
    if not isinstance(action, dict):
        raise where.error("expected an object", name)
    kind = require(action, "action_type", str, where, name + ".")
    x, y = _coordinate(action, "x", where, name), _coordinate(action, "y", where, name)
    if (x is None) != (y is None):
        raise where.error("x and y come together", f"{name}.{'y' if y is None else 'x'}")
    meta = dict(optional(action, "meta", dict, where, {}, name + "."))
    for key in ("direction", "app_name"):
        value = optional(action, key, str, where, None, name + ".")
        if value is not None:
            meta[key] = value
    box = action.get("box")
    field = name
    if box is not None:
        box = parse_box(box, where, name + ".box")
        field = name + ".box"
        if x is not None and (abs(x - (box[0] + box[2]) / 2) > 1e-6 or abs(y - (box[1] + box[3]) / 2) > 1e-6):
            meta.update(x=json_number(x), y=json_number(y))  # a tap off the box's centre
    elif x is not None:
        box, meta["point"] = (x, y, x, y), True
    return BoxRecord(label="gold", box=box, action_type=kind, type_text=optional(action, "text", str, where, "", name + "."),
                     element_text=optional(action, "element", str, where, "", name + "."), meta=meta, field=field)


def _episode(obj, where: Where, bases: list[Path]) -> EpisodeRecord:
    if not isinstance(obj, dict):
        raise where.error("expected a JSON object per line")
    key = require(obj, "episode", str, where)
    original = require(obj, "original_task", str, where)
    ambiguous = require(obj, "ambiguous_task", str, where)
    steps_json = require(obj, "steps", list, where)
    pairs_json = require(obj, "qa_pairs", list, where)
    status = optional(obj, "review_status", str, where, "unreviewed")
    if status not in EPISODE_REVIEW_STATUSES:
        raise where.error(f"unknown review status '{status}'", "review_status")
    if not steps_json:
        raise where.error("episode has no steps", "steps")
    steps, kinds = [], []
    for i, step in enumerate(steps_json):
        name = f"steps[{i}]"
        if not isinstance(step, dict):
            raise where.error("expected an object", name)
        index = optional(step, "index", int, where, i, name + ".")
        if index != i:
            raise where.error(f"steps must be in order 0, 1, 2, ...; found index {index} at position {i}",
                              name + ".index")
        kind = optional(step, "step_kind", str, where, "", name + ".")
        if kind not in STEP_KINDS:
            raise where.error(f"unknown step kind '{kind}' (informative, transactional or empty)", name + ".step_kind")
        kinds.append(kind)
        image = require(step, "image", str, where, name + ".")
        action = step.get("action")
        steps.append(StepRecord(
            image=resolve_image(image, bases, where, name + ".image"),
            boxes=[] if action is None else [read_action(action, where, name + ".action")],
            platform=optional(step, "platform", str, where, "web", name + "."), screen_source=image,
            instruction=optional(step, "instruction", str, where, "", name + "."), field=name + ".",
        ))
    pairs = []
    for i, pair in enumerate(pairs_json):
        name = f"qa_pairs[{i}]"
        if not isinstance(pair, dict):
            raise where.error("expected an object", name)
        ask = require(pair, "ask_step", int, where, name + ".")
        removed = optional(pair, "removed_step", int, where, ask, name + ".")
        for field, value in (("ask_step", ask), ("removed_step", removed)):
            if not 0 <= value < len(steps):
                raise where.error(f"step {value} does not exist (the episode has {len(steps)} steps)",
                                  f"{name}.{field}")
        pairs.append(QAPair(ask_step=ask, removed_step=removed,
                            question=require(pair, "question", str, where, name + "."),
                            answer=require(pair, "answer", str, where, name + "."),
                            overlap=optional(pair, "overlap", str, where, "", name + "."),
                            llm=optional(pair, "llm", dict, where, {}, name + ".")))
    info = NaviInfo(original_task=original, ambiguous_task=ambiguous, qa_pairs=pairs, step_kinds=kinds,
                    llm=optional(obj, "llm", dict, where, {}), checklist=optional(obj, "checklist", dict, where, {}),
                    source_episode=optional(obj, "source_episode", str, where, ""))
    return EpisodeRecord(key=key, where=where, goal=ambiguous, scenario=SCENARIO, review_status=status,
                         meta={"navi": info.to_json()}, steps=steps)


def read(path: Path, options) -> list[EpisodeRecord]:
    return read_jsonl_objects(path, options.images_dir, _episode, "episodes")


SPEC = FormatSpec(
    name="naviplus",
    description="Navi-plus-style JSONL of ambiguous tasks (original/ambiguous task, QA pairs, steps; images/)",
    read=read,
    write=write,
)
