"""Single screens (EnvDistraction): one request per step, scored as it arrives.

Each step is asked on its own with the episode's goal (and the step's instruction, if any); the
answer is parsed by the agent's output convention and judged by ScreenLab's rules into one verdict
(gold, distracted, other, invalid). Evaluating under the authors' rules happens later, from the
stored raw answers (evaluation/rules), so it can change without asking again.
"""

from __future__ import annotations

from collections import Counter
from typing import ClassVar

from desktop_app.agents.client import RequestFailed
from desktop_app.evaluation.report import screen_metrics
from desktop_app.evaluation.rules.screenlab import ScoringOptions, judge
from desktop_app.runs.context import RunContext, answer_values
from desktop_app.runs.protocols.base import Protocol, SampleSummary, WorkUnit, step_units
from desktop_app.runs.text import rate_header, rate_line
from desktop_app.runs.work import WorkItem


class ScreenProtocol(Protocol):
    name: ClassVar[str] = "screen"
    title: ClassVar[str] = "Single screens"
    description: ClassVar[str] = ("every screen asked on its own with its goal; answers judged gold, distracted, "
                                  "other or invalid (EnvDistraction)")

    def __init__(self, scoring: ScoringOptions = ScoringOptions()):
        self.scoring = scoring

    def fits(self, summary: SampleSummary) -> bool:
        return summary.episodes > 0 and summary.multi_step_episodes * 2 <= summary.episodes

    def units(self, items: list[WorkItem], include_unlabelled: bool = False,
              options=None) -> tuple[list[WorkUnit], Counter]:
        return step_units(items, include_unlabelled)

    def cached_steps(self, project, agent, units: list[WorkUnit]) -> set[int]:
        # one request per step, made of the step alone: its cache key is known before the run
        if not hasattr(agent, "cached_samples"):
            return set()
        return agent.cached_samples([unit.items[0].sample(project, image=False) for unit in units])

    async def act(self, ctx: RunContext, unit: WorkUnit) -> None:
        (item,) = unit.items
        try:
            answer = await ctx.ask(ctx.sample(item))
        except RequestFailed as exc:
            await ctx.write_failure(item, exc)
            ctx.step_done()
            return
        # from the whole answer, however long (the project stores a cut of it: agents/kept_answer.py)
        parsed, verdict = await ctx.read(answer.reply.text, self._score, ctx, answer.reply.text, item)
        await ctx.write(item, {
            **answer_values(answer, parsed), "verdict": verdict.verdict, "matched_box_id": verdict.target_id,
            "wrong_format": verdict.wrong_format,
            "parsed": {**parsed.to_json(), "calls": answer.calls, "how": verdict.how, "score": verdict.score}})
        ctx.step_done(verdict.verdict)

    def _score(self, ctx: RunContext, text: str, item: WorkItem):
        parsed = ctx.parse(text, item)
        return parsed, judge(parsed, item.targets, item.scenario, self.scoring)

    def evaluate(self, project, runs: list, rules: tuple[str, ...], text_metric: str = "auto") -> dict[int, dict]:
        return screen_metrics(project, [r.id for r in runs], rules, text_metric)["runs"]

    def summary(self, metrics: dict, rules: tuple[str, ...]) -> list[str]:
        lines = [rate_header("rules", "samples")]
        for name in rules:
            overall = metrics[name]["overall"]
            notes = [f"{overall['errors']} failed requests left out"] if overall["errors"] else []
            notes += [f"{overall['excluded']} not counted by these rules"] if overall["excluded"] else []
            notes += [f"{overall['both']} both gold and distracted"] if overall["both"] else []
            lines.append(rate_line(name, "all", overall) + (f"   ({'; '.join(notes)})" if notes else ""))
            for scenario, cell in metrics[name]["by_scenario"].items():
                lines.append(rate_line("", scenario or "(none)", cell))
        return lines
