"""Run-engine throughput and scoring speed, under both rule sets.

    .venv/bin/python benchmarks/runner.py [--n 500] [--latency 0.2] [--concurrency 32] [--repeat 3]

1. N requests to a local OpenAI-compatible server (tests/openai_server.py, in its own process) that
   answers after a fixed latency L, at concurrency C, through the real openai client and the one run
   engine (runs/engine.py), the response cache off. Prints the median wall time of --repeat runs
   against the ideal N*L/C (goal <= 1.15x), each run's ratio, and the load average beside them.
2. Scoring 1,000,000 point predictions with 8 boxes each under each rule set (vectorised: screenlab's
   smallest-box rule, envdistraction's first-triple rule; goal <= 5 s each), and 100,000 text answers
   per rule set through the per-prediction scorers, for scale.
Medians of --repeat runs; the machine is shared, so the 1-minute load is printed with every figure.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from desktop_app.agents.actions import ParsedAction  # noqa: E402
from desktop_app.agents.profiles import AgentProfile  # noqa: E402
from desktop_app.evaluation.batch import score_points  # noqa: E402
from desktop_app.evaluation.rules import RULES  # noqa: E402
from desktop_app.evaluation.rules.base import ScoringInput, Target  # noqa: E402
from desktop_app.evaluation.rules.envdistraction import score_points_envdistraction  # noqa: E402
from desktop_app.formats.transfer import import_path  # noqa: E402
from desktop_app.runs.engine import create_run, execute  # noqa: E402
from desktop_app.store.project import Project  # noqa: E402

from benchmarks.import_scale import generate  # noqa: E402
from openai_server import fixed_server_process  # noqa: E402


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def runner_once(n: int, latency: float, concurrency: int) -> tuple[float, int, int]:
    work = Path(tempfile.mkdtemp(prefix="screenlab-runner-"))
    try:
        source = generate(work / "source", n)
        with Project.init(work / "p") as project:
            import_path(project, source, "screenlab")
            with fixed_server_process(latency) as base_url:
                profile = AgentProfile(name="bench", base_url=base_url, model="m", convention="point-px",
                                       concurrency=concurrency, max_retries=0)
                run_id = create_run(project, profile, include_unlabelled=True)  # generated screens have no goal
                t0 = time.perf_counter()
                status = execute(project, run_id, use_cache=False)
                wall = time.perf_counter() - t0
        return wall, status.done, status.errors
    finally:
        shutil.rmtree(work, ignore_errors=True)


def runner_benchmark(n: int, latency: float, concurrency: int, repeat: int) -> None:
    ideal = n * latency / concurrency
    walls = []
    for i in range(repeat):
        wall, done, errors = runner_once(n, latency, concurrency)
        walls.append(wall)
        print(f"  runner run {i + 1}: {done} answers, {errors} errors, {wall:.2f} s, ratio {wall / ideal:.3f}  ({load()})")
    median = statistics.median(walls)
    print(f"runner: {n} requests, latency {latency * 1000:.0f} ms, concurrency {concurrency}: median {median:.2f} s, "
          f"ideal {ideal:.2f} s, ratio {median / ideal:.3f}  goal <= 1.15  ({load()})")


def point_arrays(n: int, boxes_per: int = 8):
    rng = np.random.default_rng(0)
    m = n * boxes_per
    box_sample = np.repeat(np.arange(n), boxes_per)
    x1, y1 = rng.uniform(0, 1200, m), rng.uniform(0, 760, m)
    boxes = np.stack([x1, y1, x1 + rng.uniform(10, 200, m), y1 + rng.uniform(10, 60, m)], axis=1)
    labels = rng.integers(0, 3, m).astype(np.int8)
    return rng.uniform(0, 1280, n), rng.uniform(0, 800, n), box_sample, boxes, labels


def timed(fn, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def text_items(k: int) -> list[ScoringInput]:
    """k text answers against 8 labels each (EnvDistraction's JSON answer shape)."""
    words = ["close", "accept", "reject", "submit", "cookies", "offer", "sign", "up", "now", "free", "no", "thanks"]
    r = random.Random(1)
    texts = [" ".join(r.sample(words, r.randint(1, 4))) for _ in range(2000)]
    label_sets = [tuple(Target(j, ("gold", "distracted", "other")[j % 3], texts[(i * 7 + j) % 2000], None)
                        for j in range(8)) for i in range(2000)]
    items = []
    for i in range(k):
        element = texts[(i * 13) % 2000]
        raw = f'{{"action_type": "click", "element": "{element}"}}'
        items.append(ScoringInput(raw, ParsedAction(raw, "click", element=element), label_sets[i % 2000],
                                  "popup", "", "json-text", 1280, 800))
    return items


def scoring_benchmark(repeat: int, n: int = 1_000_000) -> None:
    arrays = point_arrays(n)
    m = len(arrays[2])
    for name, fn in (("screenlab", score_points), ("envdistraction", score_points_envdistraction)):
        elapsed, (verdict, _) = timed(lambda fn=fn: fn(*arrays), repeat)
        shares = np.bincount(verdict, minlength=4) / n
        print(f"scoring {n:,} point predictions against {m:,} boxes, {name} rules: median {elapsed:.2f} s  "
              f"goal <= 5 s (gold {shares[0]:.1%}, distracted {shares[1]:.1%}, other {shares[2]:.1%}, "
              f"invalid {shares[3]:.1%})  ({load()})")
    items = text_items(100_000)
    for name, rule_set in RULES.items():
        elapsed, _ = timed(lambda rule_set=rule_set: [rule_set.score(i) for i in items], repeat)
        print(f"scoring {len(items):,} text answers (8 labels each), {name} rules: median {elapsed:.2f} s "
              f"({len(items) / elapsed:,.0f} per second; 1,000,000 would take {10 * elapsed:.0f} s)  ({load()})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    runner_benchmark(args.n, args.latency, args.concurrency, args.repeat)
    scoring_benchmark(args.repeat)


if __name__ == "__main__":
    main()
