"""Where ScreenLab finds its bundled files and where it may write.

The app never writes inside its installation: bundled data (resources, the demo
dataset) is read-only, user data goes to platformdirs locations.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import platformdirs

APP_NAME = "ScreenLab"
_PACKAGE_DIR = Path(__file__).resolve().parent


def _bundle_roots() -> list[Path]:
    roots = []
    frozen = getattr(sys, "_MEIPASS", None)  # PyInstaller one-folder build
    if frozen:
        roots.append(Path(frozen))
    roots.append(_PACKAGE_DIR.parent)  # source checkout / editable install
    roots.append(_PACKAGE_DIR / "_data")  # wheel install (force-include)
    return roots


def _find(relative: str) -> Path:
    for root in _bundle_roots():
        candidate = root / relative
        if candidate.exists():
            return candidate
    raise FileNotFoundError(f"bundled '{relative}' not found under: " + ", ".join(map(str, _bundle_roots())))


def resources_dir() -> Path:
    return _find("resources")


def demo_dataset_dir() -> Path:
    return _find("datasets/demo")


def navi_demo_dataset_dir() -> Path:
    """Multi-step episodes with ambiguous variants (Navi-plus), made from our own pages."""
    return _find("datasets/navi_demo")


def judge_demo_dataset_dir() -> Path:
    """Judged trajectories (UnifiedTrajectory layout, two annotators, two scripted judges), from our own flows."""
    return _find("datasets/judge_demo")


def live_demo_dataset_dir() -> Path:
    """Two tasks recorded in a browser on our flow sites, and a live run of a scripted agent on them."""
    return _find("datasets/live_demo")


def sphinx_demo_dataset_dir() -> Path:
    """Recorded app tasks in the Sphinx layout (screens, accessibility trees, evaluators), from our own flows."""
    return _find("datasets/sphinx_demo")


# kind -> (the environment variable that moves it, platformdirs' function): one table for the folders the app
# writes to, which Help > About, `screenlab uninstall-data` and the functions below all read
_USER_DIRS = {
    "projects": ("SCREENLAB_DATA_DIR", platformdirs.user_data_dir),
    "settings": ("SCREENLAB_CONFIG_DIR", platformdirs.user_config_dir),
    "cache": ("SCREENLAB_CACHE_DIR", platformdirs.user_cache_dir),
    "logs": ("SCREENLAB_LOG_DIR", platformdirs.user_log_dir),
}


def user_dir_location(kind: str) -> Path:
    """Where the folder of `kind` (projects, settings, cache, logs) is, without making it (the functions below
    make theirs): for showing it, or for removing it without first creating it."""
    variable, default = _USER_DIRS[kind]
    override = os.environ.get(variable)
    return Path(override) if override else Path(default(APP_NAME, appauthor=False))


def user_dir_locations() -> dict[str, Path]:
    return {kind: user_dir_location(kind) for kind in _USER_DIRS}


def _made(kind: str) -> Path:
    path = user_dir_location(kind)
    path.mkdir(parents=True, exist_ok=True)
    return path


def user_data_dir() -> Path:
    """The demo project, the projects made for opened folders, and a server project's cached media."""
    return _made("projects")


def user_config_dir() -> Path:
    return _made("settings")


def user_cache_dir() -> Path:
    """Files the app can make again (Playwright's unpacked Node.js); never projects or settings."""
    return _made("cache")


def user_log_dir() -> Path:
    return _made("logs")
