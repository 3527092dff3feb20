"""Ambiguous-task generation against a local OpenAI-compatible server."""

from __future__ import annotations

import io
import json
import random

import pytest
from PIL import Image

from desktop_app.cli.main import main
from desktop_app.formats.transfer import import_path
from desktop_app.navi.model import navi_of
from desktop_app.store import models as m
from desktop_app.store.orm import select
from desktop_app.store.project import Project
from desktop_app.synth.ambiguous import make_ambiguous, marked_screenshot
from desktop_app.synth.llm import LlmEndpoint, LlmSession

from conftest import make_image
from openai_server import FakeOpenAI, Response, user_text

TASK = "Book a table for four at Lumo on Friday at 8 pm"


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "src"
    steps = []
    for i in range(3):
        make_image(folder / "images" / f"s{i}.png", size=(412, 915), color=(250, 250, 250 - 30 * i))
        steps.append({"image": f"images/s{i}.png",
                      "actions": [{"box": [50, 100 + 100 * i, 300, 160 + 100 * i], "label": "gold",
                                   "element_text": ["Lumo", "Friday", "Confirm"][i]}]})
    (folder / "episodes.jsonl").write_text(json.dumps({"id": "booking", "goal": TASK, "scenario": "navigation",
                                                       "steps": steps}) + "\n")
    with Project.init(tmp_path / "p") as p:
        import_path(p, folder, "screenlab")
        yield p


def writer(body, n):
    text = user_text(body)
    if "red frame" in text:
        code = text.split("The action was: ")[1].split("\n")[0]
        return Response(text=json.dumps({"marked_element": code, "instruction": f"Tap {code}"}))
    if "Label each step" in text:
        return Response(text=json.dumps({"steps": [{"index": 0, "kind": "transactional"},
                                                   {"index": 1, "kind": "informative"},
                                                   {"index": 2, "kind": "transactional"}]}))
    if "Rewrite the task" in text:
        return Response(text=json.dumps({"ambiguous_task": "Book a table for four at Lumo at 8 pm",
                                         "removed": [{"step": 1, "overlap": "on Friday",
                                                      "question": "Which day should I book?",
                                                      "answer": "Friday, please."}]}))
    return Response(text="?")


def test_generation_makes_a_pending_ambiguous_episode_with_provenance(project):
    with FakeOpenAI(writer) as server:
        with project.reading() as s:
            source = s.exec(select(m.Episode)).one()
        new_id = make_ambiguous(project, source.id, LlmSession(LlmEndpoint(server.base_url, "writer")),
                                random.Random(0))
        first = server.requests[0]["messages"][1]["content"]
    assert isinstance(first, list) and first[1]["type"] == "image_url"  # the step screenshot went along
    with project.reading() as s:
        episode = s.get(m.Episode, new_id)
        review = s.exec(select(m.ReviewItem).where(m.ReviewItem.episode_id == new_id)).one()
        steps = s.exec(select(m.Step).where(m.Step.episode_id == new_id).order_by(m.Step.index)).all()
    navi = navi_of(episode)
    assert (episode.scenario, episode.review_status, episode.goal) == ("ambiguous", "pending", navi.ambiguous_task)
    assert navi.original_task == TASK and navi.step_kinds == ["transactional", "informative", "transactional"]
    pair = navi.qa_pairs[0]
    assert (pair.ask_step, pair.question, pair.answer, pair.overlap) == (1, "Which day should I book?",
                                                                          "Friday, please.", "on Friday")
    assert pair.llm == {"question": "Which day should I book?", "answer": "Friday, please."}
    assert [s.instruction for s in steps] == ["Tap CLICK(Lumo)", "Tap CLICK(Friday)", "Tap CLICK(Confirm)"]
    assert review.kind == "ambiguous_task" and len(review.payload["calls"]) == 5


def test_the_target_is_marked_in_red(project, tmp_path):
    path = make_image(tmp_path / "x.png", size=(200, 100), color="white")
    marked = Image.open(io.BytesIO(marked_screenshot(path, (50, 20, 150, 80)))).convert("RGB")
    assert marked.getpixel((49, 50))[0] > 200 and marked.getpixel((49, 50))[1] < 50
    assert marked.getpixel((100, 50)) == (255, 255, 255)


def test_cli_needs_an_llm_for_ambiguous_tasks(project, capsys):
    assert main(["synth", "ambiguous", str(project.folder), "--count", "1"]) == 2
    assert "written by an LLM" in capsys.readouterr().err
    with FakeOpenAI(writer) as server:
        code = main(["synth", "ambiguous", str(project.folder), "--base-url", server.base_url, "--model", "w",
                     "--count", "3"])
    assert code == 0 and "generated 1 pending ambiguous samples" in capsys.readouterr().out
