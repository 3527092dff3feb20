"""Trajectory judges (Agent-Eval-Refine): a model says whether an agent's whole trajectory succeeded.

Units are trajectories (episodes of kind "trajectory"). Three modes:
    end_to_end  a vision model sees the request, the numbered actions, the last N frames and the
                agent's reply; one request per trajectory
    caption     a captioner describes each needed frame (without the request, with OCR text), a
                text model reasons over the descriptions and the actions; captions are stored per
                screen and captioner, so a screen is described once for every judge that reads it
    per_step    one request per step: the states before and after the action (images, or captions
                when a captioner is set), labelled with the paper's four step labels
Temperature and image detail come from the profile (the New run dialog and `screenlab judge run`
default them to 0 and "high", as the authors ran them). The raw answer is stored; a verdict that
cannot be read is a flagged parse failure (verdict "invalid", wrong_format), never a guess.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import ClassVar

from sqlalchemy import select

from desktop_app.agents.actions import ParsedAction
from desktop_app.agents.client import RequestFailed
from desktop_app.agents.profiles import AgentProfile, ProfileError, load_profiles
from desktop_app.formats.trajectory_layout import TrajectoryAction
from desktop_app.judging import prompts
from desktop_app.judging.parse import STEP_CODES, parse_step_label, parse_verdict
from desktop_app.judging.trajectories import info_of
from desktop_app.runs.context import RunContext, answer_values
from desktop_app.runs.protocols.base import OptionsError, Protocol, SampleSummary, WorkUnit
from desktop_app.runs.selection import NO_GOAL
from desktop_app.runs.work import MIME, WorkItem
from desktop_app.store import models as m

MODES = ("end_to_end", "caption", "per_step")


@dataclass(frozen=True)
class JudgeOptions:
    mode: str = "end_to_end"
    frames: int = 1  # the last N frames shown (end_to_end, caption); the paper used the last one
    captioner: str = ""  # captions: the name of an imported caption set, or of a model profile
    ocr: bool = True  # OCR text added to the captioner's question (less hallucination, the paper found)
    prompt: str = prompts.VERSIONS[-1]  # the template set (resources/prompts/judge/<prompt>)
    captioner_profile: dict = field(default_factory=dict)  # frozen when the run is created


def _captions_exist(project, name: str) -> bool:
    with project.reading() as s:
        return s.execute(select(m.ScreenCaption.id).where(m.ScreenCaption.captioner == name).limit(1)).first() is not None


class JudgeProtocol(Protocol):
    name: ClassVar[str] = "judge"
    title: ClassVar[str] = "Trajectory judges"
    description: ClassVar[str] = ("a model judges whether each agent trajectory succeeded; agreement with the "
                                  "human labels (Agent-Eval-Refine)")
    options_type: ClassVar[type] = JudgeOptions
    episode_kind: ClassVar[str] = "trajectory"

    def options(self, data: dict | None = None, **given) -> JudgeOptions:
        options: JudgeOptions = super().options(data, **given)
        if options.mode not in MODES:
            raise OptionsError(f"unknown judge mode {options.mode!r} (one of {', '.join(MODES)})")
        if not isinstance(options.frames, int) or options.frames < 1:
            raise OptionsError(f"frames must be a whole number of at least 1, not {options.frames!r}")
        if options.mode == "caption" and not options.captioner:
            raise OptionsError("caption mode needs a captioner: an imported caption set or a model profile's name")
        if options.prompt not in prompts.VERSIONS:
            raise OptionsError(f"unknown prompt version {options.prompt!r} (one of {', '.join(prompts.VERSIONS)})")
        return options

    def prepare(self, project, profile: AgentProfile, options: JudgeOptions) -> JudgeOptions:
        if profile.kind != "openai":
            raise OptionsError(f"a judge must be a model (an OpenAI-compatible profile); {profile.name!r} is a "
                               f"{profile.kind!r} agent")
        if not options.captioner or _captions_exist(project, options.captioner):
            return options
        captioner = load_profiles().get(options.captioner)
        if captioner is None:
            raise OptionsError(f"captioner {options.captioner!r} is neither an imported caption set nor a model "
                               f"profile (add the profile, or import captions/<name>.json)")
        captioner.validate()
        return replace(options, captioner_profile=captioner.snapshot())

    def fits(self, summary: SampleSummary) -> bool:
        return summary.trajectories > summary.episodes

    def units(self, items: list[WorkItem], include_unlabelled: bool = False,
              options: JudgeOptions | None = None) -> tuple[list[WorkUnit], Counter]:
        """One unit per trajectory: per_step predicts every step, the other modes only the last
        (the rest is context). A trajectory without a request (intent) is left out, counted as "no goal"."""
        options = options or JudgeOptions()
        by_episode: dict[int, list[WorkItem]] = {}
        for item in items:
            by_episode.setdefault(item.episode_id, []).append(item)
        units, excluded = [], Counter()
        for episode_id, steps in by_episode.items():
            if not steps[0].goal.strip():
                excluded[NO_GOAL] += 1 if options.mode != "per_step" else len(steps)
                continue
            if options.mode == "per_step":
                units.append(WorkUnit(episode_id, tuple(steps)))
            else:
                units.append(WorkUnit(episode_id, (steps[-1],), tuple(steps)))
        return units, excluded

    # -- acting --------------------------------------------------------------------
    async def act(self, ctx: RunContext, unit: WorkUnit) -> None:
        options: JudgeOptions = ctx.options
        steps = list(unit.context or unit.items)
        if options.mode == "per_step":
            await self._per_step(ctx, options, steps)
            return
        last = steps[-1]
        info = info_of(last.episode_meta)
        frames = steps[-options.frames:]
        try:
            if options.mode == "end_to_end":
                images = await asyncio.gather(*(asyncio.to_thread(_image, ctx, s) for s in frames))
                messages = prompts.verdict_messages(options.prompt, "end_to_end", _platform(last, info), last.goal,
                                                    _actions(steps), info.get("response", ""), images=list(images))
                shas = [s.sha256 for s in frames]
            else:
                captions = [await _caption(ctx, options, s) for s in frames]
                messages = prompts.verdict_messages(options.prompt, "caption", _platform(last, info), last.goal,
                                                    _actions(steps), info.get("response", ""), captions=captions)
                shas = []
            answer = await ctx.chat(messages, shas)
        except RequestFailed as exc:
            await ctx.write_failure(last, exc)
            ctx.step_done()
            return
        verdict = await ctx.read(answer.reply.text, parse_verdict, answer.reply.text)
        await ctx.write(last, _values(answer, verdict, verdict.status or "invalid", {
            "mode": options.mode, "frames": len(frames), "prompt": f"judge/{options.prompt}",
            "captioner": options.captioner, "policy": info.get("policy", "")}))
        ctx.step_done(verdict.status or "parse failure")

    async def _per_step(self, ctx: RunContext, options: JudgeOptions, steps: list[WorkItem]) -> None:
        info = info_of(steps[0].episode_meta)
        for t, item in enumerate(steps):
            if ctx.cancel.is_set():
                return
            after = steps[t + 1] if t + 1 < len(steps) else None
            action = _action(item).text
            try:
                if options.captioner:
                    before_caption = await _caption(ctx, options, item)
                    after_caption = await _caption(ctx, options, after) if after else None
                    messages = prompts.step_messages(options.prompt, _platform(item, info), item.goal, action, t + 1,
                                                     len(steps), before_caption=before_caption,
                                                     after_caption=after_caption)
                    shas = []
                else:
                    before = await asyncio.to_thread(_image, ctx, item)
                    later = await asyncio.to_thread(_image, ctx, after) if after else None
                    messages = prompts.step_messages(options.prompt, _platform(item, info), item.goal, action, t + 1,
                                                     len(steps), before=before, after=later)
                    shas = [item.sha256] + ([after.sha256] if after else [])
                answer = await ctx.chat(messages, shas)
            except RequestFailed as exc:
                await ctx.write_failure(item, exc)
                ctx.step_done()
                continue
            label = await ctx.read(answer.reply.text, parse_step_label, answer.reply.text)
            await ctx.write(item, _values(answer, label, STEP_CODES.get(label.status, "invalid"), {
                "mode": "per_step", "prompt": f"judge/{options.prompt}", "captioner": options.captioner,
                "policy": info.get("policy", ""), "label": label.status}))
            ctx.step_done(label.status or "parse failure")

    # -- reporting -----------------------------------------------------------------
    def evaluate(self, project, runs: list, rules: tuple[str, ...], text_metric: str = "auto") -> dict[int, dict]:
        from desktop_app.judging.agreement import run_agreement

        return {run.id: run_agreement(project, run.id) for run in runs}

    def summary(self, metrics: dict, rules: tuple[str, ...]) -> list[str]:
        from desktop_app.judging.agreement import summary_lines

        return summary_lines(metrics)


def _platform(item: WorkItem, info: dict) -> str:
    return str(info.get("platform") or item.platform or "web")


def _action(item: WorkItem) -> TrajectoryAction:
    return TrajectoryAction.from_json(item.step_meta.get("action"))


def _actions(steps: list[WorkItem]) -> str:
    return "".join(f"{i + 1}: {_action(s).text}\n" for i, s in enumerate(steps))


def _image(ctx: RunContext, item: WorkItem) -> tuple[bytes, str]:
    return ctx.project.media.read(item.sha256, item.ext), MIME[item.ext]


def _values(answer, verdict, code: str, parsed: dict) -> dict:
    """The columns every protocol stores (no point, no element: a verdict is not an action), the verdict
    code, the parse-failure flag and what was parsed."""
    return {**answer_values(answer, ParsedAction(answer.reply.text)), "verdict": code,
            "wrong_format": verdict.failed, "matched_box_id": None,
            "parsed": {**parsed, "status": verdict.status, "thoughts": verdict.thoughts, "how": verdict.how,
                       "cached": answer.cached}}


# -- captions ----------------------------------------------------------------------------
async def _caption(ctx: RunContext, options: JudgeOptions, item: WorkItem) -> str:
    """The screen's caption by the run's captioner: stored, else asked once per execution and stored."""
    key = ("caption", options.captioner, item.screen_id)
    pending = ctx.memo.get(key)
    if pending is None:
        pending = ctx.memo[key] = asyncio.ensure_future(_fetch_caption(ctx, options, item))
    return await asyncio.shield(pending)


async def _fetch_caption(ctx: RunContext, options: JudgeOptions, item: WorkItem) -> str:
    stored = await asyncio.to_thread(_stored_caption, ctx.project, item.screen_id, options.captioner)
    if stored is not None:
        return stored
    if not options.captioner_profile:
        raise RequestFailed(f"no caption by {options.captioner!r} for screen {item.sha256[:12]} "
                            f"(import its captions, or name a model profile as the captioner)", 0)
    known = set(AgentProfile.__dataclass_fields__)
    profile = AgentProfile(**{k: v for k, v in options.captioner_profile.items() if k in known})
    try:
        agent = ctx.helper(profile)
    except ProfileError as exc:
        raise RequestFailed(f"captioner {profile.name}: {exc}", 0) from None
    ocr = await asyncio.to_thread(_ocr_text, ctx.project, item.screen_id) if options.ocr else ""
    image, mime = await asyncio.to_thread(_image, ctx, item)
    answer = await ctx.chat(prompts.caption_messages(options.prompt, image, mime, ocr), [item.sha256], agent=agent)
    text = answer.reply.text.strip()
    await ctx.store(_save_caption, item.screen_id, options.captioner, text)
    return text


def _stored_caption(project, screen_id: int, captioner: str) -> str | None:
    with project.reading() as s:
        return s.execute(select(m.ScreenCaption.text).where(m.ScreenCaption.screen_id == screen_id,
                                                            m.ScreenCaption.captioner == captioner)).scalar_one_or_none()


def _save_caption(project, screen_id: int, captioner: str, text: str) -> None:
    with project.transaction() as s:
        row = s.execute(select(m.ScreenCaption).where(m.ScreenCaption.screen_id == screen_id,
                                                      m.ScreenCaption.captioner == captioner)).scalar_one_or_none()
        row = row or m.ScreenCaption(screen_id=screen_id, captioner=captioner)
        row.text, row.source = text, "model"
        s.add(row)


def _ocr_text(project, screen_id: int) -> str:
    """The screen's OCR lines, top to bottom (cached per image); none when no OCR engine is installed."""
    from desktop_app.ocr.base import OcrUnavailable
    from desktop_app.ocr.cache import ocr_screen

    try:
        outcome = ocr_screen(project, screen_id)
    except (OcrUnavailable, OSError):
        return ""
    words = sorted(outcome.words, key=lambda w: (round(w.xyxy[1] / 8), w.xyxy[0]))
    return "\n".join(w.text for w in words if w.text.strip())
