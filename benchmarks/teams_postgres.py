"""A team project on a PostgreSQL server: opening it, moving from screen to screen, and 8 annotators editing.

    .venv/bin/python benchmarks/teams_postgres.py [--screens 100000] [--seconds 30] [--pg-test-settings]

Starts a throw-away PostgreSQL cluster (tests/pg_server.py: Debian's binaries, run as the `postgres` user
when we are root) and builds the same project twice, on that server and as a SQLite folder (the peer,
measured in the same run): N single-step samples on N distinct screens, 3 actions (gold, distracted,
other) on every 10th step, the first 20,000 samples given to 8 annotators with teams.assignment.assign.
The rows are written with SQLAlchemy Core bulk inserts after Project.init, not through the importer
(importing 100,000 PNGs takes minutes), so the media files do not exist: nothing measured here reads an
image. After loading, PostgreSQL gets VACUUM ANALYZE (what autovacuum does to a table within a minute of a
large import); SQLite gets nothing (the app never runs ANALYZE). The cluster is then restarted with
production durability (fsync, synchronous_commit, full_page_writes on: every commit waits for its WAL
flush) unless --pg-test-settings keeps the test suite's fsync=off settings.

Measured, with the 1-minute load average printed beside each figure:
1. Opening the project as the GUI's list does, cold (a new Project, so a new engine and new connections;
   the OS file cache is warm): Project.open + count_episodes + list_episodes(first 200) + states_of for
   that page. Median of 5. Goal <= 1 s.
2. Next screen: what ui/workspace.py load_episode + load_step run when the annotator moves on (the episode
   row and its steps in one session; the first step's screen row and its boxes in a second), over 200
   consecutive samples with the project already open. Median and p95. Goal <= 50 ms. Then again through
   one annotator's own queue with assignment.note_work (time spent, a write) on leaving each sample, as
   ui/workspace.py end_visit now does before loading the next.
3. Edit load, PostgreSQL only: 8 annotator processes (multiprocessing, spawn), each for S seconds making
   one edit every 2 s (create_boxes, update_boxes, delete_boxes in turn on one sample, then the next;
   each with expected_version = the episode version it loaded, raised by one after each of its own edits)
   and marking the sample done (assignment.set_state) after every 5th edit. Every write call is timed.
   a) each on its own assigned samples; b) all 8 on the SAME 4 samples: a StaleEdit is counted as a
   conflict, the sample is reloaded and the edit retried. Goal: p99 of all writes <= 50 ms.
Ratios are PostgreSQL / SQLite (above 1: PostgreSQL is slower).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import text  # noqa: E402
from sqlmodel import select  # noqa: E402

from desktop_app.store import audit, edits  # noqa: E402
from desktop_app.store.models import ActionBox, Assignment, Episode, Screen, Step  # noqa: E402
from desktop_app.store.project import Project  # noqa: E402
from desktop_app.store.queries import EpisodeFilter, count_episodes, list_episodes  # noqa: E402
from desktop_app.store.types import utcnow  # noqa: E402
from desktop_app.store.work_states import states_of  # noqa: E402
from desktop_app.teams import assignment  # noqa: E402

ANNOTATORS = [f"annotator{k}" for k in range(1, 9)]
ASSIGNED = 20_000
PAGE = 200  # ui/browser.py PAGE
NEXT_SCREENS = 200
OPEN_REPEAT = 5
EDIT_PERIOD_S = 2.0
STATE_EVERY = 5
SHARED_SAMPLES = 4
SCENARIOS = ("popup", "login", "search", "cart", "settings")
LABELS = ("gold", "distracted", "other")


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def load() -> float:
    return os.getloadavg()[0]


# -- building the project ---------------------------------------------------------------------------------
def rows(n: int) -> dict[str, list[dict]]:
    now = utcnow()
    screens = [{"id": i, "sha256": f"{i:064x}", "ext": "png", "width": 1280, "height": 800, "platform": "web",
                "source": f"bench/{i:06d}.png", "meta": {}, "created_at": now} for i in range(1, n + 1)]
    episodes = [{"id": i, "key": f"ep-{i:06d}", "kind": "sample", "goal": f"goal number {i}",
                 "scenario": SCENARIOS[i % len(SCENARIOS)], "split": "", "review_status": "unreviewed",
                 "meta": {}, "created_at": now, "updated_at": now, "updated_by": "", "version": 1}
                for i in range(1, n + 1)]
    steps = [{"id": i, "episode_id": i, "index": 0, "screen_id": i, "instruction": "", "meta": {}}
             for i in range(1, n + 1)]
    boxes = []
    for i in range(1, n + 1, 10):
        for k, label in enumerate(LABELS):
            x, y = 40 + 100 * k, 60 + (i % 500)
            boxes.append({"id": len(boxes) + 1, "step_id": i, "x1": x, "y1": y, "x2": x + 90, "y2": y + 30,
                          "label": label, "action_type": "click", "element_text": f"button {k}", "type_text": "",
                          "source": "import", "author": "bench", "meta": {}, "created_at": now,
                          "updated_at": now, "version": 1})
    return {"screen": screens, "episode": episodes, "step": steps, "action_box": boxes}


def build(location, media, data: dict[str, list[dict]], annotate: int) -> dict[str, float]:
    """Project.init, bulk rows, then assign the first `annotate` samples; returns seconds per phase."""
    times = {}
    t0 = time.perf_counter()
    with Project.init(location, media) as project:
        times["init"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        with project.engine.begin() as conn:
            for model in (Screen, Episode, Step, ActionBox):
                table = model.__table__
                batch = data[table.name]
                for start in range(0, len(batch), 10_000):
                    conn.execute(table.insert(), batch[start:start + 10_000])
                if conn.dialect.name == "postgresql":  # explicit ids: move the sequence past them
                    conn.execute(text(f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                                      f"(SELECT max(id) FROM {table.name}))"))
        times["rows"] = time.perf_counter() - t0
        if project.engine.dialect.name == "postgresql":
            t0 = time.perf_counter()
            with project.engine.connect() as conn:
                conn.execution_options(isolation_level="AUTOCOMMIT").execute(text("VACUUM ANALYZE"))
            times["vacuum"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        assignment.assign(project, list(range(1, annotate + 1)), ANNOTATORS, lead="lead")
        times["assign"] = time.perf_counter() - t0
    return times


def restart_durable(server) -> None:
    """The same cluster with PostgreSQL's defaults for durability (fsync, synchronous_commit and
    full_page_writes on), as a team's server runs; tests/pg_server.py turns them off for speed."""
    server._run(str(server.bin / "pg_ctl"), "-D", str(server.data), "-m", "fast", "-w", "stop")
    opts = f"-p {server.port} -k {server.root} -c listen_addresses=127.0.0.1 -c max_connections=200"
    server._run(str(server.bin / "pg_ctl"), "-D", str(server.data), "-l", str(server.root / "log"), "-o", opts,
                "-w", "-t", "60", "start")
    server.wait_ready()


# -- 1. opening --------------------------------------------------------------------------------------------
def open_first_page(location, media) -> dict[str, float]:
    """What the window does when a project opens: the list's count, its first page and their states."""
    parts = {}
    t0 = time.perf_counter()
    project = Project.open(location, media)
    try:
        parts["open"] = time.perf_counter() - t0
        with project.reading() as s:
            t = time.perf_counter()
            count_episodes(s, EpisodeFilter())
            parts["count"] = time.perf_counter() - t
            t = time.perf_counter()
            page = list_episodes(s, EpisodeFilter(), 0, PAGE)
            parts["page"] = time.perf_counter() - t
            t = time.perf_counter()
            states = states_of(s, [e.id for e in page])
            parts["states"] = time.perf_counter() - t
        parts["total"] = time.perf_counter() - t0
        assert len(page) == PAGE and len(states) == PAGE and states[page[0].id][1], "page or states missing"
    finally:
        project.close()
    return parts


# -- 2. next screen ----------------------------------------------------------------------------------------
def load_sample(project: Project, episode_id: int) -> tuple[Episode, list[Step], Screen | None, list[ActionBox]]:
    """ui/workspace.py load_episode + load_step(0), without Qt: two sessions, the same SQLModel calls."""
    with project.reading() as s:
        episode = s.get(Episode, episode_id)
        steps = list(s.exec(select(Step).where(Step.episode_id == episode_id).order_by(Step.index)))
    with project.reading() as s:
        screen = s.get(Screen, steps[0].screen_id)
        boxes = list(s.exec(select(ActionBox).where(ActionBox.step_id == steps[0].id).order_by(ActionBox.id)))
    return episode, steps, screen, boxes


def next_screens(location, media, ids: list[int], annotator: str | None = None) -> list[float]:
    """Move through `ids` one by one; with `annotator`, leaving each sample first records the time spent on
    it (assignment.note_work, a write: what ui/workspace.py end_visit does in the working tree)."""
    with Project.open(location, media) as project:
        with project.reading() as s:  # the list is showing, as in the window
            list_episodes(s, EpisodeFilter(), 0, PAGE)
        times, previous = [], None
        for episode_id in ids:
            t0 = time.perf_counter()
            if annotator and previous is not None:
                assignment.note_work(project, previous, 3.0, False, annotator)
            load_sample(project, episode_id)
            times.append(time.perf_counter() - t0)
            previous = episode_id
    return times


# -- 3. edit load --------------------------------------------------------------------------------------------
def annotator(url: str, media: str, name: str, samples: list[int], seconds: float, seed: int,
              barrier, results) -> None:
    """One annotator's process: an edit every EDIT_PERIOD_S on `samples` in turn, three edits per sample."""
    writes: list[tuple[str, float, bool]] = []  # (what, seconds, refused as stale)
    out = {"name": name, "writes": writes, "conflicts": 0, "errors": []}
    project = None
    try:
        try:
            project = Project.open(url, media)
        except Exception:
            barrier.abort()  # the others and the main process stop waiting
            raise
        rng = random.Random(seed)

        def timed(kind, fn, *args, **kw):
            t0 = time.perf_counter()
            try:
                result = fn(*args, **kw)
            except edits.StaleEdit:
                writes.append((kind, time.perf_counter() - t0, True))
                raise
            writes.append((kind, time.perf_counter() - t0, False))
            return result

        barrier.wait()
        start = time.monotonic() + rng.uniform(0, EDIT_PERIOD_S)  # annotators are not in step
        end = time.monotonic() + seconds
        n_edit, position = 0, 0
        episode_id, version, step_id, box_id = None, 0, 0, None
        while True:
            due = start + n_edit * EDIT_PERIOD_S
            if due >= end:
                break
            time.sleep(max(0.0, due - time.monotonic()))
            phase = n_edit % 3
            if phase == 0:  # open the next sample, as the window does
                episode_id = samples[position % len(samples)]
                position += 1
                episode, steps, _, _ = load_sample(project, episode_id)
                version, step_id = episode.version, steps[0].id
            for _attempt in range(10):
                try:
                    if phase == 0:
                        x, y = rng.uniform(0, 1000), rng.uniform(0, 700)
                        (box,) = timed("create_boxes", edits.create_boxes, project, step_id,
                                       [{"x1": x, "y1": y, "x2": x + 80, "y2": y + 24, "label": "gold",
                                         "element_text": name}], actor=name, expected_version=version)
                        box_id = box.id
                    elif phase == 1:
                        timed("update_boxes", edits.update_boxes, project, [(box_id, {"label": "distracted"})],
                              actor=name, expected_version=version)
                    else:
                        timed("delete_boxes", edits.delete_boxes, project, [box_id], actor=name,
                              expected_version=version)
                    version += 1
                    break
                except edits.StaleEdit:  # the window reloads the screen; the annotator does it again
                    out["conflicts"] += 1
                    version = load_sample(project, episode_id)[0].version
            n_edit += 1
            if n_edit % STATE_EVERY == 0:
                timed("set_state", assignment.set_state, project, episode_id, "done", annotator=name)
    except Exception:
        out["errors"].append(traceback.format_exc(limit=3))
    finally:
        if project is not None:
            project.close()
        results.put(out)


def edit_load(url: str, media: Path, plans: dict[str, list[int]], seconds: float) -> dict:
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(len(plans) + 1)
    results = ctx.Queue()
    procs = [ctx.Process(target=annotator, args=(url, str(media), name, samples, seconds, k, barrier, results))
             for k, (name, samples) in enumerate(plans.items())]
    for p in procs:
        p.start()
    barrier.wait(timeout=120)
    outs = [results.get(timeout=seconds + 120) for _ in procs]
    at_end = load()  # the 1-minute average, so mostly the run itself
    for p in procs:
        p.join(timeout=30)
    writes = [w for o in outs for w in o["writes"]]
    return {"latencies": [t for _, t, _ in writes], "by_kind": writes, "conflicts": sum(o["conflicts"] for o in outs),
            "errors": [e for o in outs for e in o["errors"]], "load": at_end}


# -- reporting -----------------------------------------------------------------------------------------------
def ms(seconds: float | None) -> str:
    return "—" if seconds is None else f"{seconds * 1000:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--screens", type=int, default=100_000)
    parser.add_argument("--seconds", type=float, default=30.0, help="length of each edit-load variant")
    parser.add_argument("--pg-test-settings", action="store_true",
                        help="keep the test cluster's fsync=off settings instead of production durability")
    args = parser.parse_args()
    if args.screens < 2 * NEXT_SCREENS * len(ANNOTATORS):
        parser.error(f"--screens: at least {2 * NEXT_SCREENS * len(ANNOTATORS)} (one annotator's queue is walked)")
    sys.path.insert(0, str(ROOT / "tests"))
    from pg_server import PgServer

    annotate = min(ASSIGNED, args.screens)
    work = Path(tempfile.mkdtemp(prefix="screenlab-teams-pg-"))
    os.environ.setdefault("SCREENLAB_CONFIG_DIR", str(work / "config"))  # never touch the user's settings
    os.environ.setdefault("SCREENLAB_DATA_DIR", str(work / "data"))
    server = PgServer().start()
    began = time.perf_counter()
    try:
        server.wait_ready()
        url = server.new_database()
        pg_media, sqlite_dir = work / "pg-media", work / "sqlite-project"

        t0 = time.perf_counter()
        data = rows(args.screens)
        print(f"rows for {args.screens:,} screens/samples/steps and {len(data['action_box']):,} actions made in "
              f"{time.perf_counter() - t0:.1f} s")
        for what, location, media in (("PostgreSQL", url, pg_media), ("SQLite", sqlite_dir, None)):
            times = build(location, media, data, annotate)
            print(f"{what} project built: " + ", ".join(f"{k} {v:.1f} s" for k, v in times.items())
                  + f"  (assign gave {annotate:,} samples to {len(ANNOTATORS)} annotators)")
        del data
        if not args.pg_test_settings:
            restart_durable(server)
        with Project.open(url, pg_media) as p, p.reading() as s:
            settings = {k: s.execute(text(f"SHOW {k}")).scalar() for k in
                        ("server_version", "fsync", "synchronous_commit", "full_page_writes", "shared_buffers")}
        print("PostgreSQL " + ", ".join(f"{k}={v}" for k, v in settings.items()))

        # 1. open + first page: alternate the two back ends so both see the same machine
        opens: dict[str, list[dict]] = {"pg": [], "sqlite": []}
        open_load = {"pg": [], "sqlite": []}
        for _ in range(OPEN_REPEAT):
            for key, location, media in (("pg", url, pg_media), ("sqlite", sqlite_dir, None)):
                open_load[key].append(load())
                opens[key].append(open_first_page(location, media))
        print(f"\n1. open + count + first {PAGE} + states_of, cold, median of {OPEN_REPEAT}:")
        med_open = {}
        for key, runs in opens.items():
            med = {part: statistics.median(r[part] for r in runs) for part in runs[0]}
            med_open[key] = med["total"]
            print(f"   {'PostgreSQL' if key == 'pg' else 'SQLite    '}: total {ms(med['total'])} (first "
                  f"{ms(runs[0]['total'])}; open {ms(med['open'])}, count {ms(med['count'])}, page "
                  f"{ms(med['page'])}, states_of {ms(med['states'])})  load {statistics.median(open_load[key]):.2f}")

        # 2. next screen, over samples that have assignments and (every 10th) boxes; then through one
        # annotator's own queue, recording time spent on leaving each sample
        first = max(1, min(1001, args.screens - NEXT_SCREENS + 1))
        with Project.open(url, pg_media) as p, p.reading() as s:
            queue = list(s.execute(select(Assignment.episode_id).where(Assignment.annotator == ANNOTATORS[0],
                                                                       Assignment.episode_id >= first)
                                   .order_by(Assignment.episode_id).limit(NEXT_SCREENS + 1)).scalars())
        walks = {"plain": (list(range(first, first + NEXT_SCREENS)), None), "note_work": (queue, ANNOTATORS[0])}
        nxt: dict[str, dict[str, list[float]]] = {"plain": {}, "note_work": {}}
        next_load: dict[str, dict[str, float]] = {"plain": {}, "note_work": {}}
        for walk, (ids, who) in walks.items():
            for key, location, media in (("pg", url, pg_media), ("sqlite", sqlite_dir, None)):
                next_load[walk][key] = load()
                nxt[walk][key] = next_screens(location, media, ids, who)
        print(f"\n2. next screen, {NEXT_SCREENS} consecutive samples from id {first}:")
        for key, times in nxt["plain"].items():
            print(f"   {'PostgreSQL' if key == 'pg' else 'SQLite    '}: median {ms(statistics.median(times))}, "
                  f"p95 {ms(percentile(times, 0.95))}, max {ms(max(times))}  load {next_load['plain'][key]:.2f}")
        print(f"   the same through {ANNOTATORS[0]}'s queue ({len(queue) - 1} moves), note_work on leaving each:")
        for key, times in nxt["note_work"].items():
            times = times[1:]  # the first sample has nothing to leave
            print(f"   {'PostgreSQL' if key == 'pg' else 'SQLite    '}: median {ms(statistics.median(times))}, "
                  f"p95 {ms(percentile(times, 0.95))}, max {ms(max(times))}  "
                  f"load {next_load['note_work'][key]:.2f}")

        # 3. edit load on PostgreSQL
        with Project.open(url, pg_media) as p, p.reading() as s:
            own = {name: list(s.execute(select(Assignment.episode_id).where(Assignment.annotator == name)
                                        .order_by(Assignment.episode_id).limit(100)).scalars())
                   for name in ANNOTATORS}
        shared_ids = list(range(1, SHARED_SAMPLES + 1))
        shared = {name: shared_ids[k % SHARED_SAMPLES:] + shared_ids[:k % SHARED_SAMPLES]
                  for k, name in enumerate(ANNOTATORS)}
        loads = {}
        variants = {}
        for label, plans in (("own samples", own), (f"same {SHARED_SAMPLES} samples", shared)):
            with Project.open(url, pg_media) as p, p.reading() as s:
                before, last_entry = audit.box_state(s)
            variants[label] = result = edit_load(url, pg_media, plans, args.seconds)
            with Project.open(url, pg_media) as p, p.reading() as s:  # no edit lost or written twice
                consistent = audit.replay_boxes(s, before, last_entry) == audit.stored_boxes(s)
            lat = result["latencies"]
            loads[label] = result["load"]
            print(f"\n3. {len(plans)} annotators, {label}, {args.seconds:.0f} s: {len(lat)} writes, "
                  f"{result['conflicts']} conflicts (StaleEdit, reloaded and retried), "
                  f"{len(result['errors'])} errors; audit log replayed == stored boxes: {consistent}  "
                  f"load {result['load']:.2f}")
            if lat:
                print(f"   all writes: p50 {ms(statistics.median(lat))}, p99 {ms(percentile(lat, 0.99))}, "
                      f"max {ms(max(lat))}")
                for kind in ("create_boxes", "update_boxes", "delete_boxes", "set_state"):
                    ts = [t for k, t, _ in result["by_kind"] if k == kind]
                    if ts:
                        print(f"   {kind:<13} n={len(ts):<4} p50 {ms(statistics.median(ts))}, max {ms(max(ts))}")
            for error in result["errors"][:3]:
                print("   error:", error.strip().splitlines()[-1])

        # the table
        def row(name, pg, sq, goal_s, load_text):
            ratio = f"{pg / sq:.2f}" if pg is not None and sq else "—"
            verdict = "—" if goal_s is None or pg is None else ("PASS" if pg <= goal_s else "MISS")
            goal = "—" if goal_s is None else f"<= {goal_s * 1000:.0f} ms"
            print(f"{name:<46} {ms(pg):>11} {ms(sq):>11} {ratio:>6} {goal:>10} {verdict:>5}  {load_text}")

        print(f"\nsummary: {args.screens:,} screens, PostgreSQL {settings['server_version']} "
              f"(fsync={settings['fsync']}, synchronous_commit={settings['synchronous_commit']}) vs SQLite; "
              f"{os.cpu_count()} CPUs")
        print(f"{'measurement':<46} {'PostgreSQL':>11} {'SQLite':>11} {'ratio':>6} {'goal':>10} {'':>5}  load pg/sqlite")
        row(f"open + count + first {PAGE} + states (median {OPEN_REPEAT})", med_open["pg"], med_open["sqlite"],
            1.0, f"{statistics.median(open_load['pg']):.2f}/{statistics.median(open_load['sqlite']):.2f}")
        for walk, name in (("plain", "next screen"), ("note_work", "next screen + note_work")):
            pg, sq = nxt[walk]["pg"][walk == "note_work":], nxt[walk]["sqlite"][walk == "note_work":]
            loads_text = f"{next_load[walk]['pg']:.2f}/{next_load[walk]['sqlite']:.2f}"
            row(f"{name}, median", statistics.median(pg), statistics.median(sq), 0.05, loads_text)
            row(f"{name}, p95", percentile(pg, 0.95), percentile(sq, 0.95), 0.05, loads_text)
        for label, result in variants.items():
            lat = result["latencies"] or [float("nan")]
            head = f"8 annotators, {label} ({len(result['latencies'])} writes"
            head += f", {result['conflicts']} conflicts)" if "same" in label else ")"
            print(head)
            row("   write p50", statistics.median(lat), None, None, f"{result['load']:.2f}")
            row("   write p99", percentile(lat, 0.99), None, 0.05, f"{result['load']:.2f}")
            row("   write max", max(lat), None, None, f"{result['load']:.2f}")
        print(f"(whole benchmark: {time.perf_counter() - began:.0f} s)")
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
