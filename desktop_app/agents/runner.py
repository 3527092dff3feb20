"""The run engine: an agent over a selection of samples, scored as answers arrive.

A run is created once (a frozen copy of the profile + the selection) and can be
executed many times: every prediction is written the moment it is scored, and
executing again skips the samples that already have one, so a run killed halfway
resumes without asking for a finished sample twice. Samples whose request failed
are tried again on resume.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace

from sqlalchemy import select

from desktop_app.agents.actions import ParsedAction
from desktop_app.agents.cache import ProjectResponseCache
from desktop_app.agents.client import RateLimiter, RequestFailed
from desktop_app.agents.conventions import parse_action
from desktop_app.agents.kinds import KINDS
from desktop_app.agents.profiles import AgentProfile, resolve_api_key
from desktop_app.agents.prompts import Sample, shuffled_choices
from desktop_app.evaluation.scoring import ScoringOptions, Target, judge
from desktop_app.store import models as m
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter, episode_ids, load_bundles
from desktop_app.store.types import utcnow

# Generated samples count once a human accepted them; imported human-made data is "unreviewed".
DEFAULT_STATUSES = ("accepted", "edited", "unreviewed")


@dataclass
class WorkItem:
    step_id: int
    episode_id: int
    episode_key: str
    goal: str
    scenario: str
    instruction: str
    sha256: str
    ext: str
    width: int
    height: int
    targets: list[Target]


@dataclass
class RunStatus:
    run_id: int
    total: int = 0
    done: int = 0  # answered in this execution
    skipped: int = 0  # already finished before
    errors: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    elapsed_s: float = 0.0
    cancelled: bool = False
    verdicts: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return asdict(self)


Progress = Callable[[RunStatus], None]


def with_default_statuses(flt: EpisodeFilter) -> EpisodeFilter:
    return flt if flt.review_statuses else replace(flt, review_statuses=DEFAULT_STATUSES)


def targets_of(boxes) -> list[Target]:
    return [Target(b.id, b.label, b.element_text,
                   (b.x1, b.y1, b.x2, b.y2) if b.x1 is not None else None, (b.meta or {}).get("role", ""))
            for b in boxes]


def plan(project: Project, flt: EpisodeFilter) -> list[WorkItem]:
    """Every step of the selected episodes, with what scoring needs."""
    items = []
    with project.reading() as s:
        ids = episode_ids(s, flt)
        for start in range(0, len(ids), 500):
            for bundle in load_bundles(s, ids[start:start + 500]):
                e = bundle.episode
                for sb in bundle.steps:
                    items.append(WorkItem(sb.step.id, e.id, e.key, e.goal, e.scenario, sb.step.instruction,
                                          sb.screen.sha256, sb.screen.ext, sb.screen.width, sb.screen.height,
                                          targets_of(sb.boxes)))
    return items


def create_run(project: Project, profile: AgentProfile, flt: EpisodeFilter, name: str = "",
               mode: str = "steps", allow_ask: bool = False) -> int:
    """mode "steps": every step on its own; "navi": episodes in order, with ASK answered when allowed."""
    profile.validate()
    flt = with_default_statuses(flt)
    snapshot = profile.snapshot()
    with project.transaction() as s:
        stored = m.AgentProfile(name=profile.name, base_url=profile.base_url, model=profile.model,
                                pattern=profile.pattern, convention=profile.convention,
                                api_key_ref=profile.api_key_ref, params=snapshot)
        s.add(stored)
        s.flush()
        run = m.Run(name=name or f"{profile.name} / {profile.pattern}", profile_id=stored.id,
                    selection={k: list(v) if isinstance(v, tuple) else v for k, v in asdict(flt).items()},
                    meta={"agent": profile.name, "kind": profile.kind, "pattern": profile.pattern,
                          "convention": profile.convention, "model": profile.model, "mode": mode,
                          "allow_ask": allow_ask})
        s.add(run)
        s.flush()
        return run.id


def run_profile(project: Project, run_id: int) -> tuple[m.Run, AgentProfile]:
    with project.reading() as s:
        run = s.get(m.Run, run_id)
        if run is None:
            raise ValueError(f"no run {run_id} in this project")
        stored = s.get(m.AgentProfile, run.profile_id)
    known = set(AgentProfile.__dataclass_fields__)
    return run, AgentProfile(**{k: v for k, v in stored.params.items() if k in known})


def run_filter(run: m.Run) -> EpisodeFilter:
    sel = {k: tuple(v) if isinstance(v, list) else v for k, v in run.selection.items()}
    return EpisodeFilter(**sel)


def _finished_steps(project: Project, run_id: int) -> set[int]:
    with project.reading() as s:
        rows = s.execute(select(m.Prediction.step_id).where(m.Prediction.run_id == run_id,
                                                            m.Prediction.verdict != "error"))
        return {r[0] for r in rows}


def _parse(profile: AgentProfile, text: str, item: WorkItem) -> ParsedAction:
    resize = {k: v for k, v in (("factor", profile.factor), ("min_pixels", profile.min_pixels),
                                ("max_pixels", profile.max_pixels)) if v}
    return parse_action(profile.convention, text, item.width, item.height, **resize)


def _write_prediction(project: Project, run_id: int, item: WorkItem, values: dict) -> None:
    with project.transaction() as s:
        row = s.execute(select(m.Prediction).where(m.Prediction.run_id == run_id,
                                                   m.Prediction.step_id == item.step_id)).scalar_one_or_none()
        if row is None:
            row = m.Prediction(run_id=run_id, step_id=item.step_id)
        for key, value in values.items():
            setattr(row, key, value)
        row.created_at = utcnow()
        s.add(row)


def _sample(project: Project, item: WorkItem) -> Sample:
    image = project.media.read(item.sha256, item.ext)
    mime = {"png": "image/png", "jpg": "image/jpeg", "webp": "image/webp"}[item.ext]
    return Sample(item.episode_id, item.step_id, item.episode_key, item.goal, item.scenario, item.sha256,
                  item.width, item.height, image, mime, item.instruction,
                  shuffled_choices([t.text for t in item.targets], f"{item.episode_key}:{item.step_id}"))


async def execute_async(project: Project, run_id: int, profile: AgentProfile | None = None,
                        progress: Progress | None = None, cancel: threading.Event | None = None,
                        concurrency: int | None = None, ocr_lookup=None, use_cache: bool = True,
                        scoring: ScoringOptions = ScoringOptions()) -> RunStatus:
    run, stored_profile = run_profile(project, run_id)
    profile = profile or stored_profile
    items = plan(project, run_filter(run))
    finished = _finished_steps(project, run_id)
    todo = [i for i in items if i.step_id not in finished]
    status = RunStatus(run_id, total=len(items), skipped=len(items) - len(todo))
    cancel = cancel or threading.Event()
    started = time.perf_counter()
    _set_run(project, run_id, status="running", started=True)

    agent, client = make_agent(project, profile, use_cache, ocr_lookup)
    # One writer thread: each prediction is committed as it arrives, without the event loop
    # waiting on the database (a commit per answer on the loop made 500 requests 1.6x slower).
    writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="prediction-writer")
    loop = asyncio.get_running_loop()

    def write(item: WorkItem, values: dict):
        return loop.run_in_executor(writer, _write_prediction, project, run_id, item, values)

    queue: asyncio.Queue[WorkItem] = asyncio.Queue()
    for item in todo:
        queue.put_nowait(item)

    async def work() -> None:
        while not cancel.is_set():
            try:
                item = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            try:
                answer = await agent.act(_sample(project, item))
            except RequestFailed as exc:
                status.errors += 1
                await write(item, {"verdict": "error", "error": str(exc), "raw_text": "",
                                   "parsed": {"attempts": exc.attempts}})
            else:
                parsed = _parse(profile, answer.reply.text, item)
                verdict = judge(parsed, item.targets, item.scenario, scoring)
                reply = answer.reply
                await write(item, {
                    "raw_text": reply.text, "parsed": {**parsed.to_json(), "calls": answer.calls,
                                                       "how": verdict.how, "score": verdict.score},
                    "x": parsed.point[0] if parsed.point else None, "y": parsed.point[1] if parsed.point else None,
                    "element_text": parsed.element or "", "verdict": verdict.verdict,
                    "matched_box_id": verdict.target_id, "wrong_format": verdict.wrong_format,
                    "latency_ms": reply.latency_ms, "prompt_tokens": reply.prompt_tokens,
                    "completion_tokens": reply.completion_tokens, "error": ""})
                status.cached += answer.cached
                if not answer.cached:  # cached answers cost nothing again
                    status.prompt_tokens += reply.prompt_tokens or 0
                    status.completion_tokens += reply.completion_tokens or 0
                status.verdicts[verdict.verdict] = status.verdicts.get(verdict.verdict, 0) + 1
            status.done += 1
            status.elapsed_s = time.perf_counter() - started
            if progress:
                progress(status)

    async def watch(tasks) -> None:
        while not all(t.done() for t in tasks):
            if cancel.is_set():
                for t in tasks:
                    t.cancel()  # in-flight answers are dropped; resume asks for them again
                return
            await asyncio.sleep(0.05)

    width = max(1, min(concurrency or profile.concurrency, len(todo) or 1))
    tasks = [asyncio.create_task(work()) for _ in range(width)]
    watcher = asyncio.create_task(watch(tasks))
    try:
        await asyncio.gather(*tasks, return_exceptions=False)
    except asyncio.CancelledError:
        pass
    finally:
        watcher.cancel()
        writer.shutdown(wait=True)  # every answer received is on disk before the run is closed
        if client is not None:
            await client.close()
    status.cancelled = cancel.is_set()
    status.elapsed_s = time.perf_counter() - started
    status.cost = (status.prompt_tokens * profile.price_in_per_mtok
                   + status.completion_tokens * profile.price_out_per_mtok) / 1e6
    left = queue.qsize() or status.cancelled
    _set_run(project, run_id, status="cancelled" if left else ("done" if not status.errors else "done_with_errors"),
             finished=not left, totals=status)
    if progress:
        progress(status)
    return status


def make_agent(project: Project, profile: AgentProfile, use_cache: bool = True, ocr_lookup=None,
               allow_ask: bool = False):
    """The agent object for a profile, and the HTTP client to close when the run ends (or None)."""
    client = None
    if profile.kind == "openai":
        import openai

        client = openai.AsyncOpenAI(base_url=profile.base_url, api_key=resolve_api_key(profile),
                                    max_retries=0, timeout=profile.timeout_s)
    if profile.kind == "ocr-match" and ocr_lookup is None:
        ocr_lookup = project_ocr_lookup(project)
    agent = KINDS[profile.kind](profile=profile, client=client, limiter=RateLimiter(profile.rpm, profile.tpm),
                                cache=ProjectResponseCache(project, use_cache), ocr_lookup=ocr_lookup,
                                allow_ask=allow_ask)
    return agent, client


def project_ocr_lookup(project: Project):
    """(text, box) of the OCR words and element proposals of a sample's screen (cached per image)."""
    from desktop_app.ocr.cache import ocr_screen

    def lookup(sample: Sample) -> list[tuple[str, tuple]]:
        with project.reading() as s:
            screen = s.execute(select(m.Screen).where(m.Screen.sha256 == sample.sha256)).scalar_one()
        outcome = ocr_screen(project, screen)
        return ([(w.text, w.xyxy) for w in outcome.words]
                + [(p.text, p.box) for p in outcome.elements if p.text])

    return lookup


def execute(project: Project, run_id: int, **kw) -> RunStatus:
    """Blocking run (single screens, or whole episodes for ambiguous-task runs)."""
    run, _ = run_profile(project, run_id)
    if run.meta.get("mode") == "navi":
        from desktop_app.navi.runner import execute_navi_async

        return in_own_loop(lambda: execute_navi_async(project, run_id, **kw), f"run-{run_id}")
    return in_own_loop(lambda: execute_async(project, run_id, **kw), f"run-{run_id}")


def in_own_loop(make_coroutine, name: str):
    """Run a coroutine to completion in a fresh event loop in its own thread: the caller's thread
    may already have one (Playwright's sync API keeps a loop running; so does a Qt-asyncio bridge)."""
    outcome: dict = {}

    def target() -> None:
        try:
            outcome["status"] = asyncio.run(make_coroutine())
        except BaseException as exc:  # handed to the caller's thread below
            outcome["error"] = exc

    thread = threading.Thread(target=target, name=name)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["status"]


def _set_run(project: Project, run_id: int, status: str, started: bool = False, finished: bool = False,
             totals: RunStatus | None = None) -> None:
    with project.transaction() as s:
        run = s.get(m.Run, run_id)
        run.status = status
        if started and run.started_at is None:
            run.started_at = utcnow()
        if finished:
            run.finished_at = utcnow()
        if totals is not None:
            meta = dict(run.meta)
            for key in ("prompt_tokens", "completion_tokens", "cost", "errors", "cached"):
                meta[key] = meta.get(key, 0) + getattr(totals, key)  # summed over resumed executions
            meta["executions"] = meta.get("executions", 0) + 1
            run.meta = meta
        s.add(run)


def rescore(project: Project, step_ids: list[int] | None = None, run_ids: list[int] | None = None,
            scoring: ScoringOptions = ScoringOptions()) -> int:
    """Judge stored predictions again against the current boxes (after a label fix). Returns changes."""
    changed = 0
    with project.transaction() as s:
        stmt = select(m.Prediction, m.Episode.scenario).join(m.Step, m.Step.id == m.Prediction.step_id) \
            .join(m.Episode, m.Episode.id == m.Step.episode_id).where(m.Prediction.verdict != "error")
        if step_ids is not None:
            stmt = stmt.where(m.Prediction.step_id.in_(step_ids))
        if run_ids is not None:
            stmt = stmt.where(m.Prediction.run_id.in_(run_ids))
        rows = s.execute(stmt).all()
        steps = {p.step_id for p, _ in rows}
        boxes: dict[int, list] = {sid: [] for sid in steps}
        for box in s.execute(select(m.ActionBox).where(m.ActionBox.step_id.in_(steps))).scalars():
            boxes[box.step_id].append(box)
        for prediction, scenario in rows:
            parsed = parsed_action(prediction)
            v = judge(parsed, targets_of(boxes[prediction.step_id]), scenario, scoring)
            if (v.verdict, v.target_id) != (prediction.verdict, prediction.matched_box_id):
                prediction.verdict, prediction.matched_box_id = v.verdict, v.target_id
                prediction.parsed = {**prediction.parsed, "how": v.how, "score": v.score}
                s.add(prediction)
                changed += 1
    return changed


def parsed_action(prediction: m.Prediction) -> ParsedAction:
    p = prediction.parsed or {}
    return ParsedAction(raw=prediction.raw_text, action_type=p.get("action_type"),
                        point=tuple(p["point"]) if p.get("point") else None,
                        box=tuple(p["box"]) if p.get("box") else None, element=p.get("element"),
                        text=p.get("text"), wrong_format=bool(p.get("wrong_format")), extra=p.get("extra") or {})
