"""Images kept inside the project's database (chosen at init: store/media_choice.py), for a team with no
shared folder. Same interface as MediaStore, so importers, runs and exports do not know the difference.

Whoever opens the project keeps a local cache of the images it has looked at: the canvas, OCR and the
browser read files, and a screen read twice is fetched from the server once. The cache is content-addressed
like the media folder, so a cached file can never be the wrong image."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import delete, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine

from desktop_app.store.media import LOCK_FILE, MediaStore, file_lock, writing
from desktop_app.store.models import MediaBlob
from desktop_app.store.types import utcnow

# one lock per database for "an import is committing rows that name images" (pg_advisory_lock's key space
# is the database's own; the number only has to be the same for every ScreenLab)
MEDIA_LOCK_KEY = 0x5C12EE41AB
_INSERT_IGNORING_REPEATS = {"postgresql": postgresql.insert, "sqlite": sqlite.insert}


class DatabaseMedia:
    in_database = True

    def __init__(self, engine: Engine, cache_root: Path):
        self.engine = engine
        self.cache = MediaStore(cache_root)

    @property
    def root(self) -> Path:
        return self.cache.root

    def path_for(self, sha256: str, ext: str) -> Path:
        """The cached file, fetched from the database first if this machine has not seen it yet."""
        path = self.cache.path_for(sha256, ext)
        if not path.exists():
            data = self._fetch(sha256)
            if data is not None:
                # a lost cache file is fetched again; a copy, not a write a sweep must spare (note=False)
                self.cache.put(sha256, ext, data, durable=False, note=False)
        return path

    def has(self, sha256: str, ext: str) -> bool:
        with self.engine.connect() as conn:
            return conn.execute(select(MediaBlob.sha256).where(MediaBlob.sha256 == sha256)).first() is not None

    def put(self, sha256: str, ext: str, data: bytes, durable: bool = True) -> bool:
        """Store the bytes; returns True when the image is new. Its own short transaction, like a file written
        before the rows that name it: a failed import takes back what it added (formats/ingest.py)."""
        insert = _INSERT_IGNORING_REPEATS[self.engine.dialect.name]
        writing(self.root).wrote(sha256)  # this process's marker, before the row (store/media_sweep.py)
        row = {"sha256": sha256, "ext": ext, "size": len(data), "data": data, "created_at": utcnow()}
        with self.engine.begin() as conn:  # RETURNING names the row only when it was inserted
            added = conn.execute(insert(MediaBlob).values(**row).on_conflict_do_nothing(index_elements=["sha256"])
                                 .returning(MediaBlob.sha256)).first()
        return added is not None

    def remove(self, sha256: str, ext: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(delete(MediaBlob).where(MediaBlob.sha256 == sha256))
        self.cache.remove(sha256, ext)

    def read(self, sha256: str, ext: str) -> bytes:
        path = self.path_for(sha256, ext)
        if not path.exists():
            raise FileNotFoundError(f"image {sha256[:12]}….{ext} is not in the project's database")
        return path.read_bytes()

    def locked(self) -> contextlib.AbstractContextManager[None]:
        """Held while an import commits rows that name images and while a failed import removes the images it
        added (MediaStore.locked says why): on PostgreSQL a lock of the server, so it holds across machines."""
        if self.engine.dialect.name == "postgresql":
            return self._advisory_lock()
        return file_lock(self.root / LOCK_FILE)  # SQLite: one machine, the cache folder is shared by its users

    @contextmanager
    def _advisory_lock(self) -> Iterator[None]:
        with self.engine.connect() as conn:
            conn.exec_driver_sql(f"SELECT pg_advisory_lock({MEDIA_LOCK_KEY})")
            conn.commit()
            try:
                yield
            finally:
                conn.exec_driver_sql(f"SELECT pg_advisory_unlock({MEDIA_LOCK_KEY})")
                conn.commit()

    def _fetch(self, sha256: str) -> bytes | None:
        with self.engine.connect() as conn:
            return conn.execute(select(MediaBlob.data).where(MediaBlob.sha256 == sha256)).scalar()
