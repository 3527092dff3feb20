"""Crash safety (issue 20): the real CLI killed with SIGKILL at random moments, counted.

    .venv/bin/python benchmarks/kill_safety.py [--import-kills 20] [--images 2000] [--run-kills 20]
                                              [--samples 600] [--latency 0.05] [--concurrency 8] [--seed 20]

The harness is tests/test_kill_safety.py's (the test runs it with 10 kills each and smaller sizes):
- imports: `screenlab import` of a fresh folder of --images screenshots, killed --import-kills times (two in
  three once a random number of its images is copied, the others anywhere in its life); after each kill
  `PRAGMA integrity_check`, all or nothing, the orphan images and `.incoming-*` files left, what
  store/media_sweep.sweep_orphans removes, and what a re-import of the same folder leaves (formats/ingest.py runs the
  sweep first);
- runs: one `screenlab run` of --samples samples against a local OpenAI-compatible server answering after
  --latency seconds, killed --run-kills times and resumed with `--resume` each time; every request after a
  kill classified by what the database held at the kill: a committed answer asked again (a bug: must be 0),
  an answer the server had sent that the killed process had not committed yet (lost with the process: the
  price of a kill), or a request still unanswered at the kill.

`measure()` runs the loops and `rows()` words their outcome; benchmarks/reliability.py calls both. The 1-minute
load average is printed with them: on a 2-core machine shared with other work the timing of the kills, not their
outcome, moves.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import test_kill_safety as harness  # noqa: E402  (the kill loops and their checks)


def measure(import_kills: int = 20, images: int = 2000, run_kills: int = 20, samples: int = 600,
            latency: float = harness.LATENCY_S, concurrency: int = 8,
            seed: int = harness.SEED) -> tuple[harness.ImportKills, harness.RunKills]:
    """The kill loops, now, in a temporary folder: (import kills, run kills)."""
    with tempfile.TemporaryDirectory(prefix="screenlab-kills-") as tmp:
        imports = harness.kill_imports(Path(tmp) / "imports", import_kills, images, seed)
        runs = harness.kill_runs(Path(tmp) / "runs", run_kills, samples, seed, concurrency, latency)
    return imports, runs


def figures(import_kills: int = 20, images: int = 2000, run_kills: int = 20, samples: int = 600,
            latency: float = harness.LATENCY_S, concurrency: int = 8, seed: int = harness.SEED) -> list[tuple[str, str]]:
    """(what was tried, what came of it) rows, measured now in a temporary folder."""
    return rows(*measure(import_kills, images, run_kills, samples, latency, concurrency, seed))


def rows(imports: harness.ImportKills, runs: harness.RunKills) -> list[tuple[str, str]]:
    return [
        (f"kill -9 during imports of {imports.images} screenshots",
         f"{imports.kills} tried ({imports.kills - imports.ended_before_kill} killed, "
         f"{imports.ended_before_kill} ended first): integrity ok {imports.integrity_ok}, "
         f"all or nothing {imports.all_or_nothing} ({imports.committed} whole)"),
        ("  left behind by the kills",
         f"{imports.with_leftovers} kills left {imports.orphans_left} orphan images, {imports.temps_left} "
         f".incoming-* files"),
        ("  removed by sweep_orphans",
         f"{imports.swept_images} images, {imports.swept_temps} temporary files; left after it: "
         f"{imports.left_after_sweep}"),
        ("  re-import of the killed folder",
         f"{imports.reimports} re-imports ({imports.reimports_with_leftovers} with leftovers there): "
         f"{imports.left_after_reimport} left after them"),
        (f"kill -9 during `run` + `--resume` ({runs.latency_s * 1000:.0f} ms answers)",
         f"{runs.kills} kills, {runs.samples} samples: answered exactly once {'yes' if runs.answered_once else 'NO'}, "
         f"run ends {runs.final_status}"),
        ("  samples unanswered / answered twice / failed requests stored",
         f"{runs.unanswered} / {runs.answered_twice} / {len(runs.failures or [])}"),
        ("  committed answers asked again", f"{runs.committed_asked_again}"),
        ("  answers lost with the killed process",
         f"{runs.lost_uncommitted} (sent by the server <= {runs.lost_lag_max_s * 1000:.0f} ms before the kill, "
         f"not yet committed)"),
        ("  requests unanswered at the kill, asked again", f"{runs.in_flight_asked_again}"),
    ]


def print_table(table: list[tuple[str, str]]) -> None:
    width = max(len(name) for name, _ in table)
    for name, value in table:
        print(f"{name:<{width}}  {value}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--import-kills", type=int, default=20)
    parser.add_argument("--images", type=int, default=2000)
    parser.add_argument("--run-kills", type=int, default=20)
    parser.add_argument("--samples", type=int, default=600)
    parser.add_argument("--latency", type=float, default=harness.LATENCY_S)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--seed", type=int, default=harness.SEED)
    args = parser.parse_args()
    if os.name == "nt":
        sys.exit("SIGKILL and the process probes are POSIX")
    table = figures(args.import_kills, args.images, args.run_kills, args.samples, args.latency, args.concurrency,
                    args.seed)
    print(f"crash safety, seed {args.seed}, load {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print_table(table)


if __name__ == "__main__":
    main()
