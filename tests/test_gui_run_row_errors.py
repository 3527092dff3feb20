"""A run or a judge run whose endpoint fails says so in its row of the runs list: a line under the row naming the
endpoint, what failed and what to check, gone once a resume gets every answer. A real QApplication offscreen,
the real openai client and the local fake server answering 500 (no pytest-qt)."""

from __future__ import annotations

import json
import time

import pytest
from PySide6.QtWidgets import QApplication

from desktop_app import api
from desktop_app.agents.profiles import AgentProfile
from desktop_app.formats.transfer import import_path
from desktop_app.paths import demo_dataset_dir
from desktop_app.runs.engine import RunRequest
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter
from desktop_app.ui.eval.runs_panel import STATUS, RunsPanel
from desktop_app.ui.tasks import wait_all

from openai_server import FakeOpenAI, Response

pytestmark = pytest.mark.gui


def _until(app: QApplication, done, seconds: float = 120.0) -> None:
    """Process events until done() (a run ends in a few seconds; the limit only keeps a hang from blocking)."""
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, "the run did not end"
        app.processEvents()
        time.sleep(0.01)


def _start(app, panel: RunsPanel, request: RunRequest) -> int:
    ended: list[int] = []
    panel.runFinished.connect(ended.append)
    (run_id,) = panel.start_runs([request])
    _until(app, lambda: run_id in ended)
    panel.runFinished.disconnect(ended.append)
    return run_id


def _problem(panel: RunsPanel, run_id: int) -> str:
    """The line under the run's row, as the list shows it ('' when there is none)."""
    item = panel._items[run_id]
    if not item.childCount():
        return ""
    line = item.child(0)
    assert item.isExpanded() and line.isFirstColumnSpanned() and not line.isHidden()
    assert panel.tree.visualItemRect(line).height() > 0  # on screen, not folded away
    return line.text(0)


@pytest.fixture
def project(tmp_path):
    with Project.init(tmp_path / "p") as p:
        import_path(p, demo_dataset_dir(), "screenlab")
        api.trajectories_from_episodes(p, {"scenarios": ["chat"]})
        yield p


def test_a_failing_endpoint_is_named_in_the_row_of_the_run_and_of_the_judge_run(project):
    app = QApplication.instance() or QApplication([])
    panel = RunsPanel(project)
    panel.resize(1000, 360)
    panel.show()
    trajectories = len(api.trajectories(project))
    advice = "the server failed; check that it runs, its log and the model"
    try:
        with FakeOpenAI(lambda body, n: Response(status=500)) as server:
            profile = AgentProfile(name="fake", base_url=server.base_url, model="m", convention="point-px",
                                   concurrency=1, max_retries=0, timeout_s=5)
            run_id = _start(app, panel, RunRequest(profile, EpisodeFilter(scenarios=("chat",)), "screen"))
            judge = AgentProfile(name="judge", base_url=server.base_url, model="judge-model", concurrency=1,
                                 max_retries=0, timeout_s=5)
            judge_id = _start(app, panel, RunRequest(judge, EpisodeFilter(), "judge"))
            assert _problem(panel, run_id) == (f"HTTP 500 x 4 from {server.base_url}: {advice} 'm'. "
                                               "Resume asks them again.")
            assert _problem(panel, judge_id) == (f"HTTP 500 x {trajectories} from {server.base_url}: {advice} "
                                                 "'judge-model'. Resume asks them again.")
            assert panel._items[run_id].text(STATUS) == "done, some errors"

            # the server is back: Resume asks the failed requests again, and the line goes
            server.responder = lambda body, n: Response(text='{"action_type": "click", "point": [640, 400]}')
            ended: list[int] = []
            panel.runFinished.connect(ended.append)
            assert panel.resume(run_id)
            _until(app, lambda: run_id in ended)
        assert _problem(panel, run_id) == ""
        assert panel._items[run_id].text(STATUS) == "done"
        assert _problem(panel, judge_id)  # not resumed: still says what failed
    finally:
        panel.shutdown()
        wait_all()
        panel.deleteLater()
        app.processEvents()


def test_writing_grounding_instructions_names_the_failing_endpoint(tmp_path):
    """Capability > Write instructions shows report.summary() in the window's status bar when it ends
    (ui/window_dialogs.py): the endpoint that failed and what to check are in it."""
    from desktop_app.paths import sphinx_demo_dataset_dir
    from desktop_app.synth.llm import LlmEndpoint

    with Project.init(tmp_path / "p") as project:
        import_path(project, sphinx_demo_dataset_dir(), "sphinx")
        tasks = api.extract_grounding_tasks(project).created
        with FakeOpenAI(lambda body, n: Response(status=500)) as server:
            report = api.write_grounding_instructions(project, LlmEndpoint(server.base_url, "writer"))
    # the first task's request and its one retry (synth/llm.py SYNTH_RETRIES), then the batch stops: every task
    # after it would have waited as long for the same failure
    assert len(server.requests) == 2
    assert report.written == 0 and len(report.failed) == 1 and report.not_asked == tasks - 1 > 0
    assert report.summary().startswith(f"0 instructions written; 1 failed, the first: the LLM at "
                                       f"{server.base_url} failed (HTTP 500")
    assert "check the address, the model name 'writer' and the key in Settings" in report.summary()
    assert report.summary().endswith(f"stopped there, {tasks - 1} tasks not asked: write again once the endpoint "
                                     "answers")


def test_a_malformed_answer_fails_its_task_only_and_writing_again_asks_only_what_is_left(tmp_path):
    """A model that answers, but not in the shape asked for, fails that task (after its attempts) and the batch
    goes on; writing again asks only the tasks still without an instruction."""
    from desktop_app.paths import sphinx_demo_dataset_dir
    from desktop_app.synth.llm import MAX_ATTEMPTS, LlmEndpoint

    def answer(body, n):  # the first task's attempts get prose, every other request a good answer
        if n < MAX_ATTEMPTS:  # n counts from 0
            return Response(text="Sure! Tap the button.")
        return Response(text=json.dumps({"marked_element": "x", "instruction": f"Tap item {n}."}))

    with Project.init(tmp_path / "p") as project:
        import_path(project, sphinx_demo_dataset_dir(), "sphinx")
        tasks = api.extract_grounding_tasks(project).created
        with FakeOpenAI(answer) as server:
            endpoint = LlmEndpoint(server.base_url, "writer")
            first = api.write_grounding_instructions(project, endpoint, limit=3)
            assert (first.written, len(first.failed), first.not_asked) == (2, 1, 0)
            assert "no valid answer after 3 attempts" in first.failed[0]
            asked = len(server.requests)
            again = api.write_grounding_instructions(project, endpoint)
    assert (again.written, again.failed) == (tasks - 2, [])
    assert len(server.requests) - asked == tasks - 2  # the two written tasks were not asked again
