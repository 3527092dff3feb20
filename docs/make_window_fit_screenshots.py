"""The window at a laptop's sizes (issue 33, ADR 0035), into docs/:

  docs/window-fit-1366.png             the main window at 1366x768 on the demo project with very long names
                                       (SHA-256 file names and ids, a paragraph of goal, 64-character split,
                                       annotator and run names): the list, the properties, the status bar
  docs/window-fit-1366-dashboard.png   the same with the dashboard open below the canvas and the Runs tab shown
  docs/window-fit-1366-agreement.png   Trajectories > Judge agreement at 1366x768 (a judge run with a long name,
                                       an annotator with a 64-character login)
  docs/window-fit-2560-at-200.png      the main window on a 2560x1440 screen at 200 % (QT_SCALE_FACTOR=2: 1280x720
                                       of the window's units, 2560x1440 pixels)

    .venv/bin/python docs/make_window_fit_screenshots.py
    xvfb-run -s "-screen 0 1366x768x24" .venv/bin/python docs/make_window_fit_screenshots.py   # on a real X server

Offscreen unless a display is set; the 200 % picture is taken by a second run of this script in its own process
(the scale factor must be set before Qt starts). The project is made in a temporary folder
(tests/long_names.py); nothing of yours is touched.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

if not os.environ.get("DISPLAY"):  # under xvfb-run (or on a desktop) the real X11 platform draws
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["SCREENLAB_CONFIG_DIR"] = tempfile.mkdtemp()  # never save into the user's settings
os.environ["SCREENLAB_DATA_DIR"] = tempfile.mkdtemp()
DOCS = Path(__file__).resolve().parent
sys.path[:0] = [str(DOCS.parent), str(DOCS.parent / "tests")]

from long_names import LONG_ANNOTATOR, long_names_project  # noqa: E402
from shots import settle, shoot  # noqa: E402

from desktop_app import api  # noqa: E402
from desktop_app.settings import Settings  # noqa: E402
from desktop_app.ui.app import application  # noqa: E402
from desktop_app.ui.main_window import MainWindow  # noqa: E402
from desktop_app.ui.tasks import wait_all  # noqa: E402
from desktop_app.ui.theme import apply_theme  # noqa: E402

SCALED = "--scaled"  # the second run: 200 %


def window_on(folder: Path, size: tuple[int, int]) -> MainWindow:
    """The main window at `size` on the project, the first long-named screen shown."""
    window = MainWindow(Settings(annotator=LONG_ANNOTATOR, show_suggestions=False))
    window.resize(*size)
    window.show()
    window.open_project(folder)
    settle(20)
    window.browser.show_episode(api.queue(window.project, LONG_ANNOTATOR)[0].id)  # named by its SHA-256
    settle(20)
    wait_all()
    window.view.fit()
    settle(10)
    return window


def main() -> None:
    app = application()
    apply_theme(app, "light")
    folder = long_names_project(Path(tempfile.mkdtemp()))
    if SCALED in sys.argv:
        window = window_on(folder, (1280, 720))
        shoot(window, "window-fit-2560-at-200.png")
        window.close_project()
        return
    window = window_on(folder, (1366, 768))
    shoot(window, "window-fit-1366.png")

    window.dashboard_action.setChecked(True)
    window.left_tabs.setCurrentWidget(window.runs)
    settle(30)
    wait_all()
    settle(30)
    shoot(window, "window-fit-1366-dashboard.png")
    window.dashboard_action.setChecked(False)

    window.judge.show("agreement")
    settle(10)
    wait_all()
    settle(30)
    shoot(window, "window-fit-1366-agreement.png")
    window.judge.show("annotate")
    window.close_project()

    # 200 %: Qt reads the scale factor when it starts, so a process of its own
    subprocess.run([sys.executable, __file__, SCALED], check=True,
                   env={**os.environ, "QT_SCALE_FACTOR": "2"})


if __name__ == "__main__":
    main()
