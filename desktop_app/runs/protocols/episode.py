"""Multi-step episodes with ASK (Navi-plus): steps in order, questions answered by a simulated user.

The agent sees the episode's task (the ambiguous one for ambiguous episodes), the screenshot of
the step, and as history the earlier steps' annotated instructions (teacher forcing) plus every
question it asked with the answer it got. When it asks, the simulated user answers with the
verified answer of the next open question/answer pair (or says there is nothing to add) and the
step is predicted again: that second prediction is the step's operational action (Dual-Stream,
decision 0012).

Resuming works per episode: an episode with every step predicted is skipped; a partly predicted
one starts again from its first step.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass
from typing import ClassVar

from sqlalchemy import select

from desktop_app.agents.actions import ParsedAction
from desktop_app.agents.client import RequestFailed
from desktop_app.navi.content_scores import content_lines
from desktop_app.navi.model import navi_of
from desktop_app.navi.scoring import StepOptions, step_correct
from desktop_app.runs.context import RunContext, answer_values
from desktop_app.runs.protocols.base import Protocol, SampleSummary, WorkUnit, episode_units
from desktop_app.runs.protocols.episode_metrics import episode_metrics, gold_step
from desktop_app.runs.text import pct
from desktop_app.runs.work import WorkItem
from desktop_app.store import models as m

NOTHING_TO_ADD = "I have nothing to add; please continue with the task."


@dataclass(frozen=True)
class EpisodeOptions:
    allow_ask: bool = True  # False: the "incomplete" setting, the task given without the ASK action


def _episode(ctx: RunContext, episode_id: int) -> m.Episode:
    with ctx.project.reading() as s:
        return s.execute(select(m.Episode).where(m.Episode.id == episode_id)).scalar_one()


class EpisodeProtocol(Protocol):
    name: ClassVar[str] = "episode"
    title: ClassVar[str] = "Multi-step episodes with ASK"
    description: ClassVar[str] = ("episodes step by step; the agent may ask a question, a simulated user answers; "
                                  "step and episode success, ASK timing (Navi-plus)")
    options_type: ClassVar[type] = EpisodeOptions

    def __init__(self, step_options: StepOptions = StepOptions()):
        self.step_options = step_options

    def fits(self, summary: SampleSummary) -> bool:
        return summary.multi_step_episodes * 2 > summary.episodes

    def offers_ask(self, options: EpisodeOptions) -> bool:
        return options.allow_ask

    def units(self, items: list[WorkItem], include_unlabelled: bool = False,
              options=None) -> tuple[list[WorkUnit], Counter]:
        return episode_units(items, include_unlabelled)

    async def act(self, ctx: RunContext, unit: WorkUnit) -> None:
        steps = list(unit.items)
        await ctx.clear(steps)  # a half-done episode starts over
        allow_ask = self.offers_ask(ctx.options)
        navi = navi_of(await asyncio.to_thread(_episode, ctx, unit.key))
        pairs = sorted(navi.qa_pairs, key=lambda p: p.ask_step) if navi else []
        history: list[str] = []

        async def predict(item: WorkItem):
            sample = ctx.sample(item)
            sample.step_instruction = ""  # the current step's instruction would give the answer away
            sample.history = list(history)
            answer = await ctx.ask(sample)
            return await ctx.read(answer.reply.text, ctx.parse, answer.reply.text, item), answer

        for t, item in enumerate(steps):
            if ctx.cancel.is_set():
                return
            try:
                first, answer = await predict(item)
                second, reply = None, None
                if first.action_type == "ask" and allow_ask:
                    reply = pairs.pop(0).answer if pairs else NOTHING_TO_ADD
                    history.append(f"You asked: {first.text or '(no question)'} The user answered: {reply}")
                    second, answer = await predict(item)
            except RequestFailed as exc:
                await ctx.write_failure(item, exc)
                ctx.step_done()
                return  # the episode is asked again as a whole on resume
            final: ParsedAction = second or first
            correct = await ctx.read(final.raw, step_correct, final, gold_step(t, item), self.step_options)
            await ctx.write(item, {
                **answer_values(answer, final), "raw_text": final.raw,
                "verdict": "gold" if correct else "invalid", "matched_box_id": None,
                "parsed": {**final.to_json(), "first": first.to_json(),
                           "second": second.to_json() if second else None,
                           "asked": first.action_type == "ask", "answer": reply, "correct": correct}})
            ctx.step_done("correct" if correct else "wrong")
            history.append(f"Step {t + 1}: {item.instruction or 'done'}")

    def evaluate(self, project, runs: list, rules: tuple[str, ...], text_metric: str = "auto") -> dict[int, dict]:
        return {run.id: episode_metrics(project, run, self.step_options) for run in runs}

    def summary(self, metrics: dict, rules: tuple[str, ...]) -> list[str]:
        ask = metrics["ask"]
        lines = [f"{metrics['episodes']} episodes ({metrics['steps']} steps), ASK {'on' if metrics['allow_ask'] else 'off'}"
                 + (f", {metrics['unfinished_episodes']} unfinished (not scored)" if metrics["unfinished_episodes"]
                    else ""),
                 f"SSR {pct(metrics['ssr'])}  SR {pct(metrics['sr'])}  SSR before / after the ASK step "
                 f"{pct(metrics['ssr_before_ask'])} / {pct(metrics['ssr_after_ask'])}",
                 f"ASK precision {pct(ask['precision'])}  recall {pct(ask['recall'])}  FPR {pct(ask['fpr'])}  "
                 f"F1 {pct(ask['f1'])}  question F1 {pct(metrics['question_f1'])}"]
        return lines + content_lines(metrics.get("content"))
