"""Browsing trials on page variants (VAF): an agent scrolls a page until it clicks an item.

A unit is one trial: a variant (an episode of kind "variant", verified) and a trial number; each variant
gets `trials` units. A trial starts at the top of the page; each turn the agent sees the current
1280 x 1200 viewport, up to `history` earlier viewports with its answers to them, and its older actions
as text, and answers scroll up / down (600 px, stopping at the page's ends) or click. It ends at a
click or after `max_steps` answers; an answer that is neither ends it as a format error. The click is
moved to page coordinates and tested against the target's box (TCR); the trial's thoughts go to a
judge model, when the run has one, which says whether they mention the target (TMR).

Viewports are rendered by a browser the execution opens (the patched variant, scrolled), stored as
steps of the variant the first time a trial reaches them, and reused after. Answers are sampled at the
run's temperature / top-p (the paper: 1.0 / 0.8) and cached per trial and turn, so a resumed trial
replays its own answers and a new trial draws new ones; a sampling judge's verdict is cached per trial
too (agents/draws.py), so ten trials with the same thoughts get ten verdicts. A trial is written whole when it ends; a failed
request leaves it unwritten and resume asks it again; a trial whose judge failed is judged again.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import ClassVar

from sqlalchemy import delete, select

from desktop_app.agents.client import RequestFailed
from desktop_app.agents.kept_answer import cut_all
from desktop_app.render.renderer import Renderer, stop_driver
from desktop_app.runs.context import RunContext
from desktop_app.runs.protocols.base import OptionsError, Protocol, SampleSummary, WorkUnit
from desktop_app.runs.protocols.capability import require_model
from desktop_app.runs.protocols.helper_models import freeze_model, thaw
from desktop_app.runs.state import error_kind
from desktop_app.runs.work import WorkItem
from desktop_app.store import models as m
from desktop_app.vaf import browse, prompts
from desktop_app.vaf.pages import PageSpec
from desktop_app.vaf.render import render_viewport
from desktop_app.vaf.settings import Setting
from desktop_app.vaf.study import add_viewport, step_of, viewport_items

NOT_VISIBLE = "target not visible in the variant"
NO_PAGE = "not a page variant"


@dataclass(frozen=True)
class BrowseOptions:
    trials: int = 50  # per variant
    max_steps: int = 10  # answers per trial before it ends unclicked
    history: int = 2  # earlier viewports shown as images (older actions are told as text)
    temperature: float = 1.0
    top_p: float = 0.8
    judge: str = ""  # the profile of the mention judge ("": no TMR)
    judge_profile: dict = field(default_factory=dict)  # frozen when the run is created
    prompt: str = prompts.VERSIONS[-1]
    browser: str = ""  # a browser executable ("": found as everywhere else)


class BrowseProtocol(Protocol):
    name: ClassVar[str] = "browse"
    title: ClassVar[str] = "Browsing: page variants (VAF)"
    description: ClassVar[str] = ("an agent scrolls a page variant until it clicks an item, N trials per variant; "
                                  "target click rate (TCR) and, with a judge, target mention rate (TMR)")
    options_type: ClassVar[type] = BrowseOptions
    episode_kind: ClassVar[str] = "variant"

    def options(self, data: dict | None = None, **given) -> BrowseOptions:
        options: BrowseOptions = super().options(data, **given)
        if options.trials < 1 or options.max_steps < 1 or options.history < 0:
            raise OptionsError("trials and max_steps must be at least 1, history at least 0")
        if not 0 <= options.temperature <= 2 or not 0 < options.top_p <= 1:
            raise OptionsError("temperature is between 0 and 2, top_p above 0 and at most 1")
        if options.prompt not in prompts.VERSIONS:
            raise OptionsError(f"unknown prompt version {options.prompt!r} (one of {', '.join(prompts.VERSIONS)})")
        return options

    def prepare(self, project, profile, options: BrowseOptions) -> BrowseOptions:
        require_model(profile)
        if not browse.answers_in_pixels(profile.convention):
            raise OptionsError(f"{profile.name!r} answers in the {profile.convention!r} convention, which names "
                               "elements by text; browsing needs clicks at coordinates (choose e.g. uitars, qwen25vl "
                               "or point-px for this profile)")
        if options.judge:
            return replace(options, judge_profile=freeze_model(options.judge, "judge mentions"))
        return options

    def fits(self, summary: SampleSummary) -> bool:
        return False  # chosen explicitly (its episodes are variants, which no other protocol runs)

    def units(self, items: list[WorkItem], include_unlabelled: bool = False,
              options=None) -> tuple[list[WorkUnit], Counter]:
        options = options or BrowseOptions()
        units, excluded = [], Counter()
        for item in items:
            info = item.episode_meta.get("vaf")
            if item.step_meta.get("view") != "page":
                continue  # a variant's viewports: what its trials see, not units
            if not info:
                excluded[NO_PAGE] += 1
            elif not info.get("target"):
                excluded[NOT_VISIBLE] += 1
            else:
                units += [WorkUnit(item.episode_id, (item,), repeat=t) for t in range(options.trials)]
        return units, excluded

    def done(self, project, run_id: int) -> set:
        """(variant, trial) of the trials written and judged (or with no judge to ask)."""
        with project.reading() as s:
            judged = s.execute(select(m.Run.options).where(m.Run.id == run_id)).scalar_one()
            rows = s.execute(select(m.BrowseTrial.episode_id, m.BrowseTrial.trial, m.BrowseTrial.ended,
                                    m.BrowseTrial.mention, m.BrowseTrial.judge)
                             .where(m.BrowseTrial.run_id == run_id)).all()
        needs_judge = bool((judged or {}).get("judge"))
        return {(e, t) for e, t, ended, mention, judge in rows if ended != browse.ENDED_ERROR
                and (not needs_judge or mention is not None or (judge or {}).get("failed"))}

    def finished(self, unit: WorkUnit, done: set) -> bool:
        return (unit.key, unit.repeat) in done

    # -- acting --------------------------------------------------------------------------------
    async def act(self, ctx: RunContext, unit: WorkUnit) -> None:
        options: BrowseOptions = ctx.options
        item = unit.items[0]
        info = item.episode_meta["vaf"]
        spec = PageSpec.from_json(info["page"])
        stored = await ctx.store(_trial_row, ctx.run_id, unit.key, unit.repeat)
        if stored is None:
            trial = await self._browse(ctx, unit, info, spec)
            if trial is None:
                return  # cancelled: nothing written, asked again on resume
            await ctx.store(_write_trial, ctx.run_id, unit.key, unit.repeat, trial)
            if trial["ended"] == browse.ENDED_ERROR:
                ctx.step_done()  # written with its error, so a user sees why; resume asks the trial again
                return
        else:
            trial = stored
        if options.judge_profile and ctx.cancel.is_set() is False:
            await ctx.store(_write_judge, ctx.run_id, unit.key, unit.repeat, await self._judge(ctx, spec, trial))
        ctx.step_done({browse.ENDED_FORMAT: "invalid"}.get(trial["ended"], "gold" if trial["target_click"] else "other"))

    async def _browse(self, ctx: RunContext, unit: WorkUnit, info: dict, spec: PageSpec) -> dict | None:
        options: BrowseOptions = ctx.options
        height = int(info["height"])
        scroll, steps, history = 0, [], []
        p = ctx.profile
        resize = {k: v for k, v in (("factor", p.factor), ("min_pixels", p.min_pixels), ("max_pixels", p.max_pixels))
                  if v}
        tokens = [0, 0]
        for turn in range(options.max_steps):
            if ctx.cancel.is_set():
                return None
            step_id, sha, ext, on_screen = await self._viewport(ctx, unit.key, info, spec, scroll)
            png = ctx.project.media.read(sha, ext)
            messages = prompts.browse_messages(options.prompt, spec, height, history, (scroll, png), options.history,
                                               p.image_detail, p.convention, resize)
            shas = [h["sha256"] for h in history[-options.history:]] if options.history else []
            try:
                answer = await ctx.chat(messages, shas + [sha], sampling={
                    "temperature": options.temperature, "top_p": options.top_p,
                    "draw": f"{ctx.run_id}:{unit.key}:{unit.repeat}:{turn}"})
            except RequestFailed as exc:
                ctx.progress.errors += 1
                ctx.progress.error_kinds[error_kind(str(exc))] += 1
                return {**_ended(steps, browse.ENDED_ERROR, info, tokens), "error": str(exc)}
            tokens[0] += answer.reply.prompt_tokens or 0
            tokens[1] += answer.reply.completion_tokens or 0
            action = await ctx.read(answer.reply.text, browse.read_answer, answer.reply.text, p.convention, resize)
            step = {"scroll_y": scroll, "step_id": step_id, "raw": answer.reply.text, "action": action.to_json(),
                    "latency_ms": answer.reply.latency_ms}
            steps.append(step)
            if action.kind == browse.CLICK:
                return _ended(steps, browse.ENDED_CLICK, info, tokens, browse.to_page(action.point, scroll),
                              browse.hit_item(action.point, on_screen))
            if action.kind == browse.INVALID:
                return _ended(steps, browse.ENDED_FORMAT, info, tokens)
            history.append({**step, "image": png, "sha256": sha})
            scroll = browse.next_scroll(scroll, action.direction, height)
        return _ended(steps, browse.ENDED_CAP, info, tokens)

    async def _viewport(self, ctx: RunContext, episode_id: int, info: dict, spec: PageSpec,
                        scroll: int) -> tuple[int, str, str, list[dict]]:
        """(step id, sha256, ext, items on it) of the variant's viewport at a scroll position: stored, or
        rendered now. The items' boxes are where they are on that screen (measured at that scroll: a
        sticky header's item stays at the top), in the screenshot's pixels."""
        views = ctx.memo.setdefault("vaf_views", {})
        key = (episode_id, scroll)
        if key in views:
            return views[key]
        lock = ctx.memo.setdefault("vaf_locks", {}).setdefault(key, asyncio.Lock())
        async with lock:
            if key not in views:
                found = await ctx.store(_stored_view, episode_id, scroll)
                if found is None:
                    png, shot = await self._render(ctx, spec, Setting(info["family"], info["value"]), scroll)
                    await ctx.store(add_viewport, episode_id, scroll, png, shot, spec)
                    found = await ctx.store(_stored_view, episode_id, scroll)
                views[key] = found
        return views[key]

    async def _render(self, ctx: RunContext, spec: PageSpec, setting: Setting, scroll: int):
        browser = ctx.memo.get("vaf_browser")
        if browser is None:
            browser = ctx.memo["vaf_browser"] = _BrowserThread(ctx.options.browser)
            ctx.on_close(browser.close)
        return await asyncio.get_running_loop().run_in_executor(
            browser.pool, lambda: render_viewport(browser.renderer(), spec, setting, scroll))

    async def _judge(self, ctx: RunContext, spec: PageSpec, trial: dict) -> dict:
        thoughts = [s["action"].get("thought") or "" for s in trial["steps"]]
        try:
            answer = await ctx.chat(prompts.judge_messages(ctx.options.prompt, spec, thoughts), [],
                                    agent=ctx.helper(thaw(ctx.options.judge_profile)))
        except RequestFailed as exc:
            ctx.progress.errors += 1
            ctx.progress.error_kinds[error_kind(str(exc))] += 1
            return {"mention": None, "judge": {"raw": "", "error": str(exc), "failed": False}}  # asked again on resume
        try:
            score, reasoning = prompts.read_judge(answer.reply.text)
        except prompts.JudgeReplyError as exc:  # flagged: counted apart, not asked again
            return {"mention": None, "judge": {"raw": answer.reply.text, "error": str(exc), "failed": True}}
        return {"mention": score, "judge": {"raw": answer.reply.text, "reasoning": reasoning, "error": ""}}

    # -- reporting -----------------------------------------------------------------------------
    def evaluate(self, project, runs: list, rules: tuple[str, ...], text_metric: str = "auto") -> dict[int, dict]:
        from desktop_app.vaf.metrics import run_metrics

        return {run.id: run_metrics(project, run.id) for run in runs}

    def summary(self, metrics: dict, rules: tuple[str, ...]) -> list[str]:
        from desktop_app.vaf.metrics import summary_lines

        return summary_lines(metrics)


class _BrowserThread:
    """One browser for an execution, in its own thread (Playwright's sync API stays in one thread)."""

    def __init__(self, browser_path: str):
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="vaf-browser")
        self._path = browser_path
        self._renderer: Renderer | None = None

    def renderer(self) -> Renderer:  # called in the pool's thread
        if self._renderer is None:
            self._renderer = Renderer(browser_path=self._path)
            self._renderer.start()
        return self._renderer

    def close(self) -> None:
        def stop():
            if self._renderer is not None:
                self._renderer.close()
                self._renderer = None
            stop_driver()  # the thread renders no more: its Node.js driver goes with it

        self.pool.submit(stop).result(timeout=60)
        self.pool.shutdown(wait=True)


def _ended(steps: list[dict], ended: str, info: dict, tokens: list[int], click=None, hit: int | None = None) -> dict:
    """A finished trial. click: in page coordinates (the click map's); hit: the item the click was in on
    the screen the agent saw (the target's index: a target click)."""
    target = next((i["index"] for i in info.get("items") or [] if i.get("target")), 0)
    return {"steps": steps, "ended": ended, "click": list(click) if click else None, "hit_item": hit,
            "target_click": bool(click) and hit == target, "tokens": tokens}


def _trial_row(project, run_id: int, episode_id: int, trial: int) -> dict | None:
    """A finished trial (one that ended in an error is not: it is asked again)."""
    with project.reading() as s:
        row = s.execute(select(m.BrowseTrial).where(m.BrowseTrial.run_id == run_id, m.BrowseTrial.episode_id == episode_id,
                                                    m.BrowseTrial.trial == trial)).scalar_one_or_none()
        if row is None or row.ended == browse.ENDED_ERROR:
            return None
        return {"steps": row.steps, "ended": row.ended, "target_click": row.target_click,
                "click": [row.click_x, row.click_y] if row.click_x is not None else None}


def _write_trial(project, run_id: int, episode_id: int, trial: int, t: dict) -> None:
    """The trial's row, replacing one left by a failed attempt."""
    click = t["click"] or (None, None)
    with project.transaction() as s:
        s.execute(delete(m.BrowseTrial).where(m.BrowseTrial.run_id == run_id, m.BrowseTrial.episode_id == episode_id,
                                              m.BrowseTrial.trial == trial))
        s.add(m.BrowseTrial(run_id=run_id, episode_id=episode_id, trial=trial, steps=cut_all(t["steps"]), ended=t["ended"],
                            error=t.get("error", ""), click_x=click[0], click_y=click[1], hit_item=t["hit_item"],
                            target_click=t["target_click"], prompt_tokens=t["tokens"][0],
                            completion_tokens=t["tokens"][1]))


def _write_judge(project, run_id: int, episode_id: int, trial: int, verdict: dict) -> None:
    with project.transaction() as s:
        row = s.execute(select(m.BrowseTrial).where(m.BrowseTrial.run_id == run_id, m.BrowseTrial.episode_id == episode_id,
                                                    m.BrowseTrial.trial == trial)).scalar_one()
        row.mention = verdict["mention"]
        row.judge = cut_all(verdict["judge"])  # the judge's answer kept as a prediction's is
        s.add(row)


def _stored_view(project, episode_id: int, scroll: int) -> tuple[int, str, str, list[dict]] | None:
    """(step id, sha256, ext, items on it) of a variant's stored viewport, or None when none is stored yet."""
    found = step_of(project, episode_id, "viewport", scroll)
    if found is None:
        return None
    with project.reading() as s:
        sha, ext = s.execute(select(m.Screen.sha256, m.Screen.ext).where(m.Screen.id == found[1])).one()
    return found[0], sha, ext, viewport_items(project, found[0])
