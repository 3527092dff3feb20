"""Canvas speed beside labelme's, and screen switching at 100,000 screens (ADR 0053).

    .venv/bin/python benchmarks/canvas.py [--boxes 5000] [--runs 5] [--screens 100000] [--labelme-python PATH]

One 3840x2160 screenshot (UI-like blocks, a PNG) with --boxes boxes, given to both programs as a user would:
  - ScreenLab: a project holding the screen and its boxes (imported, in SQLite), opened in the real main
    window (offscreen, captions on): the PNG decoded, the boxes read from the database, the properties list
    filled, to the canvas's first paint with the picture;
  - labelme 5.8.1 (the peer, in its own venv, PyQt5): the same PNG and the same boxes as rectangles in a
    labelme JSON, opened with its loadFile: decoded, its canvas and its label list filled, to its first paint.
Each program runs in a process of its own, driven in turns (A B A B, the first alternating each round) so a
burst of other work on this shared machine hits both. Per round: the load (a fresh open of the file or
project), then at fit and at 100 % zoom, --steps zoom steps (the zoom set to x1.25 and back) and --steps pan
steps (the horizontal scroll bar moved 40 px and back), each followed by a synchronous repaint of the view,
which is what is timed (pending paints are flushed first, in both). Printed: the medians, ScreenLab / labelme,
and one bench-row line per figure (benchmarks/rows.py). Goal: zoom and pan repaints >= 5x faster than
labelme's (ratio <= 0.2). Then the time to switch to the next screen in a project of --screens episodes
(goal <= 50 ms).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.rows import emit  # noqa: E402

LABELME_PYTHON = "/tmp/labelme-venv/bin/python"  # made by `make bench-peers` (benchmarks/peers.txt)
WIDTH, HEIGHT = 3840, 2160
LABELS = ("gold", "distracted", "other")
CAPTION_LIMIT = 400  # ui/canvas/scene.py's (not imported: this process has no Qt)


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


# -- the screen and its boxes, as files both programs open ---------------------------------------------------

def make_inputs(folder: Path, n_boxes: int) -> tuple[Path, Path]:
    """A ScreenLab project and a labelme JSON holding the same 4K PNG and the same boxes."""
    from PIL import Image, ImageDraw

    from desktop_app.formats.transfer import import_path
    from desktop_app.store.project import Project

    source = folder / "source"
    (source / "images").mkdir(parents=True)
    image = Image.new("RGB", (WIDTH, HEIGHT), (244, 245, 247))
    draw = ImageDraw.Draw(image)
    rng = random.Random(1)
    for _ in range(3000):  # busy UI-like content, so the picture is not trivially flat
        x, y = rng.uniform(0, 3800), rng.uniform(0, 2120)
        draw.rectangle([x, y, x + rng.uniform(20, 300), y + rng.uniform(10, 60)],
                       fill=(rng.randint(0, 255), rng.randint(0, 255), rng.randint(0, 255)))
    image.save(source / "images" / "screen.png")
    rng = random.Random(2)
    boxes = []
    for i in range(n_boxes):
        x, y = rng.uniform(0, 3700), rng.uniform(0, 2100)
        boxes.append((x, y, x + rng.uniform(20, 140), y + rng.uniform(12, 50), rng.choice(LABELS), f"element {i}"))
    actions = [{"box": [round(v, 1) for v in b[:4]], "label": b[4], "element_text": b[5]} for b in boxes]
    (source / "episodes.jsonl").write_text(json.dumps(
        {"id": "canvas-4k", "goal": "a 4K screen with many boxes", "scenario": "popup",
         "steps": [{"image": "images/screen.png", "actions": actions}]}) + "\n", encoding="utf-8")
    project = folder / "project"
    with Project.init(project) as p:
        import_path(p, source, "screenlab")
    labelme_dir = folder / "labelme"
    labelme_dir.mkdir()
    shutil.copy(source / "images" / "screen.png", labelme_dir / "screen.png")
    shapes = [{"label": b[4], "points": [[b[0], b[1]], [b[2], b[3]]], "group_id": None, "description": b[5],
               "shape_type": "rectangle", "flags": {}, "mask": None} for b in boxes]
    annotation = labelme_dir / "screen.json"
    annotation.write_text(json.dumps({"version": "5.8.1", "flags": {}, "shapes": shapes, "imagePath": "screen.png",
                                      "imageData": None, "imageHeight": HEIGHT, "imageWidth": WIDTH}),
                          encoding="utf-8")
    return project, annotation


# -- the two programs, each in its own process, answering commands on stdin ------------------------------------
# Commands: "load" -> ms from the open call to the first paint with the picture; "zoom fit|100 N" and
# "pan fit|100 N" -> N repaint times in ms. Each answer is one line "reply: <json>".

OURS_CHILD = r"""
import json, os, sys, time
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication
from desktop_app.settings import Settings
from desktop_app.ui.main_window import MainWindow

project = sys.argv[1]
app = QApplication([])
window = MainWindow(Settings(annotator="bench", show_suggestions=False))
window.resize(1600, 1000)
window.show()
window.show_captions(True)
for _ in range(20):
    app.processEvents()

class Painted(QObject):
    at = None
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and self.at is None and window.scene.background is not None:
            self.at = "painting"
        return False

painted = Painted()
window.view.viewport().installEventFilter(painted)
view = window.view

def load():
    window.close_project()
    for _ in range(5):
        app.processEvents()
    painted.at = None
    started = time.perf_counter()
    window.open_project(project)
    while painted.at is None and time.perf_counter() - started < 120:
        app.processEvents()
    app.processEvents()  # the paint the filter saw has ended
    return (time.perf_counter() - started) * 1000

def place(where):
    if where == "fit":
        view.fit()
    else:
        view.set_scale(1.0, anchor_mouse=False)
    app.processEvents()
    return view.scale_factor()

def timed(action, steps):
    times = []
    for i in range(steps):
        action(i)
        app.processEvents()  # what the step itself scheduled is painted before the timed repaint
        t0 = time.perf_counter()
        view.viewport().repaint()
        times.append((time.perf_counter() - t0) * 1000)
    return times

def zoom(where, steps):
    base = place(where)
    return timed(lambda i: view.set_scale(base * (1.25 if i % 2 == 0 else 1.0), anchor_mouse=False), steps)

def pan(where, steps):
    base = place(where)
    if where == "fit":
        view.set_scale(base * 1.25, anchor_mouse=False)  # at fit there is nothing to scroll
    bar = view.horizontalScrollBar()
    return timed(lambda i: bar.setValue(bar.value() + (40 if i % 2 == 0 else -40)), steps)

def in_view():
    return {"captions": len(window.scene.caption_places(view.scale_factor()))}

print("reply: ready", flush=True)
for line in sys.stdin:
    command = line.split()
    if command[0] == "load":
        reply = load()
    elif command[0] in ("zoom", "pan"):
        reply = {"times": (zoom if command[0] == "zoom" else pan)(command[1], int(command[2])), **in_view()}
    else:
        break
    print("reply: " + json.dumps(reply), flush=True)
"""

LABELME_CHILD = r"""
import json, os, sys, time
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from PyQt5 import QtCore, QtWidgets
from labelme.app import MainWindow
from labelme.config import get_config

annotation = sys.argv[1]
app = QtWidgets.QApplication([])
win = MainWindow(config=get_config())
win.resize(1600, 1000)
win.show()
for _ in range(20):
    app.processEvents()

class Painted(QtCore.QObject):
    at = None
    def eventFilter(self, obj, event):
        if event.type() == QtCore.QEvent.Paint and self.at is None and win.canvas.pixmap and not win.canvas.pixmap.isNull():
            self.at = "painting"
        return False

painted = Painted()
win.canvas.installEventFilter(painted)
canvas = win.canvas
bar = win.scrollBars[QtCore.Qt.Horizontal]

def load():
    win.resetState()
    for _ in range(5):
        app.processEvents()
    painted.at = None
    started = time.perf_counter()
    win.loadFile(annotation)
    while painted.at is None and time.perf_counter() - started < 120:
        app.processEvents()
    app.processEvents()
    return (time.perf_counter() - started) * 1000

def place(where):
    value = int(100 * win.scaleFitWindow()) if where == "fit" else 100
    win.setZoom(value)
    app.processEvents()
    return value

def timed(action, steps):
    times = []
    for i in range(steps):
        action(i)
        app.processEvents()
        t0 = time.perf_counter()
        canvas.repaint()  # its whole paint, clipped to what the scroll area shows
        times.append((time.perf_counter() - t0) * 1000)
    return times

def zoom(where, steps):
    base = place(where)
    return timed(lambda i: win.setZoom(int(base * 1.25) if i % 2 == 0 else base), steps)

def pan(where, steps):
    base = place(where)
    if where == "fit":
        win.setZoom(int(base * 1.25))
        app.processEvents()
    return timed(lambda i: bar.setValue(bar.value() + (40 if i % 2 == 0 else -40)), steps)

print("reply: ready", flush=True)
for line in sys.stdin:
    command = line.split()
    if command[0] == "load":
        reply = load()
    elif command[0] in ("zoom", "pan"):
        reply = {"times": (zoom if command[0] == "zoom" else pan)(command[1], int(command[2])),
                 "boxes": len(canvas.shapes)}
    else:
        break
    print("reply: " + json.dumps(reply), flush=True)
"""


class Child:
    """A program in its own process, asked one command at a time."""

    def __init__(self, name: str, command: list[str], env: dict, log: Path):
        self.name, self.log = name, log
        self.errors = open(log, "w")  # noqa: SIM115 (closed in close(): the process writes to it until then)
        self.proc = subprocess.Popen(command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.errors, text=True, bufsize=1)
        self.read()  # "ready"

    def read(self):
        for line in self.proc.stdout:
            if line.startswith("reply: "):
                return json.loads(line[7:]) if line[7:].strip() != "ready" else None
        tail = self.log.read_text(errors="replace")[-3000:]
        raise RuntimeError(f"{self.name} ended without answering:\n{tail}")

    def ask(self, command: str):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return self.read()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.errors.close()


def canvas_benchmark(n_boxes: int, runs: int, steps: int, labelme_python: str | None) -> None:
    with tempfile.TemporaryDirectory(prefix="screenlab-canvas-") as tmp:
        base = Path(tmp)
        project, annotation = make_inputs(base, n_boxes)
        env = {**os.environ, "PYTHONPATH": str(ROOT), "SCREENLAB_CONFIG_DIR": str(base / "cfg"),
               "SCREENLAB_DATA_DIR": str(base / "data"), "SCREENLAB_LOG_DIR": str(base / "log"),
               "SCREENLAB_USER": "bench", "HOME": str(base / "home"), "QT_QPA_PLATFORM": "offscreen"}
        (base / "home").mkdir()
        children = [Child("ScreenLab", [sys.executable, "-c", OURS_CHILD, str(project)], env, base / "ours.log")]
        if labelme_python:
            children.append(Child("labelme", [labelme_python, "-c", LABELME_CHILD, str(annotation)], env,
                                  base / "labelme.log"))
        figures: dict[tuple[str, str], list[float]] = {}
        seen: dict[tuple[str, str], dict] = {}
        loads = []
        try:
            for run in range(runs):
                order = children if run % 2 == 0 else children[::-1]
                for child in order:
                    figures.setdefault((child.name, "load"), []).append(child.ask("load"))
                for where in ("fit", "100"):
                    for what in ("zoom", "pan"):
                        for child in order:
                            reply = child.ask(f"{what} {where} {steps}")
                            figures.setdefault((child.name, f"{what} {where}"), []).extend(reply["times"])
                            seen[(child.name, f"{what} {where}")] = reply
                loads.append(os.getloadavg()[0])
        finally:
            for child in children:
                child.close()
        load = statistics.median(loads)
        peer = "labelme" if labelme_python else None
        first = figures[("ScreenLab", "load")][0]
        print(f"4K screenshot + {n_boxes:,} boxes, {runs} rounds of {steps} steps, medians (load {load:.2f})"
              + ("" if peer else "; labelme not found (--labelme-python): no peer"))
        ours_load = statistics.median(figures[("ScreenLab", "load")])
        line = f"  load to first paint: ScreenLab {ours_load:.0f} ms (first in its process {first:.0f} ms)"
        peer_load = statistics.median(figures[("labelme", "load")]) if peer else None
        if peer:
            line += f", labelme {peer_load:.0f} ms (first {figures[('labelme', 'load')][0]:.0f} ms)"
        print(line)
        emit(f"open a 4K screenshot with {n_boxes:,} boxes, to the first paint (ScreenLab: project, window, "
             "PNG decode, database, properties list, captions on; labelme: its JSON, loadFile)", ours_load, "ms",
             peer=peer_load, peer_name="labelme 5.8.1" if peer else "", runs=runs, load=load,
             command="benchmarks/canvas.py")
        for where, label in (("fit", "fit (all boxes visible)"), ("100", "100 % zoom")):
            for what in ("zoom", "pan"):
                ours = figures[("ScreenLab", f"{what} {where}")]
                info = seen[("ScreenLab", f"{what} {where}")]
                line = (f"  {label}, {what} step repaint: ScreenLab median {statistics.median(ours):.1f} ms, p95 "
                        f"{percentile(ours, .95):.1f} ms ({info['captions']} captions drawn)")
                theirs = figures.get(("labelme", f"{what} {where}"))
                if theirs:
                    ratio = statistics.median(ours) / statistics.median(theirs)
                    line += (f"; labelme median {statistics.median(theirs):.1f} ms, p95 {percentile(theirs, .95):.1f}"
                             f" ms; ratio {ratio:.3f} ({1 / ratio:.1f}x faster)")
                print(line)
                emit(f"{what} step repaint at {label}, 4K screenshot, {n_boxes:,} boxes", statistics.median(ours), "ms",
                     peer=statistics.median(theirs) if theirs else None, peer_name="labelme 5.8.1" if theirs else "",
                     goal="<= 0.2x labelme (5x faster)",
                     met=(statistics.median(ours) <= 0.2 * statistics.median(theirs)) if theirs else None,
                     runs=len(ours), load=load, note=f"captions on, {info['captions']} drawn: none with over {CAPTION_LIMIT} boxes in view",
                     command="benchmarks/canvas.py")


def window_on(project_dir: Path):
    """The real main window, shown offscreen, with the project open; and the ms opening it took."""
    from PySide6.QtWidgets import QApplication

    from desktop_app.settings import Settings
    from desktop_app.ui.main_window import MainWindow

    window = MainWindow(Settings(annotator="bench", show_suggestions=False))
    window.resize(1600, 1000)
    window.show()
    t0 = time.perf_counter()
    window.open_project(project_dir)
    QApplication.processEvents()
    return window, (time.perf_counter() - t0) * 1000


def next_screen_times(window, start: int, steps: int = 60) -> list[float]:
    """ms of each step to the next row from row `start`: the episode loaded, its boxes and image, the view painted."""
    from PySide6.QtWidgets import QApplication

    window.browser.select_row(start)
    QApplication.processEvents()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        window.browser.step(1)
        window.view.viewport().repaint()
        times.append((time.perf_counter() - t0) * 1000)
    return times


def switch_benchmark(n_screens: int) -> None:
    from desktop_app.formats.transfer import import_path
    from desktop_app.store.project import Project

    from benchmarks.import_scale import generate

    work = Path(tempfile.mkdtemp(prefix="screenlab-canvas-"))
    os.environ["SCREENLAB_CONFIG_DIR"] = str(work / "cfg")
    try:
        source = generate(work / "source", n_screens, size=(1280, 800))
        with Project.init(work / "p") as project:
            import_path(project, source, "screenlab")
        window, open_ms = window_on(work / "p")
        print(f"open a {n_screens:,}-screen project in the window: {open_ms:.0f} ms")
        for label, start in (("start of the list", 0), ("middle of the list", n_screens // 2)):
            times = next_screen_times(window, start)
            print(f"next screen ({label}, 1280x800 image, load + boxes + paint): median "
                  f"{statistics.median(times):.1f} ms, p95 {percentile(times, .95):.1f} ms  goal <= 50 ms")
            emit(f"next screen in a {n_screens:,}-screen project ({label}; 1280x800, load + boxes + paint)",
                 statistics.median(times), "ms", goal="<= 50 ms", met=statistics.median(times) <= 50, runs=len(times),
                 note=f"p95 {percentile(times, .95):.1f} ms", command="benchmarks/canvas.py")
        window.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boxes", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=5, help="rounds, each program in turn")
    parser.add_argument("--steps", type=int, default=20, help="zoom or pan steps per round")
    parser.add_argument("--screens", type=int, default=100_000)
    parser.add_argument("--labelme-python", default=LABELME_PYTHON, help="python of a venv holding labelme")
    args = parser.parse_args()
    peer = args.labelme_python if Path(args.labelme_python).exists() else None
    canvas_benchmark(args.boxes, args.runs, args.steps, peer)
    from PySide6.QtWidgets import QApplication

    QApplication.instance() or QApplication([])
    switch_benchmark(args.screens)


if __name__ == "__main__":
    main()
