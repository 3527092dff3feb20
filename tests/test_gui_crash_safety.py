"""kill -9 in the middle of editing loses nothing the window showed as done."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from sqlalchemy import text

from desktop_app.formats.transfer import import_path
from desktop_app.paths import demo_dataset_dir
from desktop_app.store.project import Project

pytestmark = pytest.mark.gui

EDITOR = textwrap.dedent("""
    import os, sys, time
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    sys.path.insert(0, {tests!r})
    from PySide6.QtWidgets import QApplication
    app = QApplication([])
    from desktop_app.settings import Settings
    from desktop_app.ui.main_window import MainWindow
    from gui_helpers import drag, key
    window = MainWindow(Settings(annotator="killed", show_suggestions=False))
    window.show()
    window.open_project({project!r})
    app.processEvents()
    window.view.actual_size()
    for i in range(200):
        key(window, "W")
        x = 10 + (i % 30) * 20
        drag(window.view, (x, 10 + (i // 30) * 20), (x + 15, 25 + (i // 30) * 20))
        key(window, "Esc")
        # the window now shows the box and "All changes saved": that is what we promise to keep
        assert "All changes saved" in window.saved_label.text()
        print("SHOWN", len(window.scene.items_by_id), flush=True)
    time.sleep(30)
""")


def _count_manual(path: Path) -> int:
    with Project.open(path) as project, project.engine.connect() as conn:
        assert conn.execute(text("PRAGMA integrity_check")).scalar() == "ok"
        return conn.execute(text("SELECT count(*) FROM action_box WHERE author = 'killed'")).scalar()


def test_kill_minus_nine_while_drawing_loses_no_shown_edit(tmp_path):
    path = tmp_path / "p"
    with Project.init(path) as project:
        import_path(project, demo_dataset_dir(), "screenlab")
    script = tmp_path / "editor.py"
    script.write_text(EDITOR.format(tests=str(Path(__file__).parent), project=str(path)))
    env = dict(os.environ, SCREENLAB_USER="killed")
    child = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, env=env)
    shown = 0
    try:
        for line in child.stdout:
            if line.startswith("SHOWN"):
                shown += 1
            if shown == 12:
                os.kill(child.pid, signal.SIGKILL)  # mid-stream: the 13th edit may be half done
                break
    finally:
        child.kill()
        child.wait()
    assert shown == 12
    assert _count_manual(path) >= 12
