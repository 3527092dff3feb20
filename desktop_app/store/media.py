"""Content-addressed image store: each image is kept once, named by its SHA-256."""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

LOCK_FILE = "LOCK"  # no extension: never mistaken for an image by a glob such as *.*
# One empty folder per process that has written images here, named host-pid-start and touched as it writes
# (no dot, and folders, not files: never an image to a glob, never a file to a listing of the media). A
# process that ends cleanly removes its own; one left by a process that is gone means images may have been
# written and never named by a committed row: store/media_sweep.py then looks for them.
WRITERS_DIR = "WRITERS"
# An image being written: INCOMING + host-pid-when- + random, renamed when whole; `when` (epoch seconds, a moment
# its writer ran) tells a sweep that a live process with that id is another one (names before it lack `when`)
INCOMING = ".incoming-"
OWN_WINDOW_S = 600.0  # this process's own writes younger than this are never swept by itself (see Writing)
_TOUCH_EVERY_S = 1.0
# How long an import or a sweep waits for another process's hold on the media lock: longer than the longest
# commit measured (a 1,000,000-screen import writes for about 6 minutes, benchmarks/project_1m.py), short enough
# that a process hung while holding it ends in an error naming the lock rather than a window that never returns.
LOCK_TIMEOUT_S = 30 * 60.0


class LockTimeout(TimeoutError):
    """The media lock stayed held by another process for longer than the wait allows; the message names its file."""


class MediaStore:
    in_database = False  # the images are files here (media_db.DatabaseMedia keeps them in the database)

    def __init__(self, root: Path):
        self.root = Path(root)

    def path_for(self, sha256: str, ext: str) -> Path:
        return self.root / sha256[:2] / f"{sha256}.{ext}"

    def has(self, sha256: str, ext: str) -> bool:
        return self.path_for(sha256, ext).exists()

    def put(self, sha256: str, ext: str, data: bytes, durable: bool = True, note: bool = True) -> bool:
        """Store the bytes; returns True when the file is new. Atomic: a crash
        leaves either no file or a whole one, never a partial image. Bulk imports
        pass durable=False and flush the file system once at the end.
        note=False: a copy that no row will name (DatabaseMedia's cache), so not a write a sweep must spare."""
        target = self.path_for(sha256, ext)
        if note:  # before the file exists: a process killed from here on is known to have written
            writing(self.root).wrote(sha256)
        if target.exists():
            return False
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=incoming_prefix())
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                if durable:
                    fh.flush()
                    os.fsync(fh.fileno())
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return True

    def remove(self, sha256: str, ext: str) -> None:
        self.path_for(sha256, ext).unlink(missing_ok=True)

    def locked(self) -> contextlib.AbstractContextManager[None]:
        """Held, across processes, while an import commits rows that name files and while a failed import
        removes the files it added: two imports of the same images never lose a committed one's files."""
        return file_lock(self.root / LOCK_FILE)

    def read(self, sha256: str, ext: str) -> bytes:
        return self.path_for(sha256, ext).read_bytes()


@contextmanager
def file_lock(path: Path, timeout: float | None = None) -> Iterator[None]:
    """An exclusive lock on `path` between processes of this machine (or of machines sharing the folder), and
    between threads of this one: flock on POSIX, a byte-range lock on Windows (filelock). Waits at most
    `timeout` seconds (LOCK_TIMEOUT_S by default), then raises LockTimeout naming the file."""
    timeout = LOCK_TIMEOUT_S if timeout is None else timeout
    path.parent.mkdir(parents=True, exist_ok=True)
    # A new lock object each time: its own descriptor, so two threads of a process exclude each other as two
    # processes do (one shared object would let a second thread in). No "soft" lock where the file system has
    # no flock: that one takes the lock file's existence for a hold, and this file stays, so every wait would
    # run out; the OSError saying flock is missing is the clearer end.
    import filelock  # here: a launch opens a project without writing an image (its import, 3-5 ms, waits)

    lock = filelock.FileLock(path, timeout=timeout, fallback_to_soft=False)
    try:
        lock.acquire()
    except filelock.Timeout:
        raise LockTimeout(f"{path}: another ScreenLab process (an import or a clean-up of the same images) has "
                          f"held this lock for over {_duration(timeout)}; if none is running, it may be hung: "
                          "end it and try again") from None
    try:
        yield
    finally:
        lock.release()


def _duration(seconds: float) -> str:
    return f"{seconds / 60:g} minutes" if seconds >= 120 else f"{seconds:g} seconds"


# -- who writes images here (read by store/media_sweep.py) ---------------------------------------------------

@dataclass
class Writing:
    """This process's writes under one media root: its marker folder, and the images it wrote lately.

    A sweep run by this very process (an import in the window while a page-variant trial stores a
    screenshot on another thread) spares the images it wrote in the last OWN_WINDOW_S seconds: their rows may
    be about to be committed. Kept by SHA-256, pruned as it goes, so a long import does not grow it for ever."""

    root: Path
    marker: Path
    touched: float = float("-inf")
    recent: dict[str, float] = field(default_factory=dict)  # sha256 -> time.monotonic() of the write
    lock: threading.Lock = field(default_factory=threading.Lock)

    def wrote(self, sha256: str) -> None:
        now = time.monotonic()
        with self.lock:
            self.recent[sha256] = now
            if now - self.touched < _TOUCH_EVERY_S:
                return
            self.touched = now
            if len(self.recent) > 1000:
                self.recent = {k: t for k, t in self.recent.items() if now - t < OWN_WINDOW_S}
        try:
            os.utime(self.marker)
        except FileNotFoundError:  # first write, or a sweep took it for an idle writer's: it writes again now
            with contextlib.suppress(OSError):  # a folder it cannot write to gets no orphan from it either
                self.marker.mkdir(parents=True, exist_ok=True)
        except OSError:
            pass

    def wrote_lately(self, sha256: str) -> bool:
        with self.lock:
            return time.monotonic() - self.recent.get(sha256, float("-inf")) < OWN_WINDOW_S


_writings: dict[tuple[str, int], Writing] = {}
_writings_lock = threading.Lock()


@dataclass(frozen=True)
class Writer:
    """A process named by a marker folder: host tag, process id, when it first wrote (epoch seconds; 0 where
    that is not known). The first write is a moment the process ran, which tells a reused process id apart
    (processes.pid_alive)."""

    host: str
    pid: int
    started: int

    @property
    def name(self) -> str:
        return f"{self.host}-{self.pid}-{self.started}"

    @classmethod
    def parse(cls, name: str) -> Writer | None:
        parts = name.split("-")
        if len(parts) != 3 or not all(p.isdigit() for p in parts[1:]):
            return None
        return cls(parts[0], int(parts[1]), int(parts[2]))


def host_tag() -> str:
    """This machine, as it appears in marker and temporary file names (a hash: no dots, no dashes)."""
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def incoming_prefix() -> str:
    """Temporary files name their writer and a moment it ran, so a sweep removes a dead process's (even when
    its id was given to another since) and never a live one's."""
    return f"{INCOMING}{host_tag()}-{os.getpid()}-{int(time.time())}-"


def writing(root: Path) -> Writing:
    """This process's Writing for a media root (made on its first write; per process id, so a fork has its own)."""
    key = (str(root), os.getpid())
    with _writings_lock:
        found = _writings.get(key)
        if found is None:
            if not _writings:
                atexit.register(_remove_own_markers)
            marker = Path(root) / WRITERS_DIR / Writer(host_tag(), os.getpid(), int(time.time())).name
            found = _writings[key] = Writing(Path(root), marker)
    return found


def own_writing(root: Path) -> Writing | None:
    """This process's Writing for the root, None when it has written nothing there."""
    with _writings_lock:
        return _writings.get((str(root), os.getpid()))


def _remove_own_markers() -> None:
    """A process ending cleanly has committed or taken back what it wrote (formats/ingest.py): no sweep needed."""
    for (_, pid), state in list(_writings.items()):
        if pid == os.getpid():
            with contextlib.suppress(OSError):
                state.marker.rmdir()
