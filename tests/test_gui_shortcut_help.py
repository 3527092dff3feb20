"""Keys are found, not remembered (issue 21, item 20): the shortcut help searches actions and keys, and
every keyboard action of the window is in a menu, with its key shown there."""

from __future__ import annotations

import pytest

from desktop_app.ui.settings_dialog import ShortcutsDialog
from desktop_app.ui.shortcuts import ACTIONS

from test_gui_editing import open_window

pytestmark = pytest.mark.gui


def test_the_shortcut_help_finds_an_action_by_words_or_by_its_key(qtbot):
    dialog = ShortcutsDialog({"edit.undo": "Ctrl+U"})
    qtbot.addWidget(dialog)
    dialog.search.setText("undo")
    assert dialog.visible_actions() == ["Undo"]
    dialog.search.setText("ctrl+u")
    assert dialog.visible_actions() == ["Undo"]  # the user's own binding, not the default
    dialog.search.setText("accept sample")
    assert dialog.visible_actions() == ["Accept sample"]
    dialog.search.setText("")
    assert len(dialog.visible_actions()) == len(ACTIONS)


def test_every_keyboard_action_is_in_a_menu(qtbot, demo_copy):
    window = open_window(qtbot, demo_copy)

    def in_menus(menu, found):
        for action in menu.actions():
            found.add(action)
            if action.menu() is not None:
                in_menus(action.menu(), found)
        return found

    found = set()
    for top in window.menuBar().actions():
        in_menus(top.menu(), found)
    missing = [spec.id for spec in ACTIONS if window.actions_by_id[spec.id] not in found]
    assert missing == []
    window.close()
