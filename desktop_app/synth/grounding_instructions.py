"""Grounding tasks made from recorded tasks, their one-line instructions written by an LLM and verified by
people, with the provenance counts the Sphinx paper reports (478 written -> 457 kept: 21 removed, 37
revised, 74 boxes fixed).

1. extract: every step of a recorded task that acts on an element becomes a one-step grounding episode
   (scenario "grounding", pending), duplicates removed (same screen, action and element); the screen,
   its tree and the gold box come along.
2. write: an LLM sees the screenshot with the element framed in red and the action, and writes the
   instruction (the paper used GPT-4o at temperature 0.75); it becomes the episode's goal, and a review
   item keeps what the model wrote.
3. verify (the verification queue): accept, edit the text or the box, or reject with a reason. Whether
   a task was revised is read from the store (the goal differs from what the model wrote), never from
   the window's memory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from desktop_app.a11y.tree import format_bounds, parse_bounds
from desktop_app.formats.ingest import ingest
from desktop_app.formats.records import BoxRecord, EpisodeRecord, StepRecord, Where
from desktop_app.store import edits
from desktop_app.store import models as m
from desktop_app.store.orm import select
from desktop_app.store.project import Project
from desktop_app.store.review import set_review
from desktop_app.store.types import utcnow
from desktop_app.synth.ambiguous import INSTRUCTION, action_code, marked_screenshot
from desktop_app.synth.llm import EndpointError, LlmEndpoint, LlmSession, SynthError

REVIEW_KIND = "grounding_instruction"
SCENARIO = "grounding"
TEMPERATURE = 0.75  # the paper's
ELEMENT_ACTIONS = ("click", "longclick", "input", "text", "swipe")


@dataclass
class Extracted:
    created: int = 0
    duplicates: int = 0  # the same screen, action and element as another step (or an existing task)
    not_element: int = 0  # steps that act on no element (stop, back, enter ...)

    def summary(self) -> str:
        return (f"{self.created} grounding tasks made; {self.duplicates} duplicate steps and {self.not_element} "
                "steps without an element left out")


def extract(project: Project) -> Extracted:
    """Grounding tasks from every recorded task's element actions, all in one import (nothing half made)."""
    report = Extracted()
    records, seen = [], set()
    with project.reading() as s:
        episodes = s.execute(select(m.Episode).where(m.Episode.kind == "sample", m.Episode.scenario != SCENARIO)
                             .order_by(m.Episode.id)).scalars().all()
        for episode in episodes:
            info = (episode.meta or {}).get("capability") or {}
            if "evaluators" not in info:
                continue
            steps = s.execute(select(m.Step).where(m.Step.episode_id == episode.id).order_by(m.Step.index)).scalars()
            for step in steps:
                action = step.meta.get("reference_action") or {}
                if action.get("type") not in ELEMENT_ACTIONS or not action.get("element"):
                    report.not_element += 1
                    continue
                screen = s.get(m.Screen, step.screen_id)
                gold = s.execute(select(m.ActionBox).where(m.ActionBox.step_id == step.id,
                                                           m.ActionBox.label == "gold")).scalars().first()
                if gold is None or gold.x1 is None:
                    report.not_element += 1
                    continue
                box = (gold.x1, gold.y1, gold.x2, gold.y2)
                key = f"grounding-{screen.sha256[:12]}-{action['type']}-" + "-".join(f"{v:g}" for v in box)
                if key in seen:
                    report.duplicates += 1
                    continue
                seen.add(key)
                records.append(EpisodeRecord(
                    key=key, where=Where(project.media.root), goal="", scenario=SCENARIO, review_status="pending",
                    # no task id of its own: export numbers it after the grounding tasks that have one
                    meta={"capability": {"task_id": "", "app": info.get("app", ""), "grounding": True,
                                         "source": {"episode": episode.key, "step": step.index}}},
                    steps=[StepRecord(image=project.image_path(screen), platform=screen.platform,
                                      screen_source=screen.source, meta={"reference_action": action},
                                      boxes=[BoxRecord("gold", box, gold.element_text, gold.action_type,
                                                       gold.type_text, "import", meta=dict(gold.meta or {}))])]))
    if records:
        result = ingest(project, records, "grounding-tasks", "recorded tasks")
        report.created = result.episodes
        report.duplicates += result.existing_episodes_skipped
    return report


@dataclass
class Written:
    written: int = 0
    failed: list[str] = field(default_factory=list)  # "key: why"
    not_asked: int = 0  # tasks left without an instruction because the endpoint failed before them

    def summary(self) -> str:
        """One line (the window's status bar, the CLI): with the first failure's reason, which names the endpoint
        and what to check when the endpoint failed, and how many tasks a failing endpoint left unasked."""
        if not self.failed:
            return f"{self.written} instructions written"
        line = f"{self.written} instructions written; {len(self.failed)} failed, the first: " \
               f"{self.failed[0].split(': ', 1)[-1]}"
        if self.not_asked:
            line += f"; stopped there, {self.not_asked} tasks not asked: write again once the endpoint answers"
        return line


def write_instructions(project: Project, endpoint: LlmEndpoint, temperature: float = TEMPERATURE,
                       limit: int | None = None, progress: Callable[[int, int], None] | None = None,
                       cancel=None) -> Written:
    """An instruction for every grounding task that has none yet (each saved as it comes)."""
    with project.reading() as s:
        todo = s.execute(select(m.Episode).where(m.Episode.scenario == SCENARIO, m.Episode.goal == "",
                                                 m.Episode.kind == "sample").order_by(m.Episode.id)).scalars().all()
    todo = todo[:limit] if limit else todo
    session = LlmSession(endpoint, temperature)
    report = Written()
    for done, episode in enumerate(todo, start=1):
        if cancel is not None and cancel.is_set():
            break
        with project.reading() as s:
            step = s.execute(select(m.Step).where(m.Step.episode_id == episode.id)).scalars().first()
            screen = s.get(m.Screen, step.screen_id)
            gold = s.execute(select(m.ActionBox).where(m.ActionBox.step_id == step.id,
                                                       m.ActionBox.label == "gold")).scalars().first()
        calls: list[dict] = []
        box = (gold.x1, gold.y1, gold.x2, gold.y2) if gold is not None and gold.x1 is not None else None
        platform = "mobile phone" if screen.platform in ("android", "ios") else "web browser"
        try:
            answer = session.ask("step_instruction.j2", INSTRUCTION, calls,
                                 image=marked_screenshot(project.image_path(screen), box),
                                 task="(one step of a longer task)", platform=platform, action=action_code(gold))
        except EndpointError as exc:  # down, hung or refusing: every task after this one would wait as long
            report.failed.append(f"{episode.key}: {exc}")
            report.not_asked = len(todo) - done
            break
        except (SynthError, OSError) as exc:  # a malformed answer, an unreadable screenshot: this task only
            report.failed.append(f"{episode.key}: {exc}")
            continue
        except Exception as exc:  # anything else this task ran into (the endpoint's own failures are EndpointError)
            report.failed.append(f"{episode.key}: {type(exc).__name__}: {exc}")
            continue
        _save(project, episode.id, answer["instruction"].strip(), endpoint.model, calls)
        report.written += 1
        if progress:
            progress(done, len(todo))
    return report


def _save(project: Project, episode_id: int, instruction: str, model: str, calls: list[dict]) -> None:
    """The model's instruction becomes the goal (audited like any edit, the model as the actor), and a
    review item keeps what it wrote."""
    now = utcnow()
    edits.update_episode(project, episode_id, {"goal": instruction, "review_status": "pending"}, f"llm:{model}")
    with project.transaction() as s:
        s.add(m.ReviewItem(episode_id=episode_id, kind=REVIEW_KIND, generator=model, prompt="step_instruction",
                           payload={"instruction": instruction, "calls": calls}, status="pending",
                           created_at=now, updated_at=now))


def written_instruction(project: Project, episode_id: int) -> str | None:
    """What the model wrote for this task (None when no model wrote it)."""
    with project.reading() as s:
        item = s.execute(select(m.ReviewItem).where(m.ReviewItem.episode_id == episode_id,
                                                    m.ReviewItem.kind == REVIEW_KIND)
                         .order_by(m.ReviewItem.id)).scalars().first()
    return (item.payload or {}).get("instruction") if item is not None else None


def verdict_for(project: Project, episode_id: int) -> str:
    """Accepting a task records "edited" when its instruction or its box was changed since the model wrote
    it, "accepted" otherwise: read from the store."""
    with project.reading() as s:
        episode = s.get(m.Episode, episode_id)
    return "edited" if (episode.goal != written_instruction(project, episode_id)
                        or episode_id in _boxes_fixed(project, [episode_id])) else "accepted"


def _boxes_fixed(project: Project, episode_ids) -> set[int]:
    """The tasks whose gold box no longer has the reference element's bounds (snapped, promoted, redrawn),
    in one query."""
    ids = list(episode_ids)
    if not ids:
        return set()
    with project.reading() as s:
        rows = s.execute(select(m.Step.episode_id, m.Step.meta, m.ActionBox.x1, m.ActionBox.y1, m.ActionBox.x2,
                                m.ActionBox.y2)
                         .join(m.ActionBox, (m.ActionBox.step_id == m.Step.id) & (m.ActionBox.label == "gold"))
                         .where(m.Step.episode_id.in_(ids))).all()
    fixed = set()
    for episode_id, meta, x1, y1, x2, y2 in rows:
        element = ((meta or {}).get("reference_action") or {}).get("element") or {}
        if x1 is None or "bounds" not in element:
            continue
        if format_bounds((x1, y1, x2, y2)) != format_bounds(parse_bounds(element["bounds"])):
            fixed.add(episode_id)
    return fixed


def task_id(project: Project, task: int | str) -> int:
    """A grounding task's episode id from its id or its key; KeyError names what was asked for."""
    with project.reading() as s:
        column = m.Episode.id if isinstance(task, int) else m.Episode.key
        found = s.execute(select(m.Episode.id).where(column == task, m.Episode.scenario == SCENARIO)).scalar()
    if found is None:
        raise KeyError(f"no grounding task {task!r} in this project")
    return found


def verify(project: Project, task: int | str, decision: str, reason: str = "", instruction: str | None = None,
           reviewer: str | None = None) -> str:
    """accept (recorded as edited when the text or the box changed since the model wrote it) or reject
    (with a reason); an instruction given replaces the text first. Returns the status recorded."""
    episode_id = task_id(project, task)
    if decision not in ("accept", "reject"):
        raise ValueError("decision is accept or reject")
    if decision == "reject" and not reason.strip():
        raise ValueError("a rejected grounding task needs a reason (e.g. unclear screenshot, bad instruction)")
    if instruction is not None:
        text = " ".join(instruction.split())
        if not text:
            raise ValueError("an instruction cannot be empty")
        edits.update_episode(project, episode_id, {"goal": text}, reviewer)
    status = verdict_for(project, episode_id) if decision == "accept" else "rejected"
    set_review(project, episode_id, status, reviewer, reason)
    return status


def provenance(project: Project) -> dict:
    """The paper's counts for the grounding set: written by the model, kept, removed, revised (the text
    changed from the model's), boxes fixed (the gold box moved off the recorded element)."""
    with project.reading() as s:
        rows = s.execute(select(m.Episode.id, m.Episode.goal, m.Episode.review_status)
                         .where(m.Episode.scenario == SCENARIO, m.Episode.kind == "sample")).all()
        written: dict[int, str] = {}
        for episode_id, payload in s.execute(select(m.ReviewItem.episode_id, m.ReviewItem.payload)
                                             .where(m.ReviewItem.kind == REVIEW_KIND).order_by(m.ReviewItem.id)):
            written.setdefault(episode_id, (payload or {}).get("instruction", ""))
    kept = [(i, goal) for i, goal, status in rows if status in ("accepted", "edited")]
    return {"tasks": len(rows), "written": sum(1 for i, _, _ in rows if i in written),
            "pending": sum(1 for _, _, status in rows if status in ("pending", "unreviewed")),
            "kept": len(kept), "removed": sum(1 for _, _, status in rows if status == "rejected"),
            "revised": sum(1 for i, goal in kept if i in written and goal != written[i]),
            "boxes_fixed": len(_boxes_fixed(project, [i for i, _, status in rows if status != "rejected"]))}
