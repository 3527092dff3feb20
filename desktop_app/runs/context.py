"""What a protocol acts with, one per execution: the agent, the parser, the writer, the progress.

Protocols never see the event loop's plumbing: `await ctx.ask(sample)` gets an answer (rate limits,
retries, cache and token totals handled), `await ctx.read(text, fn, ...)` reads it (parse, judge: a long
answer on a worker thread), `await ctx.write(item, values)` stores one prediction through the single writer
thread (every text in it cut to agents/kept_answer.KEPT_CHARS), `ctx.step_done(verdict)` moves the progress on.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from sqlalchemy import delete, select

from desktop_app.agents.actions import ParsedAction
from desktop_app.agents.client import RequestFailed
from desktop_app.agents.conventions import parse_action
from desktop_app.agents.kept_answer import READ_INLINE_CHARS, cut_all
from desktop_app.agents.kinds import Answer
from desktop_app.agents.profiles import AgentProfile, ProfileError
from desktop_app.agents.prompts import Sample
from desktop_app.evaluation.parsed_answers import answer_columns
from desktop_app.runs.state import RunProgress, error_kind
from desktop_app.runs.work import WorkItem
from desktop_app.store import models as m
from desktop_app.store.project import Project
from desktop_app.store.types import utcnow

Progress = Callable[[RunProgress], None]
T = TypeVar("T")


class RunContext:
    def __init__(self, project: Project, run_id: int, profile: AgentProfile, agent, options,
                 progress: RunProgress, on_progress: Progress | None, cancel: threading.Event,
                 writer: ThreadPoolExecutor, loop: asyncio.AbstractEventLoop,
                 make_agent: Callable[[AgentProfile], tuple] | None = None):
        self.project = project
        self.run_id = run_id
        self.profile = profile
        self.agent = agent
        self.options = options  # the protocol's typed options for this run
        self.progress = progress
        self.cancel = cancel
        self._on_progress = on_progress
        self._writer = writer
        self._loop = loop
        self._started = time.perf_counter()
        self._helpers: dict[str, tuple[object, object]] = {}  # profile name -> (agent, client)
        self.memo: dict = {}  # a protocol's per-execution lookups (e.g. captions being asked for)
        self._make_agent = make_agent  # profile -> (agent, client to close): the engine's, for helper models
        self._closers: list[Callable[[], None]] = []

    # the agent ----------------------------------------------------------------------
    def sample(self, item: WorkItem) -> Sample:
        return item.sample(self.project)

    async def ask(self, sample: Sample) -> Answer:
        """The agent's answer; token totals and cache hits are counted here. Raises RequestFailed."""
        answer = await self.agent.act(sample)
        self.progress.cached += answer.cached
        if not answer.cached:  # cached answers cost nothing again
            self.progress.prompt_tokens += answer.reply.prompt_tokens or 0
            self.progress.completion_tokens += answer.reply.completion_tokens or 0
        return answer

    async def chat(self, messages: list[dict], sha256s: list[str], agent=None, sampling: dict | None = None) -> Answer:
        """One request with messages a protocol built itself (a judge's question), images named by
        hash in order for the cache; token totals counted as for ask(). Raises RequestFailed.
        sampling: the protocol's temperature / top_p / draw (OpenAIAgent.call)."""
        agent = agent or self.agent
        if not hasattr(agent, "call"):
            raise ProfileError(f"{self.profile.name}: this protocol needs a model (an OpenAI-compatible profile), "
                               f"not an agent of kind {self.profile.kind!r}")
        reply, cached = await agent.call(messages, sha256s, sampling)
        answer = Answer(reply, [], cached)
        self.progress.cached += cached
        if not cached:
            self.progress.prompt_tokens += reply.prompt_tokens or 0
            self.progress.completion_tokens += reply.completion_tokens or 0
        return answer

    def helper(self, profile: AgentProfile):
        """A second model for this execution (a judge's captioner), made once, closed with the run."""
        if profile.name not in self._helpers:
            if self._make_agent is None:
                raise ProfileError(f"this execution cannot use a second model ({profile.name})")
            self._helpers[profile.name] = self._make_agent(profile)
        return self._helpers[profile.name][0]

    def on_close(self, fn: Callable[[], None]) -> None:
        """Something a protocol opened for this execution (a browser) and closes when it ends."""
        self._closers.append(fn)

    async def aclose(self) -> None:
        for _, client in self._helpers.values():
            if client is not None:
                await client.close()
        self._helpers.clear()
        while self._closers:
            await asyncio.to_thread(self._closers.pop())

    async def read(self, text: str, fn: Callable[..., T], *args) -> T:
        """fn(*args): a protocol's reading of the model's answer `text` (parse it, judge it). An ordinary answer
        is read right here; a long one (a model looping, a server echoing a page: a 5 MB answer takes about a
        second to parse and as long to score) on a worker thread, so that meanwhile the event loop keeps sending
        the other requests and taking their answers. fn must only read its arguments."""
        if len(text) <= READ_INLINE_CHARS:
            return fn(*args)
        return await asyncio.to_thread(fn, *args)

    def parse(self, text: str, item: WorkItem) -> ParsedAction:
        p = self.profile
        resize = {k: v for k, v in (("factor", p.factor), ("min_pixels", p.min_pixels),
                                    ("max_pixels", p.max_pixels)) if v}
        return parse_action(p.convention, text, item.width, item.height, **resize)

    # the database ---------------------------------------------------------------------
    async def write(self, item: WorkItem, values: dict) -> None:
        """Store (or replace) the run's prediction for this step, committed before this returns."""
        await self._loop.run_in_executor(self._writer, self.project.retrying, _write_prediction, self.run_id,
                                         item.step_id, values)

    async def store(self, fn: Callable, *args) -> object:
        """Run fn(project, *args) on the writer thread (a protocol's own rows, e.g. captions)."""
        return await self._loop.run_in_executor(self._writer, self.project.retrying, fn, *args)

    async def write_failure(self, item: WorkItem, exc: RequestFailed) -> None:
        self.progress.errors += 1
        self.progress.error_kinds[error_kind(str(exc))] += 1
        await self.write(item, {"verdict": "error", "error": str(exc), "raw_text": "",
                                "parsed": {"attempts": exc.attempts}})

    async def clear(self, items: list[WorkItem]) -> None:
        """Forget the run's predictions for these steps (an episode that starts over)."""
        await self._loop.run_in_executor(self._writer, self.project.retrying, _delete_predictions, self.run_id,
                                         [i.step_id for i in items])

    # progress ---------------------------------------------------------------------------
    def step_done(self, verdict: str | None = None) -> None:
        if verdict:
            self.progress.count(verdict)
        self.progress.done += 1
        self.progress.elapsed_s = time.perf_counter() - self._started
        if self._on_progress:
            self._on_progress(self.progress)


def answer_values(answer: Answer, final: ParsedAction) -> dict:
    """The columns every protocol stores for an answered step."""
    reply = answer.reply
    return {"raw_text": reply.text, "x": final.point[0] if final.point else None,
            "y": final.point[1] if final.point else None, "element_text": final.element or "",
            "wrong_format": final.wrong_format, "latency_ms": reply.latency_ms,
            "prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens, "error": ""}


def _write_prediction(project: Project, run_id: int, step_id: int, values: dict) -> None:
    values = cut_all(values)  # a 5 MB answer (its raw text, its parse's raw, element, thought) kept to 64 Ki each
    with project.transaction() as s:
        row = s.execute(select(m.Prediction).where(m.Prediction.run_id == run_id,
                                                   m.Prediction.step_id == step_id)).scalar_one_or_none()
        if row is None:
            row = m.Prediction(run_id=run_id, step_id=step_id)
        # the answer as the rules read it, parsed once (ADR 0052), from the text as kept (cut_all)
        values |= answer_columns(s, run_id, step_id, values.get("raw_text", row.raw_text or ""),
                                 values.get("verdict", row.verdict or ""))
        for key, value in values.items():
            setattr(row, key, value)
        row.created_at = utcnow()
        s.add(row)


def _delete_predictions(project: Project, run_id: int, step_ids: list[int]) -> None:
    with project.transaction() as s:
        s.execute(delete(m.Prediction).where(m.Prediction.run_id == run_id, m.Prediction.step_id.in_(step_ids)))
