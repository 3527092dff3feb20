"""Pre-labelling with your own model (issue 21, item 19): a grounding model's run becomes boxes around the
elements it points at, as suggestions in the window and in bulk from the command line."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw
from PySide6.QtWidgets import QApplication

from desktop_app import api
from desktop_app.cli.main import main
from desktop_app.formats.transfer import import_path
from desktop_app.settings import Settings
from desktop_app.store import models as m
from desktop_app.store.orm import select
from desktop_app.store.project import Project

from gui_helpers import click, key
from openai_server import FakeOpenAI, Response

BUTTON = (300, 250, 500, 300)


def _iou(a, b):
    ix = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


@pytest.fixture
def prelabelled(tmp_path, monkeypatch, capsys):
    """A project of two screens with one outlined button each, and run 1 of a model that clicks inside it."""
    (tmp_path / "shots").mkdir()
    for i in range(2):
        image = Image.new("RGB", (800, 600), "white")
        ImageDraw.Draw(image).rectangle(BUTTON, fill=(220, 226, 235 - i), outline=(40, 40, 40), width=2)
        image.save(tmp_path / "shots" / f"s{i}.png")
    folder = tmp_path / "p"
    with Project.init(folder) as p:
        import_path(p, tmp_path / "shots", "images")
    monkeypatch.setenv("TEST_KEY", "sk-test")
    with FakeOpenAI(lambda body, n: Response(text='{"action_type": "click", "point": [410, 280]}')) as server:
        assert main(["agents", "add", "grounder", "--base-url", server.base_url, "--model", "m",
                     "--convention", "point-px", "--api-key-env", "TEST_KEY"]) == 0
        assert main(["run", str(folder), "--agent", "grounder", "--include-unlabelled"]) == 0
    capsys.readouterr()
    return folder


def _boxes(folder):
    with Project.open(folder) as p, p.reading() as s:
        return s.exec(select(m.ActionBox).order_by(m.ActionBox.id)).all()


def test_a_runs_answers_become_boxes_around_the_element_and_labelled_screens_are_left_alone(prelabelled, capsys):
    with api.open_project(prelabelled) as project, project.reading() as s:
        step = s.exec(select(m.Step).order_by(m.Step.id)).first()
    with api.open_project(prelabelled) as project:
        (proposal,) = api.model_proposals(project, step.id, [1])
    assert _iou(proposal.box, BUTTON) >= 0.8  # the button, not a dot at (410, 280)

    assert main(["prelabel", str(prelabelled), "--run", "1"]) == 0
    assert "2 screens pre-labelled; 0 already had boxes" in capsys.readouterr().out
    boxes = _boxes(prelabelled)
    assert len(boxes) == 2 and {(b.label, b.source) for b in boxes} == {("gold", "llm")}
    assert all(_iou((b.x1, b.y1, b.x2, b.y2), BUTTON) >= 0.8 for b in boxes)
    assert main(["prelabel", str(prelabelled), "--run", "1", "--label", "other"]) == 0
    assert "0 screens pre-labelled; 2 already had boxes" in capsys.readouterr().out
    assert len(_boxes(prelabelled)) == 2
    assert main(["prelabel", str(prelabelled), "--run", "7"]) == 2
    assert "no run 7" in capsys.readouterr().err


@pytest.mark.gui
def test_the_window_offers_a_runs_answer_as_a_suggestion_to_accept(qtbot, prelabelled):
    from test_gui_editing import open_window

    window = open_window(qtbot, prelabelled, Settings(annotator="ann", show_suggestions=True))
    window.runs.set_visible_runs([1])
    window.model_suggestions_action.setChecked(True)
    QApplication.processEvents()
    window.ocr.wait_idle()  # OCR's words arrive too; the run's answer stays among them
    QApplication.processEvents()
    layer = window.scene.suggestions
    assert any(s.kind == "model" for s in layer.items)
    suggestion = next(s for s in layer.items if s.kind == "model")
    assert _iou(suggestion.box, BUTTON) >= 0.8
    click(window.view, suggestion.box[0] + 15, suggestion.box[1] + 10)  # away from the run's marker
    key(window.view, "Return")
    (box,) = [b for b in window.ws.boxes.values()]
    assert _iou((box.x1, box.y1, box.x2, box.y2), BUTTON) >= 0.8 and box.source == "llm"
    window.model_suggestions_action.setChecked(False)
    assert not any(s.kind == "model" for s in window.scene.suggestions.items)
    window.close()
