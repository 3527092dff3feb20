"""A resize step of the window, to painted, beside labelme's (ADR 0068).

    .venv/bin/python benchmarks/window_resize.py [--runs 5] [--steps 60] [--labelme-python PATH]

What a user feels while dragging a window's edge or a dock's splitter: each step lays the window out again and
paints it. Both programs offscreen, at 1366x768 (the annotators' laptop), each in fresh processes, launched in
turns:

  - ScreenLab: the window on a copy of the demo project (its first screen, its sample list, its panels), OCR off;
  - labelme 5.8.1 (the peer, its own venv, PyQt5): its window on one demo screenshot.

Each step resizes the window by a few pixels (both directions, the height too) and runs the event loop until the
layout and the paint are done; a step is timed from the resize call to the end of that. Printed: the median of
the steps in each process, the median of those over --runs processes, with the 90th percentile beside it, and the
load. No goal of the issue's: the figure says where a resize stands (ADR 0068 halved ours; most of what is
left is Qt laying out and painting the window's docks and lists, in C++).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.cold_start import DEMO, _env, make_project  # noqa: E402
from benchmarks.rows import emit  # noqa: E402

LABELME_PYTHON = "/tmp/labelme-venv/bin/python"  # made by `make bench-peers` (benchmarks/peers.txt)
WIDTH, HEIGHT = 1366, 768

# what both programs' child scripts share: the window settled, then the steps, a few pixels narrower each time,
# alternating, the height too; each script makes its window and calls settle_and_time(window, app)
STEPS = f"""
import statistics, sys, time
WIDTH, HEIGHT = {WIDTH}, {HEIGHT}

def sizes(steps):
    return [(WIDTH - (i % 2) * 40 - i, HEIGHT - (i % 3) * 10) for i in range(steps)]

def timed(window, app, steps):
    times = []
    for width, height in sizes(steps):
        started = time.perf_counter()
        window.resize(width, height)
        app.processEvents()  # the layout, then the paint it asks for
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    print(f"steps: {{statistics.median(times):.3f}} {{times[int(len(times) * 0.9)]:.3f}}", flush=True)

def settle_and_time(window, app):
    for _ in range(30):
        app.processEvents()
    timed(window, app, int(sys.argv[2]))
"""

OURS = STEPS + """
import desktop_app.ui  # the package first, as a launch imports it
from PySide6.QtWidgets import QApplication
from desktop_app.settings import Settings
from desktop_app.ui.main_window import MainWindow

app = QApplication.instance() or QApplication([])
window = MainWindow(Settings(annotator="bench", show_suggestions=False))
window.resize(WIDTH, HEIGHT)
window.show()
window.open_project(sys.argv[1])
settle_and_time(window, app)
"""

LABELME = STEPS + """
from PyQt5 import QtWidgets
from labelme.app import MainWindow
from labelme.config import get_config

app = QtWidgets.QApplication([])
window = MainWindow(config=get_config())
window.resize(WIDTH, HEIGHT)
window.show()
window.loadFile(sys.argv[1])
settle_and_time(window, app)
"""


def steps_of(command: list[str], env: dict) -> tuple[float, float]:
    out = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    for line in out.stdout.splitlines():
        if line.startswith("steps: "):
            median, p90 = line.split()[1:3]
            return float(median), float(p90)
    raise RuntimeError(f"{command[0]} printed no steps:\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="fresh processes of each program, in turns")
    parser.add_argument("--steps", type=int, default=60, help="resize steps timed in each process")
    parser.add_argument("--labelme-python", default=LABELME_PYTHON)
    args = parser.parse_args(argv)
    labelme = args.labelme_python if Path(args.labelme_python).exists() else None
    with tempfile.TemporaryDirectory(prefix="screenlab-resize-") as tmp:
        base = Path(tmp)
        project = make_project(base)
        image = sorted(DEMO.rglob("*.png"))[0]
        env = {**_env(base), "QT_QPA_PLATFORM": "offscreen"}
        peer_env = {**_env(base), "QT_QPA_PLATFORM": "offscreen", "HOME": str(base / "home")}
        ours, peer = [], []
        for _ in range(args.runs):
            ours.append(steps_of([sys.executable, "-c", OURS, str(project), str(args.steps)], env))
            if labelme:
                peer.append(steps_of([labelme, "-c", LABELME, str(image), str(args.steps)], peer_env))
    load = os.getloadavg()[0]
    median = statistics.median(m for m, _ in ours)
    p90 = statistics.median(p for _, p in ours)
    print(f"window resize step to painted, {WIDTH}x{HEIGHT} (offscreen), {args.steps} steps x {args.runs} processes:")
    print(f"   ScreenLab (demo project, its first screen and panels)  median {median:.1f} ms, p90 {p90:.1f} ms")
    peer_median = None
    if peer:
        peer_median = statistics.median(m for m, _ in peer)
        print(f"   labelme 5.8.1 (one demo screenshot)                  median {peer_median:.1f} ms, "
              f"p90 {statistics.median(p for _, p in peer):.1f} ms; ratio {median / peer_median:.2f}")
    else:
        print("   labelme not found (--labelme-python): no peer")
    print(f"   load {load:.2f}")
    emit(f"window resize step to painted, {WIDTH}x{HEIGHT} (ScreenLab: the demo project; labelme: one demo "
         f"screenshot); p90 {p90:.1f} ms", median, "ms", peer=peer_median,
         peer_name="labelme 5.8.1" if peer else "", runs=args.runs * args.steps, load=load,
         command="benchmarks/window_resize.py")
    return 0


if __name__ == "__main__":
    sys.exit(main())
