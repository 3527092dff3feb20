"""The single-file installer (packaging/build_run.sh, packaging/linux/install-user.sh; ADR 0056) built with the real
makeself around a small folder laid out as the bundle is, then run as a user would in a fresh home: it installs
without root, puts the command and the menu entry in place, installs over itself as an update, and uninstall.sh
takes all of it away again. The real bundle goes through the same in .ci/run (packaging/check_run_installer.sh)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def installer(tmp_path_factory) -> Path:
    if shutil.which("makeself") is None:  # .ci/system-deps.sh installs it; a developer's machine may lack it
        pytest.fail("makeself is not installed (apt-get install makeself, or run `make system-deps` as root)")
    work = tmp_path_factory.mktemp("run")
    bundle = work / "ScreenLab"
    bundle.mkdir()
    program = bundle / "screenlab"  # prints what it was given, so the test sees which copy ran
    program.write_text('#!/bin/sh\necho "payload $0 $*"\n')
    program.chmod(0o755)
    for name in ("install-desktop-entry.sh", "screenlab.desktop"):
        shutil.copy(ROOT / "packaging" / "linux" / name, bundle / name)
    for name in ("screenlab.png", "screenlab.svg"):
        shutil.copy(ROOT / "resources" / "icons" / name, bundle / name)
    env = {**os.environ, "DIST": str(work / "dist"), "BUILD": str(work / "build")}
    done = subprocess.run(["bash", str(ROOT / "packaging" / "build_run.sh"), str(bundle)], env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    [run] = (work / "dist").glob("ScreenLab-*-linux-*.run")
    sums = (work / "dist" / "SHA256SUMS").read_text()
    assert run.name in sums and subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=work / "dist",
                                               capture_output=True).returncode == 0
    return run


def _as_user(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "TMPDIR": os.environ.get("TMPDIR", "/tmp")}
    return subprocess.run(list(args), env=env, capture_output=True, text=True, timeout=120)


def _files(home: Path) -> set[str]:
    return {str(p.relative_to(home)) for p in home.rglob("*") if not p.is_dir()}


def test_installs_for_the_user_updates_in_place_and_uninstalls_without_a_trace(installer, tmp_path):
    home = tmp_path / "home with space"
    home.mkdir()
    (home / ".config").mkdir()
    (home / ".config" / "other-app.conf").write_text("not ours")
    before = _files(home)

    done = _as_user(home, "sh", str(installer), "--nox11", "--", "--no-start")
    assert done.returncode == 0, done.stdout + done.stderr
    target = home / ".local" / "opt" / "screenlab"
    assert "Installing ScreenLab" in done.stdout and f"Remove it with: {target}/uninstall.sh" in done.stdout
    assert not (target / "install-user.sh").exists()  # the installer's step is not part of what is installed
    command = home / ".local" / "bin" / "screenlab"
    ran = _as_user(home, str(command), "--version")
    assert ran.stdout.strip() == f"payload {target}/screenlab --version"  # the wrapper runs the installed copy
    entry = (home / ".local" / "share" / "applications" / "screenlab.desktop").read_text()
    assert f'Exec="{target}/screenlab"' in entry
    assert (home / ".local" / "share" / "icons" / "hicolor" / "256x256" / "apps" / "screenlab.png").is_file()

    again = _as_user(home, "sh", str(installer), "--nox11", "--", "--no-start")  # an update over the installed one
    assert again.returncode == 0, again.stderr
    assert sorted(p.name for p in (home / ".local" / "opt").iterdir()) == ["screenlab"]

    gone = _as_user(home, str(target / "uninstall.sh"))
    assert gone.returncode == 0, gone.stderr
    assert "ScreenLab removed" in gone.stdout
    assert _files(home) == before  # the other program's file stays; nothing of ours does
    assert not target.exists()


def test_an_unknown_option_is_refused_before_anything_is_installed(installer, tmp_path):
    done = _as_user(tmp_path, "sh", str(installer), "--nox11", "--", "--bogus")
    assert done.returncode != 0
    assert "unknown option: --bogus (the one option is --no-start)" in done.stderr
    assert not (tmp_path / ".local").exists()


def test_a_damaged_download_is_refused(installer, tmp_path):
    broken = tmp_path / installer.name
    data = bytearray(installer.read_bytes())
    data[-100] ^= 0xFF  # one byte of the archive
    broken.write_bytes(bytes(data))
    done = _as_user(tmp_path, "sh", str(broken), "--nox11", "--", "--no-start")
    assert done.returncode != 0
    assert "Error in SHA256 checksums" in done.stderr  # makeself's own check, before anything is unpacked
    assert not (tmp_path / ".local").exists()
