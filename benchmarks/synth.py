"""Rendering speed of synthetic screens.

    .venv/bin/python benchmarks/synth.py [--n 100]

1. ScreenLab's way: one warm headless Chromium reused for N offline-bank scenes; per screen:
   render the template + screenshot + read every marked box (one evaluate call).
   Goal: median <= 200 ms per screen.
2. The EnvDistraction authors' way, for comparison: a new browser per page and a fixed 5 s
   wait before the screenshot (their Selenium code sleeps), measured on 3 pages.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from desktop_app.render.renderer import VIEWPORTS, Renderer  # noqa: E402
from desktop_app.synth.bank import offline_scene  # noqa: E402
from desktop_app.synth.templates import SCENARIOS, render_html  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100)
    args = parser.parse_args()
    rng = random.Random(0)
    scenes = [offline_scene(SCENARIOS[i % 4], rng, ("desktop", "mobile")[i % 3 == 2]) for i in range(args.n)]

    times = []
    t0 = time.perf_counter()
    with Renderer() as renderer:
        start = time.perf_counter() - t0
        for scene in scenes:
            viewport = VIEWPORTS[scene.viewport]
            t = time.perf_counter()
            rendered = renderer.render(render_html(scene.scenario, scene.content, viewport), viewport)
            times.append((time.perf_counter() - t) * 1000)
            assert rendered.elements
    times.sort()
    print(f"warm browser: {args.n} screens, median {statistics.median(times):.0f} ms, "
          f"p95 {times[int(0.95 * (len(times) - 1))]:.0f} ms per screen (render + screenshot + boxes), "
          f"browser start {start * 1000:.0f} ms once  goal <= 200 ms")

    cold = []
    for scene in scenes[:3]:
        viewport = VIEWPORTS[scene.viewport]
        t = time.perf_counter()
        with Renderer() as renderer:  # a new browser for every page
            html = render_html(scene.scenario, scene.content, viewport)
            time.sleep(5.0)  # their fixed wait for the page to settle
            renderer.render(html, viewport)
        cold.append((time.perf_counter() - t) * 1000)
    print(f"EnvDistraction way (new browser + fixed 5 s wait), 3 pages: median {statistics.median(cold):.0f} ms "
          f"per screen; speed-up {statistics.median(cold) / statistics.median(times):.0f}x")


if __name__ == "__main__":
    main()
