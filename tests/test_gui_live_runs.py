"""The window's side of live runs: the New run dialog offers the live protocol where the samples hold recorded
tasks, with its options; a live run's task is a trajectory the labeller shows with the agent's clicks drawn on
its frames, and the run's SR is in the Runs tab's details (real widgets, real Chromium, the local fake server)."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from desktop_app import api
from desktop_app.formats.transfer import import_path
from desktop_app.paths import demo_dataset_dir
from desktop_app.record.tasks import record_task
from desktop_app.runs.protocols.live import LiveProtocol
from desktop_app.store import models as m
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter
from desktop_app.ui.eval.run_dialog import NO_RECORDED, RunDialog
from desktop_app.ui.judge import TrajectoryView
from desktop_app.ui.tasks import wait_all

from openai_server import FakeOpenAI, Response

pytestmark = pytest.mark.gui
GOAL = "Sign in as alex@example.com"


@pytest.fixture
def project(tmp_path):
    with Project.init(tmp_path / "p") as p:
        import_path(p, demo_dataset_dir(), "screenlab")
        episode_id = record_task(p, "flow:account", GOAL, actions=[
            lambda page: page.fill("#email", "alex@example.com"), lambda page: page.click("#signin")])
        api.decide_review(p, episode_id, "accept")
        yield p, episode_id
    wait_all()


def test_the_live_protocol_is_offered_where_the_samples_hold_a_recorded_task(project, qtbot):
    p, episode_id = project
    dialog = RunDialog(p, current_filter=EpisodeFilter(scenarios=("popup",)), episode_ids=[episode_id],
                       profiles={})
    qtbot.addWidget(dialog)
    dialog.set_agents(["center"])
    dialog.set_source("filter")  # demo screens only: no recorded task
    qtbot.waitUntil(lambda: dialog.counted, timeout=10_000)
    live = dialog.protocol_buttons["live"]
    assert live.text() == LiveProtocol.title and not live.isEnabled() and live.toolTip() == NO_RECORDED
    dialog.set_source("ids")  # the recorded task
    qtbot.waitUntil(lambda: dialog.counted, timeout=10_000)
    assert live.isEnabled()
    assert not dialog.live_options.isEnabled()
    dialog.set_protocol("live")
    assert dialog.live_options.isEnabled() and dialog.observation.isEnabled()
    assert dialog.observation.currentData() == "image"  # the live protocol's own default, not the probes' tree
    dialog.live_options.max_steps.setValue(4)
    qtbot.waitUntil(lambda: dialog.counted, timeout=10_000)
    assert "Live: recorded tasks in a browser · 1 samples each (up to 4 requests per task)" in dialog.summary.text()
    (request,) = dialog.runs()
    assert (request.protocol, request.options) == ("live", {"observation": "image", "max_steps": 4,
                                                            "allow_web": False})
    dialog.set_protocol("grounding")
    assert dialog.observation.currentData() == "tree" and not dialog.live_options.isEnabled()


def test_a_live_task_is_a_trajectory_whose_frames_show_where_the_agent_clicked(project, qtbot, monkeypatch):
    p, episode_id = project
    monkeypatch.setenv("SCREENLAB_TEST_KEY", "sk-test")
    with p.reading() as s:
        box = s.execute(select(m.ActionBox).join(m.Step).where(m.Step.episode_id == episode_id, m.Step.index == 1,
                                                                m.ActionBox.label == "gold")).scalar_one()
    point = [round((box.x1 + box.x2) / 2), round((box.y1 + box.y2) / 2)]
    with FakeOpenAI(lambda body, n: Response(text=json.dumps({"action_type": "click", "point": point}))) as server:
        agent = api.agent(name="scripted", base_url=server.base_url, model="m", convention="point-px",
                          api_key_env="SCREENLAB_TEST_KEY")
        run_id, status = api.run(p, agent, {"ids": [episode_id]}, "live", max_steps=3)
    assert status.verdicts == {"success": 1}
    (row,) = api.trajectories(p)
    view = TrajectoryView()
    qtbot.addWidget(view)
    view.resize(1200, 800)
    view.show()
    view.set_project(p)
    view.open_trajectory(row.episode_id)
    assert view.trajectory.policy == api.runs(p)[-1].name
    assert [s.action.text for s in view.trajectory.steps] == ["click at [Sign in]", "stop"]
    view.select_step(0)
    frame = view.display.frame_view
    assert frame.points == ((point[0] / 1280, point[1] / 800),)  # the click's ring, where it was done
    qtbot.waitUntil(lambda: frame.frame is not None, timeout=10_000)  # the screen the agent saw
    view.set_project(None)
