"""Evaluation widgets, driven as the main window will: runs started from the dialog and the
controller (offline baselines and a local OpenAI-compatible server), predictions on the canvas,
the dashboard and its exports, the agent profile dialog."""

from __future__ import annotations

import json
import re
import shutil
import sys
from collections import Counter

import pytest
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QGraphicsScene
from sqlalchemy import func, select

from desktop_app import api
from desktop_app.agents.profiles import BASELINES, AgentProfile, load_profiles
from desktop_app.evaluation import tables
from desktop_app.evaluation.step_predictions import step_prediction_rows
from desktop_app.formats.transfer import import_path
from desktop_app.paths import demo_dataset_dir
from desktop_app.runs.engine import RunRequest, create_run, execute
from desktop_app.runs.evaluate import evaluate
from desktop_app.store import models as m
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter
from desktop_app.ui.eval.colours import run_colour
from desktop_app.ui.eval.dashboard import DashboardWidget
from desktop_app.ui.eval.prediction_layer import PredictionLayer, marks_from_rows
from desktop_app.ui.eval.prediction_panel import PredictionPanel
from desktop_app.ui.eval.profile_dialog import AgentProfileDialog
from desktop_app.ui.eval.run_controller import RunController
from desktop_app.ui.eval.run_dialog import RunDialog
from desktop_app.ui.eval.runs_panel import RunsPanel
from desktop_app.ui.tasks import wait_all

from openai_server import FakeOpenAI, Response, user_text

pytestmark = pytest.mark.gui
TASK = re.compile(r"(?:Task: |<user_goal>)(.*?)(?:</user_goal>|\n|$)")


@pytest.fixture(scope="module")
def demo_template(tmp_path_factory):
    path = tmp_path_factory.mktemp("template") / "demo"
    with Project.init(path) as p:
        import_path(p, demo_dataset_dir(), "screenlab")
    return path


@pytest.fixture
def project(tmp_path, demo_template):
    """A fresh copy of the imported demo (copying is 10x faster than importing again)."""
    shutil.copytree(demo_template, tmp_path / "demo")
    with Project.open(tmp_path / "demo") as p:
        yield p


@pytest.fixture(autouse=True)
def _background_calls_end():
    yield
    wait_all()  # no count query or test request outlives its test


def gold_texts(project) -> dict[str, str]:
    """goal -> the element text of its gold action."""
    out = {}
    with project.reading() as s:
        for goal, text in s.execute(select(m.Episode.goal, m.ActionBox.element_text).select_from(m.Episode)
                                    .join(m.Step, m.Step.episode_id == m.Episode.id)
                                    .join(m.ActionBox, m.ActionBox.step_id == m.Step.id)
                                    .where(m.ActionBox.label == "gold")):
            out.setdefault(goal, text)
    return out


def goal_of(body) -> str:
    found = TASK.findall(user_text(body))
    return found[-1].strip() if found else ""


def stored_verdicts(project, run_ids, step_id) -> dict[int, tuple]:
    with project.reading() as s:
        rows = s.execute(select(m.Prediction).where(m.Prediction.step_id == step_id,
                                                    m.Prediction.run_id.in_(run_ids))).scalars()
        return {p.run_id: (p.verdict, p.wrong_format, p.x, p.y) for p in rows}


def test_baselines_from_the_run_dialog_to_the_canvas(qtbot, project):
    panel = RunsPanel(project)
    qtbot.addWidget(panel)
    dialog = RunDialog(project, current_filter=EpisodeFilter(scenarios=("popup", "search")), profiles={})
    qtbot.addWidget(dialog)
    dialog.set_agents(["center", "random"])
    dialog.set_source("filter")
    qtbot.waitUntil(lambda: dialog.counted, timeout=5000)
    pending = 1  # demo: one popup/search episode is still pending review, left out by default
    assert dialog.selection().steps == 9 + 7 - pending
    assert dialog.estimate().requests == 0  # baselines ask nobody
    runs = dialog.runs()
    assert [r.profile.name for r in runs] == ["random", "center"]  # the baselines' order
    assert {r.protocol for r in runs} == {"screen"}  # single screens: what these samples fit

    finished = []
    panel.runFinished.connect(finished.append)
    run_ids = panel.start_runs(runs)[::-1]  # center, random
    qtbot.waitUntil(lambda: len(finished) == 2, timeout=10000)
    assert sorted(finished) == sorted(run_ids)
    assert set(run_ids) <= set(panel.visible_runs())
    rows = {r.id: r for r in panel.run_rows()}
    assert all(rows[i].status == "done" and rows[i].answered == 15 for i in run_ids)
    tally = rows[run_ids[0]].verdicts  # the list's compact counts: gold, distracted, other, invalid
    assert panel._items[run_ids[0]].text(6) == " ".join(
        f"{letter}{tally.get(v, 0)}" for letter, v in zip("gdoi", ("gold", "distracted", "other", "invalid"), strict=True))
    assert panel._items[run_ids[0]].text(1) == "screen"  # the protocol column

    # one popup step: the layer's marks carry the verdicts the database holds
    with project.reading() as s:
        step_id, width, height = s.execute(select(m.Step.id, m.Screen.width, m.Screen.height).join(m.Episode)
                                           .join(m.Screen, m.Screen.id == m.Step.screen_id)
                                           .where(m.Episode.key == "demo-popup-01")).one()
    step_rows = step_prediction_rows(project, step_id, panel.visible_runs())
    layer = PredictionLayer(QRectF(0, 0, width, height))
    layer.set_predictions(marks_from_rows(step_rows, panel.colour_of))
    truth = stored_verdicts(project, run_ids, step_id)
    marks = {mk.run_id: mk for mk in layer.marks()}
    assert set(marks) == set(run_ids)
    for run_id, (verdict, wrong_format, x, y) in truth.items():
        assert (marks[run_id].verdict, marks[run_id].wrong_format) == (verdict, wrong_format)
        assert marks[run_id].point == (x, y)
    center = marks[run_ids[0]]
    assert center.point == (width / 2, height / 2)
    assert layer.mark_at(QPointF(width / 2 + 3, height / 2 - 2), 1.0) == center  # a few pixels off still hits
    assert layer.mark_at(QPointF(5, height - 5), 1.0) is None
    assert [label for _, label in layer.legend_entries()] == [f"#{run_ids[1]} random / direct",
                                                              f"#{run_ids[0]} center / direct"]

    # painted: the cross is there, in the run's colour, at 1:1 and zoomed out
    scene = QGraphicsScene()
    scene.setSceneRect(QRectF(0, 0, width, height))
    scene.addItem(layer)
    for zoom in (1.0, 0.5):
        image = QImage(int(width * zoom), int(height * zoom), QImage.Format_ARGB32)
        image.fill(QColor("black"))
        painter = QPainter(image)
        scene.render(painter, QRectF(image.rect()), QRectF(0, 0, width, height))
        painter.end()
        arm = image.pixelColor(int(width / 2 * zoom) + 6, int(height / 2 * zoom))
        assert arm == panel.colour_of(run_ids[0]), zoom

    prediction_panel = PredictionPanel()
    qtbot.addWidget(prediction_panel)
    prediction_panel.show_predictions(step_rows)
    assert len(prediction_panel.cards) == 2
    card = next(c for c in prediction_panel.cards if c.row["run"] == run_ids[0])
    assert card.raw.isReadOnly() and '"action_type": "click"' in card.raw.toPlainText()
    assert card.fields["Point"].text() == f"({width / 2:.0f}, {height / 2:.0f})"

    # hiding a run drops it from the overlay
    seen = []
    panel.runsVisibilityChanged.connect(seen.append)
    panel._items[run_ids[1]].setCheckState(0, Qt.Unchecked)
    assert seen[-1] == [i for i in panel.visible_runs()] and run_ids[1] not in seen[-1]
    assert [r["run"] for r in step_prediction_rows(project, step_id, seen[-1])] == [run_ids[0]]


def test_a_server_run_cancelled_halfway_resumes_without_asking_twice(qtbot, project):
    gold = gold_texts(project)

    def respond(body, n):
        return Response(text=json.dumps({"action_type": "click", "element": gold.get(goal_of(body), "?")}), delay=0.06)

    with FakeOpenAI(respond) as server:
        panel = RunsPanel(project)
        qtbot.addWidget(panel)
        controller: RunController = panel.controller
        profile = AgentProfile(name="fake", base_url=server.base_url, model="m", convention="json-text",
                               concurrency=2, max_retries=0, timeout_s=5)
        (run_id,) = panel.start_runs([RunRequest(profile)])
        moved = []
        panel.predictionsChanged.connect(moved.append)
        qtbot.waitUntil(lambda: controller.status(run_id) is not None and controller.status(run_id).done >= 6,
                        timeout=10000)
        assert panel._items[run_id].text(2) == "running"
        with qtbot.waitSignal(panel.runFinished, timeout=5000):
            panel.cancel(run_id)
        with project.reading() as s:
            done_before = {g for (g,) in s.execute(
                select(m.Episode.goal).join(m.Step, m.Step.episode_id == m.Episode.id)
                .join(m.Prediction, m.Prediction.step_id == m.Step.id)
                .where(m.Prediction.run_id == run_id, m.Prediction.verdict != "error"))}
            status = s.get(m.Run, run_id).status
        assert status == "cancelled" and 6 <= len(done_before) < 24
        assert moved and len(moved) < 24  # throttled: fewer UI updates than answers
        asked_before = len(server.requests)

        assert panel.resume(run_id)
        with qtbot.waitSignal(panel.runFinished, timeout=15000):
            pass
        asked_again = Counter(goal_of(b) for b in server.requests[asked_before:])
    assert not set(asked_again) & done_before  # no finished sample asked twice
    with project.reading() as s:
        verdicts = Counter(s.execute(select(m.Prediction.verdict).where(m.Prediction.run_id == run_id)).scalars())
        assert s.get(m.Run, run_id).status == "done"
    assert verdicts == {"gold": 24}
    assert panel.run_rows()[0].answered == 24
    assert sys.getswitchinterval() == pytest.approx(0.005)  # lowered only while runs stream


def test_a_failing_run_is_reported_not_raised(qtbot, project, monkeypatch):
    monkeypatch.delenv("SCREENLAB_TEST_MISSING_KEY", raising=False)
    panel = RunsPanel(project)
    qtbot.addWidget(panel)
    profile = AgentProfile(name="keyless", base_url="http://127.0.0.1:9/v1", model="m",
                           api_key_env="SCREENLAB_TEST_MISSING_KEY")
    failures = []
    panel.controller.runFailed.connect(lambda run_id, msg: failures.append(msg))
    with qtbot.waitSignal(panel.runFinished, timeout=5000):
        (run_id,) = panel.start_runs([RunRequest(profile)])
    assert "SCREENLAB_TEST_MISSING_KEY" in failures[0] and "SCREENLAB_TEST_MISSING_KEY" in panel.message.text()
    assert panel._items[run_id].text(2) == "failed"
    with project.reading() as s:
        assert s.get(m.Run, run_id).status == "failed"


def test_dashboard_numbers_exports_and_bar_clicks(qtbot, project, tmp_path):
    run_ids = []
    for name in ("center", "random"):
        run_ids.append(create_run(project, BASELINES[name], EpisodeFilter()))
        execute(project, run_ids[-1])
    metrics = evaluate(project, run_ids, ("screenlab",))

    dashboard = DashboardWidget()
    qtbot.addWidget(dashboard)
    dashboard.resize(1100, 700)
    dashboard.show()
    qtbot.waitExposed(dashboard)
    with qtbot.waitSignal(dashboard.refreshed, timeout=5000):
        dashboard.refresh(project, run_ids)
    assert dashboard.model.rowCount() == 2
    assert len(dashboard.bars) == 2 * 4 * 4  # agents x metrics x scenarios

    for fmt in ("csv", "md", "tex"):
        dashboard.export_table(tmp_path / f"by_scenario.{fmt}")
    back = tables.read_csv(tmp_path / "by_scenario.csv")
    assert back.rows == [("center", "direct"), ("random", "direct")]
    for run_id, row in zip(run_ids, back.rows, strict=True):
        expected = metrics["runs"][run_id]["metrics"]["screenlab"]
        assert back.cell(row, tables.ALL)["acc_gold"] == pytest.approx(expected["overall"]["acc_gold"])
        assert back.cell(row, tables.ALL)["acc_inv_ci95"] == pytest.approx(expected["overall"]["acc_inv_ci95"])
        for scenario, numbers in expected["by_scenario"].items():
            for key in ("n", "acc_gold", "acc_dist", "acc_inv"):
                assert back.cell(row, scenario)[key] == pytest.approx(numbers[key]), (scenario, key)
    md = (tmp_path / "by_scenario.md").read_text()
    assert "| center | direct | 24 |" in md and "popup Acc_dist" in md
    tex = (tmp_path / "by_scenario.tex").read_text()
    assert r"\toprule" in tex and r"\multicolumn{4}{c}{recommendation}" in tex and r"\bottomrule" in tex
    assert dashboard.export_png(tmp_path / "plot.png").stat().st_size > 1000

    dashboard.set_breakdown("overall")
    assert len(dashboard.bars) == 2 * 4
    # a real click on the bar of random's Acc_inv
    bar = next(b for b in dashboard.bars if b.row == ("random", "direct") and b.metric == "acc_inv")
    view_pos = dashboard.plot_widget.mapFromScene(dashboard.bar_scene_pos(bar))
    with qtbot.waitSignal(dashboard.barClicked, timeout=2000) as clicked:
        QTest.mouseClick(dashboard.plot_widget.viewport(), Qt.LeftButton, Qt.NoModifier, view_pos)
    info = clicked.args[0]
    assert (info["agent"], info["pattern"], info["scenario"], info["verdict"]) == ("random", "direct", None, "invalid")
    assert info["run_ids"] == [run_ids[1]]
    with project.reading() as s:
        invalid = set(s.execute(select(m.Step.episode_id).join(m.Prediction, m.Prediction.step_id == m.Step.id)
                                .where(m.Prediction.run_id == run_ids[1], m.Prediction.verdict == "invalid")).scalars())
    assert set(info["episode_ids"]) == invalid and invalid

    dashboard.set_breakdown("scenario")
    bar = next(b for b in dashboard.bars if b.row == ("center", "direct") and b.column == "popup"
               and b.metric == "acc_gold")
    info = dashboard.bar_info(bar)
    assert info["scenario"] == "popup" and info["verdict"] == "gold"


def test_profile_dialog_validates_tests_the_connection_and_saves(qtbot, monkeypatch):
    stored = {}
    monkeypatch.setattr("desktop_app.secrets.store_key", lambda owner, key: stored.__setitem__(owner, key))
    with FakeOpenAI(lambda body, n: Response(text="OK") if n == 0 else Response(status=401)) as server:
        dialog = AgentProfileDialog()
        qtbot.addWidget(dialog)
        dialog.name.setText("local-qwen")
        dialog.base_url.setText(server.base_url)
        dialog.model.setText("qwen")
        dialog.convention.setCurrentIndex(dialog.convention.findData("qwen25vl"))
        assert "Qwen" in dialog.convention_help.text()
        dialog.extra_body.setPlainText('{"skip_special_tokens": fal')
        assert not dialog.buttons.button(dialog.buttons.StandardButton.Save).isEnabled()
        assert dialog.extra_error.isVisibleTo(dialog)
        dialog.extra_body.setPlainText('{"skip_special_tokens": false}')
        assert dialog.buttons.button(dialog.buttons.StandardButton.Save).isEnabled()
        dialog.key_source.setCurrentIndex(dialog.key_source.findData("keyring"))
        dialog.key_field.setText("sk-secret-123")

        with qtbot.waitSignal(dialog.testFinished, timeout=10000) as result:
            dialog.test_button.click()
            assert not dialog.test_button.isEnabled()  # the request runs off the UI thread
        assert result.args[0] is True and "answered \u201cOK\u201d" in dialog.test_result.text()
        assert server.auth_headers[0] == "Bearer sk-secret-123"
        assert server.requests[0]["skip_special_tokens"] is False  # the extra body reached the server
        with qtbot.waitSignal(dialog.testFinished, timeout=10000) as result:
            dialog.test_button.click()
        assert result.args[0] is False and "401" in dialog.test_result.text()

    with qtbot.waitSignal(dialog.saved) as saved:
        assert dialog.save()
    assert saved.args[0].name == "local-qwen" and stored == {"local-qwen": "sk-secret-123"}
    profile = load_profiles()["local-qwen"]
    assert profile.use_keyring and profile.extra_body == {"skip_special_tokens": False}
    assert profile.convention == "qwen25vl" and profile.factor is None
    from desktop_app.agents.profiles import profiles_path

    assert "sk-secret" not in profiles_path().read_text()

    # a key pasted into the "Variable" field is refused, and not echoed or written anywhere
    pasted = AgentProfileDialog()
    qtbot.addWidget(pasted)
    pasted.set_profile(profile)
    pasted.name.setText("pasted")
    pasted.key_source.setCurrentIndex(pasted.key_source.findData("env"))
    pasted.api_key_env.setText("sk-live-abc.def")
    assert not pasted.save() and "letters, digits and _" in pasted.error.text()
    assert "sk-live" not in pasted.error.text() and "pasted" not in load_profiles()
    assert "sk-live" not in profiles_path().read_text()

    # a second agent of the same name is refused, inline
    again = AgentProfileDialog()
    qtbot.addWidget(again)
    again.set_profile(profile)
    again.original = None
    assert not again.save() and "exists" in again.error.text()


def test_run_dialog_counts_requests_and_tokens_per_pattern(qtbot, project):
    gpt = AgentProfile(name="gpt", base_url="http://127.0.0.1:9/v1", model="gpt-4o", image_detail="low",
                       price_in_per_mtok=2.5, price_out_per_mtok=10)
    with project.reading() as s:
        ids = list(s.execute(select(m.Episode.id).order_by(m.Episode.id).limit(5)).scalars())
    dialog = RunDialog(project, episode_ids=ids, profiles={"gpt": gpt})
    qtbot.addWidget(dialog)
    assert dialog.source() == "ids" and not dialog.source_buttons["filter"].isEnabled()
    dialog.set_agents(["gpt", "center"])
    dialog.set_patterns(["direct", "cot"])
    dialog.set_statuses("accepted")
    qtbot.waitUntil(lambda: dialog.counted, timeout=5000)
    runs = dialog.runs()
    assert [(r.profile.name, r.profile.pattern) for r in runs] == [("gpt", "direct"), ("gpt", "cot"), ("center", "direct")]
    assert all(r.episodes.ids == tuple(ids) and r.episodes.review_statuses == ("accepted",) for r in runs)
    steps = dialog.selection().steps
    est = dialog.estimate()
    assert est.requests == steps * (1 + 2)  # cot asks twice; the baseline never
    assert steps * 3 * 85 < est.prompt_tokens < steps * 3 * 2000  # low detail: 85 tokens an image, plus text
    assert est.cost > 0 and f"{est.requests} requests" in dialog.summary.text()
    dialog.set_agents([])
    assert not dialog.buttons.button(dialog.buttons.StandardButton.Ok).isEnabled()


def test_layer_places_text_answers_and_unplaceable_ones():
    layer = PredictionLayer(QRectF(0, 0, 1000, 600))
    text = marks_from_rows([
        {"run": 1, "agent": "a", "pattern": "direct", "point": None, "matched_box_rect": [100, 100, 200, 140],
         "matched_box": 7, "verdict": "distracted", "wrong_format": False},
        {"run": 2, "agent": "b", "pattern": "cot", "point": None, "matched_box_rect": None,
         "verdict": "invalid", "wrong_format": True},
        {"run": 3, "agent": "c", "pattern": "direct", "point": [1200, 50], "verdict": "invalid",
         "wrong_format": False}])
    layer.set_predictions(text)
    assert [mk.verdict_text for mk in layer.marks()] == ["distracted", "wrong format", "invalid"]
    assert layer.mark_at(QPointF(150, 120), 1.0).box_id == 7  # inside the outlined box
    # an answer with no place on the page is not drawn over it: the legend names the run and its verdict
    assert layer.mark_at(QPointF(20, 14), 1.0) is None
    assert (run_colour(2), "#2 b / cot: wrong format") in layer.legend_entries()
    assert layer.mark_at(QPointF(1000, 50), 0.5).run_id == 3  # outside the image: drawn on its edge, zoomed in
    assert layer.mark_at(QPointF(1200, 50), 0.5) is None
    assert layer.boundingRect().contains(QRectF(0, 0, 1001, 601))
    image = QImage(500, 300, QImage.Format_ARGB32)
    image.fill(QColor("white"))
    scene = QGraphicsScene()
    scene.addItem(layer)
    painter = QPainter(image)
    scene.render(painter, QRectF(image.rect()), QRectF(0, 0, 1000, 600))
    painter.end()  # painting never raises, whatever the marks


def test_a_repeated_run_is_estimated_at_the_answers_not_cached(qtbot, project):
    """A run repeated on the same samples makes no request (every answer is cached): its estimate said
    "146 requests ~133k tokens" all the same."""
    with project.reading() as s:
        ids = list(s.execute(select(m.Episode.id).where(m.Episode.review_status == "accepted")
                             .order_by(m.Episode.id).limit(6)).scalars())
    with FakeOpenAI(lambda body, n: Response(text='{"action_type": "click", "point": [10, 10]}')) as server:
        def agent(pattern: str) -> AgentProfile:
            return AgentProfile(name="gpt", base_url=server.base_url, model="m", convention="json-text",
                                pattern=pattern, max_retries=0, timeout_s=5)

        first = ids[:4]
        for pattern in ("direct", "cot"):
            execute(project, create_run(project, agent(pattern), EpisodeFilter(ids=tuple(first))))
        asked = len(server.requests)

        def estimate(pattern: str, episodes: list[int]):
            dialog = RunDialog(project, episode_ids=episodes, profiles={"gpt": agent(pattern)})
            qtbot.addWidget(dialog)
            dialog.set_agents(["gpt"])
            dialog.set_patterns([pattern])
            qtbot.waitUntil(lambda: dialog.counted, timeout=10000)
            return dialog

        for pattern in ("direct", "cot"):
            dialog = estimate(pattern, first)
            steps = dialog.selection().steps
            assert dialog.estimate().requests == 0 and dialog.estimate().prompt_tokens == 0, pattern
            assert f"0 requests: all {steps} answers are cached" in dialog.summary.text(), pattern
        # two more episodes: only their steps are asked (and cot asks twice)
        dialog = estimate("cot", ids)
        new = dialog.selection().steps  # every step of the six
        with project.reading() as s:
            fresh = s.execute(select(func.count(m.Step.id)).where(m.Step.episode_id.in_(ids[4:]))).scalar_one()
        assert dialog.estimate().requests == fresh * 2 and dialog.estimate().prompt_tokens > 0
        assert f"{fresh * 2} requests ({new - fresh} of {new} answers cached)" in dialog.summary.text()
        # the same through the API: the answers a run would find in the cache
        assert api.cached_answers(project, agent("direct"), EpisodeFilter(ids=tuple(ids))) == new - fresh
        assert len(server.requests) == asked  # estimating asks nobody
