"""Moving around (issue 21, item 14): a reopened project shows the screen last edited, Tab in the samples
list steps through the screen's boxes, and a new run offers the screen on show."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from gui_helpers import drag, key
from test_gui_editing import open_window

pytestmark = pytest.mark.gui


def test_reopening_a_project_returns_to_the_screen_last_edited(qtbot, demo_copy):
    window = open_window(qtbot, demo_copy)
    for _ in range(5):
        key(window, "D")
    edited = window.ws.episode.key
    box = window.scene.items_by_id[min(window.scene.items_by_id)].rect()
    drag(window.view, (box.center().x(), box.center().y()), (box.center().x() + 3, box.center().y()))
    key(window, "D")  # looked at another one afterwards: the edit is what counts
    assert window.ws.episode.key != edited
    window.close_project()
    window.close()

    again = open_window(qtbot, demo_copy)
    assert again.ws.episode.key == edited
    assert again.browser.current_episode_id() == again.ws.episode.id
    again.close()


def test_tab_in_the_samples_list_steps_through_the_screens_boxes(qtbot, demo_copy):
    window = open_window(qtbot, demo_copy)
    table = window.browser.table
    table.setFocus()
    QApplication.processEvents()
    assert window.scene.selected_ids() == []
    QTest.keyClick(table, Qt.Key_Tab)
    QApplication.processEvents()
    first = window.scene.selected_ids()
    assert len(first) == 1 and window.view.hasFocus()
    QTest.keyClick(window.view, Qt.Key_Tab)
    assert window.scene.selected_ids() != first and len(window.scene.selected_ids()) == 1
    window.close()


def test_a_new_run_offers_the_screen_on_show(qtbot, demo_copy):
    from desktop_app.ui.eval.run_dialog import RunDialog

    window = open_window(qtbot, demo_copy)
    flt, ids = window.runs._provider()
    dialog = RunDialog(window.project, flt, ids, parent=window)
    assert dialog.source_buttons["ids"].isEnabled() and dialog.source_buttons["ids"].text() == \
        "The selected episodes (1)"
    dialog.close()
    window.close()
