"""The window fits a laptop (issue 33, item 1; ADR 0035): on a project whose every name is long (SHA-256 file names
and ids, a paragraph of goal, split, scenario, annotator, run and judge names of 64+ characters), the main window
and every tool window can be made 1280x720, take 1280x720 and 1366x768, and nothing of the status bar or the
side panels lies outside them; long names are elided with the whole name in a tooltip. The same on a 1366x768
screen at 100 % and a 2560x1440 screen at 200 % (QT_SCALE_FACTOR=2, in a process of its own)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from long_names import LONG_ANNOTATOR, LONG_JUDGE, LONG_RUN, LONG_SPLIT, long_names_project, sha_name
from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QApplication
from window_fit_probe import SIZES, cut_off, smallest

from desktop_app import api
from desktop_app.settings import Settings
from desktop_app.ui.eval.runs_panel import NAME, PROGRESS, STATUS, VERDICTS
from desktop_app.ui.fit import combo_tooltip
from desktop_app.ui.tasks import wait_all

pytestmark = pytest.mark.gui

FIT = (1280, 720)
PROBE = Path(__file__).with_name("window_fit_probe.py")


@pytest.fixture(scope="module")
def folder(tmp_path_factory, first_start_template):
    return long_names_project(tmp_path_factory.mktemp("long-names"), first_start=first_start_template)


@pytest.fixture(autouse=True)
def _background_calls_end():
    yield
    wait_all()


def settle(qtbot, ms: int = 30) -> None:
    wait_all()
    qtbot.wait(ms)


def fits(size: tuple[int, int]) -> bool:
    return size[0] <= FIT[0] and size[1] <= FIT[1]


def takes_sizes(qtbot, window, check_inside) -> None:
    """Resized to 1280x720 and 1366x768 the window takes each size, and nothing lies outside it."""
    for width, height in SIZES:
        window.resize(width, height)
        settle(qtbot)
        assert (window.width(), window.height()) == (width, height)
        assert check_inside() == [], (width, height)


@pytest.fixture
def window(qtbot, folder):
    from desktop_app.ui.main_window import MainWindow

    window = MainWindow(Settings(annotator=LONG_ANNOTATOR, show_suggestions=False))
    qtbot.addWidget(window)
    window.resize(*FIT)
    window.show()
    qtbot.waitExposed(window)
    assert window.open_project(folder)
    window.browser.show_episode(api.queue(window.project, LONG_ANNOTATOR)[0].id)  # named by a SHA-256
    settle(qtbot)
    yield window
    window.close_project()


def test_the_main_window_fits_1280x720_on_every_page_and_panel(qtbot, window):
    assert fits(smallest(window)), smallest(window)
    # the judge pages and back: a page once shown (the agreement's wide boxes) no longer holds the window wide
    for page in ("label", "agreement", "annotate"):
        window.judge.show(page)
        settle(qtbot)
        assert fits(smallest(window)), (page, smallest(window))
    window.dashboard_action.setChecked(True)
    window.left_tabs.setCurrentWidget(window.runs)
    settle(qtbot)
    assert window.dashboard_dock.isVisible()
    assert fits(smallest(window)), ("dashboard", smallest(window))
    takes_sizes(qtbot, window, lambda: cut_off(window))

    window.set_review_mode(True)  # the verification panel, in its own tab beside the properties
    window.browser.scenario.setCurrentIndex(window.browser.scenario.findData("ambiguous"))  # the widest panel
    settle(qtbot)
    assert window.review.objectName() == "navi-review"
    assert fits(smallest(window)), ("review", smallest(window))
    takes_sizes(qtbot, window, lambda: cut_off(window))


def test_the_dashboards_bars_get_room(qtbot, window):
    window.resize(*FIT)
    window.dashboard_action.setChecked(True)  # View > Dashboard: the ticked runs' bars
    qtbot.waitUntil(lambda: window.dashboard is not None and bool(window.dashboard.bars), timeout=10000)
    settle(qtbot)
    dashboard = window.dashboard
    # the plots' area shows the legend and a whole line of plots: a bar's middle is in view, not only the legend
    viewport, plots = dashboard.plot_scroll.viewport(), dashboard.plot_widget
    shown = [bar for bar in dashboard.bars if viewport.rect().contains(
        plots.viewport().mapTo(viewport, plots.mapFromScene(dashboard.bar_scene_pos(bar))))]
    assert shown, "no bar in view"
    assert viewport.height() >= 220


def test_long_names_are_elided_with_the_whole_name_in_a_tooltip(qtbot, window):
    window.resize(*FIT)
    settle(qtbot)
    # the screen's id (its SHA-256) in the properties
    key = window.properties.key
    assert key.text() == sha_name(0) and key.is_elided()
    assert key.shown_text().startswith(sha_name(0)[:6]) and "…" in key.shown_text()
    assert sha_name(0) in key.tooltip_text()
    # the split filter showing the long split: the box stays narrow, hovering it says the split
    split = window.browser.split
    split.setCurrentIndex(split.findData(LONG_SPLIT))
    settle(qtbot)
    assert split.width() < 300
    assert LONG_SPLIT in combo_tooltip(split)
    # the status bar's annotator
    status = window.status.annotator
    assert status.text() == f"Annotator: {LONG_ANNOTATOR}"
    assert status.geometry().right() <= window.statusBar().width()

    # the Runs tab at the side panel's width: each run's name, status, progress and verdicts in view, the
    # verdicts whole, the long name elided with the whole of it in the tooltip, no sideways scrolling
    window.left_tabs.setCurrentWidget(window.runs)
    settle(qtbot)
    tree = window.runs.tree
    items = window.runs._items
    assert tree.horizontalScrollBar().maximum() == 0
    for item in items.values():
        for column in (NAME, STATUS, PROGRESS, VERDICTS):
            assert tree.viewport().rect().contains(tree.visualRect(tree.indexFromItem(item, column))), column
        width = tree.fontMetrics().horizontalAdvance(item.text(VERDICTS))
        assert tree.header().sectionSize(VERDICTS) >= width
    long_run = next(i for i in items.values() if LONG_RUN in i.text(NAME))
    assert LONG_RUN in long_run.toolTip(NAME)

    # the agreement: the long judge's name in the boxes' titles, cut; the whole of it in their tooltips
    window.judge.show("agreement")
    view = window.judge.agreement
    qtbot.waitUntil(lambda: len(view.runs) >= 3, timeout=10000)
    view.select_run(next(r.id for r in view.runs if r.name == LONG_JUDGE))
    settle(qtbot)
    box = view.confusion_box
    assert box.title() == f"Confusion matrix · {LONG_JUDGE}"
    assert box.shown_title() != box.title() and "…" in box.shown_title()
    assert LONG_JUDGE in box.toolTip()
    assert fits(smallest(window))


def test_a_message_of_many_lines_keeps_the_status_bar_one_line_high(qtbot, window):
    # an OCR process that cannot start says so in a ten-line message (multiprocessing's bootstrapping error); shown
    # as ten lines it made the status bar ten lines high and the window 935 px high on a 768 px screen
    window.resize(*FIT)
    settle(qtbot)
    one_line = window.statusBar().height()
    message = "OCR failed: An attempt has been made to start a new process\n\n" + "\n".join(
        f"line {n} of what the process printed" for n in range(10))
    window.status.ocr.setText(message)
    settle(qtbot)
    assert window.statusBar().height() == one_line
    assert fits(smallest(window)), smallest(window)
    takes_sizes(qtbot, window, lambda: cut_off(window))
    label = window.status.ocr
    assert label.text() == message and "\n" not in label.shown_text()
    assert message in label.tooltip_text()  # whole, with its line breaks
    label.setText("OCR: rapidocr, 212 words")  # a line that fits: no tooltip of its own
    settle(qtbot)
    assert label.tooltip_text() == "" and label.shown_text() == "OCR: rapidocr, 212 words"


def test_the_tooltip_of_an_elided_label_is_shown_on_hover(qtbot, window):
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QToolTip

    key = window.properties.key
    window.right_tabs.setCurrentWidget(window.properties)
    settle(qtbot)
    centre = key.rect().center()
    QApplication.sendEvent(key, QHelpEvent(QEvent.ToolTip, centre, key.mapToGlobal(centre)))
    qtbot.waitUntil(lambda: QToolTip.isVisible(), timeout=2000)
    assert QToolTip.text() == key.tooltip_text() and sha_name(0) in QToolTip.text()
    QToolTip.hideText()


# every window a menu opens, on the long-named project -------------------------------------------------------
def tool_windows(window):
    p, s = window.project, window.settings
    from desktop_app.ui.about_dialog import AboutDialog
    from desktop_app.ui.capability_view import CapabilityView
    from desktop_app.ui.classes_dialog import ClassesDialog
    from desktop_app.ui.crash_dialog import CrashDialog
    from desktop_app.ui.eval.profile_dialog import AgentProfileDialog
    from desktop_app.ui.eval.run_dialog import RunDialog
    from desktop_app.ui.llm_settings import LlmSettingsDialog
    from desktop_app.ui.observation_view import ObservationView
    from desktop_app.ui.probe_editor import ProbeEditor
    from desktop_app.ui.review_panel import RejectDialog
    from desktop_app.ui.server_dialog import ServerDialog
    from desktop_app.ui.settings_dialog import SettingsDialog, ShortcutsDialog
    from desktop_app.ui.team.adjudication_window import AdjudicationWindow
    from desktop_app.ui.team.assign_dialog import AssignDialog
    from desktop_app.ui.team.members_dialog import AddPersonDialog
    from desktop_app.ui.team.progress_dialog import ProgressDialog
    from desktop_app.ui.team.return_dialog import ReturnDialog
    from desktop_app.ui.transfer_dialogs import ExportDialog, ImportDialog
    from desktop_app.ui.vaf.window import VafWindow
    from desktop_app.ui.welcome import WelcomeDialog

    log = Path.home() / ".local/state/ScreenLab/log" / f"crash-{sha_name(1)}.log"
    return {
        "settings": lambda: SettingsDialog(s, window),
        "shortcuts": lambda: ShortcutsDialog(s.shortcuts, window),
        "welcome": lambda: WelcomeDialog(s.shortcuts, window),
        "about": lambda: AboutDialog(window),
        "classes": lambda: ClassesDialog(p, window),
        "llm endpoint": lambda: LlmSettingsDialog(s, window),
        "server": lambda: ServerDialog(s, window),
        "crash": lambda: CrashDialog(log, f"OSError: [Errno 28] No space left on device: '{sha_name(2)}.png'",
                                     window),
        "capability profile": lambda: CapabilityView(p, window),
        "observation": lambda: ObservationView(p, window.ws.step.id, window),
        "probe editor": lambda: ProbeEditor(p, window.ws.actor, window),
        "page variants": lambda: VafWindow(p, window.render_service, window.annotator_name(), window),
        "agent profile": lambda: AgentProfileDialog(None, parent=window),
        "new run": lambda: RunDialog(p, window.browser.current_filter(), None, parent=window),
        "import": lambda: ImportDialog(p, window),
        "export": lambda: ExportDialog(p, window.browser.current_filter(), window),
        "assign": lambda: AssignDialog(p, window),
        "progress": lambda: ProgressDialog(p, window),
        "adjudication": lambda: AdjudicationWindow(p, window),
        "return work": lambda: ReturnDialog(LONG_ANNOTATOR, None, QPointF(3, 4), window),
        "add a person": lambda: AddPersonDialog(window),
        "reject": lambda: RejectDialog(window),
    }


def test_every_tool_window_opens_on_the_screen_and_fits_1280x720(qtbot, window):
    room = window.screen().availableGeometry()
    for name, make in tool_windows(window).items():
        tool = make()
        try:
            tool.show()
            settle(qtbot, 10)
            least = smallest(tool)
            assert fits(least), (name, least)
            # it opens no larger than the screen (offscreen: 800x800, the large ones are cut to it), unless its
            # smallest size is larger (the New run dialog's three columns: 850 px)
            assert tool.width() <= max(room.width(), least[0]), (name, tool.size())
            assert tool.height() <= max(room.height(), least[1]), (name, tool.size())
            takes_sizes(qtbot, tool, lambda tool=tool: cut_off(tool, [tool]))
        finally:
            tool.close()
            tool.deleteLater()


def test_the_sample_list_and_the_filters_never_widen_the_side_panel(qtbot, window):
    window.resize(*FIT)
    settle(qtbot)
    browser = window.browser
    for combo in (browser.scenario, browser.split, browser.outcome, browser.queue, browser.changed_by):
        assert combo.minimumSizeHint().width() < 200, combo.currentText()
        assert combo.count() > 1
    assert window.left.width() < 450
    # the choices are whole in the open list: it is as wide as they are, wider than the box
    split = browser.split
    split.showPopup()
    qtbot.waitUntil(lambda: split.view().isVisible(), timeout=2000)
    row = split.findData(LONG_SPLIT)
    assert split.view().visualRect(split.model().index(row, 0)).width() >= \
        split.fontMetrics().horizontalAdvance(LONG_SPLIT)
    assert split.view().width() > split.width()
    split.hidePopup()


def test_the_sample_list_shows_file_name_state_and_assignee_without_a_sideways_scroll(qtbot, window):
    """At 1366x768 the list's dock is 400 px: its default columns (file name, goal, state, assignee) share it
    with no sideways scroll bar, the SHA-256 name and the 64-character login cut, whole in their tooltips."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QStyleOptionViewItem

    from desktop_app.ui.browser import COLUMNS

    window.resize(1366, 768)
    settle(qtbot)
    browser, table = window.browser, window.browser.table
    assert window.left.width() <= 400
    assert browser.shown_columns() == ["Id", "Goal", "State", "Assignee"]
    row = browser.current_row()
    table.scrollTo(browser.model.index(row, 0))
    settle(qtbot)
    bar = table.horizontalScrollBar()
    assert bar.maximum() == 0 and not bar.isVisible()
    cells = {name: browser.model.index(row, COLUMNS.index(name)) for name in ("Id", "State", "Assignee")}
    for name, index in cells.items():
        assert table.viewport().rect().contains(table.visualRect(index)), name
    # the state whole; the name cut in the middle (its head and its end seen), the login cut; both whole on hover
    assert table.columnWidth(COLUMNS.index("State")) >= table.sizeHintForColumn(COLUMNS.index("State"))
    option = QStyleOptionViewItem()
    table.itemDelegateForIndex(cells["Id"]).initStyleOption(option, cells["Id"])
    assert option.textElideMode == Qt.ElideMiddle
    assert browser.model.data(cells["Id"], Qt.ToolTipRole) == sha_name(0)
    assert browser.model.data(cells["Assignee"], Qt.ToolTipRole) == LONG_ANNOTATOR
    assert table.columnWidth(COLUMNS.index("Assignee")) <= table.viewport().width() // 4 + 1
    # the goal hidden, the file name takes its room; every column shown, the dock still never widens
    id_width = table.columnWidth(COLUMNS.index("Id"))
    browser.show_columns(["Id", "State", "Assignee"])
    settle(qtbot)
    assert table.columnWidth(COLUMNS.index("Id")) > id_width + 80 and bar.maximum() == 0
    browser.show_columns(COLUMNS)
    settle(qtbot)
    assert window.left.width() <= 400
    browser.show_columns(["Id", "Goal", "State", "Assignee"])


# a 1366x768 screen at 100 %, a 2560x1440 screen at 200 %: processes of their own ------------------------------
@pytest.mark.parametrize(("screen", "scale"), [((1366, 768), "1"), ((2560, 1440), "2")])
def test_on_a_laptop_screen_the_window_opens_on_it_and_fits(folder, screen, scale):
    env = {**os.environ, "QT_SCALE_FACTOR": scale, "PYTHONPATH": os.pathsep.join(
        [str(PROBE.parent.parent), str(PROBE.parent), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, str(PROBE), str(folder), str(screen[0]), str(screen[1])], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    logical = [screen[0] // int(scale), screen[1] // int(scale)]
    assert seen["screen"] == logical and seen["ratio"] == float(scale)
    # its first size is on the screen (1500x900 asked for, cut to the screen's room)
    assert seen["first"][0] <= logical[0] and seen["first"][1] <= logical[1]
    for page, (width, height) in seen["smallest"].items():
        assert width <= FIT[0] and height <= FIT[1], page
    for size, took in seen["took"].items():
        assert took == [int(v) for v in size.split("x")], size
        assert seen["outside"][size] == [], size
    assert "1280x720" in seen["took"]
    assert seen["pixels"] == [logical[0] * int(scale), logical[1] * int(scale)]  # the screen's own pixels
