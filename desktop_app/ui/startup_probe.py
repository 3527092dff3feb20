"""When the first screen is painted, said for benchmarks/cold_start.py (SCREENLAB_STARTUP_PROBE=1).

The probe watches the canvas's viewport (ui/first_paint.py): the first paint after the screen's picture is in
the scene is the moment a user sees it. It prints that moment (epoch seconds, comparable with the launcher's
clock) and what had happened by then, and quits, so a benchmark can launch the real app again and again.
With SCREENLAB_STARTUP_PROBE_MODULES=FILE it also writes there, one a line, every module imported by then:
tests/test_startup.py checks that the first screen is painted without the modules it does not need. With
SCREENLAB_STARTUP_PROBE_CAPTIONS=1 it quits only once the canvas places the first screen's box captions too (what
its next paint draws), and says when: a launch paints its first screen before that screen's ink map is made, and
its captions wait for the map (step_view.py, ADR 0071).
"""

from __future__ import annotations

import os
import sys
import time

from desktop_app.ui.first_paint import after_first_paint

ENV = "SCREENLAB_STARTUP_PROBE"
MODULES_ENV = "SCREENLAB_STARTUP_PROBE_MODULES"
CAPTIONS_ENV = "SCREENLAB_STARTUP_PROBE_CAPTIONS"
CAPTIONS_AT_MOST_S = 10.0


def wanted() -> bool:
    return os.environ.get(ENV) == "1"


def _report(window, app) -> None:
    painted = time.time()
    modules_file = os.environ.get(MODULES_ENV)
    if modules_file:
        with open(modules_file, "w", encoding="utf-8") as out:
            out.write("".join(f"{name}\n" for name in sorted(sys.modules)))
    heavy = [name for name in ("openai", "rapidocr", "onnxruntime", "playwright", "pyqtgraph")
             if name in sys.modules]
    print(f"startup-probe: painted {painted:.6f}; loaded: {', '.join(heavy) or 'none of the heavy ones'}",
          flush=True)
    if os.environ.get(CAPTIONS_ENV) == "1":
        _report_captions(window, app, painted)
    else:
        app.quit()


def _report_captions(window, app, painted: float) -> None:
    """Polls, every 5 ms, for the captions the canvas places (and so paints); then says how many and when, and
    quits (after CAPTIONS_AT_MOST_S with none: "0 shown")."""
    from PySide6.QtCore import QTimer

    timer = QTimer(window)

    def look() -> None:
        shown = window.view.caption_rects()
        if shown or time.time() - painted > CAPTIONS_AT_MOST_S:
            timer.stop()
            print(f"startup-probe: captions {time.time():.6f}; {len(shown)} shown", flush=True)
            app.quit()

    timer.timeout.connect(look)
    timer.start(5)


def install(window, app) -> None:
    if wanted():
        after_first_paint(window, lambda: _report(window, app))
