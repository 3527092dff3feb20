"""No library ScreenLab loads reports on its users: their telemetry is switched off before they load.

ONNX Runtime (the OCR engine) has, since its 1.2x releases, a telemetry client on Linux and macOS too: on its
first session it makes ~/.cache/Microsoft/DeveloperTools/.onnxruntime with a `deviceid` (a random id for this
computer) and an `onnxruntime.db` of events to send. It reads ORT_DISABLE_TELEMETRY when the library loads, so the
variable must be set before `import onnxruntime` (its Python `disable_telemetry_events()` comes too late: the
folder is already made). It also stays quiet when a build server's variable is set (CI, GITHUB_ACTIONS, ...),
which is why tests/test_privacy.py removes those before its control. Set here, in the process's environment, it also holds for the processes ScreenLab
starts (the OCR worker, Playwright's Node.js, the browser), which inherit it.

The other libraries were checked (issue 38): Qt, Playwright's driver, OpenCV, openai, SQLAlchemy, psycopg,
keyring and pyqtgraph send nothing; Chromium is started with background networking off and every request
outside the page aborted (render/browser.py).
"""

from __future__ import annotations

import os

# variable -> value that turns a library's telemetry off; forced, not defaulted: "0" in the user's
# environment must not turn it back on behind the README's promise
NO_TELEMETRY = {
    "ORT_DISABLE_TELEMETRY": "1",  # ONNX Runtime (read by libonnxruntime at load)
}


def switch_off_telemetry() -> None:
    """Called when the package is imported (desktop_app/__init__.py), so before any door (window, command
    line, Python API, the OCR worker) can load a library that reports."""
    os.environ.update(NO_TELEMETRY)
