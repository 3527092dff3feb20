"""Evaluation read as columns and scored a chunk at a time (issue 19) gives what scoring each prediction
on its own gives; exports read episodes a page at a time and copy each image once.

The authors' reference records (tests/data/envdistraction_reference.jsonl: their scorer's flags, their
crashes) are answered through the real runner by agents of each output convention; the chunked
scorer (rules/envdistraction_batch.py) must give every prediction the flags EnvDistractionRules.score
gives it, and the metrics counted from it must equal those summed row by row."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_envdistraction_end_to_end import REFERENCE, fits, write_dataset  # noqa: E402

from desktop_app.agents.profiles import AgentProfile  # noqa: E402
from desktop_app.evaluation.metrics import summarize, summarize_counted  # noqa: E402
from desktop_app.evaluation.rows import counted_rows, rule_rows  # noqa: E402
from desktop_app.evaluation.rules.envdistraction import seeclick_literal_point, seeclick_point  # noqa: E402
from desktop_app.evaluation.work_split import on_every_core, split_runs, start_method  # noqa: E402
from desktop_app.formats.ingest import ImportOptions  # noqa: E402
from desktop_app.formats.transfer import import_path  # noqa: E402
from desktop_app.formats.writing import ImageWriter  # noqa: E402
from desktop_app.paths import demo_dataset_dir  # noqa: E402
from desktop_app.runs.engine import create_run, execute  # noqa: E402
from desktop_app.store.project import Project  # noqa: E402
from desktop_app.store.queries import EpisodeFilter, episode_ids, iter_bundles  # noqa: E402

from openai_server import FakeOpenAI, Response, user_text  # noqa: E402

CONVENTIONS = ("json-text", "cogagent", "seeclick", "point-px")
FLAGS = ("verdict", "wrong_format", "gold", "distracted", "available", "excluded")


@pytest.fixture(scope="module")
def answered(tmp_path_factory):
    """Every third reference record, answered with its recorded answer by one agent per convention."""
    base = tmp_path_factory.mktemp("columns")
    records = [r for r in map(json.loads, REFERENCE.read_text().splitlines())
               if r["kind"] == "sample" and not r["forced"] and fits(r)][::3]
    write_dataset(base / "data", records)
    raw = {f"Reference sample {r['id']}": r["raw"] for r in records}
    with pytest.MonkeyPatch.context() as mp:
        for key in ("DATA", "CONFIG", "LOG"):
            mp.setenv(f"SCREENLAB_{key}_DIR", str(base / key.lower()))
        project = Project.init(base / "project")
        import_path(project, base / "data" / "data.jsonl", "envdistraction")

        def respond(body, n):
            goal = next(line[6:] for line in user_text(body).splitlines() if line.startswith("Task: "))
            return Response(text=raw[goal]) if n % 97 else Response(status=500)  # and a few failed requests

        runs = []
        with FakeOpenAI(respond) as server:
            for convention in CONVENTIONS:
                agent = AgentProfile(name=convention, base_url=server.base_url, model="m", convention=convention,
                                     concurrency=8, max_retries=0)
                runs.append(create_run(project, agent, EpisodeFilter(review_statuses=()), include_unlabelled=True))
                execute(project, runs[-1])
        yield project, runs
        project.close()


def test_chunked_flags_equal_the_rules_scoring_each_prediction(answered):
    project, runs = answered
    chunked = rule_rows(project, runs, "envdistraction")
    one_by_one = rule_rows(project, runs, "envdistraction", details=True)
    assert len(chunked) == len(one_by_one) > 600
    assert [(r["run"], r["step_id"]) for r in chunked] == [(r["run"], r["step_id"]) for r in one_by_one]
    differ = [(a, b) for a, b in zip(chunked, one_by_one, strict=True)
              if [a.get(k) for k in FLAGS] != [b.get(k) for k in FLAGS]]
    assert not differ, differ[:3]
    seen = {(r["verdict"], bool(r.get("excluded")), r["wrong_format"]) for r in chunked}
    assert {("gold", False, False), ("distracted", False, False), ("invalid", True, False), ("error", False, False),
            ("invalid", False, True)} <= seen  # every path was taken


def test_counted_metrics_equal_the_metrics_of_every_row(answered):
    project, runs = answered
    for rules in ("screenlab", "envdistraction"):
        rows = rule_rows(project, runs, rules)
        for run_id in runs:
            mine = [r for r in rows if r["run"] == run_id]
            counted = [(row, n) for row, n in counted_rows(project, [run_id], rules)]
            assert summarize_counted(counted, by=("scenario",)) == summarize(mine, by=("scenario",)), (rules, run_id)


def test_counting_in_worker_processes_gives_the_counts_of_one_process(answered):
    """A big evaluation is split over processes (work_split.py); here on a small one, three processes (two
    workers) counting twelve shares, every run cut in twelve, the workers from the project's file."""
    project, runs = answered
    one = Counter({tuple(sorted(row.items())): n for row, n in counted_rows(project, runs, "envdistraction")})
    with project.reading() as s:
        shares = split_runs(s, runs, 3)
    assert [len(share) for share in shares] == [len(runs)] * 3
    split = Counter()
    for row, n in counted_rows(project, runs, "envdistraction", parallel_min=0, processes=3):
        split[tuple(sorted(row.items()))] += n
    assert split == one
    assert sum(one.values()) > 600


_FORKED_COUNT = r"""
import json, os, sys, tempfile, threading, time
from collections import Counter
from desktop_app.evaluation import work_split
from desktop_app.evaluation.rows import counted_rows
from desktop_app.store.project import Project

STARTED = os.path.join(tempfile.gettempdir(), f"probe-started-{os.getpid()}")


def probe(share):  # in the worker: who it is, whether it has this process's modules without importing them,
    # and how many open files it inherited on the project's database
    database = os.path.join(sys.argv[1], "screenlab.sqlite")
    inherited = sum(os.path.realpath(f"/proc/self/fd/{fd}") == database for fd in os.listdir("/proc/self/fd"))
    open(STARTED, "w").close()
    return os.getpid(), "desktop_app.evaluation.rows" in sys.modules, inherited


def after_the_worker(share):  # this process's share: it waits for the worker to have taken the other one
    deadline = time.monotonic() + 120
    while not os.path.exists(STARTED) and time.monotonic() < deadline:
        time.sleep(0.01)
    os.remove(STARTED)

project = Project.open(sys.argv[1])
runs = json.loads(sys.argv[2])
out = {"parent": os.getpid(), "alone": work_split.start_method()}
with project.reading() as s:
    s.execute(__import__("sqlalchemy").text("SELECT count(*) FROM prediction")).scalar()
out["carried"] = work_split.on_every_core(after_the_worker, probe, [[0], [1]], workers=1)[0][2]
project.release_connections()
out["worker"] = work_split.on_every_core(after_the_worker, probe, [[0], [1]], workers=1)[0]
counted = Counter()
for row, n in counted_rows(project, runs, "envdistraction", parallel_min=0, processes=2):
    counted[json.dumps(sorted(row.items()))] += n
out["counted"] = counted
out["frozen_after"] = __import__("gc").get_freeze_count()
project.close()
stop = threading.Event()
thread = threading.Thread(target=stop.wait)
thread.start()
out["beside_a_thread"] = work_split.start_method()
stop.set()
thread.join()
import PySide6.QtCore  # noqa: E402,F401
out["with_qt"] = work_split.start_method()
print(json.dumps(out))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers are forked on Linux only (ADR 0065)")
def test_a_command_lines_workers_are_forked_and_count_what_one_process_counts(answered):
    """A process with no other thread and no Qt (the command line, a script) forks its workers: they start with
    its modules loaded (no second of imports), with none of its database connections once they are released (as
    counted_rows does before it forks), and count what one process counts. Beside a thread, or with Qt loaded
    (the window, whose threads Python does not see), they are spawned."""
    project, runs = answered
    one = Counter({json.dumps(sorted(row.items())): n for row, n in counted_rows(project, runs, "envdistraction")})
    out = subprocess.run([sys.executable, "-c", _FORKED_COUNT, str(project.folder), json.dumps(runs)],
                         capture_output=True, text=True, timeout=240, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr[-3000:]
    said = json.loads(out.stdout.splitlines()[-1])
    assert said["alone"] == "fork"
    worker_pid, had_modules, inherited = said["worker"]
    assert worker_pid != said["parent"] and had_modules
    assert said["carried"] >= 1 and inherited == 0  # an idle connection is carried into a fork unless released
    assert Counter(said["counted"]) == one and sum(one.values()) > 600
    assert said["frozen_after"] == 0  # what was frozen for the fork is collectable again
    assert said["beside_a_thread"] == "spawn" and said["with_qt"] == "spawn"


def test_a_worker_takes_shares_from_the_front_and_this_process_from_the_back_each_once():
    """on_every_core: every share counted once, results in the shares' order, this process starting from the
    last share (a worker is still starting then). `sorted` is the worker's function: picklable, and its result
    tells whose share it was (a list; this process's is a tuple)."""
    shares = [[k, -k] for k in range(8)]
    done_here = []

    def here(share):
        done_here.append(share[0])
        return ("here", *share)

    results = on_every_core(here, sorted, shares, workers=1)
    assert [r[-2] if isinstance(r, tuple) else r[1] for r in results] == list(range(8))  # each share, in order
    assert done_here == sorted(done_here, reverse=True) and done_here[0] == 7  # from the back, down
    assert all(isinstance(r, tuple) == (k in done_here) for k, r in enumerate(results))  # each share once


def test_a_worker_holds_no_share_it_has_not_started_so_the_ends_meet_evenly():
    """When this process has done its shares, a worker is counting at most one: it takes a share only when it
    starts it. A pool's queue handed the worker the next share while it slept on its first, and this process
    then waited idle for both (0.35 s of 2.5 s on 100,000 text answers)."""
    done_here = []

    def here(share):
        time.sleep(0.05)
        done_here.append(share)

    shares = [0.6] * 8  # the worker's function is time.sleep(share): 0.6 s a share, this process's 0.05 s
    results = on_every_core(here, time.sleep, shares, workers=1)
    assert results == [None] * 8
    assert len(done_here) >= 7  # the worker counted one share at most (with the pool's queue: two, this one six)


def test_spawned_workers_take_their_shares_from_the_front_too(tmp_path):
    """Beside another thread (as in the window) the workers are spawned, and get the shared counters when they
    start: the worker here makes a folder per share it takes (os.makedirs), and this process waits in its first
    share until the worker has made the first one, so both count some."""
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert start_method() == "spawn"
        shares = [str(tmp_path / f"share-{k}") for k in range(6)]

        def here(share):
            deadline = time.monotonic() + 120
            while not os.path.isdir(shares[0]) and time.monotonic() < deadline:
                time.sleep(0.01)
            return "here"

        results = on_every_core(here, os.makedirs, shares, workers=1)
    finally:
        stop.set()
        thread.join()
    by_worker = [os.path.isdir(share) for share in shares]
    assert by_worker[0] and results[-1] == "here"  # each side took some, from its end
    assert results == [None if made else "here" for made in by_worker]  # each share once, in order
    assert by_worker == sorted(by_worker, reverse=True)  # the worker's from the front, this process's the rest


def test_the_plain_seeclick_reading_gives_what_reading_a_python_literal_gives():
    numbers = ["0", "1", "00", "01", "0.5", "00.5", "1.", ".5", "12345678901234567890", "123456789012345678",
               "\u0663", "1_0", "-0.2", "0.49", "1e3", "3.14159265358979323846264338327950288", "9" * 5000]
    spaces, heads, tails = ["", " ", "\t", "  "], ["", " ", "\t", "\n"], ["", " ", "\n", "\t", "\r\n", " x", ")"]
    rng = random.Random(19)
    for _ in range(20_000):
        raw = (f"{rng.choice(heads)}({rng.choice(spaces)}{rng.choice(numbers)}{rng.choice(spaces)},"
               f"{rng.choice(spaces)}{rng.choice(numbers)}{rng.choice(spaces)}){rng.choice(tails)}")
        got, want = seeclick_point(raw, 1280, 800), seeclick_literal_point(raw, 1280, 800)
        assert (got, type(got.x), type(got.y)) == (want, type(want.x), type(want.y)), raw


def test_episodes_are_read_a_page_at_a_time_and_one_added_meanwhile_does_not_join(tmp_path):
    with Project.init(tmp_path / "p") as project:
        import_path(project, demo_dataset_dir(), "screenlab")
        flt = EpisodeFilter(scenarios=("popup", "chat"))
        with project.reading() as s:
            want = episode_ids(s, flt)
            got = []
            for bundle in iter_bundles(s, flt, batch=4):
                got.append(bundle.episode.id)
                if len(got) == 5:  # an import lands while the export is under way
                    copy = tmp_path / "copy.jsonl"
                    line = json.loads((demo_dataset_dir() / "episodes.jsonl").read_text().splitlines()[0])
                    copy.write_text(json.dumps({**line, "id": "added-meanwhile"}) + "\n")
                    import_path(project, copy, "screenlab", ImportOptions(images_dir=demo_dataset_dir()))
        assert got == want and len(want) > 8
        with project.reading() as s:
            assert len(episode_ids(s, flt)) == len(want) + 1


def test_each_image_is_copied_once_however_many_steps_show_it(tmp_path):
    written = []

    def image_bytes(sha, ext):
        written.append(sha)
        return sha.encode()

    images = ImageWriter(tmp_path, image_bytes)
    screens = [SimpleNamespace(sha256=f"{i:064x}", ext="png") for i in range(ImageWriter.RECENT + 50)]
    for screen in screens + screens[::-1] + screens:  # past what it remembers, and back again
        assert images.add(screen) == f"images/{screen.sha256}.png"
    assert len(written) == len(screens) == images.count
    assert (tmp_path / f"images/{screens[7].sha256}.png").read_bytes() == screens[7].sha256.encode()
    named = images.add(screens[0], "shots/first.png")
    assert named == "shots/first.png" and images.count == len(screens) + 1
