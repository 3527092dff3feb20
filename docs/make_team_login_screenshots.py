"""docs/team-people.png: Team > People… as the lead, after adding an annotator (their password shown once);
docs/team-returned.png: an annotator's window at 1366x768 with work a reviewer returned: her queue only,
the comment over the canvas, the ring on the box it is about, "↩ returned" in the list, who is logged in.

    .venv/bin/python docs/make_team_login_screenshots.py

Starts a throw-away PostgreSQL server (tests/pg_server.py, Debian's binaries) and a team on it
(tests/team_server.py: lena lead, rita reviewer, ana and ben annotators, each a login).
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

from desktop_app import api  # noqa: E402
from desktop_app.formats.transfer import import_path  # noqa: E402
from desktop_app.paths import demo_dataset_dir  # noqa: E402
from desktop_app.settings import Settings  # noqa: E402
from desktop_app.store.models import Step  # noqa: E402
from desktop_app.ui.app import application  # noqa: E402
from desktop_app.ui.main_window import MainWindow  # noqa: E402
from desktop_app.ui.team.members_dialog import MembersDialog  # noqa: E402
from desktop_app.ui.theme import apply_theme  # noqa: E402

from pg_server import PgServer  # noqa: E402
from team_server import make_team  # noqa: E402


def main() -> None:
    app = application()
    apply_theme(app, "light")
    server = PgServer().start()
    try:
        server.wait_ready()
        team = make_team("postgresql", server.new_database(), Path(tempfile.mkdtemp()) / "media", server)
        lena = team.open("lena")
        import_path(lena, demo_dataset_dir(), "screenlab")
        with lena.reading() as s:
            from desktop_app.store.queries import EpisodeFilter, episode_ids

            samples = episode_ids(s, EpisodeFilter(scenarios=("popup",)))
        api.assign(lena, ["ana", "ben"], {"ids": samples[:12]})
        ana = team.open("ana")
        first = api.queue(ana)[0].id
        with ana.reading() as s:
            step = s.execute(select(Step).where(Step.episode_id == first)).scalars().first()
        shown = api.screen(ana, step.id)
        box = next(b for b in shown.boxes if b.label == "gold")
        api.edit_boxes(ana, {box.id: {"label": "other"}}, expected_version=shown.version)
        api.set_state(ana, first, "done")
        api.review_work(team.open("rita"), first, "return",
                        "This is the way to close the pop-up, so it serves the goal: gold, not other.", box=box.id)

        with team.open("owner").engine.begin() as conn:  # (an earlier run's login)
            conn.exec_driver_sql('DROP ROLE IF EXISTS "chen"')
        people = MembersDialog(lena)
        people._add("chen", "annotator", False)
        people.resize(700, 430)
        people.show()
        shoot(people, "team-people.png")

        window = MainWindow(Settings(annotator="", show_suggestions=False))
        window.resize(1366, 768)
        window.show()
        window.open_project(team.url("ana"), str(team.media))
        window.browser.show_episode(first)
        settle(20)
        shoot(window, "team-returned.png")
        window.close_project()
        team.close()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
