"""The media lock between real processes (filelock) and whether a process still runs (psutil), ADR 0030."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from desktop_app import crash
from desktop_app.processes import pid_alive
from desktop_app.store.media import LockTimeout, file_lock

from conftest import make_image

ROOT = Path(__file__).resolve().parents[1]

# Another process that takes the lock (ScreenLab's, or a bare flock as ScreenLab took it before filelock),
# says so, and holds it until its standard input closes.
_HOLDER = """
import sys
from pathlib import Path
if sys.argv[2] == "screenlab":
    from desktop_app.store.media import file_lock
    held = file_lock(Path(sys.argv[1]))
else:
    import contextlib, fcntl
    @contextlib.contextmanager
    def flock(path):
        with open(path, "a+b") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            yield
    held = flock(sys.argv[1])
with held:
    import time
    print("held", time.time(), flush=True)
    sys.stdin.read()
print("released", flush=True)
"""


def _python(code: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code, *args], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


@pytest.mark.parametrize("holder", ["screenlab", pytest.param("bare-flock", marks=pytest.mark.skipif(
    os.name == "nt", reason="the flock of earlier versions is POSIX's"))])
def test_a_lock_another_process_holds_is_waited_for_then_refused_by_name(tmp_path, holder):
    lock = tmp_path / "media" / "LOCK"
    lock.parent.mkdir()
    proc = _python(_HOLDER, str(lock), holder)
    try:
        assert proc.stdout.readline().startswith("held ")
        started = time.monotonic()
        with pytest.raises(LockTimeout) as refused, file_lock(lock, timeout=0.6):
            pass
        assert time.monotonic() - started >= 0.6
        assert str(lock) in str(refused.value) and "0.6 seconds" in str(refused.value)
    finally:
        proc.stdin.close()
    assert proc.stdout.readline() == "released\n"
    with file_lock(lock, timeout=10):  # free again
        assert lock.exists()
    proc.wait(10)


def test_the_lock_is_released_for_the_other_process_when_its_holder_leaves_the_block(tmp_path):
    lock = tmp_path / "LOCK"
    with file_lock(lock):
        proc = _python(_HOLDER, str(lock), "screenlab")
        time.sleep(1.5)  # it starts and waits for this process's hold
        released = time.time()
    try:
        word, when = proc.stdout.readline().split()
        assert word == "held" and float(when) >= released  # it got the lock only once ours ended
        with pytest.raises(LockTimeout), file_lock(lock, timeout=0.2):
            pass
    finally:
        proc.stdin.close()
        proc.wait(10)
    assert lock.exists()  # left in place, as before: removing it would let two processes lock two files


def test_an_import_that_cannot_get_the_lock_ends_in_one_line_naming_it(tmp_path, monkeypatch, capsys):
    from desktop_app.cli.main import main
    from desktop_app.store import media

    make_image(tmp_path / "shots" / "one.png", color=(1, 2, 3))
    assert main(["init", str(tmp_path / "p")]) == 0
    lock = tmp_path / "p" / "media" / media.LOCK_FILE
    monkeypatch.setattr(media, "LOCK_TIMEOUT_S", 0.5)
    proc = _python(_HOLDER, str(lock), "screenlab")
    try:
        assert proc.stdout.readline().startswith("held ")
        capsys.readouterr()
        assert main(["import", str(tmp_path / "p"), str(tmp_path / "shots"), "--format", "images", "--quiet"]) == 2
    finally:
        proc.stdin.close()
        proc.wait(10)
    err = capsys.readouterr().err
    assert err.startswith(f"error: {lock}: another ScreenLab process") and "0.5 seconds" in err
    assert len(err.strip().splitlines()) == 1
    assert main(["import", str(tmp_path / "p"), str(tmp_path / "shots"), "--format", "images", "--quiet"]) == 0


def _sleeper() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)


def test_a_running_process_is_alive_and_an_ended_or_reaped_one_is_not(tmp_path):
    before = time.time() - 60
    proc = _sleeper()
    try:
        time.sleep(0.2)
        assert pid_alive(proc.pid) and pid_alive(proc.pid, time.time())
        # a record saying the process it means ran a minute ago: this one started since, so it is not that one
        assert not pid_alive(proc.pid, before)
        proc.kill()
        deadline = time.monotonic() + 10
        while pid_alive(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not pid_alive(proc.pid)
        if os.name != "nt":  # ended and not yet reaped: the id still answers a signal, yet nothing runs
            assert psutil.Process(proc.pid).status() == psutil.STATUS_ZOMBIE
    finally:
        proc.kill()
        proc.wait(10)
    assert not pid_alive(proc.pid) and not pid_alive(0) and not pid_alive(-1)
    assert pid_alive(os.getpid(), time.time())


def test_a_hard_crash_log_whose_process_id_was_given_to_another_process_is_reported(tmp_path):
    """previous_hard_crashes skips a log whose session still runs; a live process that merely has the log's
    process id now (it started after the log was written) is not that session."""
    proc = _sleeper()
    try:
        log = tmp_path / f"faulthandler-20260101-101010-{proc.pid}.log"
        log.write_text("header\nFatal Python error: Segmentation fault\n", encoding="utf-8")
        assert crash.previous_hard_crashes(tmp_path) == []  # written while that process runs: its own, live
        os.utime(log, (time.time() - 3600, time.time() - 3600))  # written an hour before that process began
        [reported] = crash.previous_hard_crashes(tmp_path)
        assert reported.name == f"crash-20260101-101010-{proc.pid}-native.log"
    finally:
        proc.stdin.close()
        proc.wait(10)
