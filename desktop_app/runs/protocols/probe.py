"""Knowledge probes (Sphinx goal understanding and app knowledge): questions with an answer key, no screen.

A unit is one question (an episode of kind "probe", formats/sphinx_probes.py), asked as the authors ask
it: one multiple-choice question, then one yes/no question per option, each its own request and
prediction. Replies are read strictly (the letter alone; Yes / No or T / F alone); one that cannot be
read is a format error (verdict invalid), never a guess. Accuracy is right replies over five per
question, per level (goal, app), recomputed from the stored replies (capability/metrics.probe_accuracy),
so the authors' reading can be applied to the same replies.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import ClassVar

from desktop_app.agents.actions import ParsedAction
from desktop_app.agents.client import RequestFailed
from desktop_app.capability import prompts
from desktop_app.capability.failure_modes import probe_mode, tally
from desktop_app.capability.metrics import ProbeAnswers, probe_accuracy, read_bq, read_mcq
from desktop_app.runs.context import RunContext, answer_values
from desktop_app.runs.protocols.base import OptionsError, Protocol, SampleSummary, WorkUnit
from desktop_app.runs.protocols.capability import (
    failure_line,
    predictions_of,
    rate_text,
    require_model,
    tasks_of,
)
from desktop_app.runs.protocols.repair import freeze_repairer, repaired
from desktop_app.runs.selection import RunSelection
from desktop_app.runs.work import WorkItem, load_items

NOT_A_PROBE = "not a knowledge probe"


@dataclass(frozen=True)
class ProbeOptions:
    prompt: str = prompts.VERSIONS[-1]
    repair: str = ""  # a model profile that rewrites replies in the wrong format (runs/protocols/repair.py)
    repair_profile: dict = field(default_factory=dict)  # frozen when the run is created


def _probe(item: WorkItem) -> dict:
    return (item.episode_meta.get("capability") or {}).get("probe") or {}


def reply_right(item: WorkItem, text: str) -> bool | None:
    """Whether a reply to this step is right: the key letter for the MCQ, yes exactly for the key option."""
    probe, ask = _probe(item), item.step_meta.get("ask")
    if ask == "mcq":
        said = read_mcq(text)
        return None if said is None else said == probe.get("answer")
    said = read_bq(text)
    return None if said is None else said == (item.step_meta.get("option") == probe.get("answer"))


class ProbeProtocol(Protocol):
    name: ClassVar[str] = "probe"
    title: ClassVar[str] = "Capability: knowledge probes"
    description: ClassVar[str] = ("questions about the user's goal or the app, asked as one multiple-choice and "
                                  "four yes/no questions; accuracy per level (Sphinx)")
    options_type: ClassVar[type] = ProbeOptions
    episode_kind: ClassVar[str] = "probe"
    repairs: ClassVar[bool] = True  # unreadable replies may be rewritten by a second model

    def options(self, data: dict | None = None, **given) -> ProbeOptions:
        options: ProbeOptions = super().options(data, **given)
        if options.prompt not in prompts.VERSIONS:
            raise OptionsError(f"unknown prompt version {options.prompt!r} (one of {', '.join(prompts.VERSIONS)})")
        return options

    def prepare(self, project, profile, options):
        require_model(profile)
        return freeze_repairer(options)

    def fits(self, summary: SampleSummary) -> bool:
        return False  # probes are their own kind of episode: chosen explicitly

    def units(self, items: list[WorkItem], include_unlabelled: bool = False,
              options=None) -> tuple[list[WorkUnit], Counter]:
        units, excluded = [], Counter()
        for episode_id, steps in tasks_of(items).items():
            if not _probe(steps[0]) or len(steps) != 5:
                excluded[NOT_A_PROBE] += len(steps)
            else:
                units.append(WorkUnit(episode_id, tuple(steps)))
        return units, excluded

    async def act(self, ctx: RunContext, unit: WorkUnit) -> None:
        options: ProbeOptions = ctx.options
        for item in unit.items:
            if ctx.cancel.is_set():
                return
            messages = prompts.probe_messages(options.prompt, item.goal, _probe(item), item.step_meta.get("ask"),
                                              item.step_meta.get("option", ""))
            try:
                answer = await ctx.chat(messages, [])
            except RequestFailed as exc:
                await ctx.write_failure(item, exc)
                ctx.step_done()
                continue
            right = await ctx.read(answer.reply.text, reply_right, item, answer.reply.text)
            verdict = "invalid" if right is None else ("gold" if right else "other")
            final = ParsedAction(raw=answer.reply.text, wrong_format=right is None)
            parsed = {"ask": item.step_meta.get("ask"), "option": item.step_meta.get("option")}
            if right is None:
                rewrite = await repaired(ctx, answer.reply.text, item.step_meta.get("ask", "bq"))
                if rewrite is not None:
                    parsed["repaired"] = rewrite
            await ctx.write(item, {**answer_values(answer, final), "verdict": verdict, "parsed": parsed})
            ctx.step_done(verdict)

    def evaluate(self, project, runs: list, rules: tuple[str, ...], text_metric: str = "auto") -> dict[int, dict]:
        out = {}
        for run in runs:
            selection = RunSelection.from_json(run.selection)
            units, _ = self.units(load_items(project, selection.episodes))
            rows = {r.step_id: r for r in predictions_of(project, run.id)}
            answers, unfinished, modes = [], 0, []
            for unit in units:
                replies = [rows.get(i.step_id) for i in unit.items]
                if any(r is None or r.verdict == "error" for r in replies):
                    unfinished += 1
                    continue
                probe = _probe(unit.items[0])
                modes += [probe_mode(probe["level"], None if r.verdict == "invalid" else r.verdict == "gold")
                          for r in replies]
                answers.append(ProbeAnswers(probe["level"], probe["answer"], replies[0].raw_text,
                                            [r.raw_text for r in replies[1:]]))
                if (run.options or {}).get("repair"):  # Repaired: an unreadable reply counts as its rewrite
                    fixed = [(r.parsed or {}).get("repaired", r.raw_text) if r.verdict == "invalid" else r.raw_text
                             for r in replies]
                    answers.append(ProbeAnswers(probe["level"], probe["answer"], fixed[0], fixed[1:], "repaired"))
            accuracy = probe_accuracy(answers)
            out[run.id] = {"rates": {level: v["original"].as_dict() for level, v in accuracy.items()},
                           "questions": sum(1 for a in answers if a.version == "original"),
                           "unfinished": unfinished, "failure_modes": tally(modes)}
            if (run.options or {}).get("repair"):
                out[run.id]["repaired"] = {level: v["repaired"].as_dict() for level, v in accuracy.items()
                                           if "repaired" in v}
        return out

    def summary(self, metrics: dict, rules: tuple[str, ...]) -> list[str]:
        lines = [f"{level:<12} {rate_text(cell)}" for level, cell in metrics.get("rates", {}).items()]
        lines += [f"{level + ' rep.':<12} {rate_text(cell)}   (replies in the wrong format rewritten by the repairer)"
                  for level, cell in metrics.get("repaired", {}).items()]
        lines += failure_line(metrics)
        if metrics.get("unfinished"):
            lines.append(f"{metrics['unfinished']} questions not finished (failed requests; --resume asks again)")
        return lines
