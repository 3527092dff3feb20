"""Render the trajectory-judge views on the demo project into docs/.

    .venv/bin/python docs/make_judge_screenshots.py

On a scratch project holding the demo's navigation flows: the six flows become trajectories twice, once as human
demonstrations (`screenlab judge from-episodes`) and once as what a scripted agent did on them (an
episode run against the local fake OpenAI server, tests/openai_server.py, turned into trajectories
with `from-run`; the agent taps the right element except on the last step of two tasks). Two scripted
judges (a careful one and a hasty one that calls unfinished-looking screens failures) judge all twelve
through the real engine; two annotators label them. Then it saves:

  docs/judge-label.png       the labeller: the queue, the task, the frames with the taps drawn on them,
                             the final frame emphasised, the label panel with other people's labels
                             and the judges' verdicts shown (blind mode off)
  docs/judge-agreement.png   the agreement view: the judges, the false-negative rate set apart, the
                             confusion matrix, rates per policy, disagreements, annotators' kappa
  docs/judge-demo.png        the agreement view on a fresh demo project, as a new user first sees it
                             (datasets/judge_demo: two scripted judges' imported verdicts)

Offscreen, about 1400 x 900; nothing of yours is touched (settings and data go to temporary folders).
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["SCREENLAB_CONFIG_DIR"] = tempfile.mkdtemp()  # never save into the user's settings
DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))
sys.path.insert(0, str(DOCS.parent / "tests"))

from PySide6.QtCore import QEventLoop, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402
from sqlalchemy import select  # noqa: E402

from desktop_app import api  # noqa: E402
from desktop_app.demo import ensure_demo_project  # noqa: E402
from desktop_app.formats.transfer import import_path  # noqa: E402
from desktop_app.paths import navi_demo_dataset_dir  # noqa: E402
from desktop_app.store import models as m  # noqa: E402
from desktop_app.store.project import Project  # noqa: E402
from desktop_app.ui.app import application  # noqa: E402
from desktop_app.ui.judge import AgreementView, TrajectoryView  # noqa: E402
from desktop_app.ui.theme import apply_theme  # noqa: E402

from openai_server import FakeOpenAI, Response, user_text  # noqa: E402

SIZE = (1400, 900)
MISSED = ("Olive & Ash", "screen timeout")  # the agent taps the wrong place on the last step of these
TASK = re.compile(r"Task: (.*)")


def gold_points(project: Project) -> dict[str, list[tuple[float, float]]]:
    """Per navigation goal, the centre of each step's first gold box (what the agent should tap)."""
    points: dict[str, dict[int, tuple[float, float]]] = {}
    with project.reading() as s:
        for goal, index, box in s.execute(
                select(m.Episode.goal, m.Step.index, m.ActionBox).join(m.Step, m.Step.episode_id == m.Episode.id)
                .join(m.ActionBox, m.ActionBox.step_id == m.Step.id)
                .where(m.Episode.scenario == "navigation", m.ActionBox.label == "gold", m.ActionBox.x1.is_not(None))
                .order_by(m.ActionBox.id)):
            points.setdefault(goal, {}).setdefault(index, ((box.x1 + box.x2) / 2, (box.y1 + box.y2) / 2))
    return {goal: [by[i] for i in sorted(by)] for goal, by in points.items()}


def agent_answer(golds: dict):
    def respond(body, n):
        asked = user_text(body)
        goal = TASK.search(asked).group(1).strip()
        step = len(re.findall(r"Step \d+:", asked))
        points = golds.get(goal, [])
        x, y = points[min(step, len(points) - 1)] if points else (10, 10)
        if step == len(points) - 1 and any(word in goal for word in MISSED):
            x, y = x * 0.4, y * 0.5  # a tap beside the button: the task is not completed
        return Response(text=json.dumps({"action_type": "click", "point": [round(x), round(y)]}))

    return respond


def judge_answer(hasty: bool):
    """The careful judge is right everywhere; the hasty one cannot read one screen and wants a confirmation
    banner that two apps never show (false negatives: the costly error)."""
    def respond(body, n):
        asked = user_text(body)
        agent = "an unnamed element" in asked  # its tap beside the control falls in no labelled box
        if agent and any(word in asked for word in MISSED):
            return Response(text='Thoughts: The last action taps beside the control; the final screen does not '
                                 'show the requested change saved.\nStatus: "failure"')
        if hasty and "running shoes" in asked:
            return Response(text="The screenshot shows a page. I think the agent may have finished.")  # no status
        if hasty and ("Pocketly" in asked or "6:45" in asked):
            return Response(text='Thoughts: I cannot see a confirmation banner on the final screen, so the task '
                                 'is probably not done.\nStatus: "failure"')
        return Response(text='Thoughts: The final screen shows the requested result and every action moves '
                             'towards it.\nStatus: "success"')

    return respond


def settle(n: int = 20) -> None:
    for _ in range(n):
        QApplication.processEvents()


def wait(signal, ms: int = 10_000) -> None:
    loop = QEventLoop()
    signal.connect(loop.quit)
    QTimer.singleShot(ms, loop.quit)  # never hang a docs build
    loop.exec()


def build(project: Project) -> None:
    demos = api.trajectories_from_episodes(project, {"scenarios": ["navigation"]})
    with FakeOpenAI(agent_answer(gold_points(project))) as server:
        agent = api.agent(name="ui-agent", base_url=server.base_url, model="fake-agent", convention="point-px",
                          concurrency=4)
        run_id, _ = api.run(project, agent, {"scenarios": ["navigation"]}, protocol="episode", name="ui-agent",
                            allow_ask=False)
    agents = api.trajectories_from_run(project, run_id)
    for hasty, name, model in ((False, "careful-judge", "fake-vlm-large"), (True, "hasty-judge", "fake-vlm-small")):
        with FakeOpenAI(judge_answer(hasty)) as server:
            judge = api.agent(name=name, base_url=server.base_url, model=model, concurrency=4)
            api.run(project, judge, protocol="judge", name=name)
    rows = {r.episode_id: r for r in api.trajectories(project)}
    for eid in demos + agents:
        missed = eid in agents and any(word in rows[eid].intent for word in MISSED)
        api.label_trajectory(project, eid, "alice", "failure" if missed else "success")
        # bob is stricter about the alarm flow: one disagreement between the annotators
        bob = "failure" if missed or (eid in agents and "6:45" in rows[eid].intent) else "success"
        api.label_trajectory(project, eid, "bob", bob)


def main() -> None:
    app = application()
    apply_theme(app, "light")
    with Project.init(Path(tempfile.mkdtemp()) / "judging") as project:
        import_path(project, navi_demo_dataset_dir(), "screenlab")
        build(project)
        rows = api.trajectories(project)
        shown = next(r for r in rows if r.policy == "demonstration" and "Pocketly" in r.intent)
        for r in rows[:2]:  # ana has labelled two already
            api.label_trajectory(project, r.episode_id, "ana", "success")

        view = TrajectoryView()
        view.resize(*SIZE)
        view.show()
        view.set_project(project)
        view.set_annotator("ana")
        view.open_trajectory(shown.episode_id)
        view.panel.blind.setChecked(False)
        for index in range(len(view.trajectory.steps) - 1):
            view.select_step(index)
            view.panel.set_step_label("towards-the-goal")
        view.select_step(len(view.trajectory.steps) - 1)
        view.panel.set_step_label("goal-reached")
        view.panel.set_outcome("success")
        view.panel.comment.setText("the transfer screen shows $25 to Maya")
        for _ in range(100):  # the frames are decoded off the UI thread
            settle(5)
            if all(view.loader.cache.get(s.sha256) for s in view.trajectory.steps):
                break
        settle()
        view.grab().save(str(DOCS / "judge-label.png"))
        print(f"wrote {DOCS / 'judge-label.png'}")
        view.set_project(None)
        view.close()

        agreement = AgreementView()
        agreement.resize(*SIZE)
        agreement.show()
        agreement.set_project(project)
        wait(agreement.refreshed)
        hasty = next(r.id for r in api.judge_runs(project) if r.name == "hasty-judge")
        agreement.select_run(hasty)
        settle()
        agreement.grab().save(str(DOCS / "judge-agreement.png"))
        print(f"wrote {DOCS / 'judge-agreement.png'}")
        for run in api.judge_runs(project):
            c = api.agreement(project, [run.id])["runs"][run.id]["confusion"]
            print(f"  {run.name}: accuracy {c['accuracy']} fnr {c['fnr']} (tp {c['tp']} fn {c['fn']} tn {c['tn']} "
                  f"fp {c['fp']})")
        agreement.set_project(None)
        wait(agreement.refreshed, 2000)
        agreement.close()

    with Project.open(ensure_demo_project(Path(tempfile.mkdtemp()))) as project:
        agreement = AgreementView()
        agreement.resize(*SIZE)
        agreement.show()
        agreement.set_project(project)
        wait(agreement.refreshed)
        agreement.select_run(next(r.id for r in api.judge_runs(project) if r.name.startswith("reply-trusting")))
        settle()
        agreement.grab().save(str(DOCS / "judge-demo.png"))
        print(f"wrote {DOCS / 'judge-demo.png'}")
        agreement.set_project(None)
        wait(agreement.refreshed, 2000)
        agreement.close()


if __name__ == "__main__":
    main()
