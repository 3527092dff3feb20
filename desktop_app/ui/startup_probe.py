"""When the first screen is painted, said for benchmarks/cold_start.py (SCREENLAB_STARTUP_PROBE=1).

The probe watches the canvas's viewport (ui/first_paint.py): the first paint after the screen's picture is in
the scene is the moment a user sees it. It prints that moment (epoch seconds, comparable with the launcher's
clock) and what had happened by then, and quits, so a benchmark can launch the real app again and again.
With SCREENLAB_STARTUP_PROBE_MODULES=FILE it also writes there, one a line, every module imported by then:
tests/test_startup.py checks that the first screen is painted without the modules it does not need.
"""

from __future__ import annotations

import os
import sys
import time

from desktop_app.ui.first_paint import after_first_paint

ENV = "SCREENLAB_STARTUP_PROBE"
MODULES_ENV = "SCREENLAB_STARTUP_PROBE_MODULES"


def wanted() -> bool:
    return os.environ.get(ENV) == "1"


def _report(app) -> None:
    painted = time.time()
    modules_file = os.environ.get(MODULES_ENV)
    if modules_file:
        with open(modules_file, "w", encoding="utf-8") as out:
            out.write("".join(f"{name}\n" for name in sorted(sys.modules)))
    heavy = [name for name in ("openai", "rapidocr", "onnxruntime", "playwright", "pyqtgraph")
             if name in sys.modules]
    print(f"startup-probe: painted {painted:.6f}; loaded: {', '.join(heavy) or 'none of the heavy ones'}",
          flush=True)
    app.quit()


def install(window, app) -> None:
    if wanted():
        after_first_paint(window, lambda: _report(app))
