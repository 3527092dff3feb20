"""Run-engine throughput and scoring speed.

    .venv/bin/python benchmarks/runner.py [--n 500] [--latency 0.2] [--concurrency 32]

1. N requests to a local OpenAI-compatible server (tests/openai_server.py, in its own
   process) that answers after a fixed latency L, at concurrency C, through the real
   openai client, the response cache off. Prints wall time against the ideal N*L/C (goal <= 1.15x).
2. Scoring of 1,000,000 synthetic point predictions with ~8 boxes each (goal <= 5 s),
   and 100,000 text predictions with token F1 for scale.
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from desktop_app.agents.profiles import AgentProfile  # noqa: E402
from desktop_app.evaluation.batch import score_points  # noqa: E402
from desktop_app.evaluation.rules.screenlab import Target, match_text  # noqa: E402
from desktop_app.formats.transfer import import_path  # noqa: E402
from desktop_app.runs.engine import create_run, execute  # noqa: E402
from desktop_app.store.project import Project  # noqa: E402
from desktop_app.store.queries import EpisodeFilter  # noqa: E402

from benchmarks.import_scale import generate  # noqa: E402


def runner_benchmark(n: int, latency: float, concurrency: int) -> None:
    work = Path(tempfile.mkdtemp(prefix="screenlab-runner-"))
    try:
        source = generate(work / "source", n)
        with Project.init(work / "p") as project:
            import_path(project, source, "screenlab")
            # the server runs in its own process, as a real one would: no shared GIL
            server = subprocess.Popen([sys.executable, str(ROOT / "tests" / "openai_server.py"),
                                       "--latency", str(latency)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      text=True)
            try:
                base_url = server.stdout.readline().strip()
                profile = AgentProfile(name="bench", base_url=base_url, model="m", convention="point-px",
                                       concurrency=concurrency, max_retries=0)
                run_id = create_run(project, profile, EpisodeFilter())
                t0 = time.perf_counter()
                status = execute(project, run_id, use_cache=False)
                wall = time.perf_counter() - t0
                sent = status.done
            finally:
                server.stdin.close()
                server.wait(timeout=10)
        ideal = n * latency / concurrency
        print(f"runner: {sent} requests, latency {latency * 1000:.0f} ms, concurrency {concurrency}: "
              f"{wall:.2f} s wall, ideal {ideal:.2f} s, ratio {wall / ideal:.3f}  goal <= 1.15 "
              f"({status.done} predictions written, {status.errors} errors)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def scoring_benchmark(n: int = 1_000_000, boxes_per: int = 8) -> None:
    rng = np.random.default_rng(0)
    m = n * boxes_per
    box_sample = np.repeat(np.arange(n), boxes_per)
    x1, y1 = rng.uniform(0, 1200, m), rng.uniform(0, 760, m)
    boxes = np.stack([x1, y1, x1 + rng.uniform(10, 200, m), y1 + rng.uniform(10, 60, m)], axis=1)
    labels = rng.integers(0, 3, m).astype(np.int8)
    px, py = rng.uniform(0, 1280, n), rng.uniform(0, 800, n)
    t0 = time.perf_counter()
    verdict, _ = score_points(px, py, box_sample, boxes, labels)
    elapsed = time.perf_counter() - t0
    shares = np.bincount(verdict, minlength=4) / n
    print(f"scoring {n:,} point predictions against {m:,} boxes: {elapsed:.2f} s  goal <= 5 s "
          f"(gold {shares[0]:.1%}, distracted {shares[1]:.1%}, other {shares[2]:.1%}, invalid {shares[3]:.1%})")

    words = ["close", "accept", "reject", "submit", "cookies", "offer", "sign", "up", "now", "free", "no", "thanks"]
    r = random.Random(1)
    texts = [" ".join(r.sample(words, r.randint(1, 4))) for _ in range(2000)]
    targets = [[Target(j, "gold", texts[(i * 7 + j) % 2000], None) for j in range(8)] for i in range(2000)]
    k = 100_000
    t0 = time.perf_counter()
    for i in range(k):
        match_text(texts[(i * 13) % 2000], targets[i % 2000], 0.6)
    elapsed = time.perf_counter() - t0
    print(f"scoring {k:,} text predictions (token F1 against 8 labels each): {elapsed:.2f} s "
          f"({k / elapsed:,.0f} per second)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()
    runner_benchmark(args.n, args.latency, args.concurrency)
    scoring_benchmark()


if __name__ == "__main__":
    main()
