"""Issue 34, finding 4: an expected failure of the machine ends a command in one line and a non-zero exit,
with the traceback in the crash log only: a browser that cannot start, a full disk, no permission, a file
that is not there. Real processes and real OS errors: `screenlab` runs as a program, as a user starts it.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_app import api
from desktop_app.cli.main import MACHINE_TROUBLE, machine_trouble
from desktop_app.formats.transfer import import_path
from desktop_app.paths import demo_dataset_dir
from desktop_app.store.project import Project

ROOT = Path(__file__).resolve().parents[1]


def screenlab(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "desktop_app", *args], capture_output=True, text=True,
                          timeout=120, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), **env})


def crash_logs() -> list[Path]:
    return sorted(Path(os.environ["SCREENLAB_LOG_DIR"]).glob("crash-*.log"))


def test_vaf_generate_with_a_browser_that_cannot_start_says_one_line(tmp_path):
    Project.init(tmp_path / "p").close()
    # a file that is there but is no browser: Playwright launches it and it exits at once (as Chromium does
    # when it cannot map its memory under `ulimit -v`): TargetClosedError
    done = screenlab("vaf", "generate", str(tmp_path / "p"), "demo:news", SCREENLAB_BROWSER="/bin/false")
    assert done.returncode == MACHINE_TROUBLE, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith("error: the browser (/bin/false) could not start or stopped: ")
    assert "SCREENLAB_BROWSER" in lines[0]
    (log,) = crash_logs()
    assert str(log) in lines[0] and "TargetClosedError" in log.read_text() and "Traceback:" in log.read_text()


def test_a_folder_the_os_refuses_says_one_line(tmp_path):
    with Project.init(tmp_path / "p") as project:
        import_path(project, demo_dataset_dir(), "screenlab")
        api.execute_run(project, api.create_run(project, "random", {"scenarios": ("popup",)}))
    # /sys refuses new folders to everyone, root included (EPERM; a read-only mount: EROFS)
    done = screenlab("report", str(tmp_path / "p"), "--out", "/sys/screenlab-report")
    assert done.returncode == MACHINE_TROUBLE, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: permission denied: /sys/screenlab-report"), done.stderr
    done = screenlab("report", str(tmp_path / "p"), "--out", "/proc/version/x")  # under a file, not a folder
    assert done.returncode == MACHINE_TROUBLE and done.stderr.startswith("error: Not a directory: /proc/version/x")
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_file_that_vanished_says_one_line(tmp_path):
    Project.init(tmp_path / "p").close()
    done = screenlab("judge", "export", str(tmp_path / "p"), "evals", str(tmp_path / "gone" / "x" / "evals.jsonl"),
                     "--run", "1")
    assert done.returncode != 0 and "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_a_full_disk_is_named():
    try:
        with open("/dev/full", "wb") as full:  # the device that answers every write with ENOSPC
            full.write(b"x" * 65536)
            full.flush()
    except OSError as exc:
        assert exc.errno == errno.ENOSPC
        said = machine_trouble(RuntimeError("could not write the export")) or ""
        assert said == ""  # an error of no known kind is not dressed up
        try:
            raise RuntimeError("could not write the export") from exc  # a library wrapping the OS's error
        except RuntimeError as wrapped:
            assert machine_trouble(wrapped).startswith("the disk is full")
    else:
        pytest.fail("/dev/full accepted a write")
