"""Verifying ambiguous tasks in the window."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from desktop_app.navi.model import navi_of
from desktop_app.store import models as m
from desktop_app.store.orm import select
from desktop_app.ui.navi_review import NaviReviewPanel, highlight_removed

from conftest import ambiguous_tasks_project
from gui_helpers import key
from test_gui_editing import open_window

pytestmark = pytest.mark.gui


@pytest.fixture
def ambiguous_project(tmp_path):
    return ambiguous_tasks_project(tmp_path)


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
    key(window, "Y")
    with window.project.reading() as s:
        episode = s.exec(select(m.Episode).where(m.Episode.key == first_key)).one()
    navi = navi_of(episode)
    assert episode.review_status == "edited"
    assert navi.step_kinds == ["transactional", "informative", "informative"]
    assert navi.qa_pairs[0].question == "Which shoe size do you wear?"
    assert navi.qa_pairs[0].llm["question"] == "Which size?"  # the model's text is kept
    assert navi.checklist["style_kept"] is True

    assert window.ws.episode.key != first_key
    second_key = window.ws.episode.key
    # as generated: nothing ticked, and a removed detail nobody asks about: the reviewer is told, and asked
    assert "the checklist is empty" in panel.problems.text()
    assert "'on 12 May' was removed but no question asks for it" in panel.problems.text()
    assert "'in size 42'" not in panel.problems.text()  # the size question brings that one back
    key(window, "Y")
    assert panel.confirm is not None and panel.confirm.isVisible()
    panel.confirm.button(QMessageBox.Cancel).click()
    assert _status(window, second_key) == "pending"
    panel.checks["only_target_removed"].setChecked(True)
    assert "checklist is empty" not in panel.problems.text() and "12 May" in panel.problems.text()
    key(window, "Y")
    next(b for b in panel.confirm.buttons() if b.text() == "Accept anyway").click()
    assert _status(window, second_key) == "accepted"  # ticks are the reviewer's record, not an edit
    text = panel.progress.text()
    assert "2 of 2 reviewed" in text and "the model's step type (informative or not) on 83% of 6 steps" in text


def _status(window, key_):
    with window.project.reading() as s:
        return s.exec(select(m.Episode.review_status).where(m.Episode.key == key_)).one()


def test_a_task_with_problems_is_refused_when_the_setting_says_block(qtbot, ambiguous_project):
    window = open_window(qtbot, ambiguous_project)
    window.settings.ambiguous_problems = "block"
    key(window, "Ctrl+Shift+V")
    panel = window.review
    assert panel.problem_policy == "block"
    key(window, "D")  # the task that lost its date
    second = window.ws.episode.key
    for check in panel.checks.values():
        check.setChecked(True)
    key(window, "Y")
    assert _status(window, second) == "pending" and panel.confirm is None
    assert "Not accepted: 'on 12 May' was removed" in window.statusBar().currentMessage()


def test_the_header_counts_a_reviewed_task_even_without_the_models_step_types(qtbot, tmp_path):
    """Tasks written by hand (the demo's) have no model step types to compare with: after accepting one the
    header said "No ambiguous task reviewed yet" under "1 of 2 reviewed"."""
    window = open_window(qtbot, ambiguous_tasks_project(tmp_path, model_wrote=False))
    key(window, "Ctrl+Shift+V")
    panel = window.review
    assert "0 of 2 reviewed" in panel.progress.text()
    for check in panel.checks.values():
        check.setChecked(True)
    key(window, "Y")
    text = panel.progress.text()
    assert "1 of 2 reviewed" in text
    assert "No ambiguous task reviewed yet" not in text and "No ambiguous task accepted yet" not in text
    assert "none of the 1 accepted task has the model's step types to compare with" in text
