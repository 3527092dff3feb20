"""Keys are found, not remembered (issue 21, item 20): the shortcut help searches actions and keys, and
every keyboard action of the window is in a menu, with its key shown there. The help lists every window's keys,
under the window's name, from the one table (issue 33)."""

from __future__ import annotations

import pytest

from desktop_app.ui.settings_dialog import ShortcutsDialog
from desktop_app.ui.shortcuts import ACTIONS, ALL_KEYS, WINDOW_KEYS

from test_gui_editing import open_window

pytestmark = pytest.mark.gui


def test_the_shortcut_help_finds_an_action_by_words_or_by_its_key(qtbot):
    dialog = ShortcutsDialog({"edit.undo": "Ctrl+U"})
    qtbot.addWidget(dialog)
    dialog.search.setText("undo")
    assert dialog.visible_actions() == ["Undo", "Undo an edit of the probes"]  # the main window's, a tool window's
    dialog.search.setText("ctrl+u")
    assert dialog.visible_actions() == ["Undo"]  # the user's own binding, not the default
    assert dialog.visible_windows() == ["Main window (rebind its keys in Settings)"]
    dialog.search.setText("accept sample")
    assert dialog.visible_actions() == ["Accept sample"]
    dialog.search.setText("adjudication")  # a window's name finds its keys
    assert dialog.visible_actions() == [s.text for s in WINDOW_KEYS if s.group == "Adjudication"]
    assert dialog.visible_windows() == ["Adjudication: Team > Adjudicate double annotations"]
    dialog.search.setText("")
    assert len(dialog.visible_actions()) == len(ALL_KEYS)


def test_the_shortcut_help_lists_every_key_of_the_table_under_its_window(qtbot):
    """Before: only the main window's actions (ACTIONS); the tool windows' keys were on their buttons only."""
    dialog = ShortcutsDialog({})
    qtbot.addWidget(dialog)
    table = dialog.table
    listed = {}  # (window heading, action) -> keys, as the dialog's rows show them
    heading = None
    for row in range(table.rowCount()):
        if row in dialog.headings:
            heading = table.item(row, 0).text()
            assert table.columnSpan(row, 0) == 3 and table.item(row, 0).font().bold()
            continue
        listed[(heading, table.item(row, 1).text())] = table.item(row, 2).text().split("  or  ")
    for spec in ALL_KEYS:
        window = "Main window" if spec.mode != "window" else spec.group
        found = [keys for (h, text), keys in listed.items() if text == spec.text and h.startswith(window)]
        assert found == [list(spec.keys)], (spec.id, window)
    assert len(listed) == len(ALL_KEYS)
    # grouped: each window's heading once, the main window's first, the others in the table's order
    windows = [h.split(":")[0] for h in dialog.headings.values()]
    assert windows == ["Main window (rebind its keys in Settings)", *dict.fromkeys(s.group for s in WINDOW_KEYS)]


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
