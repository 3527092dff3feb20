"""Capability probes on recorded app screens (Sphinx): one capability measured at a time.

    grounding   one screen and a one-line instruction ("tap the search icon"); the agent answers with one
                action of the benchmark's grammar; a hit is the reference's action type (and text) at a
                point inside the gold box: the point given, or the centre of the element named by its
                number, as the authors score it (an annotator who moved a label's box to its button moves
                the target with it)
    completion  every step of a recorded task: the goal, the reference actions so far and the current
                screen; the agent says "continue" or "stop" (the last step is the stop); Continue.,
                Stop. and Perfect. (every step of a task right)

Both take the observation mode as an option (a11y/observe.py): image, marks, tree or list. A screen with
no accessibility tree can only be shown as an image. Verdicts: gold = right, other = wrong, invalid = the
answer did not follow the format (a format error, never a guess), error = no answer.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import ClassVar

from sqlalchemy import select

from desktop_app.a11y.observe import MODES, tags
from desktop_app.a11y.stored import parse_stored
from desktop_app.a11y.tree import UiTree
from desktop_app.agents.actions import ParsedAction
from desktop_app.agents.client import RequestFailed
from desktop_app.capability import prompts
from desktop_app.capability.evaluators import evaluator_type
from desktop_app.capability.failure_modes import FORMAT_ERROR, completion_mode, grounding_mode, tally
from desktop_app.capability.grammar import GrammarError, parse_action
from desktop_app.capability.metrics import (
    CompletionItem,
    GroundingItem,
    Rate,
    completion_scores,
    follows_focused_format,
    grounding_hit,
    read_completion,
)
from desktop_app.runs.context import RunContext, answer_values
from desktop_app.runs.protocols.base import OptionsError, Protocol, SampleSummary, WorkUnit
from desktop_app.runs.protocols.repair import freeze_repairer, repaired
from desktop_app.runs.selection import NO_GOAL, RunSelection
from desktop_app.runs.work import MIME, WorkItem, load_items
from desktop_app.store import models as m
from desktop_app.store.trees import tree_for

NO_REFERENCE = "no reference action"
NOT_GROUNDING = "no one-line instruction (a step of a recorded task: make grounding tasks from it)"


@dataclass(frozen=True)
class CapabilityOptions:
    observation: str = "tree"  # image | marks | tree | list (a11y/observe.py)
    prompt: str = prompts.VERSIONS[-1]
    repair: str = ""  # grounding: a model profile that rewrites answers in the wrong format (runs/protocols/repair.py)
    repair_profile: dict = field(default_factory=dict)  # frozen when the run is created


class CapabilityProtocol(Protocol):
    options_type: ClassVar[type] = CapabilityOptions
    repairs: ClassVar[bool] = False  # whether answers in the wrong format may be repaired (the paper: grounding)

    def options(self, data: dict | None = None, **given) -> CapabilityOptions:
        options: CapabilityOptions = super().options(data, **given)
        if options.observation not in MODES:
            raise OptionsError(f"unknown observation mode {options.observation!r} (one of {', '.join(MODES)})")
        if options.prompt not in prompts.VERSIONS:
            raise OptionsError(f"unknown prompt version {options.prompt!r} (one of {', '.join(prompts.VERSIONS)})")
        if options.repair and not self.repairs:
            raise OptionsError(f"the {self.name} protocol has no repair pass (grounding and probes have)")
        return options

    def prepare(self, project, profile, options):
        require_model(profile)
        return freeze_repairer(options)

    def fits(self, summary: SampleSummary) -> bool:
        return False  # chosen explicitly: their samples also fit the screen and episode protocols

    def summary(self, metrics: dict, rules: tuple[str, ...]) -> list[str]:
        lines = [f"{name:<12} {rate_text(cell)}" for name, cell in metrics.get("rates", {}).items()]
        lines += [f"{name + ' rep.':<12} {rate_text(cell)}   (answers in the wrong format rewritten by the repairer)"
                  for name, cell in metrics.get("repaired", {}).items()]
        if metrics.get("unfinished"):
            lines.append(f"{metrics['unfinished']} tasks left out: not every step was answered (--resume asks again)")
        return lines + failure_line(metrics)


def failure_line(metrics: dict) -> list[str]:
    modes = metrics.get("failure_modes") or {}
    return [f"{'failures':<12} " + ", ".join(f"{mode} {n}" for mode, n in modes.items())] if modes else []


def require_model(profile) -> None:
    if profile.kind != "openai":
        raise OptionsError(f"this protocol asks a model (an OpenAI-compatible profile); {profile.name!r} "
                           f"is a {profile.kind!r} agent")


def rate_text(cell: dict) -> str:
    if not cell.get("n") or cell.get("ci95") is None:
        return "-"
    low, high = cell["ci95"]
    errors = f", {cell['format_errors']} format errors" if cell.get("format_errors") else ""
    return f"{100 * cell['rate']:5.1f} % [{100 * low:.1f}, {100 * high:.1f}]  ({cell['hits']}/{cell['n']}{errors})"


def tasks_of(items: list[WorkItem]) -> dict[int, list[WorkItem]]:
    """Steps grouped by episode (a recorded task), in order."""
    by_episode: dict[int, list[WorkItem]] = {}
    for item in items:
        by_episode.setdefault(item.episode_id, []).append(item)
    return by_episode


def step_tree(ctx: RunContext, item: WorkItem) -> UiTree | None:
    """The tree the step names (read and parsed once per execution)."""
    cache = ctx.memo.setdefault("trees", {})
    key = (item.screen_id, item.step_meta.get("tree"))
    if key not in cache:
        with ctx.project.reading() as s:
            row = tree_for(s, *key)
        cache[key] = parse_stored(row).tree if row is not None else None
    return cache[key]


def _observation_key(item: WorkItem, mode: str, tree: UiTree | None) -> list[str]:
    """Cache names of the images sent: the marks picture depends on the tree (and its corrections)."""
    if mode != "marks" or tree is None:
        return [item.sha256]
    digest = hashlib.sha256(repr([(n.id, n.bounds) for n in tree.interactable()]).encode()).hexdigest()[:16]
    return [f"{item.sha256}:marks:{digest}"]


async def ask_step(ctx: RunContext, item: WorkItem, probe: str, **values) -> tuple | None:
    """Ask the probe's question about one step (values fill its template). (answer, tree), or None when the
    step could not be asked (no tree for a text or marks mode, the request failed): that is already written.
    Reading the tree and the image and drawing the marks run off the event loop: other requests go on."""
    tree = await asyncio.to_thread(step_tree, ctx, item)
    options: CapabilityOptions = ctx.options
    mode = options.observation

    def build() -> list[dict]:
        return prompts.messages(options.prompt, probe, mode, ctx.project.media.read(item.sha256, item.ext),
                                MIME[item.ext], tree, ctx.profile.image_detail, **values)

    try:
        if tree is None and mode != "image":
            raise RequestFailed(f"this screen has no accessibility tree, so it cannot be shown as {mode!r}; "
                                "use image", 0)
        messages = await asyncio.to_thread(build)
        return await ctx.chat(messages, _observation_key(item, mode, tree)), tree
    except RequestFailed as exc:
        await ctx.write_failure(item, exc)
        ctx.step_done()
        return None


# -- grounding -------------------------------------------------------------------------------------
def grounding_item(action, item: WorkItem, tree: UiTree | None) -> tuple[GroundingItem, dict]:
    """The answer against the step's reference, scored as the authors score it (metrics.grounding_hit): an
    element answer stands for the centre of that element, which must fall in the gold box (the reference
    element's bounds, or where an annotator moved the box); and what it pointed at, for the viewer."""
    gold = next((a for a in item.actions if a.label == "gold" and a.box is not None), None)
    kind, text = reference_of(item)
    facts: dict = {"reference_type": kind}
    if evaluator_type({"type": action.kind}) != evaluator_type({"type": kind}):
        facts["why"] = f"action {action.kind} where the reference is {kind}"
    point, unknown = action.point, False
    if action.element is not None:
        by_tag = {tag: node_id for node_id, tag in tags(tree).items()} if tree is not None else {}
        node_id = by_tag.get(action.element)
        if node_id is None:
            unknown = True
            facts["why"] = f"there is no element [{action.element}]"
        else:
            point = tree.nodes[node_id].centre
            facts["node"] = node_id
    return GroundingItem(box=gold.box if gold else None, point=point, kind=action.kind, reference_kind=kind,
                         text=action.text, reference_text=text, format_error=unknown), facts


# ScreenLab's box action types -> the benchmark's (an annotator may change a gold box's type or text)
BOX_KINDS = {"click": "click", "long_press": "longclick", "type": "input", "scroll": "swipe"}


def reference_of(item: WorkItem) -> tuple[str, str | None]:
    """The reference's action type and typed text: the gold box's when an annotator set them, else the
    recording's (step.meta.reference_action)."""
    reference = item.step_meta.get("reference_action") or {}
    kind, text = reference.get("type", ""), reference.get("message")
    gold = next((a for a in item.actions if a.label == "gold"), None)
    if gold is not None and gold.action_type in BOX_KINDS and evaluator_type({"type": kind}) in (
            "click", "longclick", "input", "swipe"):
        kind = BOX_KINDS[gold.action_type]
        text = gold.type_text if kind == "input" else None
    return kind, text


def _verdict_of(text: str, form: str, item: WorkItem, tree: UiTree | None) -> str:
    """A repaired answer's verdict (gold, other, or invalid when even the rewrite does not parse)."""
    try:
        action = parse_action(text, form)
    except GrammarError:
        return "invalid"
    scored, _ = grounding_item(action, item, tree)
    return "gold" if grounding_hit(scored) else ("invalid" if scored.format_error else "other")


def _rescored(row, item: WorkItem | None):
    """The prediction with its verdict against the step's current gold box (unchanged when it was not an
    answer that parsed, or the step is gone)."""
    action = (row.parsed or {}).get("action")
    if item is None or row.verdict not in ("gold", "other") or not action:
        return row
    point = (row.x, row.y) if row.x is not None else None
    gold = next((a for a in item.actions if a.label == "gold" and a.box is not None), None)
    kind, text = reference_of(item)
    hit = grounding_hit(GroundingItem(box=gold.box if gold else None, point=point, kind=action.get("kind"),
                                      reference_kind=kind, text=action.get("text"), reference_text=text))
    verdict = "gold" if hit else "other"
    if verdict != row.verdict:
        row = copy.copy(row)  # not written back: the stored verdict is what was judged when it ran
        row.verdict = verdict
    return row


def _stored_action(action, item: GroundingItem, tree: UiTree | None) -> ParsedAction:
    """The answer as ScreenLab's parsed action: the point drawn on the screen (an element's centre)."""
    element = ""
    if action.element is not None and tree is not None and item.point is not None:
        node = tree.node_at(*item.point)
        element = node.label() if node is not None else ""
    point = tuple(float(v) for v in item.point) if item.point else None
    return ParsedAction(raw=action.raw, point=point, element=element, action_type=action.kind,
                        text=action.text or "")


class GroundingProtocol(CapabilityProtocol):
    repairs: ClassVar[bool] = True
    name: ClassVar[str] = "grounding"
    title: ClassVar[str] = "Capability: grounding"
    description: ClassVar[str] = ("one instruction on one recorded screen; the answer hits when it acts on the "
                                  "reference element (Sphinx grounding)")

    def units(self, items: list[WorkItem], include_unlabelled: bool = False,
              options=None) -> tuple[list[WorkUnit], Counter]:
        units, excluded = [], Counter()
        for item in items:
            grounding_task = bool((item.episode_meta.get("capability") or {}).get("grounding"))
            if not grounding_task and not item.instruction.strip():
                # a step of a recorded task has the task's goal, not a one-line instruction for this screen
                excluded[NOT_GROUNDING] += 1
            elif not (item.instruction or item.goal).strip():
                excluded[NO_GOAL] += 1
            elif not item.step_meta.get("reference_action") or item.step_meta["reference_action"].get("type") == "stop":
                excluded[NO_REFERENCE] += 1
            else:
                units.append(WorkUnit(item.step_id, (item,)))
        return units, excluded

    async def act(self, ctx: RunContext, unit: WorkUnit) -> None:
        (item,) = unit.items
        options: CapabilityOptions = ctx.options
        asked = await ask_step(ctx, item, "grounding", instruction=item.instruction or item.goal)
        if asked is None:
            return
        answer, tree = asked
        form = prompts.answer_form(options.observation)
        try:
            action = await ctx.read(answer.reply.text, parse_action, answer.reply.text, form)
        except GrammarError as exc:
            final = ParsedAction(raw=answer.reply.text, wrong_format=True)
            parsed = {"error": str(exc), "form": form}
            rewrite = await repaired(ctx, answer.reply.text, form)
            if rewrite is not None:
                parsed["repaired"] = {"text": rewrite, "verdict": _verdict_of(rewrite, form, item, tree)}
            await ctx.write(item, {**answer_values(answer, final), "verdict": "invalid", "parsed": parsed})
            ctx.step_done("invalid")
            return
        scored, facts = grounding_item(action, item, tree)
        verdict = "gold" if grounding_hit(scored) else ("invalid" if scored.format_error else "other")
        await ctx.write(item, {**answer_values(answer, _stored_action(action, scored, tree)), "verdict": verdict,
                               "parsed": {**facts, "form": form, "action": asdict(action)}})
        ctx.step_done(verdict)

    def evaluate(self, project, runs: list, rules: tuple[str, ...], text_metric: str = "auto") -> dict[int, dict]:
        """From the stored answers against the gold boxes as they are now: a box an annotator fixed after
        the run moves the target for the runs already made (no request is sent again)."""
        out = {}
        for run in runs:
            selection = RunSelection.from_json(run.selection)
            items = {i.step_id: i for i in load_items(project, selection.episodes)}
            rows = [_rescored(r, items.get(r.step_id)) for r in predictions_of(project, run.id)]
            answered = [r for r in rows if r.verdict != "error"]
            accuracy = Rate(sum(r.verdict == "gold" for r in answered), len(answered),
                            sum(r.verdict == "invalid" for r in answered))
            out[run.id] = {"rates": {"grounding": accuracy.as_dict()}, "errors": len(rows) - len(answered),
                           "observation": (run.options or {}).get("observation", ""),
                           "failure_modes": tally(grounding_mode(r.verdict, r.parsed or {}) for r in answered)}
            if (run.options or {}).get("repair"):
                # Repaired: an unreadable answer counts as its rewrite (if the repairer made one)
                after = [((r.parsed or {}).get("repaired") or {}).get("verdict", "invalid")
                         if r.verdict == "invalid" else r.verdict for r in answered]
                out[run.id]["repaired"] = {"grounding": Rate(after.count("gold"), len(after),
                                                             after.count("invalid")).as_dict()}
        return out


# -- completion ------------------------------------------------------------------------------------
class CompletionProtocol(CapabilityProtocol):
    name: ClassVar[str] = "completion"
    title: ClassVar[str] = "Capability: completion"
    description: ClassVar[str] = ("every step of a recorded task: is the task done on this screen? Continue., "
                                  "Stop. and Perfect. accuracy (Sphinx planning)")

    def units(self, items: list[WorkItem], include_unlabelled: bool = False,
              options=None) -> tuple[list[WorkUnit], Counter]:
        units, excluded = [], Counter()
        for steps in tasks_of(items).values():
            if not steps[0].goal.strip():
                excluded[NO_GOAL] += len(steps)
                continue
            if any(not s.step_meta.get("completion") for s in steps):
                excluded[NO_REFERENCE] += len(steps)
                continue
            for i, item in enumerate(steps):
                units.append(WorkUnit(item.step_id, (item,), tuple(steps[:i])))
        return units, excluded

    async def act(self, ctx: RunContext, unit: WorkUnit) -> None:
        (item,) = unit.items
        history = [prompts.describe_action(s.step_meta.get("reference_action") or {}) for s in unit.context]
        asked = await ask_step(ctx, item, "completion", goal=item.goal, history=history)
        if asked is None:
            return
        answer, _tree = asked
        said = await ctx.read(answer.reply.text, read_completion, answer.reply.text)
        truth = item.step_meta.get("completion")
        verdict = "invalid" if said is None else ("gold" if said == truth else "other")
        final = ParsedAction(raw=answer.reply.text, wrong_format=said is None)
        await ctx.write(item, {**answer_values(answer, final), "verdict": verdict,
                               "parsed": {"said": said, "truth": truth}})
        ctx.step_done(verdict)

    def evaluate(self, project, runs: list, rules: tuple[str, ...], text_metric: str = "auto") -> dict[int, dict]:
        out = {}
        for run in runs:
            selection = RunSelection.from_json(run.selection)
            items = load_items(project, selection.episodes)
            truth = {i.step_id: (i.episode_id, i.step_index, i.step_meta.get("completion")) for i in items}
            rows = {r.step_id: r for r in predictions_of(project, run.id) if r.step_id in truth}
            # a task counts only when every one of its steps was answered: Perfect. over a task whose stop
            # step failed to be asked would be a guess
            units, _ = self.units(items)
            finished_steps = set()
            unfinished = 0
            by_task = tasks_of(items)
            for episode_id in dict.fromkeys(u.items[0].episode_id for u in units):
                steps = [i.step_id for i in by_task[episode_id]]
                if all(sid in rows and rows[sid].verdict != "error" for sid in steps):
                    finished_steps.update(steps)
                else:
                    unfinished += 1
            judged = [CompletionItem(str(truth[sid][0]), truth[sid][1], truth[sid][2],
                                     (rows[sid].parsed or {}).get("said")) for sid in sorted(finished_steps)]
            score = completion_scores(judged)
            out[run.id] = {"rates": {"continue": score.continue_.as_dict(), "stop": score.stop.as_dict(),
                                     "perfect": score.perfect.as_dict()},
                           "failure_modes": tally(completion_mode(i.truth, i.predicted) for i in judged),
                           "confusion": score.as_dict()["confusion"],
                           "errors": sum(1 for r in rows.values() if r.verdict == "error"),
                           "unfinished": unfinished,
                           "observation": (run.options or {}).get("observation", "")}
        return out


# -- focused context ---------------------------------------------------------------------------------
# The shape a focused prompt asks for, by the reference's action type (the paper's example:
# "Respond with 'input [123] [some text]'"; in the Table 2 grammar the verb is `text`).
SHAPES = {"click": ("click", "click [<number>]"), "longclick": ("longclick", "longclick [<number>]"),
          "input": ("text", "text [<number>] [<the text>]"), "swipe": ("swipe", "swipe [<number>] [<direction>]")}


class FocusedProtocol(CapabilityProtocol):
    """Instruction following with everything but the output format taken away (Sphinx "focused context"):
    the screen's elements, one instruction, and the exact shape of the answer. A failure is any reply that
    is not that one line (metrics.follows_focused_format); whether it picks the right element is not asked."""

    name: ClassVar[str] = "focused"
    title: ClassVar[str] = "Capability: focused context"
    description: ClassVar[str] = ("one instruction and the exact answer format, nothing else; the failure rate "
                                  "of replies not in that format (Sphinx instruction following)")

    def options(self, data: dict | None = None, **given) -> CapabilityOptions:
        options = super().options(data, **given)
        if options.observation not in ("tree", "list"):
            raise OptionsError("focused-context prompts give the elements as text: observation tree or list")
        return options

    def units(self, items: list[WorkItem], include_unlabelled: bool = False,
              options=None) -> tuple[list[WorkUnit], Counter]:
        units, excluded = GroundingProtocol().units(items, include_unlabelled, options)
        kept = [u for u in units if (u.items[0].step_meta.get("reference_action") or {}).get("type") in SHAPES]
        if len(kept) < len(units):
            excluded[NO_REFERENCE] += len(units) - len(kept)
        return kept, excluded

    async def act(self, ctx: RunContext, unit: WorkUnit) -> None:
        (item,) = unit.items
        kind, shape = SHAPES[item.step_meta["reference_action"]["type"]]
        asked = await ask_step(ctx, item, "focused", instruction=item.instruction or item.goal, shape=shape)
        if asked is None:
            return
        answer, _tree = asked
        follows = await ctx.read(answer.reply.text, follows_focused_format, answer.reply.text, "element", kind)
        verdict = "gold" if follows else "invalid"
        await ctx.write(item, {**answer_values(answer, ParsedAction(raw=answer.reply.text, wrong_format=not follows)),
                               "verdict": verdict, "parsed": {"asked": shape, "follows": follows}})
        ctx.step_done(verdict)

    def evaluate(self, project, runs: list, rules: tuple[str, ...], text_metric: str = "auto") -> dict[int, dict]:
        out = {}
        for run in runs:
            rows = [r for r in predictions_of(project, run.id) if r.verdict != "error"]
            failures = Rate(sum(r.verdict == "invalid" for r in rows), len(rows))
            out[run.id] = {"rates": {"failure": failures.as_dict()},
                           "errors": len(predictions_of(project, run.id)) - len(rows),
                           "failure_modes": tally(FORMAT_ERROR for r in rows if r.verdict == "invalid"),
                           "observation": (run.options or {}).get("observation", "")}
        return out


def predictions_of(project, run_id: int) -> list:
    with project.reading() as s:
        return list(s.execute(select(m.Prediction).where(m.Prediction.run_id == run_id)).scalars())


__all__ = ["CapabilityOptions", "CapabilityProtocol", "CompletionProtocol", "FocusedProtocol", "GroundingProtocol",
           "ask_step",
           "failure_line", "grounding_item", "predictions_of", "rate_text", "require_model", "tasks_of"]
