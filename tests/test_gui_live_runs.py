"""The window's side of live runs: the New run dialog offers the live protocol where the samples hold recorded
tasks, with its options; a live run's task is a trajectory the labeller shows with the agent's clicks drawn on
its frames, and the run's SR is in the Runs tab's details; a live run started there launches the browser chosen in
Settings; Runs > Export run… / Import run… carry a run as a folder (real widgets, real Chromium, the local fake
server)."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from sqlalchemy import select
from test_gui_runs_menu import click_radio, run_dialog_shown, tick_agent

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
from test_gui_editing import open_window

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


def test_a_live_run_from_the_new_run_dialog_launches_the_browser_chosen_in_settings(qtbot, tmp_path, monkeypatch):
    """Settings > LLM & browser names a browser; with none to be found before it (nothing on PATH), the live run
    started from the New run dialog launches that one, as the recorder and the page renderer do."""
    from PySide6.QtWidgets import QDialogButtonBox

    from desktop_app.render.browser import find_browser
    from desktop_app.render.renderer import _playwright
    from desktop_app.settings import Settings

    folder = tmp_path / "p"
    with Project.init(folder) as p:
        episode_id = record_task(p, "flow:account", GOAL, actions=[
            lambda page: page.fill("#email", "alex@example.com"), lambda page: page.click("#signin")])
        api.decide_review(p, episode_id, "accept")
        with p.reading() as s:
            box = s.execute(select(m.ActionBox).join(m.Step).where(
                m.Step.episode_id == episode_id, m.Step.index == 1, m.ActionBox.label == "gold")).scalar_one()
    real = find_browser(_playwright())
    launched = tmp_path / "launched"
    chosen = tmp_path / "chosen" / "my-chromium"
    chosen.parent.mkdir()
    # the browser of Settings: notes that it was started, then is the real one (whose own script wants a PATH)
    chosen.write_text(f'#!/bin/sh\necho started > "{launched}"\nPATH=/usr/local/bin:/usr/bin:/bin\nexport PATH\n'
                      f'exec "{real}" "$@"\n', encoding="utf-8")
    chosen.chmod(0o755)
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no chromium, chrome or edge to be found by name
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path / "empty"))  # nor Playwright's own
    monkeypatch.setenv("SCREENLAB_TEST_KEY", "sk-test")
    point = [round((box.x1 + box.x2) / 2), round((box.y1 + box.y2) / 2)]
    with FakeOpenAI(lambda body, n: Response(text=json.dumps({"action_type": "click", "point": point}))) as server:
        from desktop_app.cli.main import main

        assert main(["agents", "add", "scripted", "--base-url", server.base_url, "--model", "m", "--convention",
                     "point-px", "--api-key-env", "SCREENLAB_TEST_KEY"]) == 0
        window = open_window(qtbot, folder, Settings(annotator="ann", show_suggestions=False,
                                                     browser_path=str(chosen)))
        window.left_tabs.setCurrentWidget(window.runs)

        def start(dialog: RunDialog) -> None:
            tick_agent(dialog, "scripted")
            dialog.set_source("all")
            qtbot.waitUntil(lambda: dialog.counted, timeout=10_000)
            click_radio(qtbot, dialog.protocol_buttons["live"])
            qtbot.waitUntil(lambda: dialog.counted, timeout=10_000)
            qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.Ok), Qt.LeftButton)  # Start

        run_dialog_shown(qtbot, lambda: qtbot.mouseClick(window.runs.new_button, Qt.LeftButton), start)
        qtbot.waitUntil(lambda: window.runs.run_rows() and not window.runs.running_ids(), timeout=120_000)
    (row,) = window.runs.run_rows()
    (run,) = api.runs(window.project)
    assert (run.protocol, row.status, run.options["browser"]) == ("live", "done", str(chosen))
    assert launched.read_text().strip() == "started"
    metrics = api.evaluate(window.project, [run.id])["runs"][run.id]["metrics"]
    assert metrics["rates"]["success"]["hits"] == 1
    window.close_project()


def test_runs_menu_exports_the_demo_live_run_and_imports_it_back_as_a_new_run(qtbot, tmp_path, first_start_demo):
    """Runs > Export run… writes the run selected in the Runs tab as a folder (what `screenlab export-run`
    writes); Runs > Import run… brings a folder back as a new run, listed at once with the same verdicts."""
    from PySide6.QtWidgets import QApplication

    from desktop_app.settings import Settings

    demo = first_start_demo
    window = open_window(qtbot, demo, Settings(annotator="ann", show_suggestions=False))
    window.left_tabs.setCurrentWidget(window.runs)
    (live,) = [r for r in window.runs.run_rows() if r.protocol == "live"]
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Runs")
    export, import_ = (next(a for a in menu.actions() if a.text() == t) for t in ("Export run…", "Import run…"))

    def choose(folder) -> None:
        dialog = window.run_transfer.dialog
        assert dialog is not None and dialog.isVisible()
        dialog.selectFile(str(folder))
        dialog.accept()
        QApplication.processEvents()

    window.runs.tree.clearSelection()
    export.trigger()  # nothing selected: it says what to do
    assert window.statusBar().currentMessage() == "Select one run in the Runs tab to export it."
    for i in range(window.runs.tree.topLevelItemCount()):
        item = window.runs.tree.topLevelItem(i)
        item.setSelected(item.data(0, Qt.UserRole) == live.id)
    (tmp_path / "out").mkdir()
    export.trigger()
    choose(tmp_path / "out")
    qtbot.waitUntil(lambda: window.run_transfer.task is None, timeout=30_000)
    folder = tmp_path / "out" / f"run{live.id}"
    assert window.statusBar().currentMessage().startswith(f"run {live.id} 'scripted agent · live (demo)' (live) "
                                                          f"written to {folder}: 5 answers, 2 of its own episodes")
    assert json.loads((folder / "run.json").read_text(encoding="utf-8"))["protocol"] == "live"

    import_.trigger()
    choose(folder)
    qtbot.waitUntil(lambda: window.run_transfer.task is None, timeout=30_000)
    assert "imported from" in window.statusBar().currentMessage()
    rows = [r for r in window.runs.run_rows() if r.protocol == "live"]
    assert len(rows) == 2 and rows[0].verdicts == rows[1].verdicts  # listed at once, the same answers
    window.close_project()


def test_the_dashboard_sums_up_the_demo_live_run_beside_the_screen_runs(qtbot, first_start_demo):
    """Ticking the demo's live run with its screen runs: the bars are the screen runs' rates, and the live run's
    SR and steps to success are printed under the table in `screenlab eval`'s words."""
    from desktop_app.ui.eval.dashboard import DashboardWidget

    with Project.open(first_start_demo) as demo:
        (live,) = [r.id for r in api.runs(demo) if r.protocol == "live"]
        screen, _ = api.run(demo, "center", protocol="screen")  # an offline baseline on the demo's screens
        screen = [screen]
        dashboard = DashboardWidget()
        qtbot.addWidget(dashboard)
        dashboard.resize(900, 700)
        dashboard.show()
        with qtbot.waitSignal(dashboard.refreshed, timeout=30_000):
            dashboard.refresh(demo, screen)
        assert not dashboard.other_runs_view.isVisible()  # screen runs only: nothing to sum up
        with qtbot.waitSignal(dashboard.refreshed, timeout=30_000):
            dashboard.refresh(demo, [*screen, live])
        text = dashboard.other_runs_view.toPlainText()
        assert dashboard.other_runs_view.isVisible()
        assert f"run {live}  scripted agent · live (demo)  [live, done]" in text
        assert "SR" in text and "50.0 %" in text and "(1/2)" in text  # one of the demo's two tasks done
        assert "steps" in text and "failed" in text and "step 3" in text  # the failed task names its step
        assert f"multi-step runs #{live}" in dashboard.status.toolTip()
        assert len(dashboard.bars) > 0  # the screen runs' bars are still drawn
        dashboard.hide()  # no repaint of its plots once the project is closed
    wait_all()
