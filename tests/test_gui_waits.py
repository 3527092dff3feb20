"""Progress for every wait over half a second (issue 33): the busy cursor and the status bar's words once the
user has waited on background work for 0.5 s, nothing for a shorter wait, and "Opening ..." painted before
a project opens on the UI thread. Every background call in the window says whether the user waits on it."""

from __future__ import annotations

import ast
import threading
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from desktop_app.settings import Settings
from desktop_app.ui.tasks import Task, run_in_background
from desktop_app.ui.waits import WAIT_SHOWN_MS

pytestmark = pytest.mark.gui

UI = Path(__file__).resolve().parents[1] / "desktop_app" / "ui"


@pytest.fixture
def window(qtbot, demo_copy):
    from desktop_app.ui.main_window import MainWindow
    from desktop_app.ui.waits import waits

    # an earlier test of this worker may have left a call running (a run dialog's count on a server that went
    # away): its wait would show in these windows' status bars; these tests start with none
    qtbot.waitUntil(lambda: waits().in_progress() == 0, timeout=60000)

    win = MainWindow(Settings(annotator="ann", show_suggestions=False))
    qtbot.addWidget(win)
    win.show()
    assert win.open_project(str(demo_copy))
    return win


def _cursor():
    cursor = QApplication.overrideCursor()
    return None if cursor is None else cursor.shape()


def test_a_wait_over_half_a_second_shows_its_words_and_the_busy_cursor(qtbot, window):
    release = threading.Event()
    run_in_background(window, lambda: release.wait(20), lambda _r: None, lambda _e: None, wait="Counting samples")
    qtbot.wait(WAIT_SHOWN_MS // 3)
    assert not window.status.waiting.isVisible() and _cursor() is None  # a short wait shows nothing
    qtbot.waitUntil(lambda: window.status.waiting.isVisible(), timeout=3000)
    assert window.status.waiting.text().startswith("Counting samples")
    assert window.status.waiting_bar.isVisible()
    assert _cursor() == Qt.CursorShape.BusyCursor  # every window: the tool windows' waits too
    release.set()
    qtbot.waitUntil(lambda: not window.status.waiting.isVisible(), timeout=5000)
    assert _cursor() is None and not window.status.waiting_bar.isVisible()


def test_two_waits_are_both_named_and_the_cursor_stays_until_the_last_ends(qtbot, window):
    first, second = threading.Event(), threading.Event()
    run_in_background(window, lambda: first.wait(20), lambda _r: None, lambda _e: None, wait="Scoring the runs")
    run_in_background(window, lambda: second.wait(20), lambda _r: None, lambda _e: None, wait="Comparing the judges")
    qtbot.waitUntil(lambda: "(+1)" in window.status.waiting.text(), timeout=3000)
    assert "Scoring the runs" in window.status.waiting.toolTip()
    assert "Comparing the judges" in window.status.waiting.toolTip()
    first.set()
    qtbot.waitUntil(lambda: window.status.waiting.text().startswith("Comparing the judges"), timeout=5000)
    assert _cursor() == Qt.CursorShape.BusyCursor
    second.set()
    qtbot.waitUntil(lambda: _cursor() is None, timeout=5000)


def test_a_quick_call_or_work_nobody_waits_on_never_shows(qtbot, window):
    seen: list[list[str]] = []
    from desktop_app.ui.waits import waits

    waits().changed.connect(seen.append)
    done = []
    run_in_background(window, lambda: time.sleep(0.05), done.append, done.append, wait="Counting samples")
    release = threading.Event()
    task = Task(lambda _p: release.wait(20), wait=None)  # e.g. decoding the next screen ahead
    task.start()
    qtbot.wait(WAIT_SHOWN_MS * 2)
    assert done and seen == [] and _cursor() is None
    release.set()
    task.wait(5)


def test_a_wait_whose_owner_closed_still_ends(qtbot, window):
    from PySide6.QtWidgets import QWidget

    owner = QWidget()
    release = threading.Event()
    run_in_background(owner, lambda: release.wait(20), lambda _r: None, lambda _e: None, wait="Computing")
    qtbot.waitUntil(lambda: window.status.waiting.isVisible(), timeout=3000)
    owner.deleteLater()
    qtbot.wait(50)
    release.set()  # nobody listens any more, and the cursor must still come back
    qtbot.waitUntil(lambda: _cursor() is None, timeout=5000)


def test_opening_a_project_says_so_with_the_busy_cursor_before_it_blocks(qtbot, window, demo_copy):
    said: list[tuple[str, object]] = []
    window.statusBar().messageChanged.connect(lambda text: said.append((text, _cursor())))
    assert window.open_project(str(demo_copy))
    assert (f"Opening {demo_copy.name}…", Qt.CursorShape.WaitCursor) in said
    assert _cursor() is None and window.statusBar().currentMessage() != f"Opening {demo_copy.name}…"


def test_a_project_that_cannot_open_is_said_without_the_busy_cursor(qtbot, window, tmp_path):
    cursors = []

    def answer():
        box = next((w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()), None)
        if box is None:
            QTimer.singleShot(30, answer)
            return
        cursors.append(_cursor())
        box.accept()

    QTimer.singleShot(30, answer)
    (tmp_path / "not-a-project").mkdir()
    (tmp_path / "not-a-project" / "project.db").write_bytes(b"this is no database")
    assert not window.open_project(str(tmp_path / "not-a-project"))
    assert cursors == [None]  # the message box is clickable with the usual arrow


def _calls_without_wait(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    missing = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if name in ("Task", "run_in_background") and not any(k.arg == "wait" for k in node.keywords):
                missing.append(f"{path.name}:{node.lineno}")
    return missing


def test_every_background_call_in_the_window_says_whether_the_user_waits_on_it(tmp_path):
    missing = [m for path in sorted(UI.rglob("*.py")) if path.name != "tasks.py" for m in _calls_without_wait(path)]
    assert missing == []
    bad = tmp_path / "bad.py"  # the check finds a call that forgot
    bad.write_text("run_in_background(owner, fn, done, failed)\nTask(fn, parent, wait=None)\n", encoding="utf-8")
    assert len(_calls_without_wait(bad)) == 1
