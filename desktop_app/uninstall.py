"""Removing what ScreenLab wrote for this user: the one function behind `screenlab uninstall-data`,
`api.uninstall_data` and Help > About's "Remove my data…" (issue 38).

Settings, caches and logs always; the projects in ScreenLab's own data folder (the demo, the projects made for
opened folders) only when asked. Projects the user made elsewhere are never touched: they are the user's folders,
listed so the user knows where they are. The program itself is removed by the package manager, the installer's
uninstaller or by deleting the unpacked folder (README, "Removing ScreenLab").

The folders can share a parent (on Windows settings and projects are both in %LOCALAPPDATA%\\ScreenLab), so
what is removed is decided per item, never "the parent of": keeping the projects there keeps that folder.
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from desktop_app.paths import APP_NAME, user_dir_locations

# what the settings folder holds (settings.FILE_NAME, agents.profiles.FILE_NAME: named here so that a plan can be
# made without loading either module), removed one by one when the folder also holds projects
SETTINGS_FILES = ("settings.json", "agents.json")
# under the data folder, but things the app can fetch or make again: a server project's cached pictures, models
CACHE_IN_DATA = ("media-cache", "models")
KINDS = ("settings", "cache", "logs", "projects")


@dataclass(frozen=True)
class Removal:
    kind: str  # one of KINDS
    path: Path
    bytes: int
    files: int

    def line(self) -> str:
        return f"{self.kind:<9} {self.path}  ({_mb(self.bytes)}, {self.files} files)"


@dataclass
class RemovalPlan:
    items: list[Removal]
    projects: list[Path] = field(default_factory=list)  # the projects in the data folder (removed with projects=True)
    kept_projects: list[Path] = field(default_factory=list)  # recent projects outside it: never removed
    with_projects: bool = False

    @property
    def bytes(self) -> int:
        return sum(item.bytes for item in self.items)

    def lines(self) -> list[str]:
        if not self.items:
            return ["nothing to remove: ScreenLab has no settings, caches or logs for this user"
                    + ("" if self.with_projects else " (projects are kept unless asked)")]
        out = [item.line() for item in self.items]
        if self.projects and self.with_projects:
            out.append(f"          the projects removed with the data folder: {', '.join(p.name for p in self.projects)}")
        elif self.projects:
            out.append(f"kept      {len(self.projects)} project(s) in {self.projects[0].parent} "
                       "(add --projects to remove them too)")
        if self.kept_projects:
            out.append("kept      your projects elsewhere: " + ", ".join(map(str, self.kept_projects)))
        return out


@dataclass
class RemovalReport:
    removed: list[Removal]
    failed: list[tuple[Removal, str]]

    def summary(self) -> str:
        text = f"removed {len(self.removed)} item(s), {_mb(sum(r.bytes for r in self.removed))}"
        for item, reason in self.failed:
            text += f"\nnot removed: {item.path}: {reason}"
        return text


def _mb(n: int) -> str:
    return f"{n / 1048576:.1f} MB"


def _measure(path: Path) -> tuple[int, int]:
    if path.is_file() or path.is_symlink():
        return path.lstat().st_size, 1
    size = files = 0
    for child in path.rglob("*"):
        if child.is_file() and not child.is_symlink():
            size += child.lstat().st_size
            files += 1
    return size, files


def _within(inner: Path, outer: Path) -> bool:
    return inner == outer or outer in inner.parents


def _unsafe(path: Path) -> str | None:
    """Why a folder must not be removed whatever a variable says (SCREENLAB_DATA_DIR=~ would otherwise take the
    whole home folder): the file system's root, the home folder or above it, or the running program's own."""
    resolved = path.resolve()
    home = Path.home().resolve()
    if resolved == Path(resolved.anchor) or _within(home, resolved):
        return "it is the home folder or holds it"
    program = Path(getattr(sys, "_MEIPASS", None) or Path(sys.executable).parent).resolve()
    if _within(program, resolved):
        return "it holds the running ScreenLab"
    return None


def plan_removal(projects: bool = False) -> RemovalPlan:
    """What uninstalling the data would remove (nothing is removed here)."""
    where = {kind: path.resolve() for kind, path in user_dir_locations().items()}
    data = where["projects"]
    candidates: list[tuple[str, Path]] = []
    config = where["settings"]
    if _within(config, data) or _within(data, config):  # shared (Windows): the settings files alone
        candidates += [("settings", config / name) for name in SETTINGS_FILES]
    else:
        candidates.append(("settings", config))
    candidates.append(("cache", where["cache"]))
    candidates += [("cache", data / name) for name in CACHE_IN_DATA]
    logs = where["logs"]
    # Linux keeps logs in ~/.local/state/ScreenLab/log: the ScreenLab folder goes too, unless it holds other kinds
    state = logs.parent
    if state.name == APP_NAME and not any(_within(p, state) for k, p in where.items() if k != "logs"):
        logs = state
    candidates.append(("logs", logs))
    found = sorted(db.parent for pattern in ("*/screenlab.sqlite", "*/*/screenlab.sqlite")
                   for db in data.glob(pattern)) if data.is_dir() else []
    if projects:
        candidates.append(("projects", data))
    items, seen = [], set()
    for kind, path in candidates:
        if not path.exists() or path in seen or _unsafe(path) is not None:
            continue
        if kind != "projects" and any(_within(path, other) for k, other in candidates if k == "projects"):
            continue  # inside the data folder that goes anyway
        seen.add(path)
        items.append(Removal(kind, path, *_measure(path)))
    return RemovalPlan(items, found, _projects_elsewhere(data, config), projects)


def _projects_elsewhere(data: Path, config: Path) -> list[Path]:
    import json

    try:
        recent = json.loads((config / SETTINGS_FILES[0]).read_text(encoding="utf-8")).get("recent_projects", [])
    except (OSError, ValueError, AttributeError):
        return []
    out = []
    for location in recent if isinstance(recent, list) else []:
        if isinstance(location, str) and "://" not in location:
            path = Path(location).expanduser()
            if path.is_dir() and not _within(path.resolve(), data):
                out.append(path)
    return out


def remove_data(plan: RemovalPlan) -> RemovalReport:
    """Remove what the plan lists (checked again: an item that became unsafe is refused)."""
    from desktop_app import crash

    if crash.log_dir() is not None and any(item.kind == "logs" for item in plan.items):
        crash.uninstall()  # this process's own crash log file is open: Windows cannot delete an open file
    removed, failed = [], []
    for item in plan.items:
        reason = _unsafe(item.path)
        if reason is not None:
            failed.append((item, f"refused: {reason}"))
            continue
        try:
            if item.path.is_dir() and not item.path.is_symlink():
                shutil.rmtree(item.path)
            else:
                item.path.unlink(missing_ok=True)
        except OSError as exc:  # a file in use (Windows), no permission: said, the rest goes on
            failed.append((item, exc.strerror or str(exc)))
            continue
        removed.append(item)
    return RemovalReport(removed, failed)
