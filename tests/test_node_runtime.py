"""The installer's compressed Node.js and driver JavaScript: unpacked once into the cache, runnable, and a damaged
archive named."""

from __future__ import annotations

import lzma
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import playwright
import pytest

from desktop_app.render.node_runtime import (
    NODE_NAME,
    PACKAGE_ARCHIVE,
    PACKAGE_ENV,
    NodeUnpackError,
    unpacked_node,
    unpacked_package,
)

STUB = Path(__file__).resolve().parents[1] / "packaging" / "playwright_cli_stub.js"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the stand-in executable is a shell script")

SCRIPT = b"#!/bin/sh\necho driver says $1\n"


def _driver(tmp_path, data: bytes = SCRIPT):
    driver = tmp_path / "driver"
    driver.mkdir()
    (driver / f"{NODE_NAME}.xz").write_bytes(lzma.compress(data))
    return driver


def test_a_compressed_node_is_unpacked_once_and_runs(tmp_path):
    driver, cache = _driver(tmp_path), tmp_path / "cache"
    node = unpacked_node(driver, cache, "1.2.3")
    assert node is not None and node.is_relative_to(cache) and "1.2.3" in node.parent.name
    assert subprocess.run([str(node), "hello"], capture_output=True, text=True, check=True).stdout == "driver says hello\n"
    first = node.stat().st_mtime_ns
    assert unpacked_node(driver, cache, "1.2.3") == node and node.stat().st_mtime_ns == first  # not unpacked again
    assert [p.name for p in node.parent.iterdir()] == [NODE_NAME]  # no partial file left beside it


def test_a_driver_holding_node_itself_is_left_alone(tmp_path):
    driver = _driver(tmp_path)
    (driver / NODE_NAME).write_bytes(SCRIPT)
    assert unpacked_node(driver, tmp_path / "cache", "1.2.3") is None
    assert not (tmp_path / "cache").exists()


def test_a_damaged_archive_is_named_and_leaves_nothing_to_trust(tmp_path):
    driver, cache = _driver(tmp_path), tmp_path / "cache"
    packed = driver / f"{NODE_NAME}.xz"
    packed.write_bytes(packed.read_bytes()[:-20])  # cut short, as an interrupted copy would be
    with pytest.raises(NodeUnpackError) as caught:
        unpacked_node(driver, cache, "1.2.3")
    assert str(packed) in str(caught.value) and "install ScreenLab again" in str(caught.value)
    assert not any(p.is_file() for p in cache.rglob("*"))


def _packed_driver(tmp_path, package: Path) -> Path:
    """A driver folder as the installer ships it: package.tar.xz of `package` and the stand-in cli.js."""
    driver = tmp_path / "driver"
    (driver / "package").mkdir(parents=True)
    with tarfile.open(driver / PACKAGE_ARCHIVE, "w:xz", preset=0) as tar:
        tar.add(package, arcname="package", filter=lambda i: None if "/types" in i.name else i)
    shutil.copy(STUB, driver / "package" / "cli.js")
    return driver


def test_the_stand_in_cli_runs_playwright_from_the_unpacked_package(tmp_path):
    real = Path(playwright.__file__).resolve().parent / "driver"
    if not (real / NODE_NAME).is_file():
        pytest.skip("this Playwright install has no Node.js of its own")
    driver, cache = _packed_driver(tmp_path, real / "package"), tmp_path / "cache"
    package = unpacked_package(driver, cache, "1.2.3")
    assert package is not None and (package / "lib").is_dir() and package.is_relative_to(cache)
    env = {**os.environ, PACKAGE_ENV: str(package)}
    shown = subprocess.run([str(real / NODE_NAME), str(driver / "package" / "cli.js"), "--version"],
                           capture_output=True, text=True, env=env, timeout=60)
    assert shown.returncode == 0 and shown.stdout.startswith("Version "), shown.stderr
    assert unpacked_package(driver, cache, "1.2.3") == package  # found again, not unpacked twice
    assert [p.name for p in package.parent.iterdir()] == ["package"]  # no partial folder left beside it

    env.pop(PACKAGE_ENV)  # started by anything but ScreenLab: says what is missing instead of failing obscurely
    alone = subprocess.run([str(real / NODE_NAME), str(driver / "package" / "cli.js"), "--version"],
                           capture_output=True, text=True, env=env, timeout=60)
    assert alone.returncode == 1 and PACKAGE_ENV in alone.stderr


def test_a_damaged_package_archive_is_named_and_nothing_half_unpacked_is_trusted(tmp_path):
    source = tmp_path / "src" / "package"
    (source / "lib").mkdir(parents=True)
    (source / "cli.js").write_text("// cli\n")
    (source / "lib" / "big.js").write_bytes(os.urandom(200_000))
    driver, cache = _packed_driver(tmp_path, source), tmp_path / "cache"
    archive = driver / PACKAGE_ARCHIVE
    archive.write_bytes(archive.read_bytes()[:-5000])
    with pytest.raises(NodeUnpackError) as caught:
        unpacked_package(driver, cache, "1.2.3")
    assert str(archive) in str(caught.value) and "install ScreenLab again" in str(caught.value)
    assert not any(p.name == "cli.js" for p in cache.rglob("*"))


def test_a_developer_install_without_the_archive_is_left_alone(tmp_path):
    assert unpacked_package(tmp_path, tmp_path / "cache", "1.2.3") is None
    assert not (tmp_path / "cache").exists()
