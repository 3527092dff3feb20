"""Content-addressed image store: each image is kept once, named by its SHA-256."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_FILE = "LOCK"  # no extension: never mistaken for an image by a glob such as *.*


class MediaStore:
    in_database = False  # the images are files here (media_db.DatabaseMedia keeps them in the database)

    def __init__(self, root: Path):
        self.root = Path(root)

    def path_for(self, sha256: str, ext: str) -> Path:
        return self.root / sha256[:2] / f"{sha256}.{ext}"

    def has(self, sha256: str, ext: str) -> bool:
        return self.path_for(sha256, ext).exists()

    def put(self, sha256: str, ext: str, data: bytes, durable: bool = True) -> bool:
        """Store the bytes; returns True when the file is new. Atomic: a crash
        leaves either no file or a whole one, never a partial image. Bulk imports
        pass durable=False and flush the file system once at the end."""
        target = self.path_for(sha256, ext)
        if target.exists():
            return False
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".incoming-")
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
