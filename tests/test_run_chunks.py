"""A run over more samples than the engine holds at once (it reads them 500 episodes at a time): every sample
asked once, the ones it cannot score counted, a stopped run resumed where it stopped."""

from __future__ import annotations

import hashlib
import io
import threading

import pytest
from PIL import Image
from sqlalchemy import func, select

from desktop_app.agents.profiles import BASELINES
from desktop_app.runs.engine import create_run, execute, plan_run
from desktop_app.store import models as m
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter

SAMPLES = 1203  # three chunks, the last one short


def _png() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (64, 40), (200, 200, 200)).save(buf, format="PNG")
    return buf.getvalue()


@pytest.fixture
def project(tmp_path):
    """Single-step samples; every 97th has no goal and every 89th no labelled action (in every chunk)."""
    png = _png()
    sha = hashlib.sha256(png).hexdigest()
    with Project.init(tmp_path / "p") as p:
        p.media.put(sha, "png", png)
        with p.transaction() as s:
            screen = m.Screen(sha256=sha, ext="png", width=64, height=40)
            s.add(screen)
            s.flush()
            for i in range(SAMPLES):
                episode = m.Episode(key=f"ep-{i}", goal="" if i % 97 == 5 else f"open item {i}",
                                    review_status="accepted")
                s.add(episode)
                s.flush()
                step = m.Step(episode_id=episode.id, index=0, screen_id=screen.id)
                s.add(step)
                s.flush()
                if i % 89 != 7:
                    s.add(m.ActionBox(step_id=step.id, x1=10, y1=10, x2=30, y2=20, label="gold",
                                      element_text=f"item {i}"))
        yield p


def _excluded() -> dict[str, int]:
    no_goal = sum(i % 97 == 5 for i in range(SAMPLES))
    no_label = sum(i % 89 == 7 and i % 97 != 5 for i in range(SAMPLES))
    return {"no goal": no_goal, "no labelled action": no_label}


def _predictions(project) -> tuple[int, int]:
    with project.reading() as s:
        return s.execute(select(func.count(), func.count(func.distinct(m.Prediction.step_id)))).one()


def test_a_run_larger_than_a_chunk_asks_every_sample_once(project):
    excluded = _excluded()
    scoreable = SAMPLES - sum(excluded.values())
    plan = plan_run(project, EpisodeFilter())
    assert (plan.protocol, plan.units, plan.steps) == ("screen", scoreable, scoreable)
    assert plan.excluded == excluded

    run_id = create_run(project, BASELINES["random"], plan=plan)
    status = execute(project, run_id)
    assert (status.total, status.done, status.skipped, status.excluded) == (scoreable, scoreable, 0,
                                                                          sum(excluded.values()))
    assert _predictions(project) == (scoreable, scoreable)
    with project.reading() as s:
        assert s.get(m.Run, run_id).status == "done"


def test_a_run_stopped_in_its_second_chunk_resumes_without_asking_again(project):
    scoreable = SAMPLES - sum(_excluded().values())
    run_id = create_run(project, BASELINES["random"])
    cancel = threading.Event()
    first = execute(project, run_id, cancel=cancel, progress=lambda st: st.done >= 700 and cancel.set())
    answered = _predictions(project)[0]
    assert first.cancelled and 700 <= answered < scoreable
    with project.reading() as s:
        assert s.get(m.Run, run_id).status == "cancelled"

    second = execute(project, run_id)
    assert (second.skipped, second.done) == (answered, scoreable - answered)
    assert _predictions(project) == (scoreable, scoreable)
    with project.reading() as s:
        assert s.get(m.Run, run_id).status == "done"
