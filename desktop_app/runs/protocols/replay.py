"""End-to-end navigation on a recorded task, scored by the task's evaluators (Sphinx SR and ACP), offline.

Sphinx runs agents on a live emulator. Offline we have only the recorded screens, so the agent walks the
recording: it sees screen i, the goal and its own actions so far, and answers one action. An action that
does what the reference does at that step (the grounding rule: same type and text, its point or
element's centre in the gold box) moves it to screen i + 1; `press [stop]` ends the run; any other action
leaves the recording (we cannot show the screen it would reach), so the run ends there, as does an answer
that does not parse (the authors' runs also end on a parse error). Repetition is counted over the
agent's own actions (the authors' rule): on the recording an action repeats only where the recording does,
so a repeated action is mostly the one that left it; a live device would show longer loops. The trajectory the agent made (the
screens it saw, its actions) is then scored by the task's evaluators: SR = all hold, ACP = the share
that holds (capability/evaluators.py, the authors' semantics). A run that left the recording is judged
on what it did until then, which is conservative: an alternative path that would have worked counts as
a failure here (decision 0018).

Steps the agent never reached get a prediction marked unreached (verdict "other"), so a finished task
is not asked again on resume; a failed request leaves the task unfinished and resume starts it over.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict
from typing import ClassVar

from desktop_app.a11y.stored import parse_stored
from desktop_app.a11y.tree import UiTree
from desktop_app.agents.actions import ParsedAction
from desktop_app.capability import prompts
from desktop_app.capability.evaluators import STOP, EvaluatorError, build_trace, parse_evaluators, score_task
from desktop_app.capability.failure_modes import replay_mode, tally
from desktop_app.capability.grammar import GrammarError, parse_action, to_trace_action
from desktop_app.capability.metrics import (
    RunOutcome,
    TaskOutcome,
    end_to_end,
    format_error_rate,
    grounding_hit,
    repetition_rate,
)
from desktop_app.runs.context import RunContext, answer_values
from desktop_app.runs.protocols.base import WorkUnit
from desktop_app.runs.protocols.capability import (
    NO_REFERENCE,
    CapabilityProtocol,
    ask_step,
    grounding_item,
    predictions_of,
    tasks_of,
)
from desktop_app.runs.selection import NO_GOAL, RunSelection
from desktop_app.runs.work import WorkItem, load_items
from desktop_app.store.trees import trees_named

NO_EVALUATORS = "no evaluators"


def on_path(action, item: WorkItem, tree) -> bool:
    """Whether the answer does what the recording does at this step (then the next recorded screen is
    the one the agent would see)."""
    reference = (item.step_meta.get("reference_action") or {}).get("type")
    if reference == "stop" or action.kind == "stop":
        return action.kind == reference
    scored, _ = grounding_item(action, item, tree)
    return grounding_hit(scored)


class ReplayProtocol(CapabilityProtocol):
    name: ClassVar[str] = "replay"
    title: ClassVar[str] = "Capability: end to end (recorded)"
    description: ClassVar[str] = ("an agent walks a recorded task screen by screen until it stops or leaves the "
                                  "recording; its trajectory is scored by the task's evaluators (Sphinx SR, ACP)")

    def units(self, items: list[WorkItem], include_unlabelled: bool = False,
              options=None) -> tuple[list[WorkUnit], Counter]:
        units, excluded = [], Counter()
        for episode_id, steps in tasks_of(items).items():
            info = steps[0].episode_meta.get("capability") or {}
            if not steps[0].goal.strip():
                excluded[NO_GOAL] += len(steps)
            elif "evaluators" not in info:
                excluded[NO_EVALUATORS] += len(steps)
            elif any(not s.step_meta.get("reference_action") for s in steps):
                excluded[NO_REFERENCE] += len(steps)
            else:
                units.append(WorkUnit(episode_id, tuple(steps)))
        return units, excluded

    async def act(self, ctx: RunContext, unit: WorkUnit) -> None:
        await ctx.clear(list(unit.items))  # a task is walked from its start (resume after a failed request)
        history: list[str] = []
        form = prompts.answer_form(ctx.options.observation)
        for index, item in enumerate(unit.items):
            if ctx.cancel.is_set():
                return
            asked = await ask_step(ctx, item, "navigation", goal=item.goal, history=history)
            if asked is None:
                return  # the failure is written; the task stays unfinished
            answer, tree = asked
            ended, verdict = "", "gold"
            try:
                action = await ctx.read(answer.reply.text, parse_action, answer.reply.text, form)
                trace_action = to_trace_action(action, tree) if tree is not None else _coordinate_action(action)
            except GrammarError as exc:
                await ctx.write(item, {**answer_values(answer, ParsedAction(raw=answer.reply.text, wrong_format=True)),
                                       "verdict": "invalid", "parsed": {"error": str(exc), "ended": "format error"}})
                ctx.step_done("invalid")
                await self._unreached(ctx, unit.items[index + 1:])
                return
            if action.kind == "stop":  # stopped here (early, or when the recording does): the screen is known
                verdict, ended = ("gold" if on_path(action, item, tree) else "other"), "stopped"
            elif not on_path(action, item, tree):
                verdict, ended = "other", "left the recording"
            shown = ParsedAction(raw=action.raw, point=tuple(float(v) for v in action.point) if action.point else None,
                                 action_type=action.kind, text=action.text or "")
            await ctx.write(item, {**answer_values(answer, shown), "verdict": verdict,
                                   "parsed": {"action": asdict(action), "trace_action": trace_action,
                                              "ended": ended}})
            ctx.step_done(verdict)
            if ended:
                await self._unreached(ctx, unit.items[index + 1:])
                return
            history.append(prompts.describe_action(trace_action))

    async def _unreached(self, ctx: RunContext, items) -> None:
        for item in items:
            await ctx.write(item, {"verdict": "other", "raw_text": "", "error": "",
                                   "parsed": {"unreached": True}})
            ctx.step_done()

    # -- scoring ----------------------------------------------------------------------------------
    def evaluate(self, project, runs: list, rules: tuple[str, ...], text_metric: str = "auto") -> dict[int, dict]:
        out = {}
        for run in runs:
            selection = RunSelection.from_json(run.selection)
            units, _ = self.units(load_items(project, selection.episodes))
            rows = {r.step_id: r for r in predictions_of(project, run.id)}
            tasks, outcomes, per_task, unfinished, walks = [], [], [], 0, []
            with project.reading() as s:
                for unit in units:
                    mine = [rows.get(i.step_id) for i in unit.items]
                    if any(r is None or r.verdict == "error" for r in mine):
                        unfinished += 1
                        continue
                    task = _score(s, unit, mine)
                    if task is None:
                        unfinished += 1
                        continue
                    outcome, run_outcome, detail, walked = task
                    walks.append(walked)
                    tasks.append(outcome)
                    outcomes.append(run_outcome)
                    per_task.append(detail)
            e2e = end_to_end(tasks)
            out[run.id] = {"rates": {"success": e2e.sr.as_dict(),
                                     "format_error": format_error_rate(outcomes).as_dict(),
                                     "repetition": repetition_rate(walks).as_dict()},
                           "acp": e2e.acp, "acp_ci95": e2e.acp_ci95, "acp_tasks": e2e.acp_tasks,
                           "sr_by_length": {k: v.as_dict() for k, v in e2e.sr_by_length.items()},
                           "tasks": per_task, "unfinished": unfinished,
                           "failure_modes": tally(t["failure_mode"] for t in per_task),
                           "observation": (run.options or {}).get("observation", "")}
        return out

    def summary(self, metrics: dict, rules: tuple[str, ...]) -> list[str]:
        lines = super().summary(metrics, rules)  # the rates, tasks left out, failure modes
        if metrics.get("acp") is not None:
            low, high = metrics["acp_ci95"] or (metrics["acp"], metrics["acp"])
            lines.insert(len(metrics.get("rates", {})),
                         f"{'ACP':<12} {100 * metrics['acp']:5.1f} % [{100 * low:.1f}, {100 * high:.1f}]  "
                         f"({metrics['acp_tasks']} tasks)")
        return lines


def _coordinate_action(action) -> dict:
    """An image-mode answer on a screen without a tree, in the evaluators' shape (points, no element)."""
    out = {"type": "input" if action.kind == "text" else action.kind, "element": None,
           "coords": list(action.point) if action.point else None, "message": action.text or "",
           "direction": action.direction or ""}
    if action.point2 is not None:
        out["coords_to"] = list(action.point2)
    return out


def _score(session, unit: WorkUnit, rows: list) -> tuple | None:
    """The task's outcome from the stored answers: the screens seen and the actions taken, through its
    evaluators. None when the task cannot be scored (a screen without a tree, a bad evaluator)."""
    info = unit.items[0].episode_meta.get("capability") or {}
    try:
        evaluators = parse_evaluators(info.get("evaluators", []))
    except EvaluatorError:
        return None
    seen = [(item, row) for item, row in zip(unit.items, rows, strict=True) if not (row.parsed or {}).get("unreached")]
    trees, activities, actions = [], [], []
    parse_error = False
    stored_trees = trees_named(session, {(item.screen_id, item.step_meta.get("tree")) for item, _ in seen})
    for item, row in seen:
        stored = stored_trees.get((item.screen_id, item.step_meta.get("tree")))
        if stored is None:
            return None
        trees.append(parse_stored(stored).tree)
        activities.append(item.step_meta.get("activity"))
        trace_action = (row.parsed or {}).get("trace_action")
        if trace_action is None:
            # the answer did not parse: the run ended on this screen, which the agent saw; like the
            # authors' scorer, a stop is put there (build_trace adds it: one screen more than actions)
            parse_error = True
            break
        actions.append(trace_action)
    ended = (seen[-1][1].parsed or {}).get("ended", "") if seen else ""
    if ended == "left the recording":
        # the screen the agent's last action leads to was never recorded: an empty one, where the run is
        # scored as stopping, so the final-screen and last-action checks see what the agent did, not the
        # recording it left (an agent that never stops cannot pass them)
        trees.append(UiTree([], []))
        activities.append(None)
        actions.append(dict(STOP))
    known = activities if activities and all(a is not None for a in activities) else None
    score = score_task(evaluators, build_trace(trees, known, actions) if trees else [])
    key = unit.items[0].episode_key
    acted = len(actions) - (ended == "left the recording")
    detail = {"task": key, "steps": len(unit.items), "acted": acted, "ended": ended or "format error",
              "passed": score.passed, "success": score.success}
    detail["failure_mode"] = replay_mode(detail)
    walked = actions[:acted]  # the agent's own actions (the stop put after leaving the recording is not one)
    return (TaskOutcome(key, score, len(unit.items)), RunOutcome(acted, parse_error), detail, walked)
