"""Peak memory of a process that loads an OCR engine and reads 20 screens.

    .venv/bin/python benchmarks/ocr_memory.py [--engine rapidocr] [--options '{"det_scale": 1.0}'] [--screens 20]
                                              [--runs 3]

Renders the first --screens screens of datasets/demo_spec.json to PNG files, then starts a
fresh Python process per run that imports the OCR package, loads the engine and runs the
app's whole pipeline (pipeline.analyse_image: read, refine, proposals) on each file, the way
the window's OCR worker does. Each child reports its resident memory (RSS) after the
imports, after loading the engine and its peak (ru_maxrss) after the last screen. Printed:
the medians over --runs children, and the OCR share (peak minus the RSS after imports). The
window reads through its OCR process (ADR 0027), so the child's peak is that process's peak
(ADR 0059); benchmarks/window_memory.py measures the two processes together.
A child is a fresh process because peak RSS never goes down within one.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SPEC = ROOT / "datasets" / "demo_spec.json"


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _peak_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def child(folder: Path, engine: str, options: dict) -> None:
    from desktop_app.ocr.pipeline import analyse_image, load_rgb  # what the worker imports: not the store
    from desktop_app.ocr.registry import get_engine

    imported = _rss_mb()
    ocr = get_engine(engine, "en", **options)
    loaded = _rss_mb()
    files = sorted(folder.glob("*.png"))
    words = 0
    for f in files:
        found, _ = analyse_image(load_rgb(f), ocr)
        words += len(found)
    print(json.dumps({"imported": imported, "loaded": loaded, "peak": _peak_mb(), "after": _rss_mb(),
                      "screens": len(files), "words": words}))


def render(folder: Path, count: int) -> list[tuple[int, int]]:
    from desktop_app.render.renderer import VIEWPORTS, Renderer
    from desktop_app.synth.templates import render_html

    sizes = []
    with Renderer() as renderer:
        for i, entry in enumerate(json.loads(SPEC.read_text(encoding="utf-8"))[:count]):
            viewport = VIEWPORTS[entry["viewport"]]
            out = renderer.render(render_html(entry["scenario"], entry["content"], viewport), viewport)
            (folder / f"{i:03d}.png").write_bytes(out.png)
            sizes.append((out.width, out.height))
    return sizes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", default="rapidocr")
    parser.add_argument("--options", default="{}", help="JSON engine options, e.g. '{\"det_scale\": 1.0}'")
    parser.add_argument("--screens", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3, help="fresh processes measured (medians are printed)")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    options = json.loads(args.options)
    if args.child is not None:
        child(args.child, args.engine, options)
        return 0

    from desktop_app.ocr.registry import available

    ok, reason = available(args.engine, "en", **options)
    if not ok:
        print(f"{args.engine}: skipped: {reason}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        sizes = render(Path(tmp), args.screens)
        counts: dict[str, int] = {}
        for w, h in sizes:
            counts[f"{w}x{h}"] = counts.get(f"{w}x{h}", 0) + 1
        print(f"{len(sizes)} screens ({', '.join(f'{n} at {k}' for k, n in counts.items())}); "
              f"engine {args.engine} with options {json.dumps(options)}; {args.runs} fresh processes")
        results, loads = [], []
        for _ in range(args.runs):
            done = subprocess.run([sys.executable, __file__, "--engine", args.engine, "--options", args.options,
                                   "--child", tmp], capture_output=True, text=True, check=True)
            results.append(json.loads(done.stdout.strip().splitlines()[-1]))
            loads.append(os.getloadavg()[0])
    med = {k: statistics.median(r[k] for r in results) for k in ("imported", "loaded", "peak", "after")}
    load = f"load {statistics.median(loads):.1f}"
    print(f"RSS after importing the OCR package    {med['imported']:7.0f} MB ({load})")
    print(f"RSS after loading the engine           {med['loaded']:7.0f} MB")
    print(f"peak RSS after {results[0]['screens']} screens (ru_maxrss)     {med['peak']:7.0f} MB   "
          f"({results[0]['words']} words read)")
    print(f"RSS after the last screen              {med['after']:7.0f} MB")
    print(f"OCR's share: peak - after imports      {med['peak'] - med['imported']:7.0f} MB ({load})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
