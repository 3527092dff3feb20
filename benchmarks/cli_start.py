"""Start-up of the command line (issue 19): how long a user waits for `screenlab --version`, `--help` and
`screenlab info` on a project of 1,000 and of 100,000 screens.

    .venv/bin/python benchmarks/cli_start.py [--runs 7] [--n 100000] [--projects DIR]

Each figure is the median of --runs fresh processes, run as a user runs them: `.venv/bin/python -m desktop_app
...` (and the installed console script `.venv/bin/screenlab`, when there is one), with bytecode written as an
installed program has it (PYTHONDONTWRITEBYTECODE unset; one start before the runs writes it and is not
counted). Python's own bare start (`python -c pass`), measured in the same run, is the floor. The projects are
made once by benchmarks/import_scale.py's generator and imported, then reused by every run (--projects DIR
keeps them for the next time). Goals on this 2-core machine: --version and --help <= 0.15 s, info <= 0.4 s.
The load average is printed beside each figure: the machine is shared, so compare figures of one run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.import_scale import generate  # noqa: E402

PYTHON = Path(sys.executable)
SCRIPT = PYTHON.with_name("screenlab")
GOAL_START = 0.15
GOAL_INFO = 0.4


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def _env(base: Path) -> dict:
    env = {**os.environ, "SCREENLAB_CONFIG_DIR": str(base / "config"), "SCREENLAB_DATA_DIR": str(base / "data"),
           "SCREENLAB_LOG_DIR": str(base / "log"), "SCREENLAB_USER": "bench"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed program has its bytecode
    return env


def make_project(base: Path, n: int) -> tuple[Path, float | None]:
    """A project of n screens (one step, 1-3 boxes each); None for the seconds when it was already there."""
    from desktop_app.formats.transfer import import_path
    from desktop_app.store.project import Project

    project = base / f"project-{n}"
    if (project / "screenlab.sqlite").is_file():
        return project, None
    t0 = time.perf_counter()
    source = generate(base / f"source-{n}", n)
    with Project.init(project) as p:
        import_path(p, source, "screenlab")
    shutil.rmtree(source)  # the project holds its own copy of the images
    return project, time.perf_counter() - t0


def median_run(cmd: list[str], env: dict, runs: int) -> tuple[float, str]:
    """Median seconds of `runs` fresh processes, after one uncounted start; the load when they ended."""
    subprocess.run(cmd, env=env, check=True, capture_output=True, cwd=tempfile.gettempdir())
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, capture_output=True, cwd=tempfile.gettempdir())
        times.append(time.perf_counter() - t0)
    return statistics.median(times), load()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--n", type=int, default=100_000, help="screens in the big project")
    parser.add_argument("--projects", type=Path, help="make the projects here, or reuse the ones made there before")
    args = parser.parse_args()

    base = args.projects or Path(tempfile.mkdtemp(prefix="screenlab-cli-start-"))
    base.mkdir(parents=True, exist_ok=True)
    try:
        projects = {}
        for n in (1_000, args.n):
            projects[n], took = make_project(base, n)
            print(f"project of {n:,} screens: " + (f"generated and imported in {took:.1f} s ({load()})"
                                                   if took is not None else f"reused from {projects[n]}"))
        env = _env(base)
        python_m = [str(PYTHON), "-m", "desktop_app"]
        doors = [("python -m desktop_app", python_m)]
        if SCRIPT.exists():
            doors.append(("screenlab (console script)", [str(SCRIPT)]))

        floor, floor_load = median_run([str(PYTHON), "-c", "pass"], env, args.runs)
        print(f"\nmedians of {args.runs} fresh processes each\n")
        print(f"{'command':<58} {'median':>8}  {'goal':>6}  {'above floor':>11}  load")
        print(f"{'python -c pass (the floor)':<58} {floor:>7.3f}s  {'':>6}  {'':>11}  {floor_load}")
        cases = [("--version", ["--version"], GOAL_START), ("--help", ["--help"], GOAL_START)]
        cases += [(f"info ({n:,} screens)", ["info", str(p)], GOAL_INFO) for n, p in projects.items()]
        for what, argv, goal in cases:
            for door, cmd in doors:
                seconds, when = median_run(cmd + argv, env, args.runs)
                verdict = "ok" if seconds <= goal else "OVER"
                print(f"{door + ' ' + what:<58} {seconds:>7.3f}s  {goal:>5.2f}s  {seconds - floor:>10.3f}s  "
                      f"{when}  {verdict}")
    finally:
        if args.projects is None:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
