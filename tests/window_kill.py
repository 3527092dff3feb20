"""kill -9 while the window draws boxes: the real main window in its own process (offscreen), drawing a box at a
time with the keys and the mouse; after each box it shows "All changes saved" and says so on stdout, and the
parent kills it with SIGKILL after a given number of those. What the window showed as saved must be in the
database. Shared by tests/test_gui_crash_safety.py and benchmarks/reliability.py (which repeats it at random
moments).
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent

EDITOR = textwrap.dedent("""
    import os, sys, time
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    sys.path.insert(0, {tests!r})
    from PySide6.QtWidgets import QApplication
    app = QApplication([])
    from desktop_app.settings import Settings
    from desktop_app.ui.main_window import MainWindow
    from gui_helpers import drag, key
    window = MainWindow(Settings(annotator={annotator!r}, show_suggestions=False))
    window.show()
    window.open_project({project!r})
    app.processEvents()
    window.view.actual_size()
    for i in range({edits}):
        key(window, "W")
        x = 10 + (i % 30) * 20
        drag(window.view, (x, 10 + (i // 30) * 20), (x + 15, 25 + (i // 30) * 20))
        key(window, "Esc")
        # the window now shows the box and "All changes saved": that is what we promise to keep
        assert "All changes saved" in window.saved_label.text()
        print("SHOWN", len(window.scene.items_by_id), flush=True)
    time.sleep(30)
""")


@dataclass
class WindowKill:
    shown: int  # boxes the window showed as saved before the kill
    stored: int  # the annotator's boxes in the database after it
    integrity_ok: bool
    killed: bool  # False: the window had ended (or failed) before the kill
    stderr: str = ""

    @property
    def lost(self) -> int:
        return max(0, self.shown - self.stored)


def demo_project(path: Path) -> Path:
    """A project folder holding the bundled demo dataset."""
    from desktop_app.formats.transfer import import_path
    from desktop_app.paths import demo_dataset_dir
    from desktop_app.store.project import Project

    with Project.init(path) as project:
        import_path(project, demo_dataset_dir(), "screenlab")
    return path


def stored_boxes(project: Path, annotator: str) -> tuple[int, bool]:
    """(boxes drawn by `annotator`, PRAGMA integrity_check ok), read with sqlite3, not with the code under test."""
    from desktop_app.store.project import DB_FILE

    with sqlite3.connect(f"file:{project / DB_FILE}?mode=rw", uri=True) as conn:
        ok = conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        return conn.execute("SELECT count(*) FROM action_box WHERE author = ?", (annotator,)).fetchone()[0], ok


def kill_while_drawing(project: Path, work: Path, kill_after: int, annotator: str = "killed",
                       edits: int = 200, env: dict | None = None) -> WindowKill:
    """Start the window on `project` drawing `edits` boxes as `annotator`; SIGKILL it once it has shown
    `kill_after` of them as saved (the next one may be half done)."""
    work.mkdir(parents=True, exist_ok=True)
    script = work / f"editor-{annotator}.py"
    script.write_text(EDITOR.format(tests=str(TESTS), project=str(project), annotator=annotator, edits=edits))
    env = {**(env or os.environ), "SCREENLAB_USER": annotator, "QT_QPA_PLATFORM": "offscreen",
           "PYTHONPATH": str(ROOT)}
    err_path = work / f"editor-{annotator}.err"
    with open(err_path, "w") as err:
        child = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=err, text=True,
                                 env=env, cwd=ROOT)
        shown, killed = 0, False
        try:
            for line in child.stdout:
                if line.startswith("SHOWN"):
                    shown += 1
                if shown == kill_after:
                    os.kill(child.pid, signal.SIGKILL)  # mid-stream: the next edit may be half done
                    killed = True
                    break
        finally:
            child.kill()
            child.wait()
            child.stdout.close()
    stored, ok = stored_boxes(project, annotator)
    return WindowKill(shown, stored, ok, killed, err_path.read_text(errors="replace"))
