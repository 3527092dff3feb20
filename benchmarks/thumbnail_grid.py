"""The sample grid (ui/thumbnail_grid.py) on 100,000 screens: scrolling it top to bottom.

    .venv/bin/python benchmarks/thumbnail_grid.py [--screens 100000] [--distinct 200] [--steps 0] [--runs 3]
                                                  [--side 160]

Builds a project of N single-step samples, each on its own screen row (its own sha256), with SQLAlchemy Core
bulk inserts after Project.init (importing 100,000 PNGs takes minutes), in a child process (so its row lists
are not this process's peak RSS). The media files are real 1280x800 PNGs with text on them (their size and decode
time are printed): --distinct of them drawn once, every screen's file a hard link to one of them, so each screen is
a separate image to decode while the disk holds only a few. Three samples in four have boxes (gold,
distracted, other), so the grid paints label marks.

Then the window's sample list (SampleBrowser) beside a ThumbnailGrid on its model, in an offscreen
QApplication at 1400x900, and the grid scrolled from the top to the bottom in steps of one viewport height
(--steps N: N equal steps instead). A frame is the time from setting the scroll bar's value to the end of
a synchronous viewport().repaint(): the grid's geometry, the list model's and the grid's page queries when
rows come on show from a page not read yet, the thumbnail lookups and the painting. Between frames 4 ms of
events are let through (not timed), in which decoded thumbnails arrive, as while a user scrolls. Each of
--runs runs opens a new list and grid (empty caches); medians are over runs.

Prints, with the 1-minute load average beside each figure (a 2-core machine shared with other work):
median and p95 frame time and the frames per second they imply (goal >= 50 fps); the frames split by what
else they did (reading a new page of rows; Python's full garbage collection); how many images were decoded
per run (what came on show and was still on show when the decoder got to it, not the project's size); and
the peak RSS.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import multiprocessing as mp
import os
import random
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from PIL import Image, ImageDraw  # noqa: E402

from desktop_app.store.models import ActionBox, Episode, Screen, Step  # noqa: E402
from desktop_app.store.project import Project  # noqa: E402
from desktop_app.store.types import utcnow  # noqa: E402

LABEL_SETS = ((), ("gold",), ("gold", "distracted"), ("other", "distracted", "gold"))
SIZE = (1280, 800)
FRAME_GOAL_FPS = 50


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def load() -> float:
    return os.getloadavg()[0]


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


# -- building the project ---------------------------------------------------------------------------------
def screenshot(i: int, path: Path) -> None:
    """A screen-like PNG: a coloured header and panels, different for each i (so thumbnails differ)."""
    rng = random.Random(i)
    image = Image.new("RGB", SIZE, (rng.randint(200, 255), rng.randint(200, 255), rng.randint(200, 255)))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, SIZE[0], 70), fill=(rng.randint(0, 255), rng.randint(0, 120), rng.randint(0, 255)))
    for _ in range(40):
        x, y = rng.randint(0, SIZE[0] - 200), rng.randint(90, SIZE[1] - 60)
        draw.rectangle((x, y, x + rng.randint(40, 300), y + rng.randint(16, 120)),
                       fill=(rng.randint(0, 255), rng.randint(0, 255), rng.randint(0, 255)))
    for line in range(60):  # text: what makes a real screenshot's PNG large and slow to decode
        draw.text((rng.randint(10, 600), 80 + 12 * line), " ".join(f"word{rng.randint(0, 999)}" for _ in range(12)),
                  fill=(rng.randint(0, 90),) * 3)
    image.save(path)


def sha_of(i: int) -> str:
    return hashlib.sha256(f"bench-screen-{i}".encode()).hexdigest()


def rows(n: int) -> dict[str, list[dict]]:
    now = utcnow()
    screens = [{"id": i, "sha256": sha_of(i), "ext": "png", "width": SIZE[0], "height": SIZE[1],
                "platform": "web", "source": f"bench/{i:06d}.png", "meta": {}, "created_at": now}
               for i in range(1, n + 1)]
    episodes = [{"id": i, "key": f"ep-{i:06d}", "kind": "sample", "goal": f"goal number {i}", "scenario": "popup",
                 "split": "", "review_status": "unreviewed", "meta": {}, "created_at": now, "updated_at": now,
                 "updated_by": "", "version": 1} for i in range(1, n + 1)]
    steps = [{"id": i, "episode_id": i, "index": 0, "screen_id": i, "instruction": "", "meta": {}}
             for i in range(1, n + 1)]
    boxes = []
    for i in range(1, n + 1):
        for k, label in enumerate(LABEL_SETS[i % len(LABEL_SETS)]):
            boxes.append({"id": len(boxes) + 1, "step_id": i, "x1": 40 + 100 * k, "y1": 60, "x2": 130 + 100 * k,
                          "y2": 90, "label": label, "action_type": "click", "element_text": f"button {k}",
                          "type_text": "", "source": "import", "author": "bench", "meta": {}, "created_at": now,
                          "updated_at": now, "version": 1})
    return {"screen": screens, "episode": episodes, "step": steps, "action_box": boxes}


def build(folder: Path, n: int, distinct: int) -> Path:
    """The project folder: rows by Core bulk insert, each screen's file a hard link to one of `distinct` PNGs."""
    originals = folder / "originals"
    originals.mkdir(parents=True)
    for k in range(distinct):
        screenshot(k, originals / f"{k:04d}.png")
    with Project.init(folder / "project") as project:
        with project.engine.begin() as conn:
            data = rows(n)
            for model in (Screen, Episode, Step, ActionBox):
                table = model.__table__
                batch = data[table.name]
                for start in range(0, len(batch), 10_000):
                    conn.execute(table.insert(), batch[start:start + 10_000])
        for i in range(1, n + 1):
            target = project.media.path_for(sha_of(i), "png")
            target.parent.mkdir(exist_ok=True)
            os.link(originals / f"{i % distinct:04d}.png", target)
    return folder / "project"


def media_line(originals: Path, side: int) -> str:
    """The PNGs' mean size and the time one takes to decode into a thumbnail (what the decoder thread does)."""
    from PySide6.QtCore import QSize

    from desktop_app.ui.thumbnail_grid import read_thumbnail

    files = sorted(originals.glob("*.png"))[:20]
    t0 = time.perf_counter()
    for path in files:
        read_thumbnail(path, QSize(side, side * SIZE[1] // SIZE[0]))
    ms = (time.perf_counter() - t0) * 1000 / len(files)
    kb = statistics.mean(p.stat().st_size for p in originals.glob("*.png")) / 1024
    return f"media: PNGs of {kb:.0f} KB on average, {ms:.1f} ms each to decode into a thumbnail   (load {load():.2f})"


# -- scrolling ----------------------------------------------------------------------------------------------
def settle(app, seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.001)


def open_grid(app, project: Project, side: int):
    from PySide6.QtWidgets import QSplitter

    from desktop_app.ui.browser import SampleBrowser
    from desktop_app.ui.thumbnail_grid import ThumbnailGrid

    browser = SampleBrowser(project)
    grid = ThumbnailGrid(browser)
    grid.set_side(side)
    window = QSplitter()  # the list beside the grid, as in the main window
    window.addWidget(browser)
    window.addWidget(grid)
    window.resize(1400, 900)
    window.show()
    app.processEvents()
    window.setSizes([450, 950])
    settle(app, 0.5)
    return window, browser, grid


def last_thumbnail_shown(grid, last: int) -> bool:
    from PySide6.QtGui import QPixmap

    view = grid.view
    if not view.viewport().rect().contains(view.visualRect(view.model().index(last, 0))):
        return False
    ref = view.source.screen(last)
    return isinstance(grid.source.pixmap(ref, view.thumbnail_rect(last).size()), QPixmap)


class FrameWatch:
    """What else happened in a frame: the list's rows crossed into a page not on show before in this run (the
    list model's page query and first_screens' one), or Python's garbage collector ran a full collection."""

    def __init__(self):
        self.seen_pages: set[int] = set()
        self.full_gc = False
        gc.callbacks.append(self._gc)

    def _gc(self, phase: str, info: dict) -> None:
        if phase == "start" and info["generation"] == 2:
            self.full_gc = True

    def new_pages(self, rows: range) -> bool:
        from desktop_app.ui.browser import PAGE

        pages = set(range(rows.start // PAGE, (max(rows.stop, 1) - 1) // PAGE + 1))
        new = bool(pages - self.seen_pages)
        self.seen_pages |= pages
        return new

    def close(self) -> None:
        gc.callbacks.remove(self._gc)


def scroll_run(app, project: Project, steps: int, side: int) -> dict:
    """Scroll top to bottom: `steps` equal steps, or (0) steps of one viewport height all the way."""
    from PySide6.QtCore import QEvent

    window, browser, grid = open_grid(app, project, side)
    bar = grid.view.verticalScrollBar()
    viewport = grid.view.viewport().height()
    values = ([round(bar.maximum() * k / steps) for k in range(steps + 1)] if steps
              else [*range(0, bar.maximum(), viewport), bar.maximum()])
    watch = FrameWatch()
    watch.new_pages(grid.view.shown_rows())
    frames = []  # (ms, loaded a new page, ran a full gc)
    for value in values:
        watch.full_gc = False
        t0 = time.perf_counter()
        bar.setValue(value)
        grid.view.viewport().repaint()
        elapsed = (time.perf_counter() - t0) * 1000
        frames.append((elapsed, watch.new_pages(grid.view.shown_rows()), watch.full_gc))
        settle(app, 0.004)  # decoded thumbnails arrive between frames, as while a user scrolls
    watch.close()
    last = browser.model.rowCount() - 1
    deadline = time.perf_counter() + 5
    while not last_thumbnail_shown(grid, last) and time.perf_counter() < deadline:
        settle(app, 0.02)
    result = {"frames": frames, "times": [f[0] for f in frames], "decodes": grid.decodes, "max": bar.maximum(),
              "viewport": viewport, "per_row": grid.columns(), "shown_last": last_thumbnail_shown(grid, last),
              "rows": last + 1, "steps": len(values) - 1, "cached": len(grid.source.pixmaps),
              "cache_mb": grid.source.pixmaps.cost / 2**20}
    grid.shutdown()
    window.close()
    window.deleteLater()
    app.sendPostedEvents(None, QEvent.DeferredDelete)  # no event loop runs here to delete it
    gc.collect()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--screens", type=int, default=100_000)
    parser.add_argument("--distinct", type=int, default=200)
    parser.add_argument("--steps", type=int, default=0, help="equal steps top to bottom (0: one viewport each)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--side", type=int, default=160)
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="thumbgrid-bench-"))
    try:
        t0 = time.perf_counter()
        # built in a child process: its 100,000-row lists would otherwise be this process's peak RSS
        builder = mp.get_context("spawn").Process(target=build, args=(tmp, args.screens, args.distinct))
        builder.start()
        builder.join()
        if builder.exitcode:
            raise SystemExit(f"building the project failed ({builder.exitcode})")
        print(f"built {args.screens:,} screens ({args.distinct} distinct 1280x800 PNGs, hard-linked) in "
              f"{time.perf_counter() - t0:.1f} s   (load {load():.2f})")
        from PySide6.QtWidgets import QApplication

        app = QApplication.instance() or QApplication([])
        print(media_line(tmp / "originals", args.side))
        with Project.open(tmp / "project") as project:
            print(f"RSS with the project open, before the grid: {rss_mb():.0f} MB")
            runs = []
            for run in range(args.runs):
                result = scroll_run(app, project, args.steps, args.side)
                runs.append(result)
                print(f"run {run + 1}: {result['steps']} frames, median {statistics.median(result['times']):.1f} ms, "
                      f"p95 {percentile(result['times'], 0.95):.1f} ms, max {max(result['times']):.1f} ms, "
                      f"{result['decodes']} decodes, {result['cached']} thumbnails cached "
                      f"({result['cache_mb']:.0f} MB)   (load {load():.2f})")
        report(args, runs)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def frame_line(label: str, times: list[float]) -> str:
    if not times:
        return f"  {label}: none"
    return (f"  {label}: {len(times)}, median {statistics.median(times):.1f} ms, "
            f"p95 {percentile(times, 0.95):.1f} ms, max {max(times):.1f} ms")


def report(args, runs: list[dict]) -> None:
    first = runs[0]
    medians = [statistics.median(r["times"]) for r in runs]
    p95s = [percentile(r["times"], 0.95) for r in runs]
    median, p95 = statistics.median(medians), statistics.median(p95s)
    print(f"\n{first['rows']:,} samples, {first['per_row']} thumbnails a row at {args.side} px, "
          f"scroll range {first['max']:,} px in {first['steps']} steps of {first['max'] / first['steps']:,.0f} px "
          f"(viewport {first['viewport']} px)")
    print(f"frame time, median of {len(runs)} runs' medians: {median:.1f} ms   (load {load():.2f})")
    print(f"frame time, median of {len(runs)} runs' p95:     {p95:.1f} ms   (load {load():.2f})")
    print(f"frames per second at the median: {1000 / median:.0f}, at the p95: {1000 / p95:.0f}   "
          f"(goal >= {FRAME_GOAL_FPS})   (load {load():.2f})")
    frames = [f for r in runs for f in r["frames"]]
    print("frames of all runs, by what else they did:")
    print(frame_line("only painting (pages already read)", [t for t, page, full in frames if not page and not full]))
    print(frame_line("reading a new page of 200 rows", [t for t, page, full in frames if page and not full]))
    print(frame_line("with a full garbage collection", [t for t, _, full in frames if full]))
    print(f"images decoded per run: {[r['decodes'] for r in runs]} (of {first['rows']:,} screens; "
          f"{first['steps'] + 1} frames a run)   (load {load():.2f})")
    print(f"last thumbnail on show after scrolling: {all(r['shown_last'] for r in runs)}")
    print(f"peak RSS: {peak_rss_mb():.0f} MB   (load {load():.2f})")


if __name__ == "__main__":
    main()
