"""Ambiguous tasks from complete multi-step episodes, with an LLM (Navi-plus §2.2, our prompts).

1. a low-level instruction per step, from the action and the screenshot with the target marked;
2. every step labelled informative or transactional;
3. for the chosen informative step(s): the task without that detail, and one question/answer
   pair per removed step.
The result is a new pending episode (scenario "ambiguous") whose meta keeps the model's
original texts next to anything a reviewer changes later.
"""

from __future__ import annotations

import io
import random
import uuid
from pathlib import Path

from PIL import Image, ImageDraw

from desktop_app.formats.ingest import ImportOptions, ingest
from desktop_app.formats.records import BoxRecord, EpisodeRecord, StepRecord, Where
from desktop_app.navi.model import SCENARIO, NaviInfo, QAPair, navi_of, with_navi
from desktop_app.store import models as m
from desktop_app.store.orm import select
from desktop_app.store.project import Project
from desktop_app.store.review import set_review
from desktop_app.synth.llm import LlmSession, SynthError

REVIEW_KIND = "ambiguous_task"
INSTRUCTION = {"marked_element": "text:200", "instruction": "text:200"}
KINDS = {"steps": {"list": {"index": "int", "kind": "text:20"}, "min": 1}}
AMBIGUOUS = {"ambiguous_task": "text:400",
             "removed": {"list": {"step": "int", "overlap": "text:200", "question": "text:240", "answer": "text:240"},
                         "min": 1}}


def marked_screenshot(path: Path, box) -> bytes:
    """The step's screen with its target framed in red (a dot for a bare tap point), as the paper does."""
    with Image.open(path) as im:
        im = im.convert("RGB")
        draw = ImageDraw.Draw(im)
        if box is not None:
            x1, y1, x2, y2 = box
            if x2 - x1 < 2 and y2 - y1 < 2:
                draw.ellipse([x1 - 12, y1 - 12, x1 + 12, y1 + 12], outline=(230, 0, 0), width=4)
            else:
                draw.rectangle([x1 - 2, y1 - 2, x2 + 2, y2 + 2], outline=(230, 0, 0), width=4)
        out = io.BytesIO()
        im.save(out, format="PNG")
        return out.getvalue()


def action_code(box: m.ActionBox | None) -> str:
    if box is None:
        return "unknown"
    meta = box.meta or {}
    if box.action_type == "type":
        return f'TYPE("{box.type_text}")'
    if box.action_type == "scroll":
        return f"SCROLL({meta.get('direction', '?').upper()})"
    if box.action_type == "open_app":
        return f"OPEN_APP({meta.get('app_name', '?')})"
    if box.action_type in ("navigate_back", "navigate_home", "wait"):
        return box.action_type.upper()
    return f"{box.action_type.upper()}({box.element_text or 'UnKnown'})"


def _load(project: Project, episode_id: int):
    with project.reading() as s:
        episode = s.get(m.Episode, episode_id)
        steps = list(s.exec(select(m.Step).where(m.Step.episode_id == episode_id).order_by(m.Step.index)))
        screens = {st.id: s.get(m.Screen, st.screen_id) for st in steps}
        boxes = {st.id: list(s.exec(select(m.ActionBox).where(m.ActionBox.step_id == st.id)
                                    .order_by(m.ActionBox.id))) for st in steps}
    return episode, steps, screens, boxes


def make_ambiguous(project: Project, episode_id: int, session: LlmSession, rng: random.Random,
                   remove: int = 1) -> int:
    """One ambiguous variant of a complete episode; returns the new pending episode's id."""
    episode, steps, screens, boxes = _load(project, episode_id)
    if len(steps) < 2:
        raise SynthError(f"{episode.key}: an ambiguous task needs a multi-step episode")
    calls: list[dict] = []
    platform = "mobile phone" if screens[steps[0].id].platform in ("android", "ios") else "web browser"
    instructions = []
    for step in steps:
        gold = next((b for b in boxes[step.id] if b.label == "gold"), None)
        target = (gold.x1, gold.y1, gold.x2, gold.y2) if gold is not None and gold.x1 is not None else None
        image = marked_screenshot(project.image_path(screens[step.id]), target)
        answer = session.ask("step_instruction.j2", INSTRUCTION, calls, image=image, task=episode.goal,
                             platform=platform, action=action_code(gold))
        instructions.append(answer["instruction"])
    kinds_answer = session.ask("step_kinds.j2", KINDS, calls, task=episode.goal, platform=platform,
                               steps=instructions)
    kinds = ["transactional"] * len(steps)
    for entry in kinds_answer["steps"]:
        if 0 <= entry["index"] < len(steps) and entry["kind"] in ("informative", "transactional"):
            kinds[entry["index"]] = entry["kind"]
    informative = [i for i, k in enumerate(kinds) if k == "informative"]
    if len(informative) < remove:
        raise SynthError(f"{episode.key}: {len(informative)} informative steps, {remove} to remove")
    chosen = sorted(rng.sample(informative, remove))
    result = session.ask("ambiguous_task.j2", AMBIGUOUS, calls, task=episode.goal,
                         chosen=[{"index": i, "instruction": instructions[i]} for i in chosen])
    pairs = []
    for r in result["removed"]:
        step = r["step"] if r["step"] in chosen else chosen[min(len(pairs), len(chosen) - 1)]
        pairs.append(QAPair(step, step, r["question"], r["answer"], r["overlap"],
                            llm={"question": r["question"], "answer": r["answer"]}))
    info = NaviInfo(original_task=episode.goal, ambiguous_task=result["ambiguous_task"], qa_pairs=pairs,
                    step_kinds=kinds, source_episode=episode.key,
                    llm={"instructions": instructions, "step_kinds": list(kinds),
                         "ambiguous_task": result["ambiguous_task"]})
    return save_ambiguous(project, episode, steps, screens, boxes, info, instructions, session.endpoint.model, calls)


def save_ambiguous(project, episode, steps, screens, boxes, info: NaviInfo, instructions, generator: str,
                   calls: list[dict]) -> int:
    key = f"{episode.key}-ambiguous-{uuid.uuid4().hex[:6]}"
    records = []
    for step, instruction in zip(steps, instructions, strict=True):
        screen = screens[step.id]
        records.append(StepRecord(
            image=project.image_path(screen), expected_sha256=screen.sha256, platform=screen.platform,
            screen_source=screen.source, screen_meta=screen.meta, instruction=instruction or step.instruction,
            meta=step.meta, boxes=[BoxRecord(label=b.label, box=(b.x1, b.y1, b.x2, b.y2) if b.x1 is not None else None,
                                             element_text=b.element_text, action_type=b.action_type,
                                             type_text=b.type_text, source=b.source, author=b.author,
                                             meta=dict(b.meta)) for b in boxes[step.id]]))
    record = EpisodeRecord(key=key, where=Where(Path(key)), goal=info.ambiguous_task, scenario=SCENARIO,
                           split=episode.split, review_status="pending", meta=with_navi({}, info), steps=records,
                           reviews=[{"kind": REVIEW_KIND, "generator": generator, "status": "pending",
                                     "prompt": "step_instruction, step_kinds, ambiguous_task",
                                     "payload": {"calls": calls, "source_episode": episode.key}}])
    ingest(project, [record], "navi", f"navi:{episode.key}", ImportOptions())
    with project.reading() as s:
        return s.exec(select(m.Episode.id).where(m.Episode.key == key)).one()


def regenerate(project: Project, episode_id: int, session: LlmSession, rng: random.Random | None = None,
               reviewer: str | None = None) -> int:
    """A new ambiguous variant of the same source episode, written by the model, when a reviewer finds one not
    worth fixing; the old one is rejected as "regenerated". Returns the new pending episode's id."""
    with project.reading() as s:
        episode = s.get(m.Episode, episode_id)
        info = navi_of(episode) if episode is not None else None
        if info is None:
            raise SynthError(f"episode {episode_id} is not an ambiguous task")
        source = s.execute(select(m.Episode.id).where(m.Episode.key == info.source_episode)).scalar()
    if source is None:
        raise SynthError(f"the source episode {info.source_episode} is not in this project")
    new_id = make_ambiguous(project, source, session, rng or random.Random(), max(1, len(info.qa_pairs)))
    set_review(project, episode_id, "rejected", reviewer, reason="regenerated")
    return new_id
