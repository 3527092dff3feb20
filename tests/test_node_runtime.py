"""The installer's compressed Node.js: unpacked once into the cache, runnable, and a damaged one named."""

from __future__ import annotations

import lzma
import subprocess
import sys

import pytest

from desktop_app.render.node_runtime import NODE_NAME, NodeUnpackError, unpacked_node

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
