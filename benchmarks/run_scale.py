"""`screenlab run` with an offline agent over every sample of projects of 10,000 to 1,000,000 screens.

    .venv/bin/python benchmarks/run_scale.py [--sizes 10000,1000000] [--repeat 3] [--agent random]
                                             [--http 10000] [--profile FILE [--profile-size 20000]]
                                             [--keep DIR]

What a run costs besides the model's answers (issue 19: streamed, peak memory <= 400 MB at 1,000,000
samples, per-sample cost at 1M within 1.2x of that at 10k). Each size N is a project of N single-step
episodes with 3 annotated actions each (gold, distracted, other) and no predictions: benchmarks/scale_1m.py's
`generate` writes its episodes, steps and actions (and its four agents' predictions, which are deleted here
with their runs and profiles, so the project is as an import leaves it).

Every figure is one `screenlab run PROJECT --agent random` (a baseline that answers at once, no network) in
a fresh process, as a user types it (scale_1m.measure: the command's seconds without start-up, its peak
RSS as VmHWM): the whole command (planning, creating the run, executing it, the summary), the engine's
execution alone (the seconds the command prints), the CPU seconds of the process (all threads: less
sensitive than wall time to a busy machine), the cost per sample (the command's seconds, and its CPU seconds,
less those of the same command on a project of 200, its fixed cost), their median over --repeat runs (sizes
above 100,000 run once: a million-sample run takes minutes), and the load beside each figure. Between runs the
run's rows are deleted. Then per-sample cost at the largest size / at the smallest (goal <= 1.2).

--http N also runs N samples through an OpenAI-compatible server in its own process that answers at once
(tests/openai_server.py's lean server, the response cache on as a user has it): what the HTTP path adds per
sample. --profile FILE runs --profile-size samples once more under cProfile in every thread (the run executes
on its own thread, its writes on another) and prints the top functions by their own time.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from benchmarks.scale_1m import BASELINE, generate, measure  # noqa: E402
from openai_server import fixed_server_process  # noqa: E402

LARGE = 100_000  # sizes above this run once
HTTP_AGENT, KEY_ENV = "bench-http", "SCREENLAB_BENCH_KEY"
ANSWER = '{"action_type": "click", "point": [640, 400]}'
ELAPSED = re.compile(r", ([\d.]+) s$", re.M)  # the engine's seconds, last on the summary line

# The command under cProfile, one profiler per thread; the statistics of the threads of one kind merged and
# written to FILE.<kind>: main (planning), run-<id> (the event loop), prediction-writer, asyncio (to_thread)
PROFILED = """
import cProfile, pstats, re, sys, threading
profilers = {"main": [cProfile.Profile()]}
thread_run = threading.Thread.run
def run(self):
    p = cProfile.Profile()
    profilers.setdefault(re.sub(r"[-_]\\d+$", "", self.name.split()[0]), []).append(p)
    p.enable()
    try:
        thread_run(self)
    finally:
        p.disable()
threading.Thread.run = run
from desktop_app.cli.main import main
profilers["main"][0].enable()
code = main(sys.argv[2:])
profilers["main"][0].disable()
for kind, group in profilers.items():
    stats = pstats.Stats(group[0])
    for p in group[1:]:
        stats.add(p)
    stats.dump_stats(f"{sys.argv[1]}.{kind}")
sys.exit(code)
"""


def make_project(folder: Path, n: int) -> float:
    """n single-step samples with gold / distracted / other actions and no run: scale_1m's rows, its runs removed."""
    t0 = time.perf_counter()
    partial = folder.with_name(folder.name + "-partial")  # an interrupted generation leaves no project
    shutil.rmtree(partial, ignore_errors=True)
    generate(partial, n)
    forget_runs(partial)
    partial.rename(folder)
    return time.perf_counter() - t0


def forget_runs(folder: Path) -> None:
    db = sqlite3.connect(folder / "screenlab.sqlite")
    with db:
        for table in ("prediction", "response_cache", "run", "agent_profile"):
            db.execute(f"DELETE FROM {table}")  # noqa: S608 - our own table names
    db.close()


def run_once(project: Path, work: Path, agent: str) -> dict:
    forget_runs(project)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = measure(["run", str(project), "--agent", agent], work)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # CPU seconds of the process, all its threads
    r["cpu"] = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    out = (work / "stdout.txt").read_text()
    seconds = ELAPSED.findall(out)
    if not seconds:
        raise SystemExit(f"no summary line in: {out[-2000:]}")
    return {**r, "engine": float(seconds[-1]), "summary": out.strip().splitlines()[-1]}


def median_of(runs: list[dict]) -> dict:
    return {key: statistics.median(r[key] for r in runs) for key in ("work", "engine", "cpu", "imports", "load")} | {
        "rss_mb": max(r["rss_mb"] for r in runs), "loads": [round(r["load"], 2) for r in runs],
        "summary": runs[-1]["summary"]}


def measure_size(base: Path, n: int, agent: str, repeat: int) -> dict:
    project = base / f"project-{n}"
    if not (project / "screenlab.sqlite").exists():
        seconds = make_project(project, n)
        print(f"\n{n:,}{' (fixed cost)' if n == BASELINE else ''}: generated {n:,} samples, {3 * n:,} actions "
              f"in {seconds:.1f} s  (load {os.getloadavg()[0]:.2f})", flush=True)
    else:
        print(f"\n{n:,}: project kept from before in {project}", flush=True)
    return median_of([run_once(project, base, agent) for _ in range(repeat if n <= LARGE else 1)])


def show(name: str, n: int, r: dict, fixed: float | None) -> None:
    per = "" if fixed is None else f"  {r['per_sample'] * 1e6:7.1f} us/sample ({r['cpu_per_sample'] * 1e6:.0f} us CPU)"
    print(f"  {name:<12} command {r['work']:7.2f} s (engine {r['engine']:7.2f} s, CPU {r['cpu']:7.2f} s){per}  peak RSS "
          f"{r['rss_mb']:5.0f} MB  (start-up {r['imports']:.2f} s)  (load {', '.join(map(str, r['loads']))})",
          flush=True)
    print(f"  {'':<12} {r['summary']}", flush=True)


def profile(project: Path, agent: str, out: Path) -> None:
    import pstats

    forget_runs(project)
    out.parent.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", PROFILED, str(out), "run", str(project), "--agent", agent], cwd=ROOT,
                   env=env, check=True, stdout=subprocess.DEVNULL)
    print(f"\nprofile of `run --agent {agent}` on {project.name} ({time.perf_counter() - t0:.0f} s under cProfile, "
          f"load {os.getloadavg()[0]:.2f}); per kind of thread, the functions by their own time (waits included):",
          flush=True)
    for path in sorted(out.parent.glob(out.name + ".*")):
        stats = pstats.Stats(str(path))
        if stats.total_tt < 0.1:  # a short-lived helper thread (the loop's shutdown)
            continue
        print(f"\n=== {path.suffix[1:]}: {stats.total_tt:.1f} s ({path})")
        stats.sort_stats("tottime").print_stats(12)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,1000000", help="comma-separated project sizes")
    parser.add_argument("--repeat", type=int, default=3, help=f"runs per figure up to {LARGE:,} samples (median)")
    parser.add_argument("--agent", default="random", help="an offline baseline: random, center")
    parser.add_argument("--http", type=int, default=10000, help="samples through a local server (0: none)")
    parser.add_argument("--profile", type=Path, help="also profile one run, statistics to this file")
    parser.add_argument("--profile-size", type=int, default=20000, help="samples of the profiled run")
    parser.add_argument("--keep", type=Path, help="keep the generated projects in this folder")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    base = args.keep or Path(tempfile.mkdtemp(prefix="screenlab-run-scale-"))
    base.mkdir(parents=True, exist_ok=True)
    for name in ("CONFIG", "DATA", "CACHE", "LOG"):  # the user's own settings and agents stay out of it
        os.environ[f"SCREENLAB_{name}_DIR"] = str(base / "user" / name.lower())
    print(f"`screenlab run PROJECT --agent {args.agent}` (screen protocol, default concurrency), every sample; "
          f"{os.cpu_count()} cores")
    results: dict[int, dict] = {}
    try:
        fixed = measure_size(base, BASELINE, args.agent, args.repeat)
        show(args.agent, BASELINE, fixed, None)
        print("  (the fixed cost: start-up excluded, opening the project, imports of the command; taken off below)")
        for n in sizes:
            r = measure_size(base, n, args.agent, args.repeat)
            r["per_sample"] = max(r["work"] - fixed["work"], 0.0) / n
            r["cpu_per_sample"] = max(r["cpu"] - fixed["cpu"], 0.0) / n
            results[n] = r
            show(args.agent, n, r, fixed["work"])
        if len(sizes) > 1:
            small, large = sizes[0], sizes[-1]
            ratio = results[large]["per_sample"] / results[small]["per_sample"]
            cpu_ratio = results[large]["cpu_per_sample"] / results[small]["cpu_per_sample"]
            print(f"\nper-sample cost at {large:,} / at {small:,}: {ratio:.2f} wall, {cpu_ratio:.2f} CPU (goal <= 1.2); "
                  f"peak RSS at {large:,}: {results[large]['rss_mb']:.0f} MB (goal <= 400)")
        if args.http:
            os.environ[KEY_ENV] = "sk-bench-not-a-secret"
            project = base / f"project-{args.http}"
            if not (project / "screenlab.sqlite").exists():
                make_project(project, args.http)
            with fixed_server_process(0.0, ANSWER) as url:
                subprocess.run([sys.executable, "-m", "desktop_app", "agents", "add", HTTP_AGENT, "--base-url", url,
                                "--model", "bench", "--convention", "point-px", "--api-key-env", KEY_ENV,
                                "--replace"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
                print(f"\n{args.http:,} samples through an OpenAI-compatible server answering at once "
                      f"(its own process, response cache on):", flush=True)
                fixed_http = median_of([run_once(base / f"project-{BASELINE}", base, HTTP_AGENT)
                                        for _ in range(args.repeat)])
                r = median_of([run_once(project, base, HTTP_AGENT) for _ in range(args.repeat)])
            r["per_sample"] = max(r["work"] - fixed_http["work"], 0.0) / args.http
            r["cpu_per_sample"] = max(r["cpu"] - fixed_http["cpu"], 0.0) / args.http
            show("http", args.http, r, fixed_http["work"])
            if args.http in results:
                offline = results[args.http]
                print(f"  the HTTP path adds {(r['per_sample'] - offline['per_sample']) * 1e6:.0f} us/sample "
                      f"({(r['cpu_per_sample'] - offline['cpu_per_sample']) * 1e6:.0f} us CPU) to the offline agent's")
        if args.profile:
            project = base / f"project-{args.profile_size}"
            if not (project / "screenlab.sqlite").exists():
                make_project(project, args.profile_size)
            profile(project, args.agent, args.profile)
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
