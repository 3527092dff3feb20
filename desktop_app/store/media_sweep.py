"""Images nobody names: what a killed import leaves behind, found and removed.

An import copies its images first and commits the rows naming them last (formats/ingest.py), so a process
killed in between leaves image files (or, with images in the database, media_blob rows) that no screen names,
and a kill inside a write leaves an `.incoming-*` temporary file. A failed import takes back its own; a
killed one cannot. `sweep_orphans` removes them, at the start of the next import, under the media lock (no
import commits rows naming images meanwhile).

It must never take an image a live process is about to name (an import of another window still copying, a
page-variant trial storing a screenshot): every process that writes images keeps a marker folder under the
media root (store/media.py, WRITERS), removed when it ends cleanly. So:
- nothing to do, and nothing read, unless a marker names a process that is gone (the cheap check every
  import pays), or `full=True`;
- a temporary file is removed when the process its name carries is gone (or it is older than the grace);
- an orphan is removed unless this process wrote it lately, or another live process writes here and the
  orphan is younger than `grace_s` (its rows may be about to be committed); those are left for a later sweep.
Processes of other machines sharing the folder (or the PostgreSQL database) cannot be asked whether they
live: their markers count as live until they are `grace_s` old.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import delete, select

from desktop_app.processes import pid_alive
from desktop_app.store.media import INCOMING, WRITERS_DIR, Writer, host_tag, own_writing
from desktop_app.store.models import MediaBlob, Screen
from desktop_app.store.project import Project, is_locked

GRACE_S = 3600.0  # an image a live process wrote this recently may still be named by its coming commit
_CHUNK = 500  # SHA-256 values per IN (...) lookup
_IMAGE_NAME = re.compile(r"^([0-9a-f]{64})\.([a-z0-9]{1,5})$")
_SHARD = re.compile(r"^[0-9a-f]{2}$")


@dataclass
class SweepReport:
    scanned: bool = False  # the media were looked through (a writer had gone, or full=True)
    media_files: int = 0  # orphan image files removed
    temp_files: int = 0  # `.incoming-*` files removed
    blobs: int = 0  # media_blob rows no screen names, removed
    bytes_freed: int = 0
    kept: int = 0  # orphans left for a later sweep: a live process may be about to name them
    gone_writers: int = 0  # marker folders of processes that are gone (removed once nothing of theirs is kept)
    errors: int = 0  # files that could not be removed (permissions...): left, counted
    elapsed_s: float = 0.0
    dry_run: bool = False  # counted as if removed, nothing removed (`screenlab check` without --repair)

    @property
    def removed(self) -> int:
        return self.media_files + self.temp_files + self.blobs

    def summary(self) -> str:
        if not self.scanned:
            return "no orphan images to look for"
        parts = [f"{self.media_files} orphan image files", f"{self.temp_files} temporary files"]
        if self.blobs:
            parts.append(f"{self.blobs} orphan images in the database")
        done = "found" if self.dry_run else "removed"
        text = f"{done} {', '.join(parts)} ({self.bytes_freed / 1e6:.1f} MB) in {self.elapsed_s:.2f} s"
        if self.kept:
            text += f"; kept {self.kept} another process may still name"
        return text


@dataclass
class _Writers:
    gone: list[Path]  # markers of processes that are gone or idle for longer than the grace
    others_live: bool  # another process may be between writing an image and committing its rows


def sweep_orphans(project: Project, full: bool = False, grace_s: float = GRACE_S,
                  dry_run: bool = False) -> SweepReport:
    """Remove the images and temporary files no screen names that no live process can still name.
    Called at the start of every import; cheap unless a writer is gone (or `full`: a first clean-up of a
    project older than this sweep, or `screenlab check`). Never raises for a file it cannot remove or a busy
    database: the next sweep tries again. dry_run: count what would go, under the same lock, remove nothing."""
    report = SweepReport(dry_run=dry_run)
    started = time.perf_counter()
    media = project.media
    if not (full or _writers(media.root, grace_s, project).gone):
        return report
    report.scanned = True
    with media.locked():  # no import commits rows naming images while this decides what is named
        gone = _writers(media.root, grace_s, project).gone  # before the scan: all they wrote is there to see
        cutoff = time.time() - grace_s
        _sweep_folder(project, grace_s, cutoff, report, cache_only=media.in_database)
        if media.in_database:
            _sweep_blobs(project, grace_s, cutoff, report)
        if not (report.kept or report.errors or dry_run):  # everything those writers left is dealt with
            for marker in gone:
                with contextlib.suppress(OSError):
                    marker.rmdir()
    report.gone_writers = len(gone)
    report.elapsed_s = time.perf_counter() - started
    return report


def _writers(root: Path, grace_s: float, project: Project) -> _Writers:
    folder = root / WRITERS_DIR
    own = own_writing(root)
    gone, others_live = [], False
    now = time.time()
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        entries = []
    for entry in entries:
        if own is not None and entry.name == own.marker.name:
            continue
        writer = Writer.parse(entry.name)
        try:
            idle = now - entry.stat().st_mtime
        except FileNotFoundError:  # removed meanwhile (that process ended cleanly)
            continue
        alive = _alive(writer) if writer is not None else None
        if alive is False or idle > grace_s:  # an idle writer's images are all older than the grace
            gone.append(Path(entry.path))
        else:
            others_live = True
    if project.media.in_database and project.engine.dialect.name != "sqlite":
        others_live = True  # other machines write to the server and leave no marker here
    return _Writers(gone, others_live)


def _alive(writer: Writer) -> bool | None:
    if writer.host != host_tag():
        return None  # another machine sharing the folder: it cannot be asked
    if writer.pid == os.getpid():
        return False  # a marker with this process's id that is not its own: an earlier process's, gone
    return pid_alive(writer.pid, writer.started or None)


def _temp_is_stale(name: str, mtime: float, cutoff: float) -> bool:
    """A temporary file whose writer is gone (the name says which process and, since ADR 0030, a moment it
    ran: store/media.py incoming_prefix; host-pid-random before)."""
    parts = name[len(INCOMING):].split("-")
    if len(parts) in (3, 4) and all(p.isdigit() for p in parts[1:-1]):
        writer = Writer(parts[0], int(parts[1]), int(parts[2]) if len(parts) == 4 else 0)
        if writer.host == host_tag() and int(parts[1]) == os.getpid():
            return False  # this process is writing it now
        if _alive(writer) is False:
            return True
    return mtime < cutoff  # an older name without a process, another machine's, or a process of unknown state


def _sweep_folder(project: Project, grace_s: float, cutoff: float, report: SweepReport, cache_only: bool) -> None:
    """The image files of the folder (or, images in the database, of this machine's cache) no screen names.
    One shard folder at a time, its names looked up 500 at once: a million images are never all in memory."""
    root = project.media.root
    try:
        shards = [e for e in os.scandir(root) if e.is_dir() and _SHARD.match(e.name)]
    except FileNotFoundError:
        return
    for shard in shards:
        images: dict[str, list[os.DirEntry]] = {}
        for entry in os.scandir(shard.path):
            if entry.name.startswith(INCOMING):
                stat = _stat(entry)
                if stat is not None and _temp_is_stale(entry.name, stat.st_mtime, cutoff):
                    _remove(Path(entry.path), stat.st_size, report, "temp_files")
                continue
            found = _IMAGE_NAME.match(entry.name)
            if found:  # anything else in the folder is not ours to judge
                images.setdefault(found.group(1), []).append(entry)
        named = _named(project, list(images))
        unnamed = [(sha, e) for sha, entries in images.items() for e in entries
                   if (sha, e.name.rsplit(".", 1)[1]) not in named]
        if not unnamed:
            continue
        # The writers are read after the files: a process that wrote one of these made its marker before it
        # (store/media.py), so it is seen here even if it began after the sweep did.
        spare = _Spare(project, grace_s, cutoff)
        for sha256, entry in unnamed:
            stat = _stat(entry)
            if stat is None:
                continue
            if cache_only:  # a cached copy of an image no screen names: the database decides, not a writer
                if not report.dry_run:
                    _remove(Path(entry.path), stat.st_size, report, None)
            elif spare(sha256, stat.st_mtime):
                report.kept += 1
            else:
                _remove(Path(entry.path), stat.st_size, report, "media_files")


class _Spare:
    """Whether an orphan must be left for now: this process wrote it lately, or another live process writes
    here and it is younger than the grace (that process's commit may name it yet)."""

    def __init__(self, project: Project, grace_s: float, cutoff: float):
        self.own = own_writing(project.media.root)
        self.others_live = _writers(project.media.root, grace_s, project).others_live
        self.cutoff = cutoff

    def __call__(self, sha256: str, written: float) -> bool:
        if self.own is not None and self.own.wrote_lately(sha256):
            return True
        return self.others_live and written >= self.cutoff


def _named(project: Project, hashes: list[str]) -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    with project.reading() as session:
        for start in range(0, len(hashes), _CHUNK):
            found.update(session.execute(select(Screen.sha256, Screen.ext)
                                         .where(Screen.sha256.in_(hashes[start:start + _CHUNK]))).all())
    return {(sha, ext) for sha, ext in found}


def _sweep_blobs(project: Project, grace_s: float, cutoff: float, report: SweepReport) -> None:
    """media_blob rows no screen names (images in the database). The delete checks again that no screen names
    them, in the same statement: a screen committed meanwhile (a trial's screenshot) keeps its image."""
    unnamed = select(Screen.sha256)
    with project.reading() as session:
        rows = session.execute(select(MediaBlob.sha256, MediaBlob.size, MediaBlob.created_at)
                               .where(MediaBlob.sha256.not_in(unnamed))).all()
    spare = _Spare(project, grace_s, cutoff)  # after the rows, as for files
    take = []
    for sha256, size, created in rows:
        if spare(sha256, _epoch(created)):
            report.kept += 1
        else:
            take.append((sha256, size or 0))
    if report.dry_run:
        report.blobs += len(take)
        report.bytes_freed += sum(size for _, size in take)
        return
    for start in range(0, len(take), _CHUNK):
        chunk = take[start:start + _CHUNK]
        try:
            with project.transaction() as session:
                gone = session.execute(delete(MediaBlob).where(MediaBlob.sha256.in_([s for s, _ in chunk]),
                                                               MediaBlob.sha256.not_in(unnamed))).rowcount
        except Exception as exc:  # a busy database: the import goes on, the next sweep tries again
            if not is_locked(exc):
                raise
            report.errors += len(chunk)
            continue
        report.blobs += gone
        report.bytes_freed += sum(size for _, size in chunk) if gone == len(chunk) else 0


def _epoch(moment: datetime | None) -> float:
    if moment is None:
        return 0.0
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def _stat(entry: os.DirEntry) -> os.stat_result | None:
    try:
        return entry.stat()
    except FileNotFoundError:
        return None


def _remove(path: Path, size: int, report: SweepReport, counter: str | None) -> None:
    if report.dry_run:
        if counter is not None:
            setattr(report, counter, getattr(report, counter) + 1)
            report.bytes_freed += size
        return
    try:
        path.unlink()
    except FileNotFoundError:
        return
    except OSError:
        report.errors += 1
        return
    if counter is not None:
        setattr(report, counter, getattr(report, counter) + 1)
        report.bytes_freed += size
