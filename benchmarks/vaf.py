"""Page variants (VAF): generating a page's variants and one browsing step, with a warm browser.

    .venv/bin/python benchmarks/vaf.py [--page laptops] [--runs 3]

Printed, each the median of --runs with the 1-minute load average beside it:

  generate 48    the original and the paper's 48 settings of one demo page: each loaded offline, patched,
                 measured (target and item boxes), shot full page and first viewport, then stored in a scratch
                 project in one import.  goal <= 10 s.  Also its parts: rendering, and storing.
  peer           the same 49 renders done the way a script usually does it: a new browser context per variant
                 and the page given by set_content; the ratio peer / ours is printed (the authors' own code
                 was not released, so this is the comparison available).
  trial step     one step of a browsing trial on a viewport not seen before: the variant loaded, patched,
                 scrolled and its 1280 x 1200 viewport shot (render_viewport), as the browse protocol does.
                 goal <= 100 ms.  Also: the same step when an earlier trial stored that viewport (a lookup).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from desktop_app.render.browser import find_browser, launch_args  # noqa: E402
from desktop_app.render.renderer import Renderer  # noqa: E402
from desktop_app.store.project import Project  # noqa: E402
from desktop_app.vaf.pages import demo_page, load_page  # noqa: E402
from desktop_app.vaf.render import VIEWPORT, render_variant, render_viewport  # noqa: E402
from desktop_app.vaf.settings import ORIGINAL_SETTING, paper_table  # noqa: E402
from desktop_app.vaf.study import generate_study, step_of, variants  # noqa: E402


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def median_of(runs: int, fn) -> float:
    return statistics.median(fn() for _ in range(runs))


def peer_renders(spec, settings) -> float:
    """A fresh context per variant, the page through set_content, a full-page and a viewport shot."""
    from playwright.sync_api import sync_playwright

    from desktop_app.vaf.patch import patch_for

    html = load_page(spec.source).html
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=find_browser(pw), args=launch_args())
        started = time.perf_counter()
        for setting in settings:
            context = browser.new_context(viewport={"width": VIEWPORT.width, "height": VIEWPORT.height})
            page = context.new_page()
            page.route("**/*", lambda route: route.abort() if not route.request.url.startswith("data:")
                       else route.continue_())
            page.set_content(html)
            css = patch_for(setting).css
            if css:
                page.evaluate("([sel, css]) => { document.querySelector(sel).setAttribute('data-vaf-target', '');"
                              " const s = document.createElement('style'); s.textContent = css;"
                              " document.head.appendChild(s); }", [spec.target, css])
            page.evaluate("sel => document.querySelector(sel).getBoundingClientRect().toJSON()", spec.target)
            page.screenshot(full_page=True)
            page.screenshot()
            context.close()
        took = time.perf_counter() - started
        browser.close()
    return took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--page", default="laptops")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    spec = demo_page(args.page)
    table = paper_table()
    with Renderer() as renderer, tempfile.TemporaryDirectory() as tmp:
        render_variant(renderer, spec, ORIGINAL_SETTING)  # warm: the browser and its page are up

        def generate() -> float:
            folder = Path(tmp) / f"p{time.perf_counter_ns()}"
            with Project.init(folder) as project:
                started = time.perf_counter()
                report = generate_study(project, renderer, spec, table)
                took = time.perf_counter() - started
                assert len(report.added) == 1 + len(table) - len(report.failed), report.lines()
            return took

        def render_only() -> float:
            started = time.perf_counter()
            for setting in [ORIGINAL_SETTING, *table]:
                render_variant(renderer, spec, setting)
            return time.perf_counter() - started

        total = median_of(args.runs, generate)
        print(f"generate 48   {total:6.2f} s  (goal <= 10 s)   {load()}")
        rendering = median_of(args.runs, render_only)
        print(f"  rendering   {rendering:6.2f} s, storing {max(0.0, total - rendering):.2f} s   {load()}")
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(1) as other:  # Playwright's sync API allows one driver per thread
            peer = median_of(args.runs, lambda: other.submit(peer_renders, spec, [ORIGINAL_SETTING, *table]).result())
        print(f"peer          {peer:6.2f} s  rendering only; peer / ours {peer / rendering:.2f}x   {load()}")

        by = {s.name: s for s in table}
        height = render_variant(renderer, spec, ORIGINAL_SETTING).height
        positions = [y for y in range(0, max(1, height - VIEWPORT.height), 600)][:6]
        steps = []
        for _ in range(args.runs):
            for y in positions:
                started = time.perf_counter()
                render_viewport(renderer, spec, by["background_ff9800"], y)
                steps.append(time.perf_counter() - started)
        print(f"trial step    {1000 * statistics.median(steps):6.1f} ms  (goal <= 100 ms; a viewport not seen "
              f"before, {len(steps)} steps)   {load()}")
        with Project.init(Path(tmp) / "lookup") as project:
            generate_study(project, renderer, spec, [by["background_ff9800"]])
            episode = variants(project, spec.name)[-1].episode_id
            lookups = []
            for _ in range(20):
                started = time.perf_counter()
                step_id, screen_id = step_of(project, episode, "viewport", 0)
                from desktop_app.store import models as m

                with project.reading() as s:
                    screen = s.get(m.Screen, screen_id)
                project.media.read(screen.sha256, screen.ext)
                lookups.append(time.perf_counter() - started)
        print(f"  stored      {1000 * statistics.median(lookups):6.1f} ms  (a viewport an earlier trial stored)   "
              f"{load()}")


if __name__ == "__main__":
    main()
