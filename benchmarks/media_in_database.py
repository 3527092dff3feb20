"""Images kept in the database against images in a shared folder, on a real PostgreSQL server.

    .venv/bin/python benchmarks/media_in_database.py [--screens 200] [--repeat 5]

Starts a throw-away PostgreSQL cluster (tests/pg_server.py, the test suite's fsync=off settings) and makes
two projects on it, one with a media folder and one with its images in the database (Project.init
media_in_database=True). The same N screenshots (1280x800 PNG with noise, ~1-3 MB, the size of a real
screenshot) are imported into each with the real importer. Measured, with the 1-minute load beside each
figure:
1. Import of the folder, whole (checks, copies or blob inserts, rows). Median of --repeat fresh projects.
2. Showing a screen the way the canvas does (Project.image_path, then reading the file):
   a) folder project; b) database project on a machine that has not seen it (cold cache: one fetch from
   the server, written to the local cache); c) database project, second view (warm cache).
   Median and p95 over the N screens, each measured once per repeat.
Ratios are database / folder (above 1: the database is slower).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

from desktop_app.formats.transfer import import_path  # noqa: E402
from desktop_app.store.models import Screen  # noqa: E402
from desktop_app.store.orm import select  # noqa: E402
from desktop_app.store.project import Project  # noqa: E402


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def make_shots(folder: Path, n: int) -> int:
    folder.mkdir(parents=True)
    rng = np.random.default_rng(7)
    total = 0
    for i in range(n):
        pixels = rng.integers(0, 255, (800, 1280, 3), dtype=np.uint8)
        pixels[:, :, 0] //= 4  # some structure, so PNG compresses like a screenshot with photos
        path = folder / f"shot{i:04d}.png"
        Image.fromarray(pixels).save(path, compress_level=1)
        total += path.stat().st_size
    return total


def import_once(server, shots: Path, work: Path, in_database: bool, k: int) -> tuple[float, str]:
    url = server.new_database()
    media = None if in_database else work / f"media{k}"
    project = Project.init(url, media, media_in_database=in_database)
    began = time.perf_counter()
    import_path(project, shots, "images")
    seconds = time.perf_counter() - began
    project.close()
    return seconds, url


def view_times(url: str, media: Path | None) -> list[float]:
    times = []
    with Project.open(url, media) as project:
        with project.reading() as s:
            screens = s.execute(select(Screen).order_by(Screen.id)).scalars().all()
        for screen in screens:
            began = time.perf_counter()
            project.image_path(screen).read_bytes()
            times.append(time.perf_counter() - began)
    return times


def summary(times: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"median {statistics.median(times) * 1000:.2f} ms, p95 {p95 * 1000:.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--screens", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "tests"))
    from pg_server import PgServer

    work = Path(tempfile.mkdtemp(prefix="screenlab-media-db-"))
    os.environ.setdefault("SCREENLAB_CONFIG_DIR", str(work / "config"))
    server = PgServer().start()
    try:
        server.wait_ready()
        size = make_shots(work / "shots", args.screens)
        print(f"{args.screens} screenshots 1280x800, {size / args.screens / 1e6:.2f} MB each on average")
        imports = {False: [], True: []}
        views = {"folder": [], "database, cold": [], "database, warm": []}
        for k in range(args.repeat):
            for in_database in (False, True):
                seconds, url = import_once(server, work / "shots", work, in_database, k)
                imports[in_database].append((seconds, load()))
                if in_database:
                    os.environ["SCREENLAB_DATA_DIR"] = str(work / f"machine{k}")  # a machine with no cache
                    views["database, cold"].append((view_times(url, None), load()))
                    views["database, warm"].append((view_times(url, None), load()))
                else:
                    views["folder"].append((view_times(url, work / f"media{k}"), load()))
        print("\n1. import the folder (median of fresh projects):")
        folder_s = statistics.median(s for s, _ in imports[False])
        db_s = statistics.median(s for s, _ in imports[True])
        for name, runs in (("folder", imports[False]), ("database", imports[True])):
            print(f"   {name:<9} {statistics.median(s for s, _ in runs):6.2f} s  "
                  f"({statistics.median(s for s, _ in runs) / args.screens * 1000:.1f} ms per screen)  "
                  + ", ".join(f"{s:.2f} s {ld}" for s, ld in runs))
        print(f"   ratio database / folder: {db_s / folder_s:.2f}")
        print("\n2. show a screen (image_path + read), every screen, all repeats pooled:")
        medians = {}
        for name, runs in views.items():
            pooled = [t for times, _ in runs for t in times]
            medians[name] = statistics.median(pooled)
            print(f"   {name:<15} {summary(pooled)}  ({'; '.join(ld for _, ld in runs)})")
        for name in ("database, cold", "database, warm"):
            print(f"   ratio {name} / folder: {medians[name] / medians['folder']:.2f}")
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
