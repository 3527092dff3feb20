"""The one run engine: create a run, execute it, resume it; every protocol goes through here.

A run is created once (a frozen copy of the profile, the protocol and its options, the selection)
and executed as often as needed: every prediction is written the moment it is scored, and executing
again skips finished units, so a run killed halfway resumes without asking for a finished sample
twice; samples whose request failed are asked again.

Whatever stops an execution, the run is never left "running": cancel -> cancelled; an exception
(no API key, a database error, a bug) -> failed, with the reason in Run.failure, and the exception
goes on to the caller. That holds for the CLI, the GUI and the Python API alike.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

from sqlalchemy import func, select

from desktop_app.agents.cache import ProjectResponseCache
from desktop_app.agents.client import RateLimiter
from desktop_app.agents.draws import UNIT_DRAW
from desktop_app.agents.kinds import KINDS
from desktop_app.agents.profiles import AgentProfile, ProfileError, resolve_api_key
from desktop_app.llm_retry import openai_client
from desktop_app.runs.context import Progress, RunContext
from desktop_app.runs.error_counts import error_kinds  # noqa: F401 (its old home)
from desktop_app.runs.imported_verdicts import IMPORTED
from desktop_app.runs.protocols import OptionsError, SampleSummary, get_protocol, suggest
from desktop_app.runs.protocols.base import Protocol
from desktop_app.runs.selection import RunSelection, describe_excluded, with_default_statuses
from desktop_app.runs.state import RunProgress, RunState
from desktop_app.runs.work import item_chunks
from desktop_app.secrets import redact
from desktop_app.store import models as m
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter, frozen, no_match
from desktop_app.store.types import utcnow

log = logging.getLogger(__name__)

FAILURE_CHARS = 2000
CHUNK_UNITS = 500  # units queued ahead of the workers
# failures the user fixes (a key that is not set, an option a protocol does not have): their message
# says what to do, so it is stored and shown without the exception's class name


class EmptySelection(ValueError):
    """A run would ask nothing: its selection matches no sample, or none that can be scored."""


USER_ERRORS = (ProfileError, OptionsError, EmptySelection)


@dataclass(frozen=True)
class Plan:
    """What a run would ask, before it is created (the New run dialog, `screenlab run`)."""

    protocol: str
    suggested: str  # what the samples fit
    units: int
    steps: int
    excluded: dict[str, int]

    @property
    def excluded_text(self) -> str:
        return describe_excluded(self.excluded)


@dataclass(frozen=True)
class RunRequest:
    """One run to create: what the New run dialog returns per agent x pattern."""

    profile: AgentProfile
    episodes: EpisodeFilter = EpisodeFilter()
    protocol: str | None = None  # None: the one the samples fit
    options: dict | None = None  # the protocol's options, e.g. {"allow_ask": False}
    include_unlabelled: bool = False
    name: str = ""


def summarize_samples(project: Project, flt: EpisodeFilter) -> SampleSummary:
    """Episodes and steps a filter selects, and how many episodes have several steps (SQL only);
    trajectories counted apart (whatever kind the filter asks for)."""
    where = replace(flt, kind="sample").where()
    with project.reading() as s:
        trajectories = s.execute(select(func.count()).select_from(m.Episode)
                                 .where(*replace(flt, kind="trajectory").where())).scalar_one()
        per_episode = (select(m.Step.episode_id, func.count(m.Step.id).label("n"))
                       .join(m.Episode, m.Episode.id == m.Step.episode_id).where(*where)
                       .group_by(m.Step.episode_id).subquery())
        episodes, steps, multi = s.execute(select(
            func.count(), func.coalesce(func.sum(per_episode.c.n), 0),
            func.coalesce(func.sum((per_episode.c.n > 1).cast(m.Step.index.type)), 0))).one()
    return SampleSummary(int(episodes), int(steps), int(multi), int(trajectories))


def plan_run(project: Project, flt: EpisodeFilter, protocol: str | None = None,
             include_unlabelled: bool = False, options: dict | None = None) -> Plan:
    """The protocol (given, else suggested), its units and steps, and what would be left out, by reason."""
    flt = with_default_statuses(flt)
    suggested = suggest(summarize_samples(project, flt))
    chosen = get_protocol(protocol or suggested)
    typed, units, steps, excluded = chosen.options(options), 0, 0, Counter()
    for chunk in item_chunks(project, replace(flt, kind=chosen.episode_kind)):
        chunk_units, chunk_excluded = chosen.units(chunk, include_unlabelled, typed)
        units += len(chunk_units)
        steps += sum(len(u.items) for u in chunk_units)
        excluded.update(chunk_excluded)
    return Plan(chosen.name, suggested, units, steps, dict(excluded))


def empty_reason(project: Project, flt: EpisodeFilter, plan: Plan) -> str:
    """"" when the plan asks something; else why not, in words: "selects no sample (scenarios in this project:
    ...)", or the samples it left out and why."""
    if plan.units:
        return ""
    flt = replace(with_default_statuses(flt), kind=get_protocol(plan.protocol).episode_kind)
    with project.reading() as s:
        missed = no_match(s, flt)
    return missed or f"selects no sample that can be scored ({plan.excluded_text})"


def cached_answers(project: Project, profile: AgentProfile, flt: EpisodeFilter, protocol: str | None = None,
                   include_unlabelled: bool = False, options: dict | None = None) -> int:
    """How many of the steps plan_run counts this agent would answer from the response cache, asking nobody
    (a repeated run): the estimate counts only the others. Offline baselines ask nobody anyway: none. Reads
    the cache only: no key is looked up, nothing is sent."""
    if profile.kind != "openai":
        return 0
    flt = with_default_statuses(flt)
    chosen = get_protocol(protocol or suggest(summarize_samples(project, flt)))
    if type(chosen).cached_steps is Protocol.cached_steps:
        return 0  # it cannot tell before it runs: no sample is loaded for nothing
    typed = chosen.options(options)
    agent = KINDS[profile.kind](profile=profile, client=None, limiter=None, cache=ProjectResponseCache(project),
                                allow_ask=chosen.offers_ask(typed))
    cached = 0
    for chunk in item_chunks(project, replace(flt, kind=chosen.episode_kind)):
        units, _ = chosen.units(chunk, include_unlabelled, typed)
        cached += len(chosen.cached_steps(project, agent, units))
    return cached


def default_name(profile: AgentProfile, flt: EpisodeFilter, protocol: str) -> str:
    """A name a person can tell runs apart by: agent, pattern, and what it ran on."""
    if flt.ids:
        scope = f"{len(flt.ids)} episode{'s' if len(flt.ids) != 1 else ''}"
    elif flt.scenarios:
        scope = "+".join(flt.scenarios)
    elif flt.splits:
        scope = "split " + "+".join(flt.splits)
    else:
        scope = "all samples"
    parts = [profile.name] + ([profile.pattern] if profile.kind == "openai" else []) + [scope]
    if protocol != "screen":
        parts.append(protocol)
    return " · ".join(parts)


def create_run(project: Project, profile: AgentProfile, flt: EpisodeFilter = EpisodeFilter(), name: str = "",
               protocol: str | None = None, options: dict | None = None, include_unlabelled: bool = False,
               plan: Plan | None = None) -> int:
    """A new pending run. protocol None: the one the samples fit (protocols.suggest). `plan`: what
    plan_run already said for these arguments (the CLI prints it first), so the samples are not loaded again."""
    profile.validate()
    flt = with_default_statuses(flt)
    plan = plan or plan_run(project, flt, protocol, include_unlabelled, options)
    empty = empty_reason(project, flt, plan)
    if empty:  # a run of nothing would only be a row to explain away
        raise EmptySelection(f"no run created: the selection {empty}")
    chosen = get_protocol(plan.protocol)
    flt = replace(flt, kind=chosen.episode_kind)
    # unknown or impossible options are refused now, not when the run starts
    typed = chosen.prepare(project, profile, chosen.options(options))

    def write(project: Project) -> int:
        with project.transaction() as s:
            frozen_flt = frozen(s, flt)  # the run keeps these samples: a later import does not add to it on resume
            stored = m.AgentProfile(name=profile.name, base_url=profile.base_url, model=profile.model,
                                    pattern=profile.pattern, convention=profile.convention,
                                    api_key_ref=profile.api_key_ref, params=profile.snapshot())
            s.add(stored)
            s.flush()
            run = m.Run(name=name or default_name(profile, flt, chosen.name), profile_id=stored.id,
                        protocol=chosen.name, selection=RunSelection(frozen_flt, include_unlabelled).to_json(),
                        options=chosen.options_json(typed), status=RunState.PENDING, agent=profile.name,
                        kind=profile.kind, model=profile.model, pattern=profile.pattern, convention=profile.convention,
                        samples=plan.steps, excluded=sum(plan.excluded.values()))
            s.add(run)
            s.flush()
            return run.id

    return project.retrying(write)  # waits while another process's import holds the write lock


def load_run(project: Project, run_id: int) -> tuple[m.Run, AgentProfile]:
    """The run and the profile it was created with (no key: it is looked up again when asked)."""
    with project.reading() as s:
        run = s.get(m.Run, run_id)
        if run is None:
            raise ValueError(f"no run {run_id} in this project")
        stored = s.get(m.AgentProfile, run.profile_id)
    known = set(AgentProfile.__dataclass_fields__)
    return run, AgentProfile(**{k: v for k, v in stored.params.items() if k in known})


def run_selection(run: m.Run) -> RunSelection:
    return RunSelection.from_json(run.selection)


def make_agent(project: Project, profile: AgentProfile, use_cache: bool = True, ocr_lookup=None,
               allow_ask: bool = False):
    """The agent object for a profile, and the HTTP client to close when the run ends (or None).
    Raises ProfileError when the API key cannot be found."""
    client = None
    if profile.kind == "openai":  # retried by agents/client.chat as llm_retry.py says, never by the SDK
        client = openai_client(profile.base_url, resolve_api_key(profile), profile.timeout_s, asynchronous=True)
    if profile.kind == "ocr-match" and ocr_lookup is None:
        ocr_lookup = project_ocr_lookup(project)
    agent = KINDS[profile.kind](profile=profile, client=client, limiter=RateLimiter(profile.rpm, profile.tpm),
                                cache=ProjectResponseCache(project, use_cache), ocr_lookup=ocr_lookup,
                                allow_ask=allow_ask)
    return agent, client


def project_ocr_lookup(project: Project):
    """(text, box) of the OCR words and element proposals of a sample's screen (cached per image)."""
    from desktop_app.ocr.cache import ocr_screen

    def lookup(sample) -> list[tuple[str, tuple]]:
        with project.reading() as s:
            screen = s.execute(select(m.Screen).where(m.Screen.sha256 == sample.sha256)).scalar_one()
        outcome = ocr_screen(project, screen)
        return ([(w.text, w.xyxy) for w in outcome.words]
                + [(p.text, p.box) for p in outcome.elements if p.text])

    return lookup


async def execute_async(project: Project, run_id: int, profile: AgentProfile | None = None,
                        progress: Progress | None = None, cancel: threading.Event | None = None,
                        concurrency: int | None = None, use_cache: bool = True, ocr_lookup=None) -> RunProgress:
    """Execute (or resume) a run. `profile` None: the run's frozen profile, its key looked up again."""
    run, stored_profile = load_run(project, run_id)
    if run.kind == IMPORTED:
        raise OptionsError(f"run {run_id} holds verdicts imported from a file; there is no model to ask")
    profile = profile or stored_profile
    cancel = cancel or threading.Event()
    status = RunProgress(run_id, protocol=run.protocol)
    started = time.perf_counter()
    client = None
    try:
        protocol = get_protocol(run.protocol)
        options = protocol.options(run.options)
        selection = run_selection(run)

        def todo_units(done: set):  # the selection's units not finished yet, a chunk of episodes at a time
            for chunk in item_chunks(project, selection.episodes):
                units, excluded = protocol.units(chunk, selection.include_unlabelled, options)
                yield [u for u in units if not protocol.finished(u, done)], units, excluded

        done = protocol.done(project, run_id)
        todo = 0
        for chunk_todo, units, excluded in todo_units(done):  # counted first: the progress shows the whole run
            todo += len(chunk_todo)
            status.total += sum(len(u.items) for u in units)
            status.skipped += sum(len(u.items) for u in units) - sum(len(u.items) for u in chunk_todo)
            status.excluded += sum(excluded.values())
        _mark(project, run_id, RunState.RUNNING, started=True, samples=(status.total, status.excluded))
        agent, client = make_agent(project, profile, use_cache, ocr_lookup, allow_ask=protocol.offers_ask(options))
        await _work(project, run_id, profile, agent, protocol, options, (c for c, _, _ in todo_units(done)), todo,
                    status, progress, cancel, concurrency, use_cache)
    except BaseException as exc:
        status.failure = _describe(exc)
        status.elapsed_s = time.perf_counter() - started
        _finish(project, run_id, status, profile, RunState.FAILED)
        raise
    finally:
        if client is not None:
            await client.close()
    status.cancelled = cancel.is_set()
    status.elapsed_s = time.perf_counter() - started
    # a pass over the selection: only when it decides the state (a cancelled run is told at once)
    left = not status.cancelled and not status.errors and any(
        chunk_todo for chunk_todo, _, _ in todo_units(protocol.done(project, run_id)))
    state = (RunState.CANCELLED if status.cancelled else
             RunState.DONE_WITH_ERRORS if left or status.errors else RunState.DONE)
    _finish(project, run_id, status, profile, state)
    if run.protocol == "screen":
        _store_flags(project, run_id, run.convention)
    if progress:
        progress(status)
    return status


def _store_flags(project: Project, run_id: int, convention: str) -> None:
    """The envdistraction flags of the run's text answers, scored and stored once (evaluation/flag_cache.py, ADR
    0066): the first evaluation after the run counts them with the database. Never fails the finished run: an
    evaluation scores whatever is not stored."""
    from desktop_app.evaluation import flag_cache

    if flag_cache.scored_in_python(convention) is None:  # every answer is counted by the database
        return
    try:
        from desktop_app.evaluation.rows import store_flags  # loaded by the runs that need it

        store_flags(project, [run_id])
    except Exception as exc:  # noqa: BLE001 (a run's answers are on disk: nothing here may lose them)
        log.warning("run %s: its answers' flags were not stored (%s)", run_id, exc)


async def _work(project, run_id, profile, agent, protocol, options, chunks, todo: int, status, progress, cancel,
                concurrency, use_cache: bool = True) -> None:
    """The worker pool: `width` workers take units from one queue; one writer thread commits. Helper models
    (judges, repairers, captioners) use the cache as the agent does: --no-cache asks them again too."""
    # One writer thread: each prediction is committed as it arrives, without the event loop
    # waiting on the database (a commit per answer on the loop made 500 requests 1.6x slower).
    writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="prediction-writer")
    ctx = RunContext(project, run_id, profile, agent, options, status, progress, cancel, writer,
                     asyncio.get_running_loop(), lambda helper: make_agent(project, helper, use_cache))
    width = max(1, min(concurrency or profile.concurrency, todo or 1))
    try:
        await _pool(width, chunks, protocol, ctx, cancel)
    finally:
        writer.shutdown(wait=True)  # every answer received is on disk before the run is closed
        await ctx.aclose()


async def _pool(width, chunks, protocol, ctx, cancel) -> None:
    """Workers take units from a queue a reader thread fills a chunk at a time, at most about two chunks ahead
    of them: memory stays bounded whatever the selection's size, and the next chunk loads while they work."""
    queue: asyncio.Queue = asyncio.Queue(maxsize=CHUNK_UNITS)
    chunks = iter(chunks)

    async def feed() -> None:
        while (chunk := await asyncio.to_thread(next, chunks, None)) is not None:
            for unit in chunk:
                await queue.put(unit)
        for _ in range(width):
            await queue.put(None)

    async def worker() -> None:
        while not cancel.is_set():
            unit = await queue.get()
            if unit is None:
                return
            # every request for this unit (agent, judge, helper) is a draw of this run, unit and repetition
            UNIT_DRAW.set(f"{ctx.run_id}:{unit.key}:{unit.repeat}")
            await protocol.act(ctx, unit)

    async def watch(tasks) -> None:
        while not all(t.done() for t in tasks):
            if cancel.is_set() or (feeder.done() and not feeder.cancelled() and feeder.exception()):
                for t in tasks:
                    t.cancel()  # in-flight answers are dropped; resume asks for them again
                return
            await asyncio.sleep(0.05)

    feeder = asyncio.create_task(feed())
    tasks = [asyncio.create_task(worker()) for _ in range(width)]
    watcher = asyncio.create_task(watch(tasks))
    try:
        results = await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        watcher.cancel()
        feeder.cancel()  # workers that stopped early (cancel, a bug) leave it waiting on a full queue
    if feeder.done() and not feeder.cancelled() and feeder.exception():
        raise feeder.exception()  # the database failed while reading the selection
    for result in results:  # a worker's bug fails the run; a cancelled worker does not
        if isinstance(result, BaseException) and not isinstance(result, asyncio.CancelledError):
            raise result


def _describe(exc: BaseException) -> str:
    # stored in Run.failure and shown: an exception's message may carry a key (a library's error repeating its
    # request), taken out before the text is cut
    text = redact(str(exc)).strip()
    if isinstance(exc, USER_ERRORS) and text:
        return text[:FAILURE_CHARS]
    return (f"{type(exc).__name__}: {text}" if text else type(exc).__name__)[:FAILURE_CHARS]


def _mark(project: Project, run_id: int, state: RunState, started: bool = False,
          samples: tuple[int, int] | None = None) -> None:
    project.retrying(_mark_now, run_id, state, started, samples)


def _mark_now(project: Project, run_id: int, state: RunState, started: bool, samples) -> None:
    with project.transaction() as s:
        run = s.get(m.Run, run_id)
        run.status = state.value
        if samples is not None:  # the selection's samples can change between executions (labels added)
            run.samples, run.excluded = samples
        if started and run.started_at is None:
            run.started_at = utcnow()
        if state == RunState.RUNNING:
            run.failure = ""
        s.add(run)


def _finish(project: Project, run_id: int, status: RunProgress, profile: AgentProfile, state: RunState) -> None:
    """Close an execution: its state, its failure, and its totals added to the run's."""
    status.cost = (status.prompt_tokens * profile.price_in_per_mtok
                   + status.completion_tokens * profile.price_out_per_mtok) / 1e6
    try:
        project.retrying(_finish_now, run_id, status, state)  # a run is never left "running" by a busy database
    except Exception:
        if state != RunState.FAILED:
            raise
        # failing because the database failed: the caller gets the original error


def _finish_now(project: Project, run_id: int, status: RunProgress, state: RunState) -> None:
    with project.transaction() as s:
        run = s.get(m.Run, run_id)
        run.status = state.value
        run.failure = status.failure
        if state in (RunState.DONE, RunState.DONE_WITH_ERRORS):
            run.finished_at = utcnow()
        run.prompt_tokens += status.prompt_tokens
        run.completion_tokens += status.completion_tokens
        run.cost += status.cost
        run.cached += status.cached
        run.executions += 1
        s.add(run)


def execute(project: Project, run_id: int, **kw) -> RunProgress:
    """Blocking execution, in a fresh event loop in its own thread."""
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


