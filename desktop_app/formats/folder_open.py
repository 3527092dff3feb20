"""Opening a folder of screenshots: listed at once, the first screen stored at once, the rest imported in
batches behind it (issue 19, docs/decisions/0025-opening-a-folder.md).

`screenlab import --format images` is all or nothing (ADR 0004): 10,000 screenshots are all checked, copied
and written before the first can be looked at. Opening a folder is for looking at it now. The files are
listed by name (no picture is read) in the order the `images` import gives them, with the same episode ids
(the path below the folder), so a folder opened here and one imported there are the same samples. The first
screen goes in on its own, then the rest in batches, each batch one ingest() call: its own all-or-nothing
import in its own short transaction. A window editing the screens already in waits at most for one batch's
commit, and loses nothing: ingest only adds rows. A picture that cannot be read is skipped and named in the
report; a file the project already holds (the same id, or the same picture by SHA-256, as ingest decides)
is counted, not imported again, so opening the folder again imports only what is new or what a cancelled
opening left.

A bare folder gets a project of its own under the user's data folder, keyed by the folder's full path
(`folder_project`); nothing is written into the screenshots' folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import select

from desktop_app.formats.images import natural_key, shown_name
from desktop_app.formats.ingest import (
    REPORT_LIST_CAP,
    BadImage,
    BadImagesError,
    ImportOptions,
    bad_image_lines,
    ingest,
)
from desktop_app.formats.records import EpisodeRecord, FormatError, StepRecord, Where, is_within
from desktop_app.images import IMAGE_SUFFIXES
from desktop_app.paths import user_data_dir
from desktop_app.store import migrate
from desktop_app.store.models import Episode
from desktop_app.store.project import Project, ProjectError, is_project_folder, is_url
from desktop_app.store.queries import largest_episode_id

FIRST_BATCH = 1  # the first screen alone: a window shows it as soon as it is stored
FIRST_TRIES = 16  # pictures tried one by one while none could be stored (a folder starting with bad files)
# then the list fills in steps that each at most double it, from FILL_BATCH: a list showing 26 rows (a 1400x900
# window) scrolls after 33 pictures, not after a first batch of 64 (0.19 s against 0.33 s of 1280x800 PNGs, the
# window opening the project meanwhile), and one showing 90 (4K) after 135, not 315 (one of 64, then 250)
FILL_BATCH = 16
BATCH = 250  # at most: batches whose commit an edit waiting for the database hardly notices
FOLDERS_DIR = "folders"  # under the user's data folder: one project per opened folder
SOURCE_FILE = "opened-folder.json"  # in such a project: the folder it was made for
OUTSIDE = ("a link to a picture outside this folder, which opening the folder does not read; copy the picture "
           "into the folder")
_KEY_CHUNK = 500  # ids per IN (...) lookup


class Cancelled(Exception):
    """Raised inside a batch when the opening is cancelled: ingest takes the batch back whole."""


@dataclass
class Listing:
    folder: Path
    files: list[str]  # the pictures, in the images import's order (natural path order); text, not Paths:
    # making 10,000 Path objects would take longer than the rest of the listing
    keys: list[str]  # each one's episode id: its path below the folder, as the images import names it
    outside: list[Path]  # links to pictures outside the folder: not read, reported


@dataclass
class FolderReport:
    folder: str
    project: str = ""
    total: int = 0  # picture files listed
    imported: int = 0  # new samples (one screen each)
    already: int = 0  # in the project already (the same id: imported by an earlier opening or import)
    repeated: int = 0  # skipped: the same picture (SHA-256) as a screen the project holds (or one just before)
    duplicates: list[tuple[str, str]] = field(default_factory=list)  # (file skipped, what it repeats)
    bad: list[BadImage] = field(default_factory=list)  # skipped: cannot be read (or a link out of the folder)
    cancelled: bool = False
    seconds: float = 0.0
    # the ids of the pictures this opening imports, in order, and how many of them it has dealt with: a window
    # lists the rest at once, greyed, as labelme lists a folder (the import fills them in)
    queue: list[str] = field(default_factory=list, repr=False)
    position: int = 0

    @property
    def done(self) -> int:
        """Files dealt with so far (imported, already there, repeated or bad)."""
        return self.imported + self.already + self.repeated + len(self.bad)

    def waiting(self) -> list[str]:
        """The ids still to import, in the order they will be (none once the opening ended or was cancelled)."""
        return [] if self.cancelled else self.queue[self.position:]

    @property
    def screens(self) -> int:
        """Screens of this folder the project holds now."""
        return self.imported + self.already

    def summary(self) -> str:
        state = "cancelled after" if self.cancelled else "opened"
        lines = [f"{state} {self.done:,} of {self.total:,} pictures of {self.folder} in {self.seconds:.1f} s",
                 f"  project: {self.project}",
                 f"  imported {self.imported:,} new screens; {self.already:,} already in the project"]
        if self.repeated:
            lines.append(f"  skipped {self.repeated:,} repeated picture{'s' if self.repeated != 1 else ''} (the same "
                         "SHA-256 as a screen the project holds):")
            shown = self.duplicates[:10]
            lines += [f"    {skipped} (same picture as {kept})" for skipped, kept in shown]
            if self.repeated > len(shown):
                lines.append(f"    and {self.repeated - len(shown):,} more")
        if self.bad:
            lines.append(f"  skipped {len(self.bad)} file{'s' if len(self.bad) != 1 else ''} that cannot be read:")
            lines += bad_image_lines(self.bad, "    ")
        if self.cancelled:
            lines.append("  open the folder again to import the rest (what is in stays)")
        return "\n".join(lines)

    def as_dict(self) -> dict:
        return {"folder": self.folder, "project": self.project, "total": self.total, "imported": self.imported,
                "already": self.already, "repeated": self.repeated, "cancelled": self.cancelled,
                "seconds": round(self.seconds, 3),
                "duplicates": [{"skipped": s, "same_as": k} for s, k in self.duplicates[:REPORT_LIST_CAP]],
                "bad": [{"path": b.path, "reason": b.reason} for b in self.bad[:REPORT_LIST_CAP]]}


Progress = Callable[[FolderReport], None]


# -- where the project lives --------------------------------------------------------------------------------
def folder_project(folder: str | Path) -> Path:
    """The project of a bare folder: under the user's data folder, named after the folder and keyed by its full
    path, so opening the same folder again finds it and two folders of the same name never share one."""
    folder = Path(folder).expanduser().resolve()
    digest = hashlib.sha256(os.fsencode(str(folder))).hexdigest()[:12]
    name = re.sub(r"[^\w.-]+", "-", shown_name(folder.name)).strip("-.")[:40] or "folder"
    return user_data_dir() / FOLDERS_DIR / f"{name}-{digest}"


def source_folder(project_location: str | Path) -> Path | None:
    """The screenshots folder a project of `folder_project` was made for (None for any other project)."""
    if is_url(project_location):
        return None
    try:
        return Path(json.loads((Path(project_location) / SOURCE_FILE).read_text(encoding="utf-8"))["folder"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def checked_folder(folder: str | Path) -> Path:
    """The folder as an absolute path; FormatError when it is not a folder one can open."""
    path = Path(folder).expanduser()
    if not path.exists():
        raise FormatError("no such folder", path)
    if not path.is_dir():
        raise FormatError("not a folder; give the folder that holds the screenshots", path)
    if is_project_folder(path):
        raise FormatError("this folder is a ScreenLab project: open it as a project (screenlab gui FOLDER, "
                          "File > Open project…)", path)
    return path.resolve()


def prepare_project(folder: str | Path, project: str | Path | None = None) -> str | Path:
    """Where `folder` opens into, made when it does not exist yet: `project` (a project folder or URL, or an
    empty or new folder to make one in), else the folder's own project (`folder_project`)."""
    folder = checked_folder(folder)
    own = project is None
    location = folder_project(folder) if own else project
    if is_url(location):
        return location  # a server project is made with `screenlab init URL`; opening it says what is wrong
    path = Path(location).expanduser().resolve()
    if path == folder or is_within(path, folder):
        raise ProjectError(f"{path} is inside {folder}: the project's images would be listed as screenshots "
                           "the next time the folder is opened; choose a project somewhere else")
    if is_project_folder(path):
        return path
    if not own and path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise ProjectError(f"{path} is neither a ScreenLab project nor an empty folder; choose a project, an "
                           "empty folder or a new name")
    try:
        if own:
            _copy_blank(path)
        else:
            Project.init(path).close()
    except ProjectError:
        if not is_project_folder(path):  # not another opening of the same folder that made it first
            raise
    if own:
        (path / SOURCE_FILE).write_text(json.dumps({"folder": str(folder)}), encoding="utf-8")
    return path


def _copy_blank(path: Path) -> None:
    """A new project for a folder, copied from a blank one kept beside the folders' projects (made by
    Project.init the first time, one per schema revision): creating the schema costs 0.3-0.6 s, which the
    first screen would wait for; copying a closed blank project is what Project.init would have made."""
    path.parent.mkdir(parents=True, exist_ok=True)
    head = migrate.head_on_disk()
    if head is None:
        Project.init(path).close()
        return
    blank = path.parent / f".blank-{head}"
    if not is_project_folder(blank):
        making = path.parent / f".blank-{head}.{os.getpid()}.{threading.get_ident()}"
        shutil.rmtree(making, ignore_errors=True)
        Project.init(making).close()  # closed: the write-ahead log is folded into the database file
        try:
            os.replace(making, blank)
        except OSError:  # another opening made it first
            shutil.rmtree(making, ignore_errors=True)
    if path.exists() and any(path.iterdir()):  # what an interrupted first opening left: made in place
        Project.init(path).close()
        return
    partial = path.parent / f".{path.name}.{os.getpid()}.{threading.get_ident()}"
    shutil.rmtree(partial, ignore_errors=True)
    shutil.copytree(blank, partial)
    try:
        os.replace(partial, path)
    except OSError:  # another opening of the same folder made it first
        shutil.rmtree(partial, ignore_errors=True)
        if not is_project_folder(path):
            raise


# -- listing -------------------------------------------------------------------------------------------------
def list_screenshots(folder: str | Path) -> Listing:
    """The pictures under `folder` (sub-folders too; links to folders are not followed, as the images import
    does), by name only. Sorted by the images import's key (images.path_order: each part of the path below the
    folder by natural_key), computed from the parts found on the way instead of a Path per file."""
    root = checked_folder(folder)
    found: list[tuple[list, tuple[str, ...], str]] = []
    links: set[str] = set()
    stack: list[tuple[str, tuple[str, ...]]] = [(str(root), ())]
    while stack:
        directory, parts = stack.pop()
        try:
            with os.scandir(directory) as entries:
                for entry in entries:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append((entry.path, (*parts, entry.name)))
                        elif os.path.splitext(entry.name)[1].lower() in IMAGE_SUFFIXES and entry.is_file():
                            rel = (*parts, entry.name)
                            found.append(([natural_key(part) for part in rel], rel, entry.path))
                            if entry.is_symlink():
                                links.add(entry.path)
                    except OSError:  # vanished or unreadable while listed: as if it were not there
                        continue
        except OSError:  # a sub-folder one may not read is skipped, as the images import skips it
            continue
    found.sort(key=lambda item: item[0])
    files, keys, outside = [], [], []
    for _key, rel, path in found:
        if path in links and not is_within(Path(path), root):
            outside.append(Path(path))
            continue
        files.append(path)
        keys.append(shown_name("/".join(rel)))
    return Listing(root, files, keys, outside)


def _record(file: str, key: str) -> EpisodeRecord:
    """What the images import makes of one file (formats/images.py read)."""
    path = Path(file)
    return EpisodeRecord(key=key, where=Where(path), steps=[StepRecord(image=path, screen_source=key)])


def _stored_keys(project: Project, keys: list[str]) -> set[str]:
    found: set[str] = set()
    with project.reading() as session:
        if not largest_episode_id(session):
            return found  # a folder opened the first time: nothing to look up, and the first screen is sooner
        for start in range(0, len(keys), _KEY_CHUNK):
            chunk = keys[start:start + _KEY_CHUNK]
            found.update(session.execute(select(Episode.key).where(Episode.key.in_(chunk))).scalars())
    return found


# -- opening -------------------------------------------------------------------------------------------------
def open_folder(folder: str | Path, project: Project | str | Path | None = None, progress: Progress | None = None,
                cancel: threading.Event | None = None) -> FolderReport:
    """Open `folder` into `project` (an open Project, used and left open; a location; None: the folder's own
    project, made on first use). `progress(report)` after the listing and after every batch, on this thread;
    `cancel` set: stops within one picture, keeping every batch already committed."""
    started = time.monotonic()
    listing = list_screenshots(folder)  # first: a folder with no pictures gets no project
    if not listing.files and not listing.outside:
        raise FormatError("no PNG, JPEG or WebP images found (searched sub-folders too)", listing.folder)
    if isinstance(project, Project):
        return _open_into(project, listing, progress, cancel, started)
    location = prepare_project(listing.folder, project)
    with Project.open(location) as opened:
        return _open_into(opened, listing, progress, cancel, started)


def _open_into(project: Project, listing: Listing, progress: Progress | None, cancel: threading.Event | None,
               started: float) -> FolderReport:
    folder = listing.folder
    report = FolderReport(folder=str(folder), project=str(project.folder or project.url),
                          total=len(listing.files) + len(listing.outside))
    report.bad = [BadImage(str(path), OUTSIDE) for path in listing.outside]
    known = _stored_keys(project, listing.keys)
    pending = [(file, key) for file, key in zip(listing.files, listing.keys, strict=True) if key not in known]
    report.already = len(listing.files) - len(pending)
    report.queue = [key for _file, key in pending]
    tell = progress or (lambda _report: None)
    tell(report)
    position, tries = 0, 0
    while position < len(pending):
        if cancel is not None and cancel.is_set():
            report.cancelled = True
            break
        if report.screens == 0 and tries < FIRST_TRIES:
            size, tries = FIRST_BATCH, tries + 1
        else:
            size = min(max(FILL_BATCH, position), BATCH)
        batch = pending[position:position + size]
        try:
            _import_batch(project, folder, [_record(file, key) for file, key in batch], report, cancel)
        except Cancelled:
            report.cancelled = True
            break
        position += len(batch)
        report.position = position
        report.seconds = time.monotonic() - started
        tell(report)
    report.seconds = time.monotonic() - started
    return report


def _import_batch(project: Project, folder: Path, records: list[EpisodeRecord], report: FolderReport,
                  cancel: threading.Event | None) -> None:
    def stop_when_cancelled(stage: str, _done: int, _total: int) -> None:
        if stage == "checking images" and cancel is not None and cancel.is_set():
            raise Cancelled  # before the batch's transaction: ingest takes back the images it copied

    # the images import's options: a picture already stored is not imported twice, a bad one is skipped
    options = ImportOptions(dedupe_images=True, skip_bad_images=True)
    try:
        result = ingest(project, records, "images", str(folder), options, stop_when_cancelled)
    except BadImagesError as exc:
        # nothing in the batch could be imported: the files that are not bad repeat pictures the project holds
        report.bad += exc.bad
        report.repeated += len(records) - len(exc.bad)
        return
    except FormatError as exc:
        if len(records) > 1:  # one file's problem must not cost the others: each on its own
            for record in records:
                _import_batch(project, folder, [record], report, cancel)
            return
        report.bad.append(BadImage(str(records[0].steps[0].image), exc.message, str(exc)))
        return
    report.imported += result.episodes
    report.already += result.existing_episodes_skipped
    report.repeated += result.duplicate_images_skipped
    report.bad += result.bad_images_skipped
    if len(report.duplicates) < REPORT_LIST_CAP:
        report.duplicates += result.duplicates[:REPORT_LIST_CAP - len(report.duplicates)]
