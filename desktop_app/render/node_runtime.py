"""Playwright's driver (Node.js and its JavaScript), shipped compressed in the installer and unpacked once here.

Node.js is the largest single file of the bundle (112 MB stripped, 31 MB as xz) and the driver's JavaScript is
12 MB (1.8 MB as xz). On Linux and Windows the installer carries `playwright/driver/node.xz` instead of `node`,
and `package.tar.xz` with only a stand-in `package/cli.js` (packaging/playwright_cli_stub.js) in place of the
JavaScript (packaging/screenlab.spec). The first render unpacks both into the user's cache folder (a few seconds,
once per Playwright version), then tells Playwright's Node.js where they are: PLAYWRIGHT_NODEJS_PATH (which
Playwright reads when it starts its driver) and SCREENLAB_PLAYWRIGHT_PACKAGE (which the stand-in cli.js reads;
Playwright itself always runs `<its package folder>/package/cli.js`). Nothing is downloaded. A developer install,
whose driver folder holds `node` and the JavaScript themselves, is left alone.
"""

from __future__ import annotations

import lzma
import os
import shutil
import stat
import sys
import tarfile
import tempfile
from pathlib import Path

ENV = "PLAYWRIGHT_NODEJS_PATH"
PACKAGE_ENV = "SCREENLAB_PLAYWRIGHT_PACKAGE"
NODE_NAME = "node.exe" if sys.platform == "win32" else "node"
PACKAGE_ARCHIVE = "package.tar.xz"


class NodeUnpackError(RuntimeError):
    """The compressed Node.js or driver JavaScript of the installation cannot be unpacked."""


def _unpack_error(packed: Path, folder: Path, exc: BaseException) -> NodeUnpackError:
    return NodeUnpackError(f"cannot unpack {packed} into {folder}: {exc}. If the disk is full, free some space; "
                           "if the file is damaged, install ScreenLab again")


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
        raise _unpack_error(packed, folder, exc) from exc
    return target


def unpacked_package(driver_dir: Path, cache_dir: Path, tag: str) -> Path | None:
    """The folder of the driver's JavaScript (its cli.js and lib/): None when the installation has no
    `package.tar.xz` (a developer install: Playwright runs its own files); else the archive unpacked under
    `cache_dir`/driver-`tag`-<size of the archive>/package, once. Unpacked into a temporary folder renamed at
    the end, so a half-unpacked tree is never taken for a whole one."""
    packed = driver_dir / PACKAGE_ARCHIVE
    if not packed.is_file():
        return None
    folder = cache_dir / f"driver-{tag}-{packed.stat().st_size}"
    target = folder / "package"
    if (target / "cli.js").is_file():
        return target
    folder.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(dir=folder, prefix=".package.", suffix=".partial"))
    try:
        with tarfile.open(packed, "r:xz") as archive:
            archive.extractall(partial, filter="data")  # no absolute paths, links out of the folder, devices
        if not (partial / "package" / "cli.js").is_file():
            raise OSError("the archive holds no package/cli.js")
        try:
            os.replace(partial / "package", target)
        except OSError:
            if not (target / "cli.js").is_file():  # another window finished first: theirs is as good
                raise
    except (lzma.LZMAError, tarfile.TarError, EOFError, OSError) as exc:
        raise _unpack_error(packed, folder, exc) from exc
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return target


def ensure_node() -> None:
    """Point Playwright at an unpacked Node.js and driver JavaScript when the installation ships them
    compressed (see above); a no-op on a developer install."""
    if os.environ.get(ENV) and os.environ.get(PACKAGE_ENV):
        return
    import playwright

    from desktop_app.paths import user_cache_dir

    try:
        from playwright._repo_version import version  # what Playwright itself reports
    except ImportError:
        version = "unknown"
    driver = Path(playwright.__file__).resolve().parent / "driver"
    if not os.environ.get(ENV):
        node = unpacked_node(driver, user_cache_dir(), version)
        if node is not None:
            os.environ[ENV] = str(node)
    if not os.environ.get(PACKAGE_ENV):
        package = unpacked_package(driver, user_cache_dir(), version)
        if package is not None:
            os.environ[PACKAGE_ENV] = str(package)
