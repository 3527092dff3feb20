"""An annotator's day in the window: Ctrl+Enter marks a screen done and moves on, Ctrl+Shift+Enter skips
with a reason, the list shows each screen's state and filters by it and by queue; a colleague's change to
the open screen makes the next edit refused (not written over theirs) and the screen reloads with it."""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QInputDialog

from desktop_app.settings import Settings
from desktop_app.store import edits
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter
from desktop_app.teams import assignment
from desktop_app.ui.tasks import wait_all

from gui_helpers import drag, key
from test_gui_editing import open_window, stored

pytestmark = pytest.mark.gui


def _state_cell(window, row):
    model = window.browser.model
    return model.data(model.index(row, 5))


def test_done_and_skip_move_on_and_the_list_shows_and_filters_states(qtbot, demo_copy):
    window = open_window(qtbot, demo_copy, Settings(annotator="ann", show_suggestions=False))
    first = window.ws.episode.id
    key(window, "Ctrl+Return")
    assert window.ws.episode.id != first  # moved on to the next screen
    second = window.ws.episode.id
    assert _state_cell(window, 0) == "● done"
    assert "All changes saved" in window.saved_label.text()

    key(window, "Ctrl+Shift+Return")
    dialog = window.team.skip_dialog
    assert isinstance(dialog, QInputDialog) and dialog.isVisible()
    dialog.setTextValue("screen is blank or broken")
    dialog.accept()
    QApplication.processEvents()
    assert window.ws.episode.id not in (first, second)
    assert _state_cell(window, 1) == "⊘ skipped"
    with Project.open(demo_copy) as project:
        done = [r for r in assignment_rows(project) if r.annotator == "ann"]
    assert {(r.episode_id, r.state, r.reason) for r in done} == {
        (first, "done", ""), (second, "skipped", "screen is blank or broken")}
    # the reason is shown: in the State cell's tooltip, and in the properties panel when the screen is back
    model = window.browser.model
    assert "ann: screen is blank or broken" in model.data(model.index(1, 5), Qt.ToolTipRole)
    window.browser.select_row(1)
    assert window.ws.episode.id == second
    note = window.properties.skip_note
    assert note.isVisibleTo(window.properties) and "ann: screen is blank or broken" in note.text()
    window.browser.select_row(0)
    assert window.ws.episode.id == first and not window.properties.skip_note.isVisibleTo(window.properties)

    # the list filtered to done shows exactly the one screen
    combo = window.browser.work_state
    combo.setCurrentIndex(combo.findData("done"))
    QApplication.processEvents()
    assert window.browser.model.rowCount() == 1
    assert window.browser.model.episode_id_at(0) == first
    # and "my queue" holds the two screens I marked
    combo.setCurrentIndex(0)
    queue = window.browser.queue
    queue.setCurrentIndex(queue.findData("ann"))
    QApplication.processEvents()
    assert {window.browser.model.episode_id_at(r) for r in range(window.browser.model.rowCount())} == {first,
                                                                                                    second}


def assignment_rows(project):
    from sqlalchemy import select

    from desktop_app.store.models import Assignment

    with project.reading() as s:
        return list(s.execute(select(Assignment)).scalars())


def test_a_colleagues_change_is_never_overwritten_and_the_screen_reloads_with_it(qtbot, demo_copy):
    window = open_window(qtbot, demo_copy, Settings(annotator="ann", show_suggestions=False))
    episode = window.ws.episode
    box_id = min(window.scene.items_by_id)
    # bob, on another machine, relabels a box of the same screen while ann has it open
    with Project.open(demo_copy) as other:
        edits.update_boxes(other, [(box_id, {"label": "distracted", "element_text": "bob's fix"})], actor="bob")
    before = stored(demo_copy, episode.key)
    # ann draws a box: refused, because the screen changed since she loaded it
    key(window, "W")
    drag(window.view, (40, 600), (240, 680))
    assert stored(demo_copy, episode.key) == before
    assert "NOT saved" in window.saved_label.text()
    assert "bob changed this screen since you read it" in window.statusBar().currentMessage()
    # the screen now shows bob's change, and her next edit (at the new version) is saved
    assert window.ws.boxes[box_id].element_text == "bob's fix"
    QApplication.processEvents()
    assert window.ws.undo_stack.count() == 0
    key(window, "Esc")
    key(window, "W")
    drag(window.view, (40, 600), (240, 680))
    after = stored(demo_copy, episode.key)
    assert len(after) == len(before) + 1 and after[box_id].element_text == "bob's fix"
    assert "All changes saved" in window.saved_label.text()


def test_time_on_a_screen_goes_to_the_annotators_row_when_she_moves_on(qtbot, demo_copy):
    with Project.open(demo_copy) as project:
        assignment.assign(project, EpisodeFilter(), ["ann"], lead="lead")
    window = open_window(qtbot, demo_copy, Settings(annotator="ann", show_suggestions=False))
    first = window.ws.episode.id
    window.ws._visit_started -= 30  # she looked at it for half a minute
    key(window, "W")
    drag(window.view, (40, 600), (240, 680))
    key(window, "D")
    qtbot.wait(300)  # moving on writes the time off the UI thread, once the next screen has shown
    wait_all()
    with Project.open(demo_copy) as project:
        row = next(r for r in assignment_rows(project) if r.episode_id == first)
    assert row.state == "in_progress" and 30 <= row.seconds < 60
