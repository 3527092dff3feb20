"""The annotation window, driven through its real widgets (offscreen Qt)."""

from __future__ import annotations

import json

import pytest
from PySide6.QtWidgets import QApplication
from sqlalchemy import text

from desktop_app.settings import Settings
from desktop_app.store.models import ActionBox, AuditEntry, Episode, Step
from desktop_app.store.orm import select
from desktop_app.store.project import Project

from gui_helpers import click, drag, key

pytestmark = pytest.mark.gui


def open_window(qtbot, path, settings=None):
    from desktop_app.ui.main_window import MainWindow

    # OCR suggestions off unless a test is about them: each screen would start a background OCR
    window = MainWindow(settings or Settings(annotator="ann", show_suggestions=False))
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    assert window.open_project(path)
    QApplication.processEvents()
    window.view.actual_size()  # 1:1, so image pixels map to whole screen pixels
    window.view.setFocus()
    QApplication.processEvents()
    assert window.view.scale_factor() == 1.0
    return window


@pytest.fixture
def window(qtbot, demo_copy):
    return open_window(qtbot, demo_copy)


def stored(path, episode_key):
    """The boxes in the database for an episode: what survives anything the GUI does."""
    with Project.open(path) as project, project.reading() as s:
        rows = s.exec(select(ActionBox).join(Step).join(Episode).where(Episode.key == episode_key)
                      .order_by(ActionBox.id)).all()
    return {b.id: b for b in rows}


def new_box(before, after):
    (box_id,) = set(after) - set(before)
    return after[box_id]


def coords(box):
    return (box.x1, box.y1, box.x2, box.y2)


def test_draw_label_move_resize_undo_redo_reopen(qtbot, window, demo_copy):
    key_ = window.ws.episode.key
    before = stored(demo_copy, key_)

    key(window, "W")
    assert window.scene.mode == "draw"
    drag(window.view, (40, 600), (240, 680))
    box = new_box(before, stored(demo_copy, key_))
    assert coords(box) == (40, 600, 240, 680)
    assert (box.label, box.source, box.author) == ("gold", "manual", "ann")
    assert window.scene.selected_ids() == [box.id]

    key(window, "2")
    assert stored(demo_copy, key_)[box.id].label == "distracted"

    key(window, "Esc")  # leave draw mode, then drag the box body
    drag(window.view, (140, 640), (160, 650))
    assert coords(stored(demo_copy, key_)[box.id]) == (60, 610, 260, 690)

    drag(window.view, (260, 690), (300, 720))  # bottom-right handle
    assert coords(stored(demo_copy, key_)[box.id]) == (60, 610, 300, 720)

    key(window, "Ctrl+Z")
    assert coords(stored(demo_copy, key_)[box.id]) == (60, 610, 260, 690)
    key(window, "Ctrl+Z")
    assert coords(stored(demo_copy, key_)[box.id]) == (40, 600, 240, 680)
    key(window, "Ctrl+Shift+Z")
    assert coords(stored(demo_copy, key_)[box.id]) == (60, 610, 260, 690)
    key(window, "Ctrl+Y")
    assert coords(stored(demo_copy, key_)[box.id]) == (60, 610, 300, 720)
    # what the canvas shows is what is stored
    assert window.scene.items_by_id[box.id].rect().getCoords() == (60, 610, 300, 720)

    window.close()
    again = open_window(qtbot, demo_copy)
    assert again.ws.episode.key == key_
    item = again.scene.items_by_id[box.id]
    assert item.rect().getCoords() == (60, 610, 300, 720) and item.label == "distracted"


def test_a_run_of_nudges_is_one_undo_step(window, demo_copy):
    key_ = window.ws.episode.key
    first = min(window.scene.items_by_id)
    x1, y1 = stored(demo_copy, key_)[first].x1, stored(demo_copy, key_)[first].y1
    window.scene.select_ids([first])
    for _ in range(3):
        key(window.view, "Right")
    key(window.view, "Shift+Down")
    box = stored(demo_copy, key_)[first]
    assert (box.x1, box.y1) == (x1 + 3, y1 + 10) and window.ws.undo_stack.count() == 1
    key(window, "Ctrl+Z")
    assert (stored(demo_copy, key_)[first].x1, stored(demo_copy, key_)[first].y1) == (x1, y1)


def test_nudges_and_pastes_stop_at_the_image_edge_in_the_window(window, demo_copy):
    """The workspace applies the core's placement rules (store/box_placement.py, ADR 0024)."""
    key_ = window.ws.episode.key
    width, height = window.ws.screen.width, window.ws.screen.height
    first = min(window.scene.items_by_id)
    box = stored(demo_copy, key_)[first]
    w = box.x2 - box.x1
    window.ws.change_boxes({first: {"x1": width - w - 4, "x2": width - 4}}, "Move near the edge")
    window.scene.select_ids([first])
    key(window.view, "Shift+Right")  # 10 px asked for, 4 px left
    box = stored(demo_copy, key_)[first]
    assert (box.x1, box.x2, box.x2 - box.x1) == (width - w, width, w)
    key(window.view, "Right")  # at the edge: stays
    assert stored(demo_copy, key_)[first].x2 == width
    QApplication.clipboard().setText(json.dumps({"screenlab/boxes": [
        {"label": "gold", "x1": width - 5, "y1": height + 50, "x2": width + 45, "y2": height + 70}]}))
    before = stored(demo_copy, key_)
    key(window, "Ctrl+V")
    pasted = new_box(before, stored(demo_copy, key_))
    assert (pasted.x1, pasted.y1, pasted.x2, pasted.y2) == (width - 50, height - 20, width, height)
    assert pasted.source == "manual" and pasted.id in window.scene.items_by_id


def test_delete_and_undo_bring_back_the_same_box(window, demo_copy):
    key_ = window.ws.episode.key
    victim = max(window.scene.items_by_id)
    original = coords(stored(demo_copy, key_)[victim])
    window.scene.select_ids([victim])
    key(window, "Del")
    assert victim not in stored(demo_copy, key_) and victim not in window.scene.items_by_id
    key(window, "Ctrl+Z")
    back = stored(demo_copy, key_)[victim]
    assert coords(back) == original and victim in window.scene.items_by_id


def test_navigation_copy_paste_between_screens_and_tab(window, demo_copy):
    first_key = window.ws.episode.key
    source = min(window.scene.items_by_id)
    window.scene.select_ids([source])
    key(window, "Ctrl+C")
    key(window, "D")
    second_key = window.ws.episode.key
    assert second_key != first_key
    before = stored(demo_copy, second_key)
    key(window, "Ctrl+V")
    pasted = new_box(before, stored(demo_copy, second_key))
    original = stored(demo_copy, first_key)[source]
    assert (pasted.label, pasted.element_text) == (original.label, original.element_text)
    # same size, kept inside the (narrower, mobile) screen it was pasted on
    assert (pasted.x2 - pasted.x1, pasted.y2 - pasted.y1) == (original.x2 - original.x1, original.y2 - original.y1)
    assert pasted.x2 <= window.ws.screen.width and pasted.y1 == original.y1
    key(window, "A")
    assert window.ws.episode.key == first_key

    order = window.scene.ordered_ids()
    window.scene.clearSelection()
    key(window.view, "Tab")
    assert window.scene.selected_ids() == [order[0]]
    key(window.view, "Tab")
    assert window.scene.selected_ids() == [order[1]]


def test_boxes_copied_in_one_window_paste_in_another_and_other_text_is_ignored(qtbot, window, demo_copy):
    key_ = window.ws.episode.key
    source = min(window.scene.items_by_id)
    window.scene.select_ids([source])
    key(window, "Ctrl+C")
    other = open_window(qtbot, demo_copy)  # a second window knows only the system clipboard
    before = stored(demo_copy, key_)
    key(other, "Ctrl+V")
    assert new_box(before, stored(demo_copy, key_)).label == stored(demo_copy, key_)[source].label

    good = {"label": "gold", "x1": 1, "y1": 1, "x2": 5, "y2": 5}
    for junk in ("hello", "[1, 2]", "{" * 100_000, *(json.dumps({"screenlab/boxes": [dict(good, **bad)]}) for bad in (
            {"x1": "zero"}, {"x1": 9}, {"label": "great"}, {"element_text": 5}, {"meta": "x"},
            {"action_type": "teleport"}, {"y2": float("nan")}))):
        QApplication.clipboard().setText(junk)
        before = stored(demo_copy, key_)
        key(other, "Ctrl+V")
        assert stored(demo_copy, key_).keys() == before.keys()


def test_label_keys_set_the_next_box_label_when_nothing_is_selected(window, demo_copy):
    key_ = window.ws.episode.key
    window.scene.clearSelection()
    key(window, "3")
    before = stored(demo_copy, key_)
    key(window, "R")
    drag(window.view, (10, 10), (60, 40))
    assert new_box(before, stored(demo_copy, key_)).label == "other"


def test_duplicate_and_properties_edits_are_stored_and_audited(window, demo_copy):
    key_ = window.ws.episode.key
    source = min(window.scene.items_by_id)
    window.scene.select_ids([source])
    before = stored(demo_copy, key_)
    key(window, "Ctrl+D")
    copy = new_box(before, stored(demo_copy, key_))
    assert copy.x1 == before[source].x1 + 10

    window.properties.element_text.setText("Renamed button")
    window.properties.element_text.editingFinished.emit()
    assert stored(demo_copy, key_)[copy.id].element_text == "Renamed button"

    window.properties.goal.setFocus()
    window.properties.goal.setPlainText("A better goal")
    window.view.setFocus()  # focus leaving the goal commits it
    QApplication.processEvents()
    with Project.open(demo_copy) as p, p.reading() as s:
        goal = s.exec(select(Episode).where(Episode.key == key_)).one().goal
        actors = {a.actor for a in s.exec(select(AuditEntry).where(AuditEntry.action != "import"))}
    assert goal == "A better goal" and actors == {"ann"}
    key(window, "Ctrl+Z")
    with Project.open(demo_copy) as p, p.reading() as s:
        assert s.exec(select(Episode).where(Episode.key == key_)).one().goal != "A better goal"


def test_browser_filters_and_search(window):
    browser = window.browser
    total = browser.model.rowCount()
    browser.scenario.setCurrentIndex(browser.scenario.findData("chat"))
    chats = browser.model.rowCount()
    assert 0 < chats < total and window.ws.episode.scenario == "chat"
    browser.scenario.setCurrentIndex(0)
    browser.status.setCurrentIndex(browser.status.findData("pending"))
    assert all(browser.model.row_data(r)[4] == "pending" for r in range(browser.model.rowCount()))
    browser.status.setCurrentIndex(0)
    browser.search.setText("VLC")
    browser.apply_filter()
    assert browser.model.rowCount() == 1 and "VLC" in window.ws.episode.goal


def test_missing_image_shows_a_placeholder_and_work_goes_on(qtbot, demo_copy):
    from desktop_app.ui.canvas.items import MissingImageItem

    with Project.open(demo_copy) as project:
        window = open_window(qtbot, demo_copy)
        project.image_path(window.ws.screen).unlink()
        window.ws.reload()
    assert isinstance(window.scene.background, MissingImageItem)
    assert "missing" in window.scene.background.reason
    assert window.scene.items_by_id  # the boxes are still there to edit
    key(window, "D")
    assert not isinstance(window.scene.background, MissingImageItem)


def test_a_failed_write_is_reported_and_not_shown_as_saved(window, demo_copy):
    # a real database error: the database itself refuses new boxes
    with window.project.engine.begin() as conn:
        conn.execute(text("CREATE TRIGGER no_boxes BEFORE INSERT ON action_box "
                          "BEGIN SELECT RAISE(ABORT, 'disk quota exceeded'); END"))
    key_ = window.ws.episode.key
    before = stored(demo_copy, key_)
    items_before = set(window.scene.items_by_id)
    key(window, "W")
    drag(window.view, (40, 600), (240, 680))
    assert stored(demo_copy, key_) == before
    assert set(window.scene.items_by_id) == items_before
    assert "NOT saved" in window.saved_label.text()
    assert window.ws.undo_stack.count() == 0
    key(window, "Esc")
    click(window.view, 5, 5)  # the window still works


def test_rebound_shortcut_works(qtbot, demo_copy):
    window = open_window(qtbot, demo_copy, Settings(annotator="ann", shortcuts={"label.gold": "G"},
                                                    show_suggestions=False))
    box = min(window.scene.items_by_id)
    window.scene.select_ids([box])
    key(window, "2")
    key(window, "G")
    assert stored(demo_copy, window.ws.episode.key)[box].label == "gold"
    key(window, "1")  # the old key no longer labels
    window.scene.select_ids([box])
    key(window, "2")
    assert stored(demo_copy, window.ws.episode.key)[box].label == "distracted"


def test_a_typed_goal_is_stored_when_typing_pauses_without_leaving_the_field(window, demo_copy, qtbot):
    """The status bar said "All changes saved" while a typed goal lived only in the widget until focus left
    it: killed then, the text was lost. It is stored once typing pauses."""
    from PySide6.QtTest import QTest

    key_ = window.ws.episode.key
    window.properties.goal.setFocus()
    qtbot.waitUntil(window.properties.goal.hasFocus, timeout=2000)
    window.properties.goal.selectAll()
    QTest.keyClicks(window.properties.goal, "Find the cheapest flight to Oslo")

    def stored_goal():
        with Project.open(demo_copy) as p, p.reading() as s:
            return s.exec(select(Episode).where(Episode.key == key_)).one().goal

    qtbot.waitUntil(lambda: stored_goal() == "Find the cheapest flight to Oslo", timeout=3000)
    assert window.properties.goal.hasFocus()  # still typing there: nothing else had to happen
