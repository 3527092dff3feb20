"""Canvas speed: 5,000 boxes on a 3840x2160 screenshot, and screen switching at 100,000 screens.

    .venv/bin/python benchmarks/canvas.py [--boxes 5000] [--screens 100000]

Prints the median and 95th-percentile time to repaint the view after a zoom step
and after a pan step (goal: <= 16 ms median), and the time to switch to the next
screen in a project of --screens episodes (goal: <= 50 ms). Runs offscreen with
Qt's raster painter, the same painter the desktop uses for widgets.
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

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QRectF  # noqa: E402
from PySide6.QtGui import QColor, QImage, QPainter  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402


class FakeBox:  # the scene reads these attributes from ActionBox rows
    def __init__(self, i, x1, y1, x2, y2, label, text):
        self.id, self.x1, self.y1, self.x2, self.y2, self.label, self.element_text = i, x1, y1, x2, y2, label, text


def screenshot_4k() -> QImage:
    image = QImage(3840, 2160, QImage.Format_RGB32)
    image.fill(QColor("#f4f5f7"))
    painter = QPainter(image)
    rng = random.Random(1)
    for _ in range(3000):  # busy UI-like content, so the pyramid is not trivially flat
        painter.fillRect(QRectF(rng.uniform(0, 3800), rng.uniform(0, 2120), rng.uniform(20, 300), rng.uniform(10, 60)),
                         QColor(rng.randint(0, 255), rng.randint(0, 255), rng.randint(0, 255)))
    painter.end()
    return image


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def repaint_times(view, steps, action) -> list[float]:
    times = []
    for i in range(steps):
        action(i)
        t0 = time.perf_counter()
        view.viewport().repaint()  # synchronous: the whole paint of the view
        times.append((time.perf_counter() - t0) * 1000)
    return times


def canvas_benchmark(n_boxes: int) -> None:
    from desktop_app.ui.canvas.scene import AnnotationScene
    from desktop_app.ui.canvas.view import CanvasView

    scene = AnnotationScene()
    view = CanvasView(scene)
    view.resize(1600, 1000)
    view.show()
    rng = random.Random(2)
    boxes = []
    for i in range(n_boxes):
        x, y = rng.uniform(0, 3700), rng.uniform(0, 2100)
        boxes.append(FakeBox(i + 1, x, y, x + rng.uniform(20, 140), y + rng.uniform(12, 50),
                             rng.choice(("gold", "distracted", "other")), f"element {i}"))
    t0 = time.perf_counter()
    scene.load(screenshot_4k(), 3840, 2160, boxes)
    print(f"load 4K screenshot + {n_boxes:,} boxes into the scene: {(time.perf_counter() - t0) * 1000:.0f} ms")
    QApplication.processEvents()
    for label, start_scale in (("fit (all boxes visible)", None), ("100 % zoom", 1.0)):
        if start_scale is None:
            view.fit()
        else:
            view.set_scale(start_scale, anchor_mouse=False)
        base = view.scale_factor()
        QApplication.processEvents()
        zoom = repaint_times(view, 40, lambda i, b=base: view.set_scale(b * (1.25 if i % 2 == 0 else 1.0),
                                                                        anchor_mouse=False))
        view.set_scale(base * 1.25 if start_scale is None else base, anchor_mouse=False)
        bar = view.horizontalScrollBar()
        pan = repaint_times(view, 40, lambda i, bar=bar: bar.setValue(bar.value() + (40 if i % 2 == 0 else -40)))
        visible = len([i for i in scene.items(view.mapToScene(view.viewport().rect()).boundingRect())])
        print(f"{label}: zoom step repaint median {statistics.median(zoom):.1f} ms, p95 {percentile(zoom, .95):.1f} ms; "
              f"pan step median {statistics.median(pan):.1f} ms, p95 {percentile(pan, .95):.1f} ms "
              f"({visible:,} items in view)  goal <= 16 ms median")


def window_on(project_dir: Path):
    """The real main window, shown offscreen, with the project open; and the ms opening it took."""
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
        window.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--boxes", type=int, default=5000)
    parser.add_argument("--screens", type=int, default=100_000)
    args = parser.parse_args()
    QApplication.instance() or QApplication([])
    canvas_benchmark(args.boxes)
    switch_benchmark(args.screens)


if __name__ == "__main__":
    main()
