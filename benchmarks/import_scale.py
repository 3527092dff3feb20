"""Import and query a project of 100,000 screens.

    .venv/bin/python benchmarks/import_scale.py [--n 100000] [--keep DIR]

Prints: import time, time to open the project and count episodes, time to list
the first 100 episodes filtered by label, and the same "open + count" done by a
fresh `screenlab info` process (which includes Python start-up and imports).
Goals on a 2-core machine: open + count <= 1 s, filtered page <= 100 ms.
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from desktop_app.formats.transfer import import_path  # noqa: E402
from desktop_app.store.project import Project  # noqa: E402
from desktop_app.store.queries import EpisodeFilter, count_episodes, list_episodes  # noqa: E402

LABEL_CYCLE = (("gold",), ("gold", "other"), ("gold", "distracted"), ("other",), ("gold", "distracted", "other"))


def _tiny_png(i: int) -> bytes:
    # 4x4 pixels whose colours spell the index: every image is different
    im = Image.new("RGB", (4, 4))
    im.putdata([((i >> 16) & 255, (i >> 8) & 255, i & 255)] * 15 + [(k, k, k) for k in (i % 7,)])
    buf = io.BytesIO()
    im.save(buf, format="PNG")
    return buf.getvalue()


def _screen_png(i: int, size: tuple[int, int]) -> bytes:
    """A screenshot-sized picture with UI-like blocks, different for every i."""
    from PIL import ImageDraw

    im = Image.new("RGB", size, (244, 245, 247))
    draw = ImageDraw.Draw(im)
    for k in range(40):
        x, y = (i * 37 + k * 131) % size[0], (i * 53 + k * 97) % size[1]
        draw.rectangle([x, y, x + 120, y + 36], fill=((i + k * 40) % 256, (k * 70) % 256, (i * 3) % 256))
        draw.text((x + 6, y + 10), f"button {i}.{k}", fill=(255, 255, 255))
    buf = io.BytesIO()
    im.save(buf, format="PNG")
    return buf.getvalue()


def generate(folder: Path, n: int, size: tuple[int, int] | None = None, distinct: int = 300) -> Path:
    """n episodes; with `size`, screenshot-sized images shared in a pool of `distinct` (goals share screens)."""
    (folder / "images").mkdir(parents=True)
    with open(folder / "episodes.jsonl", "w") as fh:
        for i in range(n):
            if size is None:
                name = f"images/{i:06d}.png"
                (folder / name).write_bytes(_tiny_png(i))
            else:
                name = f"images/{i % distinct:06d}.png"
                if i < distinct:
                    (folder / name).write_bytes(_screen_png(i, size))
            labels = LABEL_CYCLE[i % len(LABEL_CYCLE)]
            actions = [{"box": [0, 0, 2 + k % 2, 2], "label": lab, "element_text": f"button {k}"}
                       for k, lab in enumerate(labels)]
            fh.write(json.dumps({"id": f"ep-{i:06d}", "goal": f"goal number {i}", "scenario": "popup",
                                 "steps": [{"image": name, "actions": actions}]}) + "\n")
    return folder


def timed(fn, repeat=1):
    times = []
    result = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return result, times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, help="keep the project in this folder")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="screenlab-bench-"))
    try:
        t0 = time.perf_counter()
        source = generate(work / "source", args.n)
        print(f"generated {args.n:,} images + episodes.jsonl in {time.perf_counter() - t0:.1f} s")

        project_dir = args.keep or work / "project"
        with Project.init(project_dir) as project:
            report, (t_import,) = timed(lambda: import_path(project, source, "screenlab"))
        print(f"import: {t_import:.1f} s ({args.n / t_import:,.0f} screens/s), "
              f"{report.episodes:,} episodes, {sum(report.boxes.values()):,} actions")

        def open_and_count():
            with Project.open(project_dir) as p, p.reading() as s:
                return count_episodes(s)

        count, opens = timed(open_and_count, repeat=5)
        print(f"open project + count {count:,} episodes: median {statistics.median(opens) * 1000:.0f} ms "
              f"(first {opens[0] * 1000:.0f} ms)  goal <= 1000 ms")

        with Project.open(project_dir) as p, p.reading() as s:
            for label in ("distracted", "other"):
                flt = EpisodeFilter(has_label=label)
                page, pages = timed(lambda flt=flt: list_episodes(s, flt, 0, 100), repeat=20)
                deep, deeps = timed(lambda flt=flt: list_episodes(s, flt, 20_000, 100), repeat=5)
                print(f"first 100 episodes with a '{label}' action: median {statistics.median(pages) * 1000:.1f} ms, "
                      f"max {max(pages) * 1000:.1f} ms ({len(page)} rows)  goal <= 100 ms; "
                      f"page at offset 20,000: {statistics.median(deeps) * 1000:.1f} ms")

        exe = Path(sys.executable).with_name("screenlab")
        cmd = [str(exe), "info", str(project_dir), "--json"] if exe.exists() else \
            [sys.executable, "-m", "desktop_app", "info", str(project_dir), "--json"]
        _, cold = timed(lambda: subprocess.run(cmd, check=True, capture_output=True), repeat=3)
        print(f"fresh process `screenlab info` (start-up + open + all counts): median {statistics.median(cold):.2f} s")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
