"""This user's ScreenLab folders in the Python API: where they are, and removing them (desktop_app/uninstall.py,
the same function as `screenlab uninstall-data` and Help > About's "Remove my data…")."""

from __future__ import annotations

from pathlib import Path

from desktop_app.paths import user_dir_locations
from desktop_app.uninstall import RemovalPlan, RemovalReport, plan_removal, remove_data

__all__ = ["RemovalPlan", "RemovalReport", "uninstall_data", "user_folders"]


def user_folders() -> dict[str, Path]:
    """{"projects", "settings", "cache", "logs"} -> the folder (which may not exist yet)."""
    return user_dir_locations()


def uninstall_data(projects: bool = False, dry_run: bool = False) -> RemovalPlan | RemovalReport:
    """Remove this user's settings, caches and logs, and with `projects=True` the projects in ScreenLab's data
    folder (projects elsewhere are never touched). `dry_run=True` removes nothing and returns the plan (its
    `lines()` say what would go); otherwise the report of what was removed and what could not be."""
    plan = plan_removal(projects=projects)
    return plan if dry_run else remove_data(plan)
