"""What labelme, CVAT and Label Studio users look for in the annotation window (issue 33, item 8): a visible
"Done, next unlabelled" button with its key, said on the welcome screen too, that moves past screens already
finished; and a column chooser on the sample list's header (file name, state, assignee among the columns),
remembered in Settings, whose default columns (file name, goal, state, assignee) fit the 400 px dock without a
sideways scroll."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QApplication, QPushButton

from desktop_app.settings import Settings, load_settings
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter
from desktop_app.teams import assignment
from desktop_app.ui.browser import COLUMNS
from desktop_app.ui.tasks import wait_all
from desktop_app.ui.welcome import WelcomeDialog

from gui_helpers import key
from test_gui_editing import open_window

pytestmark = pytest.mark.gui


@pytest.fixture(autouse=True)
def _background_calls_end():
    yield
    wait_all()


def click_row(qtbot, browser, row: int) -> None:
    table = browser.table
    table.scrollTo(browser.model.index(row, 0))
    qtbot.mouseClick(table.viewport(), Qt.LeftButton, pos=table.visualRect(browser.model.index(row, 0)).center())
    QApplication.processEvents()


def state_of(browser, row: int) -> str:
    return browser.model.data(browser.model.index(row, COLUMNS.index("State")))


def done_button(window) -> QPushButton:
    found = [b for b in window.properties.findChildren(QPushButton) if b.text().startswith("Done, next unlabelled")]
    assert len(found) == 1, [b.text() for b in window.properties.findChildren(QPushButton)]
    return found[0]


def test_done_next_unlabelled_is_a_button_with_its_key_that_moves_past_finished_screens(qtbot, demo_copy):
    window = open_window(qtbot, demo_copy, Settings(annotator="ann", show_suggestions=False))
    browser, button = window.browser, done_button(window)
    assert button.isVisible() and button.isEnabled()
    assert button.text() == "Done, next unlabelled (Ctrl+Return)"
    assert "Ctrl+Return or Ctrl+Enter" in button.toolTip()
    third = browser.model.episode_id_at(2)

    click_row(qtbot, browser, 1)
    key(window, "Ctrl+Return")  # the second screen is done: on to the third
    assert state_of(browser, 1) == "● done" and window.ws.episode.id == third
    click_row(qtbot, browser, 0)
    qtbot.mouseClick(button, Qt.LeftButton)  # the first one done: the next not done is the third, past the second
    assert state_of(browser, 0) == "● done"
    assert window.ws.episode.id == third and browser.current_row() == 2

    # the button says the key in force: rebound in Settings, and none while a review key holds it
    window.settings.shortcuts["work.done"] = "Ctrl+J"
    window.apply_shortcuts()
    assert button.text() == "Done, next unlabelled (Ctrl+J)"
    key(window, "Ctrl+J")
    assert state_of(browser, 2) == "● done" and browser.current_row() == 3
    window.close_project()  # its button goes with its properties; the action stays for the next project
    assert not window.actions_by_id["work.done"].isEnabled()


def test_the_welcome_screen_says_the_done_key_in_force(qtbot):
    dialog = WelcomeDialog({})
    qtbot.addWidget(dialog)
    text = dialog.keys.text()
    assert "Finish a screen" in text and "<b>Done, next unlabelled</b> button" in text
    assert "<b>Ctrl+Return</b> or <b>Ctrl+Enter</b>" in text and "<b>Ctrl+Shift+Return</b> skips it" in text
    rebound = WelcomeDialog({"work.done": "Ctrl+J"})
    qtbot.addWidget(rebound)
    assert "<b>Ctrl+J</b> (or the" in rebound.keys.text() and "Ctrl+Enter" not in rebound.keys.text()


def header_menu(browser, column: str):
    """Right-click on a column's header: its menu of columns."""
    header = browser.table.horizontalHeader()
    pos = QPoint(header.sectionViewportPosition(COLUMNS.index(column)) + 10, header.height() // 2)
    QApplication.sendEvent(header.viewport(), QContextMenuEvent(QContextMenuEvent.Mouse, pos,
                                                                header.viewport().mapToGlobal(pos)))
    QApplication.processEvents()
    assert browser.column_menu is not None and browser.column_menu.isVisible()
    return browser.column_menu


def choose_in(qtbot, menu, column: str) -> None:
    action = next(a for a in menu.actions() if a.text().startswith(f"{column}:"))
    qtbot.mouseClick(menu, Qt.LeftButton, pos=menu.actionGeometry(action).center())
    QApplication.processEvents()


def no_sideways_scroll(browser) -> bool:
    table = browser.table
    return table.horizontalScrollBar().maximum() == 0 and table.horizontalHeader().length() <= table.viewport().width()


def test_the_lists_columns_are_chosen_on_its_header_fit_the_dock_and_are_remembered(qtbot, demo_copy):
    with Project.open(demo_copy) as project:
        assignment.assign(project, EpisodeFilter(), ["ann"], lead="lead")
    window = open_window(qtbot, demo_copy, Settings(annotator="ann", show_suggestions=False))
    window.resize(1366, 768)
    QApplication.processEvents()
    browser = window.browser
    assert window.left.width() == 400
    assert browser.shown_columns() == ["Id", "Goal", "State", "Assignee"] and no_sideways_scroll(browser)
    assignee = browser.model.index(0, COLUMNS.index("Assignee"))
    assert browser.model.data(assignee) == "ann" and browser.table.visualRect(assignee).right() <= \
        browser.table.viewport().width()

    menu = header_menu(browser, "State")
    listed = [a.text().split(":")[0] for a in menu.actions()]
    assert listed == list(COLUMNS)  # the file name (Id), state and assignee among them
    assert [a.isChecked() for a in menu.actions()] == [c in ("Id", "Goal", "State", "Assignee") for c in COLUMNS]
    assert next(a for a in menu.actions() if a.text().startswith("Id:")).text() == "Id: the file name, or the episode's id"
    choose_in(qtbot, menu, "Scenario")
    assert browser.shown_columns() == ["Id", "Goal", "Scenario", "State", "Assignee"] and no_sideways_scroll(browser)
    choose_in(qtbot, header_menu(browser, "Goal"), "Goal")  # hidden
    choose_in(qtbot, header_menu(browser, "Scenario"), "Scenario")
    assert browser.shown_columns() == ["Id", "State", "Assignee"]
    assert load_settings().list_columns == ["Id", "State", "Assignee"]  # saved at once

    window.close_project()  # the next project's list, and the next window's, show the same
    assert window.open_project(demo_copy)
    assert window.browser.shown_columns() == ["Id", "State", "Assignee"]
    window.close()
    from desktop_app.ui.main_window import MainWindow

    later = MainWindow(load_settings())
    qtbot.addWidget(later)
    assert later.open_project(demo_copy)
    assert later.browser.shown_columns() == ["Id", "State", "Assignee"]
    # the last column shown cannot be hidden: the list would show nothing
    for column in ("Id", "State"):
        choose_in(qtbot, header_menu(later.browser, column), column)
    menu = header_menu(later.browser, "Assignee")
    assert not next(a for a in menu.actions() if a.text().startswith("Assignee:")).isEnabled()
    menu.close()
    later.close()
