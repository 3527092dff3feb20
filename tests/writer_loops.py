"""Concurrent writers, counted (issue 20): real processes writing one project at the same time, on SQLite or
PostgreSQL. One loop is three scenes, each on a fresh project seeded with single-screen samples:

  import + run     `screenlab import` of a folder of screenshots while `screenlab run` writes predictions
                   (against the local OpenAI-compatible server, tests/openai_server.py)
  two annotators   two processes adding, moving and deleting boxes through desktop_app.api on the same screens
                   at once, as two annotators' windows do
  runs + import    a process adding agent profiles and creating runs (api.create_run) while an import runs

Counted per back end: loops; 'database is locked' (and PostgreSQL's lock timeouts and deadlocks) in every
child's stderr and in the errors the project stored (run failures, failed requests); runs left 'running';
failed writes (a child that did not end cleanly, an api call that raised, an import or a run not whole);
edits lost (an edit a process saw succeed that the database does not hold). The goal for all of them is 0.

Shared by tests/test_concurrent_writers.py (one loop per back end) and benchmarks/reliability.py.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import func, select
from test_kill_safety import ROOT, cli, cli_env, samples_file, user_dirs

from desktop_app.store import models as m
from desktop_app.store.project import Project

from conftest import make_image
from openai_server import FakeOpenAI, Response

LOCKED = re.compile(r"database is locked|database table is locked|lock timeout|deadlock detected", re.I)
SAMPLES = 120  # seeded in every project
IMAGES = 200  # per import
EDITS = 100  # per annotator process
MOST_RUNS = 300  # runs created during one import, at most (it stops when the import has ended)
LATENCY_S = 0.1  # the server's answers: the run lasts longer than the import beside it

# One annotator: adds, moves, relabels and deletes its own boxes on the seeded screens (the other annotator's
# process works on the same screens), through the Python API. Prints, as JSON, every box it saw saved with
# its values, the boxes it saw deleted, and the errors it met.
_ANNOTATOR = r"""
import json, random, sys, time
from sqlalchemy import select
from desktop_app import api
from desktop_app.store.models import Step

location, media, who, edits, seed = sys.argv[1], sys.argv[2] or None, sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
rng = random.Random(seed)
mine, deleted, errors, landed, span = {}, [], [], 0, []

def keep(boxes):
    for b in boxes:
        mine[b.id] = [b.step_id, b.x1, b.y1, b.x2, b.y2, b.label]

with api.open_project(location, media) as project:
    with project.reading() as s:
        steps = list(s.execute(select(Step.id).order_by(Step.id).limit(12)).scalars())
    span.append(time.monotonic())  # CLOCK_MONOTONIC: the same clock in every process of the machine
    for i in range(edits):
        x, y = rng.randrange(0, 40), rng.randrange(0, 30)
        op = rng.choice(["add", "move", "relabel", "delete"]) if len(mine) > 2 else "add"
        try:
            if op == "add":
                keep(api.add_boxes(project, rng.choice(steps), [{"x1": x, "y1": y, "x2": x + 12, "y2": y + 10,
                                                               "label": "gold"}]))
            elif op == "delete":
                box = rng.choice(sorted(mine))
                api.delete_boxes(project, [box])
                del mine[box]
                deleted.append(box)
            else:
                box = rng.choice(sorted(mine))
                change = ({"x1": x, "y1": y, "x2": x + 15, "y2": y + 12} if op == "move"
                          else {"label": rng.choice(["gold", "distracted", "other"])})
                keep(api.edit_boxes(project, {box: change}))
            landed += 1
        except Exception as exc:
            errors.append(f"{op}: {type(exc).__name__}: {exc}"[:500])
    span.append(time.monotonic())
print(json.dumps({"mine": mine, "deleted": deleted, "errors": errors, "landed": landed, "span": span}))
"""

# Agent profiles added and runs created while an import runs (the parent starts it): the CLI's `agents add`
# and the API's create_run, one after another, as a user setting up runs in the window does.
_RUNS_MAKER = r"""
import json, os, sys, time
from desktop_app import api
from desktop_app.cli.main import main

location, media, base_url, stop, most = sys.argv[1], sys.argv[2] or None, sys.argv[3], sys.argv[4], int(sys.argv[5])
made, errors, times = [], [], []
with api.open_project(location, media) as project:
    for i in range(most):
        if os.path.exists(stop):
            break
        try:
            if main(["agents", "add", f"extra{i}", "--base-url", base_url, "--model", "m", "--convention",
                     "json-text", "--api-key-env", "SCREENLAB_WRITERS_KEY", "--replace"]) != 0:
                raise RuntimeError(f"agents add extra{i} failed")
            made.append(api.create_run(project, api.agent(f"extra{i}"), name=f"during import {i}"))
            times.append(time.monotonic())
            print("MADE", made[-1], flush=True)
        except Exception as exc:
            errors.append(f"{type(exc).__name__}: {exc}"[:500])
print(json.dumps({"runs": made, "errors": errors, "times": times}))
"""


@dataclass
class WriterFigures:
    backend: str
    loops: int = 0
    imports: int = 0  # imports that ran beside another writer
    runs: int = 0  # runs executed beside an import
    runs_created: int = 0  # runs created during an import
    edits: int = 0  # box edits the annotator processes saw saved
    locked: int = 0  # 'database is locked' / lock timeouts / deadlocks, anywhere
    left_running: int = 0
    failed_writes: int = 0
    edits_lost: int = 0
    overlapped: int = 0  # scenes whose writers were seen running at the same time
    scenes: int = 0
    seconds: float = 0.0
    apart: list[str] = field(default_factory=list)  # scenes whose writes did not overlap (timing, not a failure)
    problems: list[str] = field(default_factory=list)  # the first ones, for the report

    def problem(self, text: str) -> None:
        if len(self.problems) < 20:
            self.problems.append(text[:600])


@dataclass
class Store:
    """Where a fresh project lives: a folder (SQLite), or a database URL and a media folder (PostgreSQL)."""

    location: str
    media: str = ""

    def args(self) -> list[str]:
        return [self.location] + (["--media", self.media] if self.media else [])

    def open(self) -> Project:
        return Project.open(self.location, self.media or None)


def _locked_in(text: str) -> int:
    return len(LOCKED.findall(text or ""))


def _python(env: dict, code: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code, *args], env=env, cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _finish(figures: WriterFigures, name: str, proc: subprocess.Popen, timeout: float = 600) -> tuple[str, float]:
    """Wait for a child; count its locks and a failed exit. Returns (stdout, when it ended)."""
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        figures.failed_writes += 1
        figures.problem(f"{name}: no end after {timeout:.0f} s (killed)")
    ended = time.monotonic()
    figures.locked += _locked_in(err) + _locked_in(out)
    if _locked_in(err) or _locked_in(out):
        figures.problem(f"{name}: {next(line for line in (err + out).splitlines() if LOCKED.search(line))}")
    if proc.returncode != 0:
        figures.failed_writes += 1
        figures.problem(f"{name} exited {proc.returncode}: {(err or out).strip()[-400:]}")
    return out, ended


def _count(store: Store, model, *where) -> int:
    with store.open() as project, project.reading() as s:
        return s.execute(select(func.count()).select_from(model).where(*where)).scalar_one()


def _stored_errors(figures: WriterFigures, store: Store) -> None:
    """Locks in what the project stored (run failures, failed requests), and runs left running."""
    with store.open() as project, project.reading() as s:
        texts = list(s.execute(select(m.Run.failure).where(m.Run.failure != "")).scalars())
        texts += list(s.execute(select(m.Prediction.error).where(m.Prediction.error != "")).scalars())
        running = s.execute(select(func.count()).select_from(m.Run).where(m.Run.status == "running")).scalar_one()
    for text in texts:
        if LOCKED.search(text):
            figures.locked += 1
            figures.problem(f"stored error: {text}")
    figures.left_running += running
    if running:
        figures.problem(f"{running} runs left 'running'")


def _images(folder: Path, tag: int, images: int = IMAGES) -> Path:
    for k in range(images):
        make_image(folder / f"w{tag:03d}-{k:04d}.png", size=(48, 32), color=(tag * 7 % 256, k % 256, k // 256))
    return folder


def _seed(store: Store, work: Path, samples: int) -> None:
    from desktop_app.formats.transfer import import_path

    with Project.init(store.location, store.media or None) as project:
        import_path(project, samples_file(work / "samples", samples), "screenlab")


class CommitWatch:
    """When an import's one transaction committed: the moment the episode count jumps, polled every 20 ms by a
    reader (WAL lets it read beside the writers)."""

    def __init__(self, store: Store):
        self.store, self.at, self._stop = store, None, threading.Event()
        self.before = _count(store, m.Episode)
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        with self.store.open() as project:
            while not self._stop.is_set():
                with project.reading() as s:
                    if s.execute(select(func.count()).select_from(m.Episode)).scalar_one() > self.before:
                        self.at = time.monotonic()
                        return
                time.sleep(0.02)

    def stop(self) -> float | None:
        self._stop.set()
        self._thread.join()
        return self.at


def _scene(figures: WriterFigures, overlapped: bool, name: str = "") -> None:
    figures.scenes += 1
    figures.overlapped += bool(overlapped)
    if not overlapped:
        figures.apart.append(name)


def import_while_running(figures: WriterFigures, store: Store, work: Path, env: dict, tag: int, requests: list,
                         images: int = IMAGES, samples: int = SAMPLES) -> None:
    """The import starts once the run's first request is out, so it commits while predictions are written."""
    before = _count(store, m.Episode)
    folder = _images(work / f"import-{tag}", tag, images)
    asked = len(requests)
    run = cli(env, "run", *store.args(), "--agent", "fake", "--concurrency", "2")
    deadline = time.monotonic() + 120
    while len(requests) == asked and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    watch = CommitWatch(store)
    imp = cli(env, "import", *store.args(), str(folder), "--format", "images", "--quiet")
    _finish(figures, "screenlab import", imp)
    committed = watch.stop()
    _finish(figures, "screenlab run", run)
    mine = requests[asked:]
    # the run was still asking (and writing what it was answered) when the import committed
    _scene(figures, committed is not None and mine and mine[0] < committed < mine[-1], "import+run")
    figures.imports += 1
    figures.runs += 1
    if _count(store, m.Episode) != before + images:
        figures.failed_writes += 1
        figures.problem(f"the import beside the run is not whole: {_count(store, m.Episode) - before} of {images}")
    with store.open() as project, project.reading() as s:
        run_row = s.execute(select(m.Run).order_by(m.Run.id.desc())).scalars().first()
        answered = s.execute(select(func.count()).select_from(m.Prediction)
                             .where(m.Prediction.run_id == run_row.id, m.Prediction.verdict != "error")).scalar_one()
    if run_row.status != "done" or answered != samples:
        figures.failed_writes += 1
        figures.problem(f"the run beside the import ended {run_row.status} with {answered} of {samples} answers"
                        + (f": {run_row.failure}" if run_row.failure else ""))


def two_annotators(figures: WriterFigures, store: Store, env: dict, tag: int, edits: int = EDITS) -> None:
    procs = [(who, _python({**env, "SCREENLAB_USER": who}, _ANNOTATOR, store.location, store.media, who,
                           str(edits), str(tag * 10 + n))) for n, who in enumerate(("ann", "bob"))]
    reports = {}
    for who, proc in procs:
        out, _ = _finish(figures, f"annotator {who}", proc)
        try:
            reports[who] = json.loads(out.strip().splitlines()[-1])
        except (ValueError, IndexError):
            figures.failed_writes += 1
            figures.problem(f"annotator {who} printed no report: {out[-300:]}")
    spans = [r["span"] for r in reports.values()]
    _scene(figures, len(spans) == 2 and max(spans[0][0], spans[1][0]) < min(spans[0][1], spans[1][1]), "annotators")
    with store.open() as project, project.reading() as s:
        stored = {b.id: [b.step_id, b.x1, b.y1, b.x2, b.y2, b.label] for b in s.execute(select(m.ActionBox)).scalars()}
    owned = {int(box) for report in reports.values() for box in report["mine"]}  # SQLite reuses a deleted id
    for who, report in reports.items():
        figures.edits += report["landed"]
        figures.failed_writes += len(report["errors"])
        for error in report["errors"]:
            figures.locked += _locked_in(error)
            figures.problem(f"annotator {who}: {error}")
        for box, values in report["mine"].items():
            if stored.get(int(box)) != values:
                figures.edits_lost += 1
                figures.problem(f"annotator {who}: box {box} saved as {values}, stored {stored.get(int(box))}")
        for box in set(report["deleted"]) - owned:
            if box in stored:
                figures.edits_lost += 1
                figures.problem(f"annotator {who}: box {box} deleted, still stored")


def runs_during_import(figures: WriterFigures, store: Store, work: Path, env: dict, tag: int, base_url: str,
                       images: int = IMAGES, most: int = MOST_RUNS) -> None:
    """Profiles added and runs created from before the import starts (the first run is made) until it has ended."""
    before = _count(store, m.Episode)
    runs_before = _count(store, m.Run)
    folder = _images(work / f"import-{tag}", tag, images)
    stop = work / f"stop-{tag}"
    watch = CommitWatch(store)
    maker = _python(env, _RUNS_MAKER, store.location, store.media, base_url, str(stop), str(most))
    first = ""
    while not first.startswith(("MADE", "{")) and maker.poll() is None:
        first = maker.stdout.readline()
    imp = cli(env, "import", *store.args(), str(folder), "--format", "images", "--quiet")
    _finish(figures, "screenlab import", imp)
    stop.touch()
    committed = watch.stop()
    out, _ = _finish(figures, "agents + runs", maker)
    out = first + out
    figures.imports += 1
    try:
        report = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        report = {"runs": [], "errors": [f"no report: {out[-300:]}"], "times": []}
    times = report["times"]
    _scene(figures, committed is not None and times and times[0] < committed < times[-1], "runs+import")
    figures.runs_created += len(report["runs"])
    figures.failed_writes += len(report["errors"])
    for error in report["errors"]:
        figures.locked += _locked_in(error)
        figures.problem(f"agents + runs: {error}")
    if _count(store, m.Run) != runs_before + len(report["runs"]):
        figures.failed_writes += 1
        figures.problem(f"runs created during the import: {len(report['runs'])} reported, "
                        f"{_count(store, m.Run) - runs_before} stored")
    if _count(store, m.Episode) != before + images:
        figures.failed_writes += 1
        figures.problem(f"the import beside the new runs is not whole: {_count(store, m.Episode) - before} of {images}")


def writer_loops(backend: str, work: Path, loops: int = 2, pg=None, images: int = IMAGES, edits: int = EDITS,
                 samples: int = SAMPLES) -> WriterFigures:
    """`loops` loops of the three scenes on `backend` ("sqlite", or "postgresql" on the server `pg`:
    tests/pg_server.PgServer)."""
    figures = WriterFigures(backend)
    started = time.perf_counter()
    env = cli_env(work, SCREENLAB_WRITERS_KEY="sk-test")
    requests: list[float] = []  # time.monotonic() of every request

    def answer(body, n) -> Response:
        requests.append(time.monotonic())
        return Response(text='{"action_type": "click", "element": "OK"}', delay=LATENCY_S)

    server = FakeOpenAI(answer)
    server.httpd.handle_error = lambda *_: None
    with server:
        from desktop_app.cli.main import main

        with user_dirs(env), contextlib.redirect_stdout(io.StringIO()):  # where the children read their profiles
            assert main(["agents", "add", "fake", "--base-url", server.base_url, "--model", "m", "--convention",
                         "json-text", "--api-key-env", "SCREENLAB_WRITERS_KEY", "--replace"]) == 0
        for loop in range(loops):
            for scene in ("import+run", "annotators", "runs+import"):
                place = work / f"loop{loop}-{scene.replace('+', '-')}"
                if backend == "sqlite":
                    store = Store(str(place / "project"))
                else:
                    store = Store(pg.new_database(), str(place / "media"))
                _seed(store, place, samples)
                tag = loop * 3 + ("import+run", "annotators", "runs+import").index(scene)
                if scene == "import+run":
                    import_while_running(figures, store, place, env, tag, requests, images, samples)
                elif scene == "annotators":
                    two_annotators(figures, store, env, tag, edits)
                else:
                    runs_during_import(figures, store, place, env, tag, server.base_url, images)
                _stored_errors(figures, store)
            figures.loops += 1
    figures.seconds = time.perf_counter() - started
    return figures


def rows(figures: WriterFigures) -> list[tuple[str, str]]:
    f = figures
    return [
        (f"concurrent writers on {f.backend}",
         f"{f.loops} loops ({f.imports} imports, {f.runs} runs beside them, {f.runs_created} runs created during "
         f"imports, {f.edits} box edits by two processes; writes overlapped in {f.overlapped} of {f.scenes} "
         f"scenes), "
         f"{f.seconds:.0f} s"),
        ("  'database is locked' / lock timeouts", f"{f.locked}"),
        ("  runs left 'running' / failed writes / edits lost", f"{f.left_running} / {f.failed_writes} / {f.edits_lost}"),
    ] + ([("  scenes whose writes did not overlap (timing)", ", ".join(f.apart))] if f.apart else [])
