"""Judging throughput: 1,000 trajectories of 10 steps through the `judge` protocol.

    .venv/bin/python benchmarks/judge.py [--n 1000] [--steps 10] [--latency 0.2] [--concurrency 32] [--repeat 3]

A local OpenAI-compatible server (tests/openai_server.py, its own process) answers every request
with a fixed verdict after a fixed latency L; the judge runs end to end (the last frame, the
numbered actions) at concurrency C through the real openai client and the one run engine, the
response cache off. Prints the median wall time of --repeat runs against the ideal N*L/C
(goal <= 1.15x), each run's ratio, and the 1-minute load beside every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from desktop_app.agents.profiles import AgentProfile  # noqa: E402
from desktop_app.formats.transfer import import_path  # noqa: E402
from desktop_app.runs.engine import create_run, execute  # noqa: E402
from desktop_app.store.project import Project  # noqa: E402

from openai_server import fixed_server_process  # noqa: E402

VERDICT = 'Thoughts: the final screen shows the result.\nStatus: "success"'


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def write_set(folder: Path, n: int, steps: int) -> Path:
    """n trajectories of `steps` Android steps over 50 distinct 360x640 screens."""
    (folder / "images").mkdir(parents=True)
    for i in range(50):
        Image.new("RGB", (360, 640), (i * 5, 100, 200 - i * 3)).save(folder / "images" / f"s{i}.png")
    tap = "Action Type: DualPoint, Touch Point: (0.5000, 0.4000), Lift Point: (0.5000, 0.4000)"
    log = [{"uid": f"t{k}", "intent": f"Task number {k}", "response": "",
            "steps": [{"img": f"s{(k + j) % 50}.png", "other": {"action": tap}} for j in range(steps)]}
           for k in range(n)]
    (folder / "trajectory_log.json").write_text(json.dumps(log))
    return folder


def once(n: int, steps: int, latency: float, concurrency: int) -> tuple[float, int, int]:
    work = Path(tempfile.mkdtemp(prefix="screenlab-judge-"))
    try:
        with Project.init(work / "p") as project:
            import_path(project, write_set(work / "set", n, steps), "unified-trajectory")
            with fixed_server_process(latency, VERDICT) as base_url:
                profile = AgentProfile(name="bench-judge", base_url=base_url, model="m", concurrency=concurrency,
                                       max_retries=0, temperature=0.0)
                run_id = create_run(project, profile, protocol="judge")
                t0 = time.perf_counter()
                status = execute(project, run_id, use_cache=False)
                wall = time.perf_counter() - t0
        return wall, status.done, status.errors
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    ideal = args.n * args.latency / args.concurrency
    walls = []
    for i in range(args.repeat):
        wall, done, errors = once(args.n, args.steps, args.latency, args.concurrency)
        walls.append(wall)
        print(f"  judge run {i + 1}: {done} verdicts, {errors} errors, {wall:.2f} s, ratio {wall / ideal:.3f}  "
              f"({load()})")
    median = statistics.median(walls)
    print(f"judge: {args.n} trajectories x {args.steps} steps, latency {args.latency * 1000:.0f} ms, concurrency "
          f"{args.concurrency}: median {median:.2f} s, ideal {ideal:.2f} s, ratio {median / ideal:.3f}  "
          f"goal <= 1.15  ({load()})")


if __name__ == "__main__":
    main()
