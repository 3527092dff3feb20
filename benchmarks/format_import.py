"""Importing the field's files at their real size (issue 18): time and memory.

    .venv/bin/python benchmarks/format_import.py [--runs 3] [--aitw-steps 10000 100000] [--skip-mind2web]
                                                 [--skip-aitw] [--profile]

(a) Mind2Web as SeeClick releases it: tests/data/real_formats/seeclick_mind2web_data_test_task.json.xz (252 tasks,
    2,094 actions) with a placeholder JPEG for every action that has a bbox, in mind2web_imgs/ beside it, each
    picture different (SeeClick's crops are 1280 x 1000; the few boxes that reach below or right of that get a
    picture tall or wide enough to hold them, as their page cut was). One box starts left of any picture (x -63)
    and ingest rightly refuses it: the copy imported here has it at x 0, said in the output. Timed: the import
    into a fresh project, median of --runs; its peer, measured in the same run: the same pictures as a plain
    `images` folder (what reading, hashing and storing them costs whatever the format). Goal <= 5 s.
    --profile adds cProfile's top 10 (cumulative) of one import.
(b) AITW as SeeClick releases it (aitw_data_train.json + aitw_data_test.json, 8 steps an episode, 24 elements of
    annot_position a step) at each of --aitw-steps, imported in a child process that reports its peak resident
    memory (VmHWM); a child that opens the project and imports nothing is the floor. The screenshots are one
    1080 x 2400 PNG (1-bit: cheap to decode) hard-linked under every name the JSON gives (a copy for every
    50,000 names: ext4 allows 65,000 links to a file): every name is read,
    checked and hashed, but the project stores one media file. Goal: the peak does not grow with the file.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import lzma
import os
import pstats
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from PIL import Image, ImageDraw

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from desktop_app.formats.ingest import ImportOptions  # noqa: E402
from desktop_app.formats.transfer import import_path  # noqa: E402
from desktop_app.store.project import Project  # noqa: E402

MIND2WEB = ROOT / "tests" / "data" / "real_formats" / "seeclick_mind2web_data_test_task.json.xz"  # the release, xz
CROP = (1280, 1000)  # SeeClick's Mind2Web screenshots
PHONE = (1080, 2400)
STEPS_PER_EPISODE = 8
LINKS_PER_FILE = 50_000
CATEGORIES = ("general", "single", "webshopping", "install", "googleapps")


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


# ---------------------------------------------------------------- (a) Mind2Web, SeeClick's release

def _crop_jpeg(n: int, size: tuple[int, int]) -> bytes:
    """A page-like picture, different for every n (a block placed by n), as a real crop decodes."""
    im = Image.new("RGB", size, (246, 246, 248))
    draw = ImageDraw.Draw(im)
    for k in range(12):
        x, y = (n * 37 + k * 151) % (size[0] - 200), (n * 53 + k * 89) % (size[1] - 40)
        draw.rectangle([x, y, x + 180, y + 32], fill=((n + k * 40) % 256, (k * 70) % 256, (n * 3) % 256))
    draw.text((10, 10), f"screenshot {n}", fill=(0, 0, 0))
    out = io.BytesIO()
    im.save(out, format="JPEG", quality=85)
    return out.getvalue()


def make_mind2web(folder: Path) -> tuple[Path, int, list[str]]:
    """The release's file beside mind2web_imgs/; (file, pictures written, what was changed)."""
    tasks = json.loads(lzma.decompress(MIND2WEB.read_bytes()).decode("utf-8"))
    images = folder / "mind2web_imgs"
    images.mkdir(parents=True)
    changed, count = [], 0
    for t, task in enumerate(tasks):
        for a, action in enumerate(task["actions"]):
            box = action.get("bbox")
            if box is None:  # SeeClick has no picture for these either: left out, named in the episode's meta
                continue
            if box["x"] < 0 or box["y"] < 0:  # imported with --clip-boxes (ImportOptions.clip_boxes), as a user must
                changed.append(f"[{t}].actions[{a}].bbox starts at x {box['x']:g}, y {box['y']:g}: cut at the edge, or left out if wholly outside")
            size = (max(CROP[0], int(box["x"] + box["width"]) + 1), max(CROP[1], int(box["y"] + box["height"]) + 1))
            name = f"{task['annotation_id']}-{action['action_uid']}.jpg"
            (images / name).write_bytes(_crop_jpeg(count, size))
            count += 1
    path = folder / MIND2WEB.name.removeprefix("seeclick_").removesuffix(".xz")
    path.write_text(json.dumps(tasks), encoding="utf-8")
    return path, count, changed


def _timed_import(source: Path, fmt: str, project_dir: Path):
    shutil.rmtree(project_dir, ignore_errors=True)
    with Project.init(project_dir) as project:
        t0 = time.perf_counter()
        report = import_path(project, source, fmt, ImportOptions(clip_boxes=True))
        return time.perf_counter() - t0, report


def bench_mind2web(work: Path, runs: int, profile: bool) -> None:
    path, pictures, changed = make_mind2web(work / "m2w")
    print(f"(a) Mind2Web (SeeClick's release): {MIND2WEB.name}, {pictures:,} placeholder JPEGs in mind2web_imgs/")
    for line in changed:
        print(f"    imported with clip_boxes (--clip-boxes): {line}")
    times, peers, loads = [], [], []
    report = None
    for _ in range(runs):
        seconds, report = _timed_import(path, "mind2web-seeclick", work / "project")
        times.append(seconds)
        loads.append(os.getloadavg()[0])
        peers.append(_timed_import(path.parent / "mind2web_imgs", "images", work / "project")[0])
    median, peer = statistics.median(times), statistics.median(peers)
    print(f"    {report.episodes} episodes, {report.steps:,} steps, {report.screens_new:,} screens, "
          f"{sum(report.boxes.values()):,} actions")
    print(f"    import into a fresh project: median {median:.2f} s of {runs} "
          f"({', '.join(f'{t:.2f}' for t in times)}), load {statistics.median(loads):.2f}  goal <= 5 s")
    print(f"    peer, the same {pictures:,} pictures as an `images` folder: median {peer:.2f} s; "
          f"ratio {median / peer:.2f}")
    if profile:
        shutil.rmtree(work / "project", ignore_errors=True)
        with Project.init(work / "project") as project:
            profiler = cProfile.Profile()
            profiler.runcall(import_path, project, path, "mind2web-seeclick")
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(10)
        print("    cProfile, top 10 by cumulative time (one import, under the profiler):")
        lines = out.getvalue().splitlines()
        start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("ncalls"))
        for line in lines[start:start + 11]:
            print("      " + line.rstrip())
        tottime = io.StringIO()
        pstats.Stats(profiler, stream=tottime).sort_stats("tottime").print_stats(10)
        lines = tottime.getvalue().splitlines()
        start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("ncalls"))
        print("    cProfile, top 10 by own time:")
        for line in lines[start:start + 11]:
            print("      " + line.rstrip())


# ---------------------------------------------------------------- (b) AITW, SeeClick's release

def _phone_png() -> bytes:
    """A phone screenshot's size in black and white: a 1-bit PNG decodes in ~1 ms, an RGB one in ~40, which
    would be the whole of an import's time at 100,000 steps (and this measures memory)."""
    im = Image.new("1", PHONE, 1)
    draw = ImageDraw.Draw(im)
    for k in range(20):
        draw.rectangle([40, 200 + k * 100, 1040, 270 + k * 100], outline=0, width=3)
        draw.text((60, 220 + k * 100), f"setting {k}", fill=0)
    out = io.BytesIO()
    im.save(out, format="PNG")
    return out.getvalue()


def make_aitw(folder: Path, steps: int) -> tuple[Path, int]:
    """aitw_data_train.json and aitw_data_test.json (4 in 5 episodes in train) and aitw_images/; (folder, bytes)."""
    rng = random.Random(steps)
    images = folder / "aitw_images"
    for category in CATEGORIES:
        (images / category).mkdir(parents=True)
    picture = _phone_png()
    links = 0
    episodes = steps // STEPS_PER_EPISODE
    first = {(split, c): True for split in ("train", "test") for c in CATEGORIES}
    with ExitStack() as stack:
        files = {split: stack.enter_context(open(folder / f"aitw_data_{split}.json", "w", encoding="utf-8"))
                 for split in ("train", "test")}
        for fh in files.values():
            fh.write("{")
        # episodes grouped by category, as the release writes them
        for c, category in enumerate(CATEGORIES):
            for split, fh in files.items():
                fh.write(("" if c == 0 else ", ") + json.dumps(category) + ": [")
                for e in range(episodes):
                    if e % len(CATEGORIES) != c or (split == "test") != (e // len(CATEGORIES) % 5 == 4):
                        continue
                    episode = []
                    for s in range(STEPS_PER_EPISODE):
                        name = f"{category}/{e:07d}_{s}"
                        if links % LINKS_PER_FILE == 0:  # a file takes at most 65,000 names on ext4
                            original = folder / f"screen-{links // LINKS_PER_FILE}.png"
                            original.write_bytes(picture)
                        os.link(original, images / f"{name}.png")
                        links += 1
                        code = 4 if s < STEPS_PER_EPISODE - 1 else 10
                        touch = [round(rng.random(), 4), round(rng.random(), 4)]
                        episode.append({
                            "img_filename": name, "goal": f"open the settings and do task number {e}",
                            "ep_id": f"{1000000000 + e}", "step": s, "action_type_id": code,
                            "action_type_text": "click" if code == 4 else "status task complete",
                            "touch": touch if code == 4 else [-1.0, -1.0],
                            "lift": touch if code == 4 else [-1.0, -1.0], "type_text": "",
                            "annot_position": [round(rng.random(), 4) for _ in range(24 * 4)]})
                    fh.write(("" if first[(split, category)] else ", ") + json.dumps(episode))
                    first[(split, category)] = False
                fh.write("]")
        for fh in files.values():
            fh.write("}")
    for original in folder.glob("screen-*.png"):
        original.unlink()
    return folder, sum(f.stat().st_size for f in folder.glob("*.json"))


def _peak_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def child(source: str, project_dir: str) -> None:
    """Run in a fresh process: import (or, with source '-', only open the project) and print what it took."""
    with Project.init(Path(project_dir)) as project:
        t0 = time.perf_counter()
        report = import_path(project, Path(source), "aitw") if source != "-" else None
        seconds = time.perf_counter() - t0
    print(json.dumps({"seconds": seconds, "peak_kb": _peak_kb(),
                      "steps": report.steps if report else 0, "screens": report.screens_new if report else 0}))


def _run_child(source: str, project_dir: Path) -> dict:
    shutil.rmtree(project_dir, ignore_errors=True)
    done = subprocess.run([sys.executable, __file__, "--child", source, str(project_dir)], check=True,
                          capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def bench_aitw(work: Path, sizes: list[int]) -> None:
    print(f"(b) AITW (SeeClick's release), {STEPS_PER_EPISODE} steps an episode; every screenshot is one "
          f"{PHONE[0]} x {PHONE[1]} PNG hard-linked under each name: every name is read and checked, one media "
          "file is stored")
    floor = _run_child("-", work / "aitw-project")
    print(f"    floor (a child that opens the project, imports nothing): peak RSS {floor['peak_kb'] / 1024:.0f} MB, "
          f"{load()}")
    peaks = {}
    for steps in sizes:
        folder, size = make_aitw(work / f"aitw-{steps}", steps)
        result = _run_child(str(folder), work / "aitw-project")
        peaks[steps] = result["peak_kb"]
        print(f"    {result['steps']:,} steps ({size / 1e6:.0f} MB of JSON): import {result['seconds']:.1f} s "
              f"({result['steps'] / result['seconds']:,.0f} steps/s), peak RSS {result['peak_kb'] / 1024:.0f} MB "
              f"({(result['peak_kb'] - floor['peak_kb']) / 1024:.0f} MB over the floor), "
              f"{result['screens']} media file stored, {load()}")
        shutil.rmtree(folder, ignore_errors=True)
    if len(peaks) > 1:
        small, big = min(peaks), max(peaks)
        print(f"    peak at {big:,} steps / peak at {small:,}: {peaks[big] / peaks[small]:.2f} "
              f"(over the floor: {(peaks[big] - floor['peak_kb']) / max(peaks[small] - floor['peak_kb'], 1):.2f})")


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3])
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--aitw-steps", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--skip-mind2web", action="store_true")
    parser.add_argument("--skip-aitw", action="store_true")
    parser.add_argument("--profile", action="store_true", help="cProfile's top 10 of one Mind2Web import")
    args = parser.parse_args()
    print(f"format import benchmark, {os.cpu_count()} cores, {load()}")
    work = Path(tempfile.mkdtemp(prefix="screenlab-format-import-"))
    try:
        if not args.skip_mind2web:
            bench_mind2web(work, args.runs, args.profile)
        if not args.skip_aitw:
            bench_aitw(work, args.aitw_steps)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
