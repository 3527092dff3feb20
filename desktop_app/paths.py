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


def sphinx_demo_dataset_dir() -> Path:
    """Recorded app tasks in the Sphinx layout (screens, accessibility trees, evaluators), from our own flows."""
    return _find("datasets/sphinx_demo")


def user_data_dir() -> Path:
    override = os.environ.get("SCREENLAB_DATA_DIR")
    path = Path(override) if override else Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path


def user_config_dir() -> Path:
    override = os.environ.get("SCREENLAB_CONFIG_DIR")
    path = Path(override) if override else Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path


def user_cache_dir() -> Path:
    """Files the app can make again (Playwright's unpacked Node.js); never projects or settings."""
    override = os.environ.get("SCREENLAB_CACHE_DIR")
    path = Path(override) if override else Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path


def user_log_dir() -> Path:
    override = os.environ.get("SCREENLAB_LOG_DIR")
    path = Path(override) if override else Path(platformdirs.user_log_dir(APP_NAME, appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path
