"""Content-addressed image store: each image is kept once, named by its SHA-256."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


class MediaStore:
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

    def read(self, sha256: str, ext: str) -> bytes:
        return self.path_for(sha256, ext).read_bytes()
