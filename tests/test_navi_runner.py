"""Ambiguous-task runs: steps in order, ASK answered by the simulated user, Dual-Stream metrics."""

from __future__ import annotations

import json
import re

import pytest

from desktop_app.agents.profiles import AgentProfile
from desktop_app.formats.transfer import import_path
from desktop_app.runs.engine import create_run, execute
from desktop_app.runs.evaluate import evaluate
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter

from conftest import SHOE_BOXES, write_shoe_episodes
from openai_server import FakeOpenAI, Response, user_text

BOXES = SHOE_BOXES


@pytest.fixture
def project(tmp_path):
    with Project.init(tmp_path / "p") as p:
        import_path(p, write_shoe_episodes(tmp_path / "data"), "screenlab")
        yield p


def step_of(body) -> int:
    return len(re.findall(r"Step \d+:", user_text(body)))


def click(i):
    x1, y1, x2, y2 = BOXES[i]
    return Response(text=json.dumps({"action_type": "click", "point": [(x1 + x2) / 2, (y1 + y2) / 2]}))


def asking_agent(body, n):
    text = user_text(body)
    step = step_of(body)
    if step == 1 and "The user answered" not in text:
        return Response(text=json.dumps({"action_type": "ask", "question": "Which size do you need?"}))
    if step == 1 and "Size 42." not in text:
        return Response(text="{}")  # the answer did not reach the agent: fail loudly
    return click(step)


def navi_metrics(project, run_id):
    return evaluate(project, [run_id])["runs"][run_id]["metrics"]


def profile(server):
    return AgentProfile(name="asker", base_url=server.base_url, model="m", convention="point-px", concurrency=2)


def test_ask_is_answered_and_the_step_predicted_again(project):
    with FakeOpenAI(asking_agent) as server:
        run_id = create_run(project, profile(server), EpisodeFilter(scenarios=("ambiguous",)), protocol="episode",
                            options={"allow_ask": True})
        status = execute(project, run_id)
        texts = [user_text(b) for b in server.requests]
    assert status.done == 6 and status.errors == 0
    assert len(texts) == 8  # 3 steps + 1 repeated step per episode
    assert "ASK" in "".join(b["messages"][0]["content"] for b in server.requests[:1]).upper()
    metrics = navi_metrics(project, run_id)
    assert (metrics["ssr"], metrics["sr"]) == (1.0, 1.0)
    assert metrics["ask"]["tp"] == 2 and metrics["ask"]["fp"] == 0 and metrics["ask"]["precision"] == 1.0
    assert metrics["question_f1"] == 1.0
    assert metrics["per_episode"][0]["events"] == ["ASK at step 1 for step 1: on time"]


def test_without_ask_the_incomplete_setting_loses_the_step(project):
    with FakeOpenAI(asking_agent) as server:
        run_id = create_run(project, profile(server), EpisodeFilter(scenarios=("ambiguous",)), protocol="episode",
                            options={"allow_ask": False})
        execute(project, run_id)
        system = server.requests[0]["messages"][0]["content"]
    assert "ask the user" not in system
    metrics = navi_metrics(project, run_id)
    assert metrics["ssr"] == pytest.approx(2 / 3) and metrics["sr"] == 0.0
    assert metrics["ask"]["fp"] == 0 and metrics["ask"]["tp"] == 2  # it asked (unanswered), at the right step


def test_a_cancelled_navi_run_resumes_whole_episodes(project):
    import threading

    cancel = threading.Event()
    with FakeOpenAI(lambda body, n: Response(text=asking_agent(body, n).text, delay=0.05)) as server:
        run_id = create_run(project, profile(server), EpisodeFilter(scenarios=("ambiguous",)), protocol="episode",
                            options={"allow_ask": True})
        first = execute(project, run_id, cancel=cancel, concurrency=1,
                        progress=lambda st: cancel.set() if st.done >= 2 else None)
        assert first.cancelled
        second = execute(project, run_id, concurrency=1)
    assert second.done + second.skipped == 6
    metrics = navi_metrics(project, run_id)
    assert metrics["episodes"] == 2 and metrics["ssr"] == 1.0


def test_a_label_fix_does_not_rescore_episode_steps_with_the_single_screen_judge(project):
    """Episode predictions say whether the step was right (Dual-Stream), not which box was clicked."""
    from sqlalchemy import select

    from desktop_app.evaluation.rescore import rescore
    from desktop_app.store import edits
    from desktop_app.store import models as m

    with FakeOpenAI(asking_agent) as server:
        run_id = create_run(project, profile(server), EpisodeFilter(scenarios=("ambiguous",)), protocol="episode")
        execute(project, run_id)
    with project.reading() as s:
        before = dict(s.execute(select(m.Prediction.id, m.Prediction.verdict)).all())
        box = s.execute(select(m.ActionBox)).scalars().first()
    edits.update_boxes(project, [(box.id, {"label": "distracted"})])
    assert rescore(project, step_ids=[box.step_id]) == 0
    with project.reading() as s:
        assert dict(s.execute(select(m.Prediction.id, m.Prediction.verdict)).all()) == before
