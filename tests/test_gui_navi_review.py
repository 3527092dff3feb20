"""Verifying ambiguous tasks in the window."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from sqlmodel import select

from desktop_app.formats.transfer import import_path
from desktop_app.navi.model import navi_of
from desktop_app.store import models as m
from desktop_app.store.project import Project
from desktop_app.ui.navi_review import NaviReviewPanel, highlight_removed

from conftest import make_image
from gui_helpers import key
from test_gui_editing import open_window

pytestmark = pytest.mark.gui


@pytest.fixture
def ambiguous_project(tmp_path):
    folder = tmp_path / "data"
    lines = []
    for e in range(2):
        steps = []
        for i in range(3):
            make_image(folder / "images" / f"e{e}s{i}.png", size=(400, 300), color=(60 * i, 120, 40 * e))
            steps.append({"image": f"images/e{e}s{i}.png", "instruction": ["Open Stride", "Tap size 42", "Tap Buy"][i],
                          "actions": [{"box": [20, 20 + 80 * i, 200, 70 + 80 * i], "label": "gold"}]})
        kinds = ["transactional", "informative", "transactional"]
        navi = {"original_task": "Order the blue shoes in size 42 from Stride",
                "ambiguous_task": "Order the blue shoes from Stride", "step_kinds": kinds,
                "llm": {"step_kinds": kinds, "ambiguous_task": "Order the blue shoes from Stride"},
                "qa_pairs": [{"ask_step": 1, "removed_step": 1, "question": "Which size?", "answer": "Size 42.",
                              "overlap": "in size 42", "llm": {"question": "Which size?", "answer": "Size 42."}}]}
        lines.append({"id": f"shoes-{e}-ambiguous", "goal": navi["ambiguous_task"], "scenario": "ambiguous",
                      "review_status": "pending", "meta": {"navi": navi}, "steps": steps,
                      "reviews": [{"kind": "ambiguous_task", "status": "pending", "generator": "test"}]})
    (folder / "episodes.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    with Project.init(tmp_path / "p") as p:
        import_path(p, folder, "screenlab")
    return tmp_path / "p"


def test_removed_words_are_highlighted():
    left, right = highlight_removed("Order the blue shoes in size 42 from Stride", "Order the blue shoes from Stride")
    assert "line-through" in left and "in size 42" in left and "<span" not in right


def test_review_edit_accept_and_label_agreement(qtbot, ambiguous_project):
    window = open_window(qtbot, ambiguous_project)
    key(window, "Ctrl+Shift+V")
    panel = window.review
    assert isinstance(panel, NaviReviewPanel) and window._review_stack.currentWidget() is panel
    assert "0 of 2 reviewed" in panel.progress.text()
    assert panel.steps.item(1).checkState() == Qt.Checked and "ask here" in panel.steps.item(1).text()

    first_key = window.ws.episode.key
    panel.steps.item(2).setCheckState(Qt.Checked)  # the reviewer disagrees with one step label
    panel.pair_edits[0][0].setText("Which shoe size do you wear?")
    panel.checks["style_kept"].setChecked(True)
    key(window, "A")
    with window.project.reading() as s:
        episode = s.exec(select(m.Episode).where(m.Episode.key == first_key)).one()
    navi = navi_of(episode)
    assert episode.review_status == "edited"
    assert navi.step_kinds == ["transactional", "informative", "informative"]
    assert navi.qa_pairs[0].question == "Which shoe size do you wear?"
    assert navi.qa_pairs[0].llm["question"] == "Which size?"  # the model's text is kept
    assert navi.checklist["style_kept"] is True

    assert window.ws.episode.key != first_key
    key(window, "A")  # the second one as generated
    assert "2 of 2 reviewed" in panel.progress.text() and "step labels kept 83%" in panel.progress.text()
