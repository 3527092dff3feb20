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
INCOMING = ".incoming-"  # an image being written: INCOMING + host-pid- + random, renamed when whole
OWN_WINDOW_S = 600.0  # this process's own writes younger than this are never swept by itself (see Writing)
_TOUCH_EVERY_S = 1.0


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
def file_lock(path: Path) -> Iterator[None]:
    """An exclusive lock on `path` between processes of this machine (or of machines sharing the folder)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as fh:
        if os.name == "nt":
            import msvcrt

            fh.seek(0)
            while True:
                try:
                    msvcrt.locking(fh.fileno(), msvcrt.LK_LOCK, 1)  # retries for 10 s, then raises
                    break
                except OSError:
                    continue
            try:
                yield
            finally:
                fh.seek(0)
                msvcrt.locking(fh.fileno(), msvcrt.LK_UNLCK, 1)
        else:
            import fcntl

            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)


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
    """A process named by a marker folder: host tag, process id, when it first wrote (epoch seconds)."""

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
    """Temporary files name their writer, so a sweep removes a dead process's and never a live one's."""
    return f"{INCOMING}{host_tag()}-{os.getpid()}-"


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


def pid_alive(pid: int) -> bool | None:
    """Whether a process of this machine runs; None when this system cannot say (Windows: signal 0 is not a
    probe there)."""
    if os.name == "nt":
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    except OSError:
        return None
    return True
