"""Where the built user guide is, so every door (Help > User guide, `screenlab guide`, `api.guide_path()`) opens
the same pages, offline.

The guide's sources are docs/guide/ (Markdown, built by MkDocs: `make guide`, ADR 0032). It is built, not
written by hand into the package, so it is found where each kind of installation keeps built data:
- the installer: `guide/` at the bundle root (packaging/build_linux.sh builds it, the spec collects it);
- a wheel: `desktop_app/_data/guide/` (hatch_build.py includes build/guide when it was built);
- a checkout: `build/guide/` (`make guide`).
SCREENLAB_GUIDE_DIR names another folder (a guide built elsewhere) and is then the only place looked in.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent

NOT_BUILT = ("the user guide is not built: run `make guide` in a ScreenLab checkout (it writes build/guide/), "
             "or read its sources in docs/guide/")


def guide_folders() -> list[Path]:
    """The folders a built guide may be in, in the order they are looked in."""
    override = os.environ.get("SCREENLAB_GUIDE_DIR")
    if override:
        return [Path(override).expanduser()]
    folders = []
    frozen = getattr(sys, "_MEIPASS", None)  # PyInstaller one-folder build
    if frozen:
        folders.append(Path(frozen) / "guide")
    folders.append(_PACKAGE_DIR / "_data" / "guide")  # wheel install
    folders.append(_PACKAGE_DIR.parent / "build" / "guide")  # source checkout / editable install
    return folders


def guide_index() -> Path | None:
    """The built guide's front page (index.html), or None when no built guide is found (NOT_BUILT says what
    to do). A folder without index.html is a half-built guide and does not count."""
    for folder in guide_folders():
        index = folder / "index.html"
        if index.is_file():
            return index
    return None
