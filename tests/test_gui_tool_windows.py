"""The View menu shows and hides the side panels, and Esc closes every tool window a menu opens beside the
main one (issue 33 item 4: View > Samples / Properties were greyed out; Esc left the Page variants and
Capability profile windows open)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from test_gui_editing import open_window

pytestmark = pytest.mark.gui


def menu_action(window, menu_title: str, text: str):
    for top in window.menuBar().actions():
        if top.text().replace("&", "") == menu_title:
            for action in top.menu().actions():
                if action.text().replace("&", "") == text:
                    return action
    raise AssertionError(f"no {menu_title} > {text}")


def test_view_menu_hides_and_shows_the_side_panels(qtbot, demo_copy):
    window = open_window(qtbot, demo_copy)
    for text, dock in (("Samples", window.left), ("Properties", window.right)):
        action = menu_action(window, "View", text)
        assert action.isEnabled() and action.isCheckable() and action.isChecked(), text
        action.trigger()
        qtbot.waitUntil(lambda dock=dock: not dock.isVisible(), timeout=2000)
        assert not action.isChecked()
        action.trigger()
        qtbot.waitUntil(lambda dock=dock: dock.isVisible(), timeout=2000)
        assert action.isChecked()


TOOL_WINDOWS = [("Capability", "Capability profile…"), ("Capability", "What the agent reads…"),
                ("Capability", "Knowledge probes…"), ("Variants", "Page variants…"),
                ("Team", "Progress and agreement…"), ("Team", "Assign samples…"),
                ("Team", "Adjudicate double annotations…")]


@pytest.mark.parametrize(("menu", "item"), TOOL_WINDOWS)
def test_esc_closes_each_tool_window_opened_from_its_menu(qtbot, demo_copy, menu, item):
    window = open_window(qtbot, demo_copy)
    before = set(QApplication.topLevelWidgets())
    menu_action(window, menu, item).trigger()
    qtbot.waitUntil(lambda: any(w.isVisible() and w is not window for w in set(QApplication.topLevelWidgets())
                                - before), timeout=5000)
    [tool] = [w for w in set(QApplication.topLevelWidgets()) - before if w.isVisible()]
    qtbot.waitUntil(lambda: QApplication.activeWindow() is tool, timeout=3000)  # opened in front, keys to it
    QTest.keyClick(QApplication.focusWidget() or tool, Qt.Key_Escape)
    qtbot.waitUntil(lambda: not tool.isVisible(), timeout=2000)
    assert window.isVisible()
