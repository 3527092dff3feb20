"""Runs on multi-step episodes: steps in order, ASK answered by a simulated user.

The agent sees the episode's task (the ambiguous one for ambiguous episodes), the
screenshot of the step, and as history the earlier steps' annotated instructions
(teacher forcing) plus every question it asked with the answer it got. When it asks,
the simulated user answers with the verified answer of the next open question/answer
pair (or says there is nothing to add) and the step is predicted again: that second
prediction is the step's operational action (Dual-Stream, decision 0012).

Resuming works per episode: an episode with every step predicted is skipped; a partly
predicted one is started again from its first step.
"""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import delete, select

from desktop_app.agents.actions import ParsedAction
from desktop_app.agents.client import RequestFailed
from desktop_app.agents.profiles import AgentProfile
from desktop_app.agents.prompts import Sample
from desktop_app.agents.runner import (
    Progress,
    RunStatus,
    WorkItem,
    _parse,
    _sample,
    _set_run,
    _write_prediction,
    make_agent,
    plan,
    run_filter,
    run_profile,
)
from desktop_app.navi.model import navi_of
from desktop_app.navi.scoring import GoldStep, StepOptions, step_correct
from desktop_app.store import models as m
from desktop_app.store.project import Project

NOTHING_TO_ADD = "I have nothing to add; please continue with the task."


def gold_step(index: int, item: WorkItem, boxes: list[m.ActionBox]) -> GoldStep:
    gold = next((b for b in boxes if b.label == "gold"), None)
    if gold is None:
        return GoldStep(index, "none", width=item.width, height=item.height)
    box = (gold.x1, gold.y1, gold.x2, gold.y2) if gold.x1 is not None else None
    meta = gold.meta or {}
    return GoldStep(index, gold.action_type, box, bool(meta.get("point")), gold.type_text,
                    meta.get("direction", ""), meta.get("app_name", ""), item.width, item.height)


def _episodes(project: Project, items: list[WorkItem]):
    """Items grouped per episode in step order, with gold steps and the navi info."""
    by_episode: dict[int, list[WorkItem]] = {}
    for item in items:
        by_episode.setdefault(item.episode_id, []).append(item)
    with project.reading() as s:
        episodes = {e.id: e for e in s.execute(select(m.Episode).where(m.Episode.id.in_(by_episode))).scalars()}
        boxes: dict[int, list[m.ActionBox]] = {}
        step_ids = [i.step_id for i in items]
        for start in range(0, len(step_ids), 500):
            for b in s.execute(select(m.ActionBox).where(m.ActionBox.step_id.in_(step_ids[start:start + 500]))
                               ).scalars():
                boxes.setdefault(b.step_id, []).append(b)
    for episode_id, steps in by_episode.items():
        golds = [gold_step(i, item, boxes.get(item.step_id, [])) for i, item in enumerate(steps)]
        yield episodes[episode_id], steps, golds


def _done_steps(project: Project, run_id: int) -> set[int]:
    with project.reading() as s:
        return set(s.execute(select(m.Prediction.step_id).where(m.Prediction.run_id == run_id,
                                                                m.Prediction.verdict != "error")).scalars())


async def execute_navi_async(project: Project, run_id: int, profile: AgentProfile | None = None,
                             progress: Progress | None = None, cancel: threading.Event | None = None,
                             concurrency: int | None = None, use_cache: bool = True,
                             options: StepOptions = StepOptions(), **_) -> RunStatus:
    run, stored_profile = run_profile(project, run_id)
    profile = profile or stored_profile
    allow_ask = bool(run.meta.get("allow_ask"))
    items = plan(project, run_filter(run))
    done = _done_steps(project, run_id)
    episodes = list(_episodes(project, items))
    todo = [e for e in episodes if not all(i.step_id in done for i in e[1])]
    status = RunStatus(run_id, total=len(items), skipped=sum(len(e[1]) for e in episodes if e not in todo))
    cancel = cancel or threading.Event()
    started = time.perf_counter()
    _set_run(project, run_id, status="running", started=True)
    agent, client = make_agent(project, profile, use_cache, allow_ask=allow_ask)
    writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="prediction-writer")
    loop = asyncio.get_running_loop()

    def write(fn, *args):
        return loop.run_in_executor(writer, fn, *args)

    def clear(step_ids: list[int]) -> None:
        with project.transaction() as s:
            s.execute(delete(m.Prediction).where(m.Prediction.run_id == run_id, m.Prediction.step_id.in_(step_ids)))

    async def act(item: WorkItem, history: list[str]) -> tuple[ParsedAction, object]:
        sample: Sample = _sample(project, item)
        sample.step_instruction = ""  # the current step's instruction would give the answer away
        sample.history = list(history)
        answer = await agent.act(sample)
        status.cached += answer.cached
        if not answer.cached:
            status.prompt_tokens += answer.reply.prompt_tokens or 0
            status.completion_tokens += answer.reply.completion_tokens or 0
        return _parse(profile, answer.reply.text, item), answer

    async def run_episode(episode, steps: list[WorkItem], golds: list[GoldStep]) -> None:
        await write(clear, [i.step_id for i in steps])  # a half-done episode starts over
        navi = navi_of(episode)
        pairs = sorted(navi.qa_pairs, key=lambda p: p.ask_step) if navi else []
        history: list[str] = []
        for t, (item, gold) in enumerate(zip(steps, golds, strict=True)):
            if cancel.is_set():
                return
            try:
                first, answer = await act(item, history)
                second, reply = None, None
                if first.action_type == "ask" and allow_ask:
                    reply = pairs.pop(0).answer if pairs else NOTHING_TO_ADD
                    history.append(f"You asked: {first.text or '(no question)'} The user answered: {reply}")
                    second, answer = await act(item, history)
            except RequestFailed as exc:
                status.errors += 1
                await write(_write_prediction, project, run_id, item, {
                    "verdict": "error", "error": str(exc), "raw_text": "", "parsed": {"attempts": exc.attempts}})
                return  # the episode is retried as a whole on resume
            final = second or first
            correct = step_correct(final, gold, options)
            await write(_write_prediction, project, run_id, item, {
                "raw_text": final.raw, "x": final.point[0] if final.point else None,
                "y": final.point[1] if final.point else None, "element_text": final.element or "",
                "verdict": "gold" if correct else "invalid", "wrong_format": final.wrong_format,
                "matched_box_id": None, "latency_ms": answer.reply.latency_ms,
                "prompt_tokens": answer.reply.prompt_tokens, "completion_tokens": answer.reply.completion_tokens,
                "error": "",
                "parsed": {**final.to_json(), "first": first.to_json(),
                           "second": second.to_json() if second else None,
                           "asked": first.action_type == "ask", "answer": reply, "correct": correct}})
            status.verdicts["correct" if correct else "wrong"] = status.verdicts.get(
                "correct" if correct else "wrong", 0) + 1
            status.done += 1
            status.elapsed_s = time.perf_counter() - started
            if progress:
                progress(status)
            history.append(f"Step {t + 1}: {item.instruction or 'done'}")

    queue: asyncio.Queue = asyncio.Queue()
    for entry in todo:
        queue.put_nowait(entry)

    async def work() -> None:
        while not cancel.is_set():
            try:
                entry = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            await run_episode(*entry)

    tasks = [asyncio.create_task(work()) for _ in range(max(1, min(concurrency or profile.concurrency,
                                                                     len(todo) or 1)))]
    try:
        await asyncio.gather(*tasks)
    finally:
        writer.shutdown(wait=True)
        if client is not None:
            await client.close()
    status.cancelled = cancel.is_set()
    status.elapsed_s = time.perf_counter() - started
    left = status.cancelled or not all(i.step_id in _done_steps(project, run_id) for i in items)
    _set_run(project, run_id, status="cancelled" if status.cancelled else
             ("done_with_errors" if left else "done"), finished=not status.cancelled, totals=status)
    if progress:
        progress(status)
    return status
