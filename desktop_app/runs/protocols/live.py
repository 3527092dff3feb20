"""Live runs: an agent does a recorded task in a real browser, step by step, until it stops or the task is done.

A unit is a recorded task (an episode `screenlab record` made: meta.record holds its start and the evaluator
written from its final screen). The task's start is opened in the execution's browser, served offline as the
recording was (record/site.py: our flow sites and saved pages, every other request refused and counted); a
page on the web only when the run allows it (allow_web). Each step the agent sees the live page (the
screenshot; with observation tree, list or marks also what the capability probes show of a screen), the
task, its own earlier actions in words and the page's URL, and answers in its own convention; the answer is
parsed (agents/conventions) and done in the page (record/live_page.py). The task ends when the agent says it
has finished, when the evaluator passes (checked after every action and when the agent stops), when an
answer is not an action of its convention, or at the step cap. Success is the evaluator passing; steps are
the actions taken until then.

Every step is kept (live_store.py): the screen the agent saw, its answer as the run's prediction, the action
as judges read it, in one trajectory episode per task, so the judges label and judge it and the trajectory
view shows where the agent acted. A failed request ends the task unfinished (written, so a user sees why);
resume does it again from its start.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import ClassVar

from sqlalchemy import func, select

from desktop_app.a11y.observe import MODES, marks_png, observation_text
from desktop_app.a11y.tree import UiTree
from desktop_app.agents.actions import ParsedAction
from desktop_app.agents.client import RequestFailed
from desktop_app.agents.conventions import parse_action
from desktop_app.agents.prompts import Sample
from desktop_app.formats.records import EpisodeRecord, StepRecord, Where
from desktop_app.formats.trajectory_layout import TrajectoryAction, trajectory_meta
from desktop_app.record.site import SiteError, open_site
from desktop_app.render.renderer import ORIGIN
from desktop_app.runs.context import RunContext, answer_values
from desktop_app.runs.protocols.base import OptionsError, Protocol, SampleSummary, WorkUnit
from desktop_app.runs.protocols.live_store import (
    CAP,
    ERROR,
    FORMAT_ERROR,
    PASSED,
    STOPPED,
    done_tasks,
    forget_attempt,
    live_key,
    live_metrics,
    outcomes,
    step_image_name,
    summary_lines,
    write_task,
)
from desktop_app.runs.selection import NO_GOAL
from desktop_app.runs.state import error_kind
from desktop_app.runs.work import WorkItem
from desktop_app.store import models as m
from desktop_app.store.queries import EpisodeFilter

NOT_RECORDED = "not a recorded task (screenlab record makes one)"
NO_EVALUATOR = "no evaluator (the recording has no final screen)"
ON_THE_WEB = "starts on the web (allow_web is off)"
NO_START = "its start cannot be opened"
RECORDED = "recorded"  # the scenario recordings are stored under (record/episode.py)
AGENT_KINDS = ("openai", "random", "center")  # ocr-match reads stored screens' OCR: a live page is not stored yet


@dataclass(frozen=True)
class LiveOptions:
    max_steps: int = 10  # actions before the task ends unfinished
    observation: str = "image"  # image | tree | list | marks: the screenshot, and what else of the page
    allow_web: bool = False  # a task recorded on a web page may run (its requests leave this machine)
    browser: str = ""  # a browser executable ("": found as everywhere else)


def recorded_tasks(project, flt: EpisodeFilter) -> int:
    """How many episodes of a selection were recorded (SQL only: the New run dialog offers the live protocol
    only when there are some)."""
    if flt.scenarios and RECORDED not in flt.scenarios:
        return 0
    from dataclasses import replace

    where = replace(flt, scenarios=(RECORDED,), kind="sample").where()
    with project.reading() as s:
        return int(s.execute(select(func.count()).select_from(m.Episode).where(*where)).scalar_one())


class LiveProtocol(Protocol):
    name: ClassVar[str] = "live"
    title: ClassVar[str] = "Live: recorded tasks in a browser"
    description: ClassVar[str] = ("an agent does each recorded task on the live page, its actions done in a browser "
                                  "served offline, until it stops, the task's evaluator passes or the step cap; "
                                  "success rate (SR) and steps to success")
    options_type: ClassVar[type] = LiveOptions

    def options(self, data: dict | None = None, **given) -> LiveOptions:
        options: LiveOptions = super().options(data, **given)
        if not isinstance(options.max_steps, int) or not 1 <= options.max_steps <= 200:
            raise OptionsError(f"max_steps is a whole number from 1 to 200, not {options.max_steps!r}")
        if options.observation not in MODES:
            raise OptionsError(f"unknown observation mode {options.observation!r} (one of {', '.join(MODES)})")
        return options

    def prepare(self, project, profile, options: LiveOptions) -> LiveOptions:
        if profile.kind not in AGENT_KINDS:
            raise OptionsError(f"{profile.name!r} is a {profile.kind!r} agent, which reads stored screens; a live "
                               f"run needs a model or a random / center baseline")
        return options

    def fits(self, summary: SampleSummary) -> bool:
        return False  # chosen explicitly: recorded tasks also fit the screen and episode protocols

    def units(self, items: list[WorkItem], include_unlabelled: bool = False,
              options=None) -> tuple[list[WorkUnit], Counter]:
        options = options or LiveOptions()
        firsts: dict[int, WorkItem] = {}
        for item in items:
            if item.episode_id not in firsts or item.step_index < firsts[item.episode_id].step_index:
                firsts[item.episode_id] = item
        units, excluded = [], Counter()
        for episode_id, item in firsts.items():
            reason = why_not(item, options)
            if reason:
                excluded[reason] += 1
            else:
                units.append(WorkUnit(episode_id, (item,)))
        return units, excluded

    def done(self, project, run_id: int) -> set:
        return done_tasks(project, run_id)

    def finished(self, unit: WorkUnit, done: set) -> bool:
        return unit.key in done

    # -- acting --------------------------------------------------------------------------------
    async def act(self, ctx: RunContext, unit: WorkUnit) -> None:
        item = unit.items[0]
        await ctx.store(forget_attempt, ctx.run_id, item.episode_key)
        browser = ctx.memo.get("live_browser")
        if browser is None:
            browser = ctx.memo["live_browser"] = _BrowserThread(ctx.options.browser)
            ctx.on_close(browser.close)
        record = item.episode_meta["record"]
        page = await browser.call(browser.open_page, record["start"])
        try:
            walk = await _Walk(ctx, item, browser, page).run()
        finally:
            await browser.call(page.close)
        if walk is None:
            return  # cancelled: nothing written, done again on resume
        await ctx.store(write_task, ctx.run_id, *walk.stored(ctx, item, page.site.blocked))
        ctx.step_done({ERROR: None}.get(walk.ended, "success" if walk.success else "failure"))

    # -- reporting -----------------------------------------------------------------------------
    def evaluate(self, project, runs: list, rules: tuple[str, ...], text_metric: str = "auto") -> dict[int, dict]:
        return {run.id: live_metrics(outcomes(project, run.id), run.samples or 0, self.options_json(
            self.options(run.options))) for run in runs}

    def summary(self, metrics: dict, rules: tuple[str, ...]) -> list[str]:
        return summary_lines(metrics)


def why_not(item: WorkItem, options: LiveOptions) -> str:
    """Why a task cannot run live ("" when it can)."""
    record = item.episode_meta.get("record")
    if not isinstance(record, dict) or not record.get("start"):
        return NOT_RECORDED
    if not item.goal.strip():
        return NO_GOAL
    evaluator = record.get("evaluator") or {}
    if not (evaluator.get("url") or evaluator.get("dom") or evaluator.get("sphinx")):
        return NO_EVALUATOR
    try:
        site = open_site(record["start"])
    except SiteError:
        return NO_START
    if site.online and not options.allow_web:
        return ON_THE_WEB
    return ""


class _BrowserThread:
    """One browser for an execution, in its own thread (Playwright's sync API stays in one thread): each task
    gets a context of its own on it. Launched offline; a second one, online, only for a task on the web."""

    def __init__(self, browser_path: str):
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="live-browser")
        self._path = browser_path
        self._browsers: dict[bool, object] = {}

    async def call(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)

    def open_page(self, start: str):  # in the pool's thread
        from desktop_app.record.browser import launch
        from desktop_app.record.live_page import LivePage

        site = open_site(start)
        if site.online not in self._browsers:
            self._browsers[site.online] = launch(online=site.online, browser_path=self._path)
        page = LivePage(self._browsers[site.online], site)
        try:
            page.open()
        except BaseException:
            page.close()
            raise
        return page

    def close(self) -> None:
        def stop():
            from desktop_app.render.renderer import stop_driver

            for browser in self._browsers.values():
                with contextlib.suppress(Exception):  # already gone with its driver
                    browser.close()
            self._browsers.clear()
            stop_driver()  # the thread drives no more: its Node.js driver goes with it

        self.pool.submit(stop).result(timeout=60)
        self.pool.shutdown(wait=True)


@dataclass
class _Step:
    png: bytes
    tree_xml: str
    info: dict
    answer: object = None  # agents.kinds.Answer; None: the final screen, shown with no answer
    action: ParsedAction | None = None
    performed: object = None  # live_page.Performed
    verdict: str = ""
    error: str = ""


class _Walk:
    """One task walked: the steps, how it ended, and (for a failure) the step that failed in words."""

    def __init__(self, ctx: RunContext, item: WorkItem, browser: _BrowserThread, page):
        self.ctx, self.item, self.browser, self.page = ctx, item, browser, page
        self.steps: list[_Step] = []
        self.ended, self.success, self.failure, self.checks = "", False, "", []
        self.response = ""

    @property
    def actions(self) -> int:
        return sum(1 for s in self.steps if s.performed is not None)

    async def run(self) -> _Walk | None:
        ctx, options = self.ctx, self.ctx.options
        evaluator = self.item.episode_meta["record"].get("evaluator") or {}
        shot = await self.browser.call(self.page.snapshot)
        history: list[str] = []
        for turn in range(options.max_steps):
            if ctx.cancel.is_set():
                return None
            step = _Step(shot.png, shot.tree_xml, {**shot.info, "turn": turn + 1})
            self.steps.append(step)
            try:
                step.answer = await ctx.ask(await asyncio.to_thread(self._sample, shot, history))
            except RequestFailed as exc:
                ctx.progress.errors += 1
                ctx.progress.error_kinds[error_kind(str(exc))] += 1
                step.verdict, step.error = "error", str(exc)
                return self._end(ERROR, f"step {turn + 1}: no answer: {exc}")
            width, height = self.page.viewport
            p = ctx.profile
            resize = {k: v for k, v in (("factor", p.factor), ("min_pixels", p.min_pixels),
                                        ("max_pixels", p.max_pixels)) if v}
            text = step.answer.reply.text
            step.action = await ctx.read(text, parse_action, p.convention, text, width, height, **resize)
            if step.action.wrong_format:
                step.verdict = "invalid"
                return self._end(FORMAT_ERROR, f"step {turn + 1}: the answer is not an action in the "
                                               f"{p.convention} convention")
            if step.action.action_type == "finished":
                self.response = step.action.text or ""
                verdict = await self.browser.call(self.page.check, evaluator, shot.tree_xml)
                self.checks = verdict.lines()
                step.verdict = "gold" if verdict.passed else "other"
                if verdict.passed:
                    return self._end(STOPPED, "", success=True)
                before = f" ({_described(self.steps[-2])})" if len(self.steps) > 1 else " before acting"
                return self._end(STOPPED, f"step {turn + 1}: stopped on {_short(shot.info['url'])}{before}; "
                                          f"failed check: {_wanted(verdict)}")
            step.performed = await self.browser.call(self.page.perform, step.action, shot.info["elements"])
            shot = await self.browser.call(self.page.snapshot)
            verdict = await self.browser.call(self.page.check, evaluator, shot.tree_xml)
            self.checks = verdict.lines()
            if verdict.passed:
                step.verdict = "gold"
                self.steps.append(_Step(shot.png, shot.tree_xml, shot.info))  # the page the task ended on
                return self._end(PASSED, "", success=True)
            history.append(f"Step {turn + 1}: {step.performed.text}")
        self.steps[-1].verdict = "other"
        last = self.steps[-1]
        self.steps.append(_Step(shot.png, shot.tree_xml, shot.info))
        return self._end(CAP, f"step cap reached after {options.max_steps} steps (last, {_described(last)}), on "
                              f"{_short(shot.info['url'])}; failed check: {_wanted_lines(self.checks)}")

    def _end(self, ended: str, failure: str, success: bool = False) -> _Walk:
        self.ended, self.failure, self.success = ended, failure, success
        return self

    def _sample(self, shot, history: list[str]) -> Sample:
        """What the agent is shown: the screenshot (with marks in that mode), the URL, and the tree or the list
        of elements in those modes; built off the event loop (the tree is parsed, marks drawn)."""
        item, mode = self.item, self.ctx.options.observation
        image = shot.png
        lines = [f"You are acting on a live web page, now at {shot.info['url']}. Your action is done in the page "
                 "and you see the page it leads to. When the task is done, answer that you have finished."]
        if mode != "image":
            tree = UiTree.from_xml(shot.tree_xml)
            if mode == "marks":
                image = marks_png(shot.png, tree)
                lines.append("Each element you can act on carries a red dot with its number.")
            else:
                lines += ["", ("The page's accessibility tree:" if mode == "tree" else "The elements you can act on:"),
                          observation_text(tree, mode)]
        width, height = self.page.viewport
        sample = Sample(item.episode_id, item.step_id, item.episode_key, item.goal, item.scenario,
                        hashlib.sha256(image).hexdigest(), width, height, image, "image/png", history=list(history))
        sample.observation = "\n".join(lines)
        return sample

    # -- stored --------------------------------------------------------------------------------
    def stored(self, ctx: RunContext, item: WorkItem, blocked: list[str]) -> tuple:
        """(the trajectory's EpisodeRecord, the prediction of each of its steps) for live_store.write_task."""
        key = live_key(ctx.run_id, item.episode_key)
        steps, predictions = [], []
        for index, step in enumerate(self.steps):
            action = _trajectory_action(step, self.page.viewport)
            steps.append(StepRecord(image=step_image_name(key, index), image_bytes=step.png, platform="web",
                                    screen_source=step.info["url"],
                                    screen_meta={"url": step.info["url"], "title": step.info.get("title", "")},
                                    meta={"action": action.to_json(), "live": _step_meta(step)},
                                    tree_xml=step.tree_xml))
            predictions.append(_prediction(step))
        if "live_policy" not in ctx.memo:
            ctx.memo["live_policy"] = _run_name(ctx)
        run_name = ctx.memo["live_policy"]
        meta = {**trajectory_meta(run_name, self.response, "web", {"run": ctx.run_id, "task": item.episode_key,
                                                                   "protocol": "live"}),
                "live": {"run": ctx.run_id, "task_id": item.episode_id, "task": item.episode_key, "goal": item.goal,
                         "success": self.success, "steps": self.actions, "ended": self.ended,
                         "failure": self.failure, "checks": self.checks, "blocked": len(blocked),
                         "blocked_examples": blocked[:5], "start": self.page.site.start_url,
                         "observation": ctx.options.observation, "max_steps": ctx.options.max_steps}}
        record = EpisodeRecord(key=key, where=Where(step_image_name(key, 0)), goal=item.goal, scenario="trajectory",
                               kind="trajectory", meta=meta, steps=steps)
        return record, predictions


def _run_name(ctx: RunContext) -> str:
    with ctx.project.reading() as s:
        return s.execute(select(m.Run.name).where(m.Run.id == ctx.run_id)).scalar_one() or f"run {ctx.run_id}"


def _short(url: str) -> str:
    return url.removeprefix(ORIGIN) or "/"


def _described(step: _Step) -> str:
    """What an earlier step did, for a failure's words: "step 1: clicked 'Help' at (93, 26)"."""
    done = step.performed.text if step.performed is not None else (step.action.action_type if step.action else "")
    return f"step {step.info.get('turn', '?')}: {done or 'no action'}"


def _wanted(verdict) -> str:
    return _wanted_lines([f"  {'ok  ' if ok else 'FAIL'} {what}" for what, ok in verdict.checks])


def _wanted_lines(lines: list[str]) -> str:
    """The first check that failed, short: "the URL matches /site/account/profile (it is /site/account/saved)"."""
    failed = [line.strip().removeprefix("FAIL").strip() for line in lines if line.strip().startswith("FAIL")]
    return failed[0].replace(ORIGIN, "") if failed else "none (the page changed after it was checked)"


def _trajectory_action(step: _Step, viewport: tuple[int, int]) -> TrajectoryAction:
    """The step's action as judges read it (formats/trajectory_layout.py), its point normalised for drawing."""
    raw = step.answer.reply.text[:4000] if step.answer is not None else ""
    action, done = step.action, step.performed
    point = ()
    if action is not None and action.point is not None:
        point = ((action.point[0] / viewport[0], action.point[1] / viewport[1]),)
    if step.error:
        return TrajectoryAction("other", "no answer (the request failed)", (), "")
    if step.answer is None:
        return TrajectoryAction("stop", "stop", (), "(the run ended the task here)")
    if action is None or action.wrong_format:
        return TrajectoryAction("other", "an answer that is not an action", (), raw)
    if action.action_type == "finished":
        return TrajectoryAction("stop", "stop", (), raw)
    name = done.element or "an unnamed element"
    if done.kind == "click":
        return TrajectoryAction("click", f"click at [{name}]", point, raw)
    if done.kind == "type":
        typed = "(hidden)" if "(hidden)" in done.text else action.text or ""
        return TrajectoryAction("type", f"type [{typed}] at [{name}]", point, raw)
    if done.kind == "back":
        return TrajectoryAction("back", "go back", (), raw)
    return TrajectoryAction(done.kind, done.text, point, raw)


def _step_meta(step: _Step) -> dict:
    if step.error:
        return {"url": step.info["url"], "verdict": "error", "error": step.error}
    if step.answer is None:
        return {"final": True, "url": step.info["url"]}
    out = {"url": step.info["url"], "verdict": step.verdict}
    if step.performed is not None:
        out.update(performed=step.performed.text, done=step.performed.done)
    return out


def _prediction(step: _Step) -> dict | None:
    """The run's prediction on a step: the answer, its parse and what it did (none on the final screen)."""
    if step.error:
        return {"verdict": "error", "error": step.error, "raw_text": "", "parsed": {}}
    if step.answer is None:
        return None
    action = step.action or ParsedAction(raw=step.answer.reply.text, wrong_format=True)
    parsed = {**action.to_json(), "performed": step.performed.text if step.performed else "",
              "done": bool(step.performed and step.performed.done)}
    return {**answer_values(step.answer, action), "verdict": step.verdict, "parsed": parsed}
