"""Evaluation inside the main window: a run's markers, outcome filters, re-scoring on a label fix."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import func, select

from desktop_app.agents.profiles import BASELINES
from desktop_app.runs.engine import RunRequest
from desktop_app.store import models as m

from gui_helpers import key
from test_gui_editing import open_window

pytestmark = pytest.mark.gui


def test_run_markers_filters_and_rescoring(qtbot, demo_copy):
    window = open_window(qtbot, demo_copy)
    with qtbot.waitSignal(window.runs.runFinished, timeout=60000):
        (run_id,) = window.runs.start_runs([RunRequest(BASELINES["center"])], "centre clicks")
    with window.project.reading() as s:
        hit = s.execute(select(m.Prediction, m.Step.episode_id).join(m.Step, m.Step.id == m.Prediction.step_id)
                        .where(m.Prediction.run_id == run_id, m.Prediction.matched_box_id.is_not(None))).first()
        invalid = s.execute(select(func.count(func.distinct(m.Step.episode_id))).join(
            m.Prediction, m.Prediction.step_id == m.Step.id).where(m.Prediction.run_id == run_id,
                                                                   m.Prediction.verdict == "invalid")).scalar()
    prediction, episode_id = hit

    # the answer is drawn on its screen, in the run's colour, with its verdict
    window.browser.select_row(window.browser.model.row_of(episode_id))
    marks = window.scene.predictions.marks()
    assert [(mk.run_id, mk.point, mk.verdict) for mk in marks] == [(run_id, (prediction.x, prediction.y),
                                                                     prediction.verdict)]
    assert window.prediction_panel.findChildren(object)  # a card per visible run

    # fixing the label of the box it hit re-scores it, off the UI thread, and the marker follows
    new_label = {"gold": "3", "distracted": "3", "other": "1"}[prediction.verdict]
    window.scene.select_ids([prediction.matched_box_id])
    key(window, new_label)
    expected = {"3": "other", "1": "gold"}[new_label]
    qtbot.waitUntil(lambda: window.scene.predictions.marks()[0].verdict == expected, timeout=10000)
    with window.project.reading() as s:
        assert s.get(m.Prediction, prediction.id).verdict == expected
    # what follows an edit ran on a background thread: the key press's undo command did not wait for it
    on_ui_thread = []
    window.project.follow_edits(lambda _p, _steps: on_ui_thread.append(
        threading.current_thread() is threading.main_thread()))
    key(window, {"3": "1", "1": "3"}[new_label])
    qtbot.waitUntil(lambda: on_ui_thread == [False], timeout=10000)

    # outcome filter: the episodes where the run clicked nothing annotated
    browser = window.browser
    browser.reload_outcomes()
    browser.outcome.setCurrentIndex(browser.outcome.findData(f"verdict|{run_id}|invalid"))
    assert browser.model.rowCount() == invalid and invalid > 0
