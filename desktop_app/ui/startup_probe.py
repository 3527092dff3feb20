"""When the first screen is painted, said for benchmarks/cold_start.py (SCREENLAB_STARTUP_PROBE=1).

The probe watches the canvas's viewport: the first paint after the screen's picture is in the scene is the
moment a user sees it. It prints that moment (epoch seconds, comparable with the launcher's clock) and
what had happened by then, and quits, so a benchmark can launch the real app again and again.
With SCREENLAB_STARTUP_PROBE_MODULES=FILE it also writes there, one a line, every module imported by then:
tests/test_startup.py checks that the first screen is painted without the modules it does not need.
"""

from __future__ import annotations

import os
import sys
import time

from PySide6.QtCore import QEvent, QObject, QTimer

ENV = "SCREENLAB_STARTUP_PROBE"
MODULES_ENV = "SCREENLAB_STARTUP_PROBE_MODULES"


def wanted() -> bool:
    return os.environ.get(ENV) == "1"


class FirstPaint(QObject):
    def __init__(self, window, app):
        super().__init__(window)
        self.window, self.app, self.done = window, app, False
        window.view.viewport().installEventFilter(self)

    def eventFilter(self, watched, event):  # noqa: N802 (Qt's name)
        if (not self.done and event.type() == QEvent.Type.Paint
                and getattr(self.window.scene, "background", None) is not None):
            self.done = True
            QTimer.singleShot(0, self._report)  # after this paint has reached the screen
        return False

    def _report(self) -> None:
        painted = time.time()
        modules_file = os.environ.get(MODULES_ENV)
        if modules_file:
            with open(modules_file, "w", encoding="utf-8") as out:
                out.write("".join(f"{name}\n" for name in sorted(sys.modules)))
        heavy = [name for name in ("openai", "rapidocr", "onnxruntime", "playwright", "pyqtgraph")
                 if name in sys.modules]
        print(f"startup-probe: painted {painted:.6f}; loaded: {', '.join(heavy) or 'none of the heavy ones'}",
              flush=True)
        self.app.quit()


def install(window, app) -> None:
    if wanted():
        FirstPaint(window, app)
