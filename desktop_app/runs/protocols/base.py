"""A protocol says which work units a run has, how one unit is acted, and what it reports.

The engine (runs/engine.py) owns everything else: planning from the selection, the worker pool,
the writer, cancel, resume, status, totals and failures. A new evaluation protocol is a subclass
registered in protocols/__init__.py; nothing in the engine changes.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, fields
from typing import ClassVar

from sqlalchemy import select

from desktop_app.runs.context import RunContext
from desktop_app.runs.selection import unscoreable
from desktop_app.runs.work import WorkItem
from desktop_app.store import models as m


@dataclass(frozen=True)
class WorkUnit:
    """What one worker does at a time: one step, or one episode's steps in order."""

    key: int  # a step id or an episode id
    items: tuple[WorkItem, ...]  # the steps that get a prediction
    context: tuple[WorkItem, ...] = ()  # steps the unit reads but does not predict (a judged trajectory)
    repeat: int = 0  # which repetition of the same step (a browsing trial: the same variant, N times)


@dataclass(frozen=True)
class NoOptions:
    pass


@dataclass(frozen=True)
class SampleSummary:
    """What a selection holds, to choose a protocol for it."""

    episodes: int = 0  # samples (episodes of kind "sample")
    steps: int = 0
    multi_step_episodes: int = 0
    trajectories: int = 0  # episodes of kind "trajectory"


class OptionsError(ValueError):
    pass


class Protocol:
    name: ClassVar[str]
    title: ClassVar[str]  # a few words for menus and lists
    description: ClassVar[str]  # one sentence: what a unit is and what is measured
    options_type: ClassVar[type] = NoOptions  # a frozen dataclass of the protocol's run options
    episode_kind: ClassVar[str] = "sample"  # which episodes it runs on (store.models.EPISODE_KINDS)

    # -- options -------------------------------------------------------------------
    def options(self, data: dict | None = None, **given) -> object:
        """Typed options from stored JSON (unknown keys refused: a typo must not pass silently)."""
        data = {**(data or {}), **given}
        known = {f.name for f in fields(self.options_type)}
        unknown = set(data) - known
        if unknown:
            raise OptionsError(f"protocol {self.name!r} has no option(s) {', '.join(sorted(unknown))}"
                               + (f" (it has: {', '.join(sorted(known))})" if known else " (it has none)"))
        return self.options_type(**data)

    def options_json(self, options) -> dict:
        return asdict(options)

    def prepare(self, project, profile, options) -> object:
        """Check the options against the project and the profile when the run is created, and return
        them as stored (e.g. with a helper model's profile frozen in). Raises OptionsError."""
        return options

    def offers_ask(self, options) -> bool:
        """Whether the agent is told it may ask the user a question (its instruction gains the ASK syntax)."""
        return False

    # -- planning ------------------------------------------------------------------
    def fits(self, summary: SampleSummary) -> bool:
        """Whether this protocol is the natural one for these samples (see protocols.suggest)."""
        raise NotImplementedError

    def units(self, items: list[WorkItem], include_unlabelled: bool = False,
              options=None) -> tuple[list[WorkUnit], Counter]:
        """The run's work units, and the steps left out by reason (options: the run's typed options)."""
        raise NotImplementedError

    def done(self, project, run_id: int) -> set:
        """What of the run is finished, as finished() reads it: by default the steps with a prediction
        that is not a failed request."""
        with project.reading() as s:
            return set(s.execute(select(m.Prediction.step_id).where(m.Prediction.run_id == run_id,
                                                                    m.Prediction.verdict != "error")).scalars())

    def finished(self, unit: WorkUnit, done_steps: set) -> bool:
        """A unit that needs no request on resume (done_steps: what done() returned)."""
        return all(i.step_id in done_steps for i in unit.items)

    def cached_steps(self, project, agent, units: list[WorkUnit]) -> set[int]:
        """The step ids of these units whose answers the agent would take from the response cache, asking
        nobody (a run's estimate counts only the rest). By default none: a protocol whose prompts depend on
        earlier answers (history, judges, trials) cannot tell before it runs."""
        return set()

    # -- reporting -----------------------------------------------------------------
    def evaluate(self, project, runs: list, rules: tuple[str, ...], text_metric: str = "auto") -> dict[int, dict]:
        """Per run (store.models.Run rows of this protocol): its metrics as JSON-ready dicts. text_metric: how
        the envdistraction rules score text answers (evaluation/rules), for protocols that score with rules."""
        raise NotImplementedError

    def summary(self, metrics: dict, rules: tuple[str, ...]) -> list[str]:
        """The metrics of one run as a few lines of plain text (`screenlab eval`, tooltips)."""
        raise NotImplementedError

    # -- acting --------------------------------------------------------------------
    async def act(self, ctx: RunContext, unit: WorkUnit) -> None:
        """Ask the agent about the unit and write its predictions (ctx.write / ctx.write_failure),
        calling ctx.step_done() once per step. Must return early when ctx.cancel is set."""
        raise NotImplementedError


def step_units(items: list[WorkItem], include_unlabelled: bool) -> tuple[list[WorkUnit], Counter]:
    """One unit per step; steps that cannot be scored left out unless asked for."""
    units, excluded = [], Counter()
    for item in items:
        reason = unscoreable(item.goal, bool(item.actions))
        if reason and not include_unlabelled:
            excluded[reason] += 1
            continue
        units.append(WorkUnit(item.step_id, (item,)))
    return units, excluded


def episode_units(items: list[WorkItem], include_unlabelled: bool) -> tuple[list[WorkUnit], Counter]:
    """One unit per episode (steps in order); an episode with any unscoreable step is left out whole,
    because its later steps depend on the earlier ones."""
    by_episode: dict[int, list[WorkItem]] = {}
    for item in items:
        by_episode.setdefault(item.episode_id, []).append(item)
    units, excluded = [], Counter()
    for episode_id, steps in by_episode.items():
        reasons = [r for r in (unscoreable(i.goal, bool(i.actions)) for i in steps) if r]
        if reasons and not include_unlabelled:
            excluded[reasons[0]] += len(steps)
            continue
        units.append(WorkUnit(episode_id, tuple(steps)))
    return units, excluded
