"""The window's side of the run engine: the New run dialog chooses a protocol and says what it leaves
out; the runs panel starts, cancels, resumes and reports failures of every protocol (real widgets,
the real openai client, the local fake server)."""

from __future__ import annotations

import json
import re

import pytest
from PySide6.QtCore import Qt
from sqlalchemy import select

from desktop_app.agents.profiles import AgentProfile
from desktop_app.formats.transfer import import_path
from desktop_app.runs.engine import RunRequest
from desktop_app.runs.state import RunState
from desktop_app.store import models as m
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter
from desktop_app.ui.eval.dashboard import DashboardWidget
from desktop_app.ui.eval.run_dialog import RunDialog
from desktop_app.ui.eval.runs_panel import RunsPanel
from desktop_app.ui.tasks import wait_all

from conftest import SHOE_BOXES, make_image, write_shoe_episodes
from openai_server import FakeOpenAI, Response, user_text

pytestmark = pytest.mark.gui


@pytest.fixture
def project(tmp_path, demo_copy):
    """The demo (single screens; a copy of the worker's once-imported one), three unlabelled screenshots, and two
    multi-step shoe episodes."""
    for i in range(3):
        make_image(tmp_path / "shots" / f"s{i}.png", size=(320, 200), color=(10 * i, 20, 30))
    with Project.open(demo_copy) as p:
        import_path(p, tmp_path / "shots", "images")
        import_path(p, write_shoe_episodes(tmp_path / "shoes"), "screenlab")
        yield p


@pytest.fixture(autouse=True)
def _background_calls_end():
    yield
    wait_all()


def shoe_answer(body, n) -> Response:
    step = len(re.findall(r"Step \d+:", user_text(body)))
    x1, y1, x2, y2 = SHOE_BOXES[step]
    return Response(text=json.dumps({"action_type": "click", "point": [(x1 + x2) / 2, (y1 + y2) / 2]}), delay=0.05)


def agent(server, **kw) -> AgentProfile:
    return AgentProfile(**{"name": "fake", "base_url": server.base_url, "model": "m", "convention": "point-px",
                           "concurrency": 1, "max_retries": 0, "timeout_s": 5, **kw})


def row_text(panel, run_id) -> dict[str, str]:
    item = panel._items[run_id]
    return {name: item.text(i) for i, name in enumerate(("run", "protocol", "status", "progress", "rate", "errors",
                                                          "verdicts"))}


def test_the_dialog_suggests_a_protocol_and_says_what_it_leaves_out(qtbot, project):
    dialog = RunDialog(project, current_filter=EpisodeFilter(), profiles={})
    qtbot.addWidget(dialog)
    dialog.set_agents(["center"])
    qtbot.waitUntil(lambda: dialog.counted, timeout=5000)
    # 24 accepted demo screens + 2 shoe episodes (6 steps) + 3 screenshots with no goal and no labels
    assert dialog.protocol() == "screen"  # most selected episodes are single screens
    assert "Single screens · 30 samples" in dialog.summary.text()
    assert "3 samples left out: 3 no goal" in dialog.summary.text()
    assert "4 episodes left out by review status" in dialog.summary.text()  # the demo's pending samples
    (request,) = dialog.runs()
    assert (request.protocol, request.options, request.include_unlabelled) == ("screen", None, False)

    dialog.include_unlabelled.setChecked(True)
    qtbot.waitUntil(lambda: dialog.counted, timeout=5000)
    assert "33 samples" in dialog.summary.text() and "no goal" not in dialog.summary.text()

    dialog.current_filter = EpisodeFilter(scenarios=("ambiguous",))
    dialog.set_source("filter")
    dialog.set_protocol("auto")
    dialog._changed()
    qtbot.waitUntil(lambda: dialog.counted, timeout=5000)
    assert dialog.protocol() == "episode" and dialog.allow_ask.isEnabled()
    dialog.allow_ask.setChecked(False)
    qtbot.waitUntil(lambda: dialog.counted, timeout=5000)
    (request,) = dialog.runs()
    assert (request.protocol, request.options) == ("episode", {"allow_ask": False})
    assert "Multi-step episodes with ASK · 6 samples (2 episodes)" in dialog.summary.text()
    dialog.set_protocol("screen")
    qtbot.waitUntil(lambda: dialog.counted, timeout=5000)
    assert not dialog.allow_ask.isEnabled() and dialog.runs()[0].protocol == "screen"


def test_the_dialog_warns_before_a_run_that_could_not_start(qtbot, project, monkeypatch):
    monkeypatch.delenv("SCREENLAB_TEST_MISSING_KEY", raising=False)
    keyless = AgentProfile(name="keyless", base_url="http://127.0.0.1:9/v1", model="m",
                           api_key_env="SCREENLAB_TEST_MISSING_KEY")
    dialog = RunDialog(project, current_filter=EpisodeFilter(), profiles={"keyless": keyless})
    qtbot.addWidget(dialog)
    dialog.set_agents(["keyless"])
    qtbot.waitUntil(lambda: dialog.counted, timeout=5000)
    assert "keyless: environment variable SCREENLAB_TEST_MISSING_KEY is not set" in dialog.summary.text()
    dialog.set_patterns([])  # a model agent with no working pattern ticked would make no run at all
    start = dialog.buttons.button(dialog.buttons.StandardButton.Ok)
    assert "Tick a working pattern" in dialog.summary.text() and not start.isEnabled()
    dialog.set_patterns(["direct"])
    qtbot.waitUntil(lambda: dialog.counted, timeout=5000)
    assert start.isEnabled()


def test_an_episode_run_from_the_panel_cancels_resumes_and_is_scored(qtbot, project):
    with FakeOpenAI(shoe_answer) as server:
        panel = RunsPanel(project)
        qtbot.addWidget(panel)
        (run_id,) = panel.start_runs([RunRequest(agent(server), EpisodeFilter(scenarios=("ambiguous",)),
                                                 "episode", {"allow_ask": True})])
        qtbot.waitUntil(lambda: (panel.controller.status(run_id) or 0) and panel.controller.status(run_id).done >= 2,
                        timeout=10000)
        assert row_text(panel, run_id)["protocol"] == "episode" and row_text(panel, run_id)["status"] == "running"
        with qtbot.waitSignal(panel.runFinished, timeout=5000):
            panel.cancel(run_id)
        assert row_text(panel, run_id)["status"] == "cancelled"
        asked = len(server.requests)
        panel.tree.setCurrentItem(panel._items[run_id])
        assert panel.resume_button.isEnabled()
        with qtbot.waitSignal(panel.runFinished, timeout=15000):
            qtbot.mouseClick(panel.resume_button, Qt.LeftButton)
    assert row_text(panel, run_id)["status"] == "done"
    assert len(server.requests) - asked >= 3  # at least the unfinished episode, asked again from its first step
    with project.reading() as s:
        run = s.get(m.Run, run_id)
        assert (run.status, run.executions, run.samples) == (RunState.DONE, 2, 6)
        verdicts = s.execute(select(m.Prediction.verdict).where(m.Prediction.run_id == run_id)).scalars()
        assert set(verdicts) == {"gold"}
    assert row_text(panel, run_id)["verdicts"] == "✓6 ✗0"  # an episode step is right or wrong
    assert "correct steps: 6\nwrong steps: 0" in panel._items[run_id].toolTip(6)
    # its results in words under the list, as `screenlab eval` prints them
    panel.tree.setCurrentItem(panel._items[run_id])
    qtbot.waitUntil(lambda: "SSR" in panel.details.toPlainText(), timeout=5000)
    assert "2 episodes (6 steps), ASK on" in panel.details.toPlainText()
    assert "SSR 100.0%  SR 100.0%" in panel.details.toPlainText()
    # the agent never asked: the question content scores say so, not 0 (issue 39)
    assert "no ASK matched in time, so no METEOR or CosSim (TF-IDF fallback)" in panel.details.toPlainText()


@pytest.mark.parametrize("protocol", ["screen", "episode"])
def test_failures_show_in_the_runs_panel_for_every_protocol(qtbot, project, monkeypatch, protocol):
    monkeypatch.delenv("SCREENLAB_TEST_MISSING_KEY", raising=False)
    panel = RunsPanel(project)
    qtbot.addWidget(panel)
    keyless = AgentProfile(name="keyless", base_url="http://127.0.0.1:9/v1", model="m",
                           api_key_env="SCREENLAB_TEST_MISSING_KEY")
    with qtbot.waitSignal(panel.runFinished, timeout=5000):
        (run_id,) = panel.start_runs([RunRequest(keyless, protocol=protocol)])
    row = row_text(panel, run_id)
    assert (row["protocol"], row["status"]) == (protocol, "failed")
    # the Protocol column's tip, looked up on hover (RunItem): the protocol's own description
    from desktop_app.runs.protocols import PROTOCOLS

    assert panel._items[run_id].toolTip(1) == PROTOCOLS[protocol].description != protocol
    assert "SCREENLAB_TEST_MISSING_KEY" in panel._items[run_id].toolTip(2)
    assert "SCREENLAB_TEST_MISSING_KEY" in panel.message.text()
    with project.reading() as s:
        assert s.get(m.Run, run_id).status == RunState.FAILED

    # a server that always fails: the run finishes with errors, summarised for the whole run
    with FakeOpenAI(lambda body, n: Response(status=500)) as server, \
            qtbot.waitSignal(panel.runFinished, timeout=15000):
        (run_id,) = panel.start_runs([RunRequest(agent(server), EpisodeFilter(scenarios=("chat",)), "screen")])
    row = row_text(panel, run_id)
    assert row["status"] == "done, some errors" and row["errors"] == "HTTP 500 x 4"
    assert row["run"] == f"#{run_id}  fake · direct · chat"  # a readable name: agent · pattern · samples


def test_the_dashboard_shows_both_rule_sets_side_by_side(qtbot, project):
    """A text answer 'Close (\\u00d7)' (a JSON escape): ScreenLab reads the JSON, the authors' regex
    takes the escape literally and drops its backslash, so the two rule sets disagree on it."""
    def respond(body, n):
        return Response(text='{"action_type": "click", "element": "Close (\\u00d7)"}')

    with FakeOpenAI(respond) as server:
        panel = RunsPanel(project)
        qtbot.addWidget(panel)
        with qtbot.waitSignal(panel.runFinished, timeout=10000):
            (run_id,) = panel.start_runs([RunRequest(agent(server, convention="json-text", concurrency=4),
                                                     EpisodeFilter(scenarios=("popup",)), "screen")])
    dashboard = DashboardWidget()
    qtbot.addWidget(dashboard)
    dashboard.resize(1200, 700)
    with qtbot.waitSignal(dashboard.refreshed, timeout=10000):
        dashboard.refresh(project, [run_id])
    dashboard.set_breakdown("overall")
    dashboard.set_rules("both")
    table = dashboard.table()
    assert table.columns == ["screenlab", "envdistraction"]
    (row,) = table.rows
    ours, theirs = table.cell(row, "screenlab"), table.cell(row, "envdistraction")
    assert table.row_n(row) == ours["n"] == theirs["n"] == 9  # each sample counted once, not per rule set
    assert ours["acc_gold"] == 1.0 and theirs["acc_gold"] == 0.0 and theirs["acc_inv"] == 1.0
    assert len(dashboard.bars) == 2 * 4
    bar = next(b for b in dashboard.bars if b.column == "envdistraction" and b.metric == "acc_inv")
    info = dashboard.bar_info(bar)
    assert len(info["episode_ids"]) == 9 and info["metric"] == "acc_inv"
    header = dashboard.model.header_texts()
    assert "envdistraction Acc_other" in header and "screenlab wrong format" in header
