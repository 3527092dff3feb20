"""The verification queue, driven by its keys."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication, QDialog

from desktop_app.store import models as m
from desktop_app.store.orm import select
from desktop_app.store.review import review_counts
from desktop_app.synth.save import REVIEW_KIND

from gui_helpers import drag, key
from test_gui_editing import open_window

pytestmark = [pytest.mark.gui, pytest.mark.browser]


def _status(window, episode_key):
    with window.project.reading() as s:
        return s.exec(select(m.Episode.review_status).where(m.Episode.key == episode_key)).one()


def test_accept_reject_edit_and_counts(qtbot, demo_copy, monkeypatch):
    window = open_window(qtbot, demo_copy)
    key(window, "Ctrl+Shift+V")
    assert window.review_mode and window.browser.model.rowCount() == 4  # the demo's pending samples
    panel = window.review
    assert "24 of 28 reviewed" in panel.progress.text() and "4 pending" in panel.progress.text()

    first = window.ws.episode.key
    # A and D move between samples here as everywhere: pressing them out of habit records nothing
    key(window, "D")
    assert window.ws.episode.key != first
    key(window, "A")
    assert window.ws.episode.key == first and _status(window, first) == "pending"
    assert window.review.buttons["Y"].text() == "Accept (Y)" and window.review.buttons["N"].text() == "Reject... (N)"
    key(window, "Y")
    assert _status(window, first) == "accepted"
    assert window.browser.model.rowCount() == 3 and window.ws.episode.key != first

    second = window.ws.episode.key
    monkeypatch.setattr("desktop_app.ui.review_panel.RejectDialog.exec", lambda self: QDialog.Accepted)
    monkeypatch.setattr("desktop_app.ui.review_panel.RejectDialog.text", lambda self: "boxes wrong or missing")
    key(window, "N")
    assert _status(window, second) == "rejected"
    with window.project.reading() as s:
        item = s.exec(select(m.ReviewItem).join(m.Episode).where(m.Episode.key == second)).one()
    assert (item.reason, item.reviewer) == ("boxes wrong or missing", "ann")

    # fix a box, then accept: recorded as edited
    third = window.ws.episode.key
    box = min(window.scene.items_by_id)
    rect = window.scene.items_by_id[box].rect()
    window.view.actual_size()
    QApplication.processEvents()
    drag(window.view, (rect.center().x(), rect.center().y()), (rect.center().x() + 3, rect.center().y()))
    key(window, "Y")
    assert _status(window, third) == "edited"
    counts = review_counts(window.project, kind=REVIEW_KIND)
    assert counts == {"accepted": 25, "rejected": 1, "edited": 1, "pending": 1}
    assert "27 of 28 reviewed" in panel.progress.text() and "1 edited" in panel.progress.text()

    # leaving the queue gives A back to navigation
    key(window, "Ctrl+Shift+V")
    assert not window.review_mode and window.browser.model.rowCount() == 28


def test_editing_a_text_rerenders_and_rereads_the_boxes(qtbot, demo_copy):
    window = open_window(qtbot, demo_copy)
    key(window, "Ctrl+Shift+V")
    panel = window.review
    # find a pending pop-up or search sample with an editable text
    for _ in range(4):
        if panel.text_edits:
            break
        key(window, "D")
    path, edit = next((p, e) for p, e in panel.text_edits if p[-1] in ("accept", "submit", "title", "name", "text"))
    old_screen = window.ws.screen.sha256
    key(window, "E")
    edit.setText("Edited by the reviewer")
    panel.apply_texts()
    qtbot.waitUntil(lambda: window.ws.screen.sha256 != old_screen, timeout=30000)
    assert "Edited by the reviewer" in str(window.ws.episode.meta["content"])
    if path[-1] in ("accept", "submit", "text"):  # a marked element: its box text comes from the new page
        assert any(b.element_text == "Edited by the reviewer" for b in window.ws.boxes.values())
    edited = window.ws.episode.key
    key(window, "Y")
    assert _status(window, edited) == "edited"
    window.close()


def test_undo_takes_a_verdict_back_in_the_store_and_on_screen(qtbot, demo_copy):
    """A verdict is an edit like any other: Ctrl+Z brings the sample back as pending and shows it,
    Ctrl+Shift+Z records it again."""
    window = open_window(qtbot, demo_copy)
    key(window, "Ctrl+Shift+V")
    first = window.ws.episode.key
    key(window, "Y")
    assert _status(window, first) == "accepted" and window.ws.episode.key != first
    assert window.browser.model.rowCount() == 3
    key(window, "Ctrl+Z")
    assert _status(window, first) == "pending"
    assert window.ws.episode.key == first and window.browser.model.rowCount() == 4
    assert window.browser.model.row_of(window.ws.episode.id) == window.browser.current_row()
    assert "4 pending" in window.review.progress.text()
    key(window, "Ctrl+Shift+Z")
    assert _status(window, first) == "accepted" and window.browser.model.rowCount() == 3
    window.close()


def test_edited_or_accepted_is_read_from_the_store_across_a_restart(qtbot, demo_copy):
    """A box fixed in one session and the sample accepted after a restart is recorded as edited; a sample
    only looked at is recorded as accepted."""
    window = open_window(qtbot, demo_copy)
    key(window, "Ctrl+Shift+V")
    fixed = window.ws.episode.key
    box = min(window.scene.items_by_id)
    rect = window.scene.items_by_id[box].rect()
    window.view.actual_size()
    QApplication.processEvents()
    drag(window.view, (rect.center().x(), rect.center().y()), (rect.center().x() + 4, rect.center().y()))
    window.close_project()
    window.close()

    again = open_window(qtbot, demo_copy)
    key(again, "Ctrl+Shift+V")
    assert again.ws.episode.key == fixed
    key(again, "Y")
    assert _status(again, fixed) == "edited"
    looked_at = again.ws.episode.key
    key(again, "Y")
    assert _status(again, looked_at) == "accepted"
    again.close()


def test_the_queue_shows_model_text_exactly_as_stored(qtbot, demo_copy):
    """A model's text is data: markup is shown as written, and an RTL override is written out, so a
    reviewer never reads "SUBMIT" where the stored text is something else."""
    from desktop_app.store.project import Project

    hostile = '<script>alert(1)</script><img src="http://127.0.0.1:9/x.png">Buy shoes \u202eTIMBUS'
    with Project.open(demo_copy) as project, project.transaction() as s:
        episode = s.exec(select(m.Episode).where(m.Episode.review_status == "pending")
                         .order_by(m.Episode.id)).first()
        episode.goal = hostile
        episode.meta = {**episode.meta, "distractor": {**(episode.meta.get("distractor") or {}),
                                                       "Expression": "<b>Click</b> here\u200b"}}
        s.add(episode)
    window = open_window(qtbot, demo_copy)
    key(window, "Ctrl+Shift+V")
    panel = window.review
    assert window.ws.episode.goal == hostile
    assert panel.goal.text() == '<script>alert(1)</script><img src="http://127.0.0.1:9/x.png">Buy shoes ⟨U+202E⟩TIMBUS'
    assert panel.expression.text() == "<b>Click</b> here⟨U+200B⟩"
    from PySide6.QtCore import Qt

    assert panel.goal.textFormat() == Qt.PlainText


def test_a_finished_queue_says_so_and_leaving_it_returns_to_the_properties(qtbot, demo_copy):
    window = open_window(qtbot, demo_copy)
    key(window, "Ctrl+Shift+V")
    panel = window.review
    assert "4 samples in the queue" in panel.queue_state.text()
    for _ in range(4):
        key(window, "Y")
    assert window.browser.model.rowCount() == 0 and window.ws.episode is None
    assert "Queue done" in panel.queue_state.text()
    assert not panel.buttons["Y"].isEnabled() and not panel.buttons["N"].isEnabled()
    key(window, "Y")  # nothing on screen: nothing to accept, nothing breaks
    assert review_counts(window.project, kind=REVIEW_KIND).get("pending", 0) == 0
    key(window, "Ctrl+Shift+V")
    assert window.right_tabs.currentWidget() is window.properties
    window.close()


def test_a_big_projects_queue_says_counting_until_the_list_is_counted(qtbot, demo_copy):
    """Past 100,000 episodes the list shows its first 200 rows while the rest is counted off the UI thread:
    the queue then reads "200+ samples ... (counting...)", and its size once the count arrives."""
    window = open_window(qtbot, demo_copy)
    key(window, "Ctrl+Shift+V")
    panel = window.review
    panel.show_queue(200, counting=True)  # what the panel is told while a big project's list is counted
    assert panel.queue_state.text() == "200+ samples in the queue (counting...)."
    window.browser.model.counted.emit()  # the count arrived
    assert "4 samples in the queue" in panel.queue_state.text()
    window.close()
