"""The recorder's two pictures, at 1366x768, into docs/:

  docs/recorder-bar.png       the ScreenLab bar a headed recording puts in the page (goal, Undo last step, Stop),
                              on the `account` flow site with the e-mail typed; the same page script as a headed
                              recording, here in headless Chromium (no display needed)
  docs/recorded-episode.png   the demo project's recorded sign-in task in the window, on its password step: the
                              acted field as the gold box, the page's other actionable elements as "other" boxes,
                              the password painted over in the screenshot

Nothing of yours is touched (settings and data go to temporary folders).

    .venv/bin/python docs/make_recording_screenshots.py
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["SCREENLAB_CONFIG_DIR"] = tempfile.mkdtemp()  # never save into the user's settings
os.environ["SCREENLAB_DATA_DIR"] = tempfile.mkdtemp()
DOCS = Path(__file__).resolve().parent
sys.path[:0] = [str(DOCS.parent), str(DOCS.parent / "tests")]

from shots import settle, shoot  # noqa: E402
from sqlalchemy import select  # noqa: E402

from desktop_app.demo import ensure_demo_project  # noqa: E402
from desktop_app.record.browser import open_session  # noqa: E402
from desktop_app.record.page_script import BAR, HELPERS  # noqa: E402
from desktop_app.record.recorder import _js_string  # noqa: E402
from desktop_app.record.site import open_site  # noqa: E402
from desktop_app.render.renderer import stop_driver  # noqa: E402
from desktop_app.settings import Settings  # noqa: E402
from desktop_app.store import models as m  # noqa: E402
from desktop_app.ui.app import application  # noqa: E402
from desktop_app.ui.main_window import MainWindow  # noqa: E402
from desktop_app.ui.tasks import wait_all  # noqa: E402
from desktop_app.ui.theme import apply_theme  # noqa: E402

SIZE = (1366, 768)
GOAL = "Sign in as alex@example.com"


def recorder_bar() -> None:
    session = open_session(open_site("flow:account"), [HELPERS, f"({BAR})({_js_string(GOAL)})"], viewport=SIZE)
    try:
        page = session.page
        page.goto(open_site("flow:account").start_url)
        page.wait_for_load_state("load")
        page.fill("#email", "alex@example.com")
        page.wait_for_selector("[data-sl-recorder]", state="attached")
        out = DOCS / "recorder-bar.png"
        page.screenshot(path=str(out))
        print(f"wrote {out}")
    finally:
        session.close()
        stop_driver()


def recorded_episode() -> None:
    app = application()
    apply_theme(app, "light")
    demo = ensure_demo_project()
    window = MainWindow(Settings(annotator="ana", show_suggestions=False))
    window.resize(*SIZE)
    window.show()
    window.open_project(demo)
    settle(20)
    wait_all()
    with window.project.reading() as s:
        episode_id = s.execute(select(m.Episode.id).where(m.Episode.scenario == "recorded",
                                                          m.Episode.goal == GOAL)).scalar_one()
    window.browser.select_row(window.browser.model.row_of(episode_id))
    settle(20)
    window.ws.load_step(1)  # the password typed: its field is the gold box, its dots painted over
    settle(20)
    wait_all()
    settle(20)
    shoot(window, "recorded-episode.png")
    window.close_project()


if __name__ == "__main__":
    recorder_bar()
    recorded_episode()
