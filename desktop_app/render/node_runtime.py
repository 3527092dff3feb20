"""Playwright's Node.js, shipped compressed in the installer and unpacked once on this machine.

Node.js is the largest single file of the bundle (112 MB stripped, 32 MB as xz): the installer carries
`playwright/driver/node.xz` instead of `node` (packaging/screenlab.spec), and the first render unpacks it into
the user's cache folder (a second or two, once per Playwright version), then tells Playwright where it is
(PLAYWRIGHT_NODEJS_PATH, which Playwright reads when it starts its driver). Nothing is downloaded. A developer
install, whose driver folder holds `node` itself, is left alone.
"""

from __future__ import annotations

import lzma
import os
import stat
import sys
import tempfile
from pathlib import Path

ENV = "PLAYWRIGHT_NODEJS_PATH"
NODE_NAME = "node.exe" if sys.platform == "win32" else "node"


class NodeUnpackError(RuntimeError):
    """The compressed Node.js of the installation cannot be unpacked."""


def unpacked_node(driver_dir: Path, cache_dir: Path, tag: str) -> Path | None:
    """The Node.js executable Playwright should run: None when `driver_dir` holds `node` itself (nothing to do)
    or no compressed one either (Playwright says what is missing); else `node.xz` unpacked under
    `cache_dir`/node-`tag`-<size of the archive>, done once (a later call finds it)."""
    if (driver_dir / NODE_NAME).is_file():
        return None
    packed = driver_dir / f"{NODE_NAME}.xz"
    if not packed.is_file():
        return None
    folder = cache_dir / f"node-{tag}-{packed.stat().st_size}"
    target = folder / NODE_NAME
    if target.is_file() and os.access(target, os.X_OK):
        return target
    folder.mkdir(parents=True, exist_ok=True)
    # unpacked beside its final name and renamed at the end: two windows starting at once, or one killed
    # half-way, never leave a truncated executable under the name the next start trusts
    handle, partial = tempfile.mkstemp(dir=folder, prefix=f".{NODE_NAME}.", suffix=".partial")
    try:
        with os.fdopen(handle, "wb") as out, lzma.open(packed) as source:
            while chunk := source.read(1 << 20):
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(partial, os.stat(partial).st_mode | stat.S_IXUSR | stat.S_IRUSR | stat.S_IXGRP | stat.S_IXOTH)
        os.replace(partial, target)
    except (lzma.LZMAError, EOFError, OSError) as exc:
        Path(partial).unlink(missing_ok=True)
        raise NodeUnpackError(f"cannot unpack {packed} into {folder}: {exc}. If the disk is full, free some "
                              "space; if the file is damaged, install ScreenLab again") from exc
    return target


def ensure_node() -> None:
    """Point Playwright at an unpacked Node.js when the installation ships it compressed (see above)."""
    if os.environ.get(ENV):
        return
    import playwright

    from desktop_app.paths import user_cache_dir

    try:
        from playwright._repo_version import version  # what Playwright itself reports
    except ImportError:
        version = "unknown"
    node = unpacked_node(Path(playwright.__file__).resolve().parent / "driver", user_cache_dir(), version)
    if node is not None:
        os.environ[ENV] = str(node)
