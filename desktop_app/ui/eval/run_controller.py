"""Runs executed off the UI thread, reported to it at most ~10 times a second per run.

api.execute_run() blocks (the engine runs its own asyncio loop in a thread), so each run is a Task
(ui/tasks.py: a daemon thread, so a run still writing when the window quits does not abort the process). The runner's progress callback fires once per answer - up to hundreds a
second - on the runner's loop thread; it only copies the status into the job (no Qt call, no
lock: one reference assignment). A QTimer on the UI thread looks at the jobs every
INTERVAL_MS and emits signals for those that moved. So the UI thread never waits on a run,
the event queue is never flooded, and a burst of answers costs one repaint.

Keeping the UI thread responsive while the runner's threads work in the same process (they
share one GIL; measured with benchmarks/ui_latency.py):
* Starting a run freezes the garbage collector's view of the heap, and while runs stream the GIL
  switch interval is 1 ms (ui/busy_worker.py: without the freeze a full collection of the ~180,000
  live objects started in the runner's thread and froze the UI for ~110 ms right after Start).
* The HTTP stack is imported and warmed up in a Task when a controller is created (a project opens),
  not by the first request of the first run.

Cancel sets the run's threading.Event: the runner drops in-flight requests within ~50 ms,
writes what it has, and marks the run cancelled. Resume is `start(run_id)` again: the runner
skips every sample that already has an answer.
"""

from __future__ import annotations

import copy
import logging
import threading
import time
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, QTimer, Signal

from desktop_app import api
from desktop_app.agents.profiles import AgentProfile
from desktop_app.api.projects import Project
from desktop_app.api.samples import EpisodeFilter
from desktop_app.runs.state import RunProgress
from desktop_app.ui import busy_worker
from desktop_app.ui.tasks import Task

log = logging.getLogger(__name__)
INTERVAL_MS = 100


_warm_up = {"started": False}


WARM_UP_AFTER_MS = 4000


def warm_up_network_stack() -> None:
    """Import what the first request would import, once per process, off the UI thread."""
    if _warm_up["started"]:
        return
    _warm_up["started"] = True

    def work() -> None:
        try:
            import anyio._backends._asyncio  # noqa: F401  (httpx's async pool loads it on the first request)
            import openai
            from openai.types.chat import ChatCompletion

            client = openai.AsyncOpenAI(api_key="warm-up", base_url="http://127.0.0.1:9/v1")
            _ = client.chat.completions  # resources and their types are imported on first access
            ChatCompletion.model_validate({  # pydantic builds the response validators on first use
                "id": "warm-up", "object": "chat.completion", "created": 0, "model": "m",
                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": ""}}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
        except Exception:  # only an optimisation: the run imports what it needs anyway
            log.debug("warm-up failed", exc_info=True)

    Task(lambda _progress: work(), name="network-warm-up", wait=None).start()  # nobody waits on it


@dataclass
class _Job:
    run_id: int
    cancel: threading.Event = field(default_factory=threading.Event)
    task: Task | None = None
    status: RunProgress | None = None  # the latest copy, written by the runner's thread
    shown: int = -1  # status.done when the UI last heard of it
    finished: bool = False  # set last by the worker thread
    error: str = ""
    started: float = field(default_factory=time.perf_counter)


def describe(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class RunController(QObject):
    """Starts, cancels and resumes runs of one project. Signals arrive on the UI thread.

    progressed(run_id)        the run moved on; read status(run_id)          (<= 10/s per run)
    predictionsChanged(run_id) new predictions are in the database           (<= 10/s per run)
    runStarted(run_id)
    runFinished(run_id)       the run ended: done, cancelled, or failed (then runFailed came first)
    runFailed(run_id, message) the run could not go on (no API key, database error, ...)
    """

    progressed = Signal(int)
    predictionsChanged = Signal(int)
    runStarted = Signal(int)
    runFinished = Signal(int)
    runFailed = Signal(int, str)

    def __init__(self, project: Project, parent=None, interval_ms: int = INTERVAL_MS):
        super().__init__(parent)
        self.project = project
        self._jobs: dict[int, _Job] = {}
        self._last: dict[int, RunProgress] = {}  # final status of runs that ended in this session
        self._errors: dict[int, str] = {}
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._poll)
        # after start-up, not during it: the imports hold the interpreter while the first screen is drawn
        QTimer.singleShot(WARM_UP_AFTER_MS, warm_up_network_stack)

    # starting and stopping -------------------------------------------------------
    def start_new(self, profile: AgentProfile, flt: EpisodeFilter, name: str = "",
                  concurrency: int | None = None, protocol: str | None = None, options: dict | None = None,
                  include_unlabelled: bool = False) -> int:
        """Create a run (frozen profile, protocol, selection) and start it. Raises ProfileError for a
        bad profile, OptionsError for options the protocol does not have."""
        run_id = api.create_run(self.project, profile, flt, protocol, name, include_unlabelled, **(options or {}))
        self.start(run_id, profile=profile, concurrency=concurrency)
        return run_id

    def start(self, run_id: int, profile: AgentProfile | None = None, concurrency: int | None = None) -> bool:
        """Execute (or resume) a run. `profile` None: the run's frozen profile, its key looked up
        again by name. False when the run is already running."""
        if run_id in self._jobs:
            return False
        job = _Job(run_id)
        self._errors.pop(run_id, None)

        def progress(status: RunProgress) -> None:
            # runner thread: copy, because the runner keeps mutating its status object
            snap = copy.copy(status)
            snap.verdicts = dict(status.verdicts)
            snap.error_kinds = status.error_kinds.copy()
            job.status = snap

        from desktop_app.runs.engine import USER_ERRORS  # with the first run started, not with the window

        def work() -> None:
            try:
                final = api.execute_run(self.project, run_id, agent=profile, on_progress=progress,
                                        cancel=job.cancel, concurrency=concurrency)
                job.status = copy.copy(final)
            except USER_ERRORS as exc:  # the user can fix it (a key, an option): no traceback in the log
                log.warning("run %s failed: %s", run_id, exc)
                job.error = str(exc)
            except Exception as exc:  # the engine marked the run failed; shown in the runs list, never raised into Qt
                log.exception("run %s failed", run_id)
                job.error = describe(exc)
            finally:
                job.finished = True

        job.task = Task(lambda _progress: work(), self, name=f"run-{run_id}", wait=None)  # the Runs tab shows its progress
        busy_worker.started()
        self._jobs[run_id] = job
        job.task.start()
        self._timer.start()
        self.runStarted.emit(run_id)
        return True

    resume = start

    def cancel(self, run_id: int) -> None:
        job = self._jobs.get(run_id)
        if job is not None:
            job.cancel.set()

    def shutdown(self, timeout: float = 10.0) -> None:
        """Cancel every run and wait for them to write what they have (closing the project or the app)."""
        for job in self._jobs.values():
            job.cancel.set()
        deadline = time.monotonic() + timeout
        for job in list(self._jobs.values()):
            if job.task is not None:
                job.task.wait(max(0.0, deadline - time.monotonic()))
        self._poll()

    # state ------------------------------------------------------------------------
    def is_running(self, run_id: int) -> bool:
        return run_id in self._jobs

    def is_cancelling(self, run_id: int) -> bool:
        job = self._jobs.get(run_id)
        return job is not None and job.cancel.is_set()

    def running_ids(self) -> list[int]:
        return sorted(self._jobs)

    def status(self, run_id: int) -> RunProgress | None:
        """The latest status of a run started in this session (live, or how it ended)."""
        job = self._jobs.get(run_id)
        if job is not None:
            return job.status
        return self._last.get(run_id)

    def error(self, run_id: int) -> str:
        return self._errors.get(run_id, "")

    def throughput(self, run_id: int) -> float:
        """Answers per second of the current (or last) execution (failed requests are not answers)."""
        st = self.status(run_id)
        return (st.done - st.errors) / st.elapsed_s if st and st.elapsed_s > 0 else 0.0

    # the UI-thread side ---------------------------------------------------------------
    def _poll(self) -> None:
        for run_id, job in list(self._jobs.items()):
            finished = job.finished  # read first: status is final once this is True
            status = job.status
            if status is not None and status.done != job.shown:
                job.shown = status.done
                self.progressed.emit(run_id)
                self.predictionsChanged.emit(run_id)
            if finished:
                del self._jobs[run_id]
                busy_worker.ended()
                if status is not None:
                    self._last[run_id] = status
                if job.error:
                    self._errors[run_id] = job.error
                    self.runFailed.emit(run_id, job.error)
                self.progressed.emit(run_id)
                self.predictionsChanged.emit(run_id)
                self.runFinished.emit(run_id)
        if not self._jobs:
            self._timer.stop()
