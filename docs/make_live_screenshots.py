"""A live run in the window at 1366x768, into docs/:

  docs/live-run.png           Trajectories > Label trajectories on a live run's task: the task, the frames the agent
                              saw with its clicks drawn on them, the page the task ended on, its numbered actions
  docs/live-run-results.png   the Runs tab with the live run selected: SR with its interval, steps to success, and
                              the failed task with the step that failed, named

On a scratch project: three tasks recorded on the `account` flow site (headless Chromium, Playwright's input
through the recorder), accepted, then done live by a scripted agent answering through the local fake OpenAI
server (tests/openai_server.py): it signs in, saves a profile, and on the third task clicks Help and says it has
finished, which fails. Nothing of yours is touched (settings and data go to temporary folders).

    .venv/bin/python docs/make_live_screenshots.py
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["SCREENLAB_CONFIG_DIR"] = tempfile.mkdtemp()  # never save into the user's settings
os.environ["SCREENLAB_DATA_DIR"] = tempfile.mkdtemp()
DOCS = Path(__file__).resolve().parent
sys.path[:0] = [str(DOCS.parent), str(DOCS.parent / "tests")]

from PySide6.QtCore import Qt  # noqa: E402
from shots import settle, shoot  # noqa: E402
from sqlalchemy import select  # noqa: E402

from desktop_app import api  # noqa: E402
from desktop_app.record.tasks import record_task  # noqa: E402
from desktop_app.settings import Settings  # noqa: E402
from desktop_app.store import models as m  # noqa: E402
from desktop_app.store.project import Project  # noqa: E402
from desktop_app.ui.app import application  # noqa: E402
from desktop_app.ui.main_window import MainWindow  # noqa: E402
from desktop_app.ui.tasks import wait_all  # noqa: E402
from desktop_app.ui.theme import apply_theme  # noqa: E402

from openai_server import FakeOpenAI, Response, user_text  # noqa: E402

SIGN_IN = "Sign in as alex@example.com"
SAVE = "Save the profile name Alex Morgan, country Spain"
EDIT = "Go from the saved profile back to editing it"
SIZE = (1366, 768)


def build(folder: Path) -> None:
    with Project.init(folder) as project:
        ids = [record_task(project, "flow:account", SIGN_IN, actions=[
                   lambda p: p.fill("#email", "alex@example.com"), lambda p: p.fill("#password", "pw-123456"),
                   lambda p: p.click("#signin")]),
               record_task(project, "flow:account/profile", SAVE, actions=[
                   lambda p: p.fill("#name", "Alex Morgan"), lambda p: p.select_option("#country", "es"),
                   lambda p: p.click("#save")]),
               record_task(project, "flow:account/saved", EDIT, actions=[lambda p: p.click("#back-to-profile")])]
        for episode_id in ids:
            api.decide_review(project, episode_id, "accept")
        at = {}
        with project.reading() as s:
            for goal, index, box in s.execute(
                    select(m.Episode.goal, m.Step.index, m.ActionBox).join(m.Step, m.Step.episode_id == m.Episode.id)
                    .join(m.ActionBox, m.ActionBox.step_id == m.Step.id)):
                centre = [round((box.x1 + box.x2) / 2), round((box.y1 + box.y2) / 2)]
                if box.label == "gold":
                    at[(goal, index)] = centre
                elif goal == EDIT and box.element_text == "Help":
                    at[(EDIT, "help")] = centre
        plans = {SIGN_IN: [{"action_type": "type", "point": at[(SIGN_IN, 0)], "text": "alex@example.com"},
                           {"action_type": "click", "point": at[(SIGN_IN, 2)]}],
                 SAVE: [{"action_type": "type", "point": at[(SAVE, 0)], "text": "Alex Morgan"},
                        {"action_type": "select", "point": at[(SAVE, 1)], "text": "Spain"},
                        {"action_type": "click", "point": at[(SAVE, 2)]}],
                 EDIT: [{"action_type": "click", "point": at[(EDIT, "help")]}, {"action_type": "finished"}]}

        def respond(body, n):
            said = user_text(body)
            plan = plans[re.search(r"^Task: (.*)$", said, re.M).group(1).strip()]
            return Response(text=json.dumps(plan[min(len(re.findall(r"^- Step \d+:", said, re.M)), len(plan) - 1)]))

        with FakeOpenAI(respond) as server:
            agent = api.agent(name="ui-agent", base_url=server.base_url, model="fake-agent", convention="point-px")
            run_id, _ = api.run(project, agent, {"scenarios": ["recorded"]}, "live", name="ui-agent · live",
                                max_steps=6)
        for line in api.evaluate(project, [run_id])["runs"][run_id]["metrics"]["per_episode"]:
            print(f"  {line['goal']}: {'success' if line['success'] else 'failure'} in {line['steps']} steps "
                  f"{line['failure']}")


def main() -> None:
    app = application()
    apply_theme(app, "light")
    folder = Path(tempfile.mkdtemp()) / "live"
    build(folder)
    window = MainWindow(Settings(annotator="ana", show_suggestions=False))
    window.resize(*SIZE)
    window.show()
    window.open_project(folder)
    settle(20)
    wait_all()

    window.left_tabs.setCurrentWidget(window.runs)
    window.resizeDocks([window.left], [560], Qt.Horizontal)  # the details' lines in full
    window.runs.reload()
    item = window.runs.tree.topLevelItem(0)
    window.runs.tree.setCurrentItem(item)
    for _ in range(200):
        settle(5)
        wait_all()
        if "SR" in window.runs.details.toPlainText():
            break
        time.sleep(0.05)
    settle(20)
    shoot(window, "live-run-results.png")

    window.judge.show("label")
    labeller = window.judge.labeller
    shown = next(r for r in api.trajectories(window.project) if r.intent == SAVE)
    labeller.open_trajectory(shown.episode_id)
    labeller.select_step(2)  # the click on Save, its ring on the button
    for _ in range(200):  # the frames are decoded off the UI thread
        settle(5)
        if all(labeller.loader.cache.get(s.sha256) for s in labeller.trajectory.steps):
            break
        time.sleep(0.05)
    labeller.select_step(2)
    settle(20)
    shoot(window, "live-run.png")
    window.close_project()


if __name__ == "__main__":
    main()
