"""A 1,000,000-screen project (issue 19): imported by `screenlab import`, then opened, filtered and paged.

    .venv/bin/python benchmarks/project_1m.py [--n 1000000] [--small 10000] [--repeat 3] [--steps 20]
                                              [--keep DIR] [--skip-import]

The input is the real `screenlab` format (episodes.jsonl + images/), made by import_scale.generate: N
single-step episodes with 1-3 actions each (gold / other / distracted in a cycle), whose screenshots
(1280x800, UI-like blocks, as in benchmarks/canvas.py, so the window decodes and paints a real screen's
worth) come from a pool of 30 distinct pictures shared by the episodes. So the project has N episodes and
steps but 30 screen rows and media files: the media store stays small (under 1 MB), and the import's cost
per episode is measured, not a disk filling with PNGs (checking and hashing a 1280x800 picture costs ~14 ms,
once per distinct picture).

Import: `screenlab import PROJECT DATA --format screenlab --quiet` in a fresh process
(scale_1m.measure: the command itself timed apart from Python's start-up, its peak resident memory
read as its own VmHWM) at --small and at --n episodes, into new projects; the imports of the pool alone
and of --small are the medians of --repeat, the big one runs once. The cost per episode is the seconds
less the import of the 30 pool pictures alone (the fixed cost: opening the project, checking and hashing
every picture once), over the episodes; the ratio of that cost at --n over --small says whether the
import is linear (goal <= 1.2). The same from the import's CPU seconds (getrusage of the ended child) is
printed beside it: the wall clock of a shared machine also counts the others' work. Goal for the peak:
<= 400 MB.

On the --n project, each against today's goals: open + count the episodes in this process (median of 5)
and in a fresh `screenlab info` process (median of 3), <= 1 s; the first 100 episodes filtered by label
(store.queries, median of 5), <= 100 ms, with what the window's list does besides when that filter is
chosen (count the rows, read a page of 200: the first, one in the middle by OFFSET as a jump does, and the
page after it as scrolling reads it, after the last id); the filter chosen in the real list (its first page
on the UI thread, the count after it); the next screen in the real main window
(offscreen, as benchmarks/canvas.py measures it: the step, its episode and boxes loaded, the 1280x800
picture decoded and painted) from the start, the middle (across a boundary of the list's pages) and the
end of the list (median of --steps each), <= 50 ms. The 1-minute load is printed beside each figure. --keep keeps the inputs and projects, so a later run
(with --skip-import) measures the project part again without generating or importing.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from desktop_app.store.project import Project  # noqa: E402
from desktop_app.store.queries import EpisodeFilter, count_episodes, episode_rows, list_episodes  # noqa: E402

from benchmarks.import_scale import generate, timed  # noqa: E402
from benchmarks.scale_1m import measure, median_of  # noqa: E402

POOL = 30  # distinct pictures the episodes share
SIZE = (1280, 800)


def _load() -> str:
    return f"(load {os.getloadavg()[0]:.2f})"


def _ms(times: list[float]) -> str:
    return f"median {statistics.median(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms"


def source_of(base: Path, n: int) -> Path:
    """The screenlab-format input for n episodes, generated once (a kept folder is whole)."""
    source = base / f"source-{n}"
    if not (source / "episodes.jsonl").exists():
        partial = base / f"partial-source-{n}"
        shutil.rmtree(partial, ignore_errors=True)
        t0 = time.perf_counter()
        generate(partial, n, size=SIZE, distinct=min(POOL, n))
        partial.rename(source)
        print(f"generated {n:,} episodes ({min(POOL, n)} distinct pictures) in {time.perf_counter() - t0:.1f} s "
              f"{_load()}", flush=True)
    return source


def imported(base: Path, n: int, repeat: int = 1) -> dict:
    """`screenlab import` of the n-episode input into a new project, measured in a fresh process (the median
    of `repeat` imports, each into a new project)."""
    source = source_of(base, n)
    project = base / f"project-{n}"
    runs = []
    for _ in range(repeat):
        shutil.rmtree(project, ignore_errors=True)
        (base / f"project-{n}.done").unlink(missing_ok=True)
        Project.init(project).close()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        run = measure(["import", str(project), str(source), "--format", "screenlab", "--quiet"], base)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the import is the one child ended since `before`
        runs.append({**run, "cpu": after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime})
        (base / f"project-{n}.done").touch()  # an import killed half-way leaves an empty project, not this
    summary = (base / "stdout.txt").read_text().splitlines()
    return {**median_of(runs), "cpu": statistics.median(r["cpu"] for r in runs), "summary": summary[0] if summary else ""}


def import_part(base: Path, sizes: list[int], repeat: int) -> None:
    fixed = imported(base, POOL, repeat)
    print(f"import of the {POOL} pool pictures alone (the fixed cost): {fixed['work']:.2f} s (CPU {fixed['cpu']:.2f} s), "
          f"peak RSS "
          f"{fixed['rss_mb']:.0f} MB (median of {repeat}; load {fixed['load']:.2f})", flush=True)
    per_item, per_cpu = {}, {}
    for n in sizes:
        r = imported(base, n, repeat if n < max(sizes) else 1)
        per_item[n] = max(r["work"] - fixed["work"], 0.0) / n
        per_cpu[n] = max(r["cpu"] - fixed["cpu"], 0.0) / n
        print(f"import {n:,} episodes: {r['imports'] + r['work']:.1f} s wall (start-up {r['imports']:.2f} s), "
              f"{r['work'] / n * 1e6:.1f} us/episode, {per_item[n] * 1e6:.1f} us/episode less the fixed cost "
              f"(CPU {r['cpu']:.1f} s: {per_cpu[n] * 1e6:.1f} us/episode less the fixed cost); "
              f"peak RSS {r['rss_mb']:.0f} MB  goal <= 400 MB  (load {r['load']:.2f})\n  {r['summary']}", flush=True)
    small, large = min(sizes), max(sizes)
    if large != small and per_item[small] > 0 and per_cpu[small] > 0:
        # CPU seconds as well: on a shared machine the wall clock also counts the others' work
        print(f"import per-episode cost at {large:,} / at {small:,}: {per_item[large] / per_item[small]:.2f} "
              f"(CPU: {per_cpu[large] / per_cpu[small]:.2f})  goal <= 1.2", flush=True)


def query_part(project_dir: Path) -> None:
    def open_and_count():
        with Project.open(project_dir) as p, p.reading() as s:
            return count_episodes(s)

    count, opens = timed(open_and_count, repeat=5)
    print(f"open project + count {count:,} episodes: {_ms(opens)}  goal <= 1000 ms  {_load()}", flush=True)

    cmd = [str(Path(sys.executable).with_name("screenlab")), "info", str(project_dir), "--json"]
    _, cold = timed(lambda: subprocess.run(cmd, check=True, capture_output=True), repeat=3)
    print(f"fresh process `screenlab info` (start-up + open + all counts): median {statistics.median(cold):.2f} s, "
          f"max {max(cold):.2f} s  goal <= 1 s  {_load()}", flush=True)

    with Project.open(project_dir) as p, p.reading() as s:
        for label in ("distracted", "other"):
            flt = EpisodeFilter(has_label=label)
            page, pages = timed(lambda flt=flt: list_episodes(s, flt, 0, 100), repeat=5)
            print(f"first 100 episodes with a '{label}' action: {_ms(pages)} ({len(page)} rows)  goal <= 100 ms  "
                  f"{_load()}", flush=True)
            # what the window's list does too when the filter changes: count the rows, show a page of 200
            n, counts = timed(lambda flt=flt: count_episodes(s, flt), repeat=3)
            rows, firsts = timed(lambda flt=flt: episode_rows(s, flt, 0, 200), repeat=3)
            middle, middles = timed(lambda flt=flt, n=n: episode_rows(s, flt, n // 2, 200), repeat=3)
            last = middle[-1][0]  # the list reads the page after one it holds after its last id, not by OFFSET
            _, afters = timed(lambda flt=flt, last=last: episode_rows(s, flt, 0, 200, after_id=last), repeat=3)
            print(f"  the window's list under it: count {n:,} rows {_ms(counts)} (off the UI thread past 100,000 "
                  f"episodes); first page of 200 {_ms(firsts)}; page at row {n // 2:,} by OFFSET (a jump) "
                  f"{_ms(middles)}, the page after it {_ms(afters)}  {_load()}", flush=True)


def window_part(project_dir: Path, steps: int) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from desktop_app.ui.browser import PAGE

    from benchmarks.canvas import next_screen_times, percentile, window_on

    QApplication.instance() or QApplication([])
    window, open_ms = window_on(project_dir)
    rows = window.browser.model.rowCount()
    print(f"open the {rows:,}-episode project in the window: {open_ms:.0f} ms  {_load()}", flush=True)
    model, app = window.browser.model, QApplication.instance()
    for label in ("distracted", "other"):  # choosing a filter: the first page on the UI thread, the count after
        started = time.perf_counter()
        model.set_filter(EpisodeFilter(has_label=label))
        shown = time.perf_counter() - started
        while model.counting:
            app.processEvents()
            time.sleep(0.002)
        print(f"filter the window's list by '{label}': first page shown after {shown * 1000:.1f} ms (UI thread), "
              f"all {model.rowCount():,} rows counted after {(time.perf_counter() - started) * 1000:.0f} ms  "
              f"goal <= 100 ms  {_load()}", flush=True)
    model.set_filter(EpisodeFilter())
    while model.counting:
        app.processEvents()
        time.sleep(0.002)
    for row in (rows // 2, rows - 1):  # a jump (the scroll bar dragged): the page read from the id it starts at
        jumps = []
        for _ in range(5):
            model.invalidate_rows()  # nothing cached: the page is read from the database
            started = time.perf_counter()
            model.episode_id_at(row)
            jumps.append(time.perf_counter() - started)
        print(f"jump to row {row:,} of the window's list (a page of {PAGE} read after the id it starts at): "
              f"{_ms(jumps)}  goal <= 50 ms  {_load()}", flush=True)
    # the middle's steps cross a boundary of the list's pages (PAGE rows read at once): its max includes one
    middle = max(rows // 2 // PAGE * PAGE - steps // 2, 0)
    for label, start in (("start", 0), ("middle", middle), ("end", max(rows - steps - 1, 0))):
        times = next_screen_times(window, start, steps)
        print(f"next screen ({label} of the list, from row {start:,}; 1280x800, load + boxes + paint): median "
              f"{statistics.median(times):.1f} ms, p95 {percentile(times, .95):.1f} ms, max {max(times):.1f} ms "
              f"({steps} steps)  goal <= 50 ms  {_load()}", flush=True)
    window.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="episodes of the big project")
    parser.add_argument("--small", type=int, default=10_000, help="episodes of the import the big one is compared to")
    parser.add_argument("--repeat", type=int, default=3, help="imports of the pool and of --small (median)")
    parser.add_argument("--steps", type=int, default=20, help="next-screen steps per place in the list")
    parser.add_argument("--keep", type=Path, help="keep inputs and projects in this folder (and reuse them)")
    parser.add_argument("--skip-import", action="store_true",
                        help="measure only the project part, on the kept project (imported first if missing)")
    args = parser.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="screenlab-1m-"))
    base.mkdir(parents=True, exist_ok=True)
    os.environ["SCREENLAB_CONFIG_DIR"] = str(base / "cfg")
    project = base / f"project-{args.n}"
    try:
        if not args.skip_import:
            import_part(base, sorted({args.small, args.n}), args.repeat)
        elif not (base / f"project-{args.n}.done").exists():
            print(f"{project} missing: importing it (not measured)", flush=True)
            imported(base, args.n)
        query_part(project)
        window_part(project, args.steps)
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
