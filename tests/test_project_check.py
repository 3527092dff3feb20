"""Issue 34, finding 5: what a killed import leaves in media/ is found and removed: `screenlab check` (and
api.check_project, File > Check project…) reports the database's integrity, the counts and the image files no
screen names; `--repair` removes those and keeps every named one; the next import removes them too. Neither
touches the media while another process holds the media lock (an import committing).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from desktop_app import api
from desktop_app.cli.main import main
from desktop_app.formats.transfer import import_path
from desktop_app.paths import demo_dataset_dir
from desktop_app.store.media import WRITERS_DIR, Writer, host_tag
from desktop_app.store.project import Project

ROOT = Path(__file__).resolve().parents[1]


def dead_pid() -> int:
    """The id of a process that has ended (a writer killed with -9 is one)."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def leave_orphans(project_dir: Path, n: int) -> list[Path]:
    """What `kill -9` during an import leaves: image files under media/, named by their SHA-256 as the store
    names them, that no committed row names, and the dead importer's marker folder (store/media.py)."""
    media = project_dir / "media"
    out = []
    for i in range(n):
        data = f"picture {i} of an import that never committed".encode()
        sha = hashlib.sha256(data).hexdigest()
        path = media / sha[:2] / f"{sha}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        out.append(path)
    (media / WRITERS_DIR / Writer(host_tag(), dead_pid(), int(time.time()) - 5).name).mkdir(parents=True)
    return out


def named_files(project_dir: Path) -> list[Path]:
    with Project.open(project_dir) as p, p.reading() as s:
        from sqlalchemy import select

        from desktop_app.store.models import Screen

        return [p.media.path_for(sha, ext) for sha, ext in s.execute(select(Screen.sha256, Screen.ext))]


def test_check_reports_orphans_and_repair_removes_only_them(tmp_path, capsys):
    project = tmp_path / "p"
    with Project.init(project) as p:
        import_path(p, demo_dataset_dir(), "screenlab")
    orphans = leave_orphans(project, 37)
    named = named_files(project)

    assert main(["check", str(project)]) == 1
    out = capsys.readouterr().out
    assert "database  sqlite: ok" in out and f"counts    {len(named)} screens" in out
    assert "37 orphan image files, 0 temporary files no screen names" in out and "--repair removes them" in out
    assert all(path.exists() for path in orphans)  # a check alone removes nothing

    assert main(["check", str(project), "--repair"]) == 0
    assert "removed 37 orphan image files" in capsys.readouterr().out
    assert not any(path.exists() for path in orphans) and all(path.exists() for path in named)
    with Project.open(project) as p:
        report = api.check_project(p)  # the Python door: nothing left
    assert report.ok and report.orphans.removed == 0 and report.counts["screens"] == len(named)


def test_the_next_import_sweeps_what_a_killed_one_left(tmp_path):
    project = tmp_path / "p"
    Project.init(project).close()
    orphans = leave_orphans(project, 12)
    with Project.open(project) as p:
        report = import_path(p, demo_dataset_dir(), "screenlab")
    assert report.orphans_swept == 12 and not any(path.exists() for path in orphans)


def test_a_damaged_database_is_reported_not_repaired(tmp_path, capsys):
    project = tmp_path / "p"
    with Project.init(project) as p:
        import_path(p, demo_dataset_dir(), "screenlab")
    db = project / "screenlab.sqlite"
    size, page = db.stat().st_size, 4096
    with open(db, "r+b") as fh:  # garbage over an index page near the end, as a torn write leaves it
        fh.seek(size - 3 * page)
        fh.write(os.urandom(page))
    code = main(["check", str(project), "--repair"])
    out, err = capsys.readouterr()
    assert code == 1 and "problem(s)" in out and "restore the project from a copy" in out, out + err
    assert "integrity check" in err


def test_a_sweep_waits_while_another_process_holds_the_media_lock(tmp_path):
    project = tmp_path / "p"
    with Project.init(project) as p:
        import_path(p, demo_dataset_dir(), "screenlab")
    orphans = leave_orphans(project, 5)
    hold_s = 3.0
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys, time
        from pathlib import Path
        from desktop_app.store.media import LOCK_FILE, file_lock
        with file_lock(Path({str(project / "media")!r}) / LOCK_FILE):
            print("held", flush=True)
            time.sleep({hold_s})
            print("released", flush=True)
    """)], stdout=subprocess.PIPE, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert holder.stdout.readline().strip() == "held"
        started = time.monotonic()
        with Project.open(project) as p:
            report = api.check_project(p, repair=True)
        waited = time.monotonic() - started
        assert holder.stdout.readline().strip() == "released"  # it let go before the sweep removed a thing
    finally:
        holder.wait(timeout=30)
    assert waited >= hold_s - 1.0 and report.orphans.media_files == 5 and not any(p.exists() for p in orphans)


def test_file_check_project_shows_the_report_and_repairs(qtbot, tmp_path):
    from desktop_app.settings import Settings
    from desktop_app.ui.main_window import MainWindow
    from desktop_app.ui.project_check_dialog import ProjectCheckDialog

    project = tmp_path / "p"
    with Project.init(project) as p:
        import_path(p, demo_dataset_dir(), "screenlab")
    orphans = leave_orphans(project, 4)
    window = MainWindow(Settings(annotator="ann", show_suggestions=False))
    qtbot.addWidget(window)
    window.show()
    check = window.menu_actions["check"]
    assert not check.isEnabled()  # no project open yet
    assert window.open_project(project) and check.isEnabled()
    check.trigger()  # the dialog opens and checks at once, off the UI thread
    dialog = window.findChild(ProjectCheckDialog)
    assert dialog.isVisible()
    qtbot.waitUntil(lambda: dialog.report is not None, timeout=30000)
    text = dialog.text.toPlainText()
    assert "4 orphan image files" in text and "Repair removes them" in text and "--repair" not in text
    assert dialog.repair_button.isEnabled()
    with qtbot.waitSignal(dialog.checked, timeout=30000):
        dialog.repair_button.click()
    assert "removed 4 orphan image files" in dialog.text.toPlainText()
    assert not dialog.repair_button.isEnabled() and dialog.state.text() == "Nothing to repair."
    assert not any(path.exists() for path in orphans)
    window.close_project()
