"""Switching projects: File > Recent (or Open) on a window that shows project A opens B, and nothing of A is
left on screen: no list row, no status-bar count, no queue name, no card, no tab, no title. The per-project
state is one object made on open and disposed as one unit on close (ui/open_project.py)."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QModelIndex, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QComboBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QTabWidget,
    QTextEdit,
    QWidget,
)

from desktop_app.agents.profiles import BASELINES
from desktop_app.api import init_project, open_project
from desktop_app.formats.transfer import import_path
from desktop_app.runs.engine import create_run, execute
from desktop_app.settings import Settings

from conftest import make_image

pytestmark = pytest.mark.gui


def _project_b(tmp_path):
    """Two screens of a made-up shop whose words appear nowhere in the demo project."""
    data = tmp_path / "b-data"
    lines = []
    for i in range(2):
        make_image(data / f"q{i}.png", size=(320, 200))
        lines.append({"id": f"zebra-{i}", "goal": f"Find the quokka lantern number {i}", "scenario": "popup",
                      "steps": [{"image": f"q{i}.png", "actions": [
                          {"label": "gold", "box": [10, 10, 60, 40], "element_text": "Quokka"}]}]})
    (data / "episodes.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    with init_project(tmp_path / "bravo") as project:
        import_path(project, data, "screenlab")
    return tmp_path / "bravo"


def _texts(window) -> list[str]:
    """Every text a user can read in the window and its docks, visible or one tab away."""
    out = [window.windowTitle(), window.statusBar().currentMessage()]
    for widget in window.findChildren(QWidget):
        if isinstance(widget, QLabel | QLineEdit):
            out.append(widget.text())
        elif isinstance(widget, QPlainTextEdit | QTextEdit):
            out.append(widget.toPlainText())
        elif isinstance(widget, QComboBox):
            out.extend(widget.itemText(i) for i in range(widget.count()))
        elif isinstance(widget, QTabWidget):
            out.extend(widget.tabText(i) for i in range(widget.count()))
        if isinstance(widget, QAbstractItemView) and widget.model() is not None:
            model = widget.model()
            try:
                columns = model.columnCount(QModelIndex())
            except TypeError:  # a list model: one column, its count not public
                columns = 1
            for row in range(min(model.rowCount(), 200)):
                for col in range(columns):
                    value = model.index(row, col).data()
                    if value is not None:
                        out.append(str(value))
    out.extend(item.toolTip() for item in window.scene.items())
    return [t for t in out if t]


def test_opening_b_after_a_leaves_nothing_of_a_on_screen(qtbot, demo_copy, tmp_path):
    from desktop_app.ui.main_window import MainWindow

    with open_project(demo_copy) as a:  # an agent's answers in A, shown as cards and markers
        execute(a, create_run(a, BASELINES["center"]))
    bravo = _project_b(tmp_path)
    window = MainWindow(Settings(annotator="ann", show_suggestions=False))
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    qtbot.waitExposed(window)
    assert window.open_project(demo_copy)
    window.evaluation.show_dashboard(True)
    QApplication.processEvents()
    seen_a = " | ".join(_texts(window))
    assert "Northwind Home" in seen_a and "1/28" in seen_a and "demo" in window.windowTitle()  # A is on screen

    assert window.open_project(bravo)  # what File > Recent does
    qtbot.wait(200)
    seen_b = _texts(window)
    joined = " | ".join(seen_b)
    assert "quokka lantern" in joined and "1/2 " in joined and "bravo" in window.windowTitle()
    for word in ("Northwind", "demo-popup", "/28", "28 samples", "centre", "center"):
        leftovers = [t for t in seen_b if word in t]
        assert not leftovers, f"{word!r} of project A still on screen: {leftovers[:5]}"


def _window(qtbot, name="ann"):
    from desktop_app.ui.main_window import MainWindow

    window = MainWindow(Settings(annotator=name, show_suggestions=False))
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    qtbot.waitExposed(window)
    return window


def test_a_finished_folder_imports_count_goes_with_its_project(qtbot, tmp_path):
    shots = tmp_path / "holiday-shots"
    for i in range(3):
        make_image(shots / f"s{i}.png", size=(300 + i, 200))
    bravo = _project_b(tmp_path)
    window = _window(qtbot)
    window.projects.folders.open(shots)  # File > Open Screenshots Folder
    qtbot.waitUntil(lambda: window.projects.folders.task is None and window.ws is not None, timeout=60000)
    assert window.status.folder_import.text() == "holiday-shots: 3 screenshots"
    assert window.open_project(bravo)  # File > Recent
    assert not window.status.folder_import.isVisible() and window.status.folder_import.text() == ""
    assert window.status.counts.text().startswith("1/2 ")
    window.close_project()  # and with no project open, no project's figures at all
    assert window.windowTitle() == "ScreenLab"
    assert [label.text() for label in (window.status.counts, window.status.annotator, window.status.saved)] == \
        ["", "", ""]


def test_renaming_yourself_in_settings_renames_your_queue(qtbot, tmp_path):
    from desktop_app.ui.settings_dialog import SettingsDialog

    bravo = _project_b(tmp_path)
    window = _window(qtbot, "ann")
    assert window.open_project(bravo)
    queue = window.browser.queue
    assert queue.itemText(queue.currentIndex()) == "My queue (ann)" or queue.findData("ann") >= 0

    def rename() -> None:
        dialog = next(w for w in QApplication.topLevelWidgets() if isinstance(w, SettingsDialog) and w.isVisible())
        dialog.annotator.setText("annabel")
        dialog.accept()

    QTimer.singleShot(100, rename)
    window.dialogs.settings()  # Edit > Settings…, modal until rename() accepts it
    texts = [queue.itemText(i) for i in range(queue.count())]
    assert "My queue (annabel)" in texts and not any("(ann)" in t for t in texts), texts
    assert window.status.annotator.text() == "Annotator: annabel"
    assert window.browser.model.annotator == "annabel" and window.ws.actor == "annabel"


def test_with_no_project_open_its_actions_are_greyed_out_and_their_keys_do_nothing(qtbot, tmp_path):
    from gui_helpers import key

    bravo = _project_b(tmp_path)
    window = _window(qtbot)
    acting = ("nav.next", "edit.delete", "label.gold", "file.export", "review.mode", "work.done", "edit.undo")
    assert not any(window.actions_by_id[a].isEnabled() for a in acting)
    assert not window.variants_action.isEnabled() and not window.profile_action.isEnabled()
    for keys in ("D", "Delete", "1", "Ctrl+Z", "Ctrl+Return"):  # pressed anyway: nothing happens, nothing breaks
        key(window, keys)
    assert window.open_project(bravo)
    assert all(window.actions_by_id[a].isEnabled() for a in acting if a != "edit.undo")  # nothing to undo yet
    key(window, "D")  # the next sample
    assert window.status.counts.text().startswith("2/2 ")
    window.close_project()
    assert not any(window.actions_by_id[a].isEnabled() for a in acting)
