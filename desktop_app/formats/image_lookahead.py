"""The pictures an import is about to check, checked ahead on every core.

An import checks each picture whole (images.inspect_bytes: the header, then every pixel decoded, then the
hash), and the decode is most of an import of screenshots: 5 ms of the 8 a 1280x800 PNG costs. Pillow's
decoder and hashlib let go of the GIL while they work, so threads decode in parallel. The importer says
which pictures it will ask for, in order (`expect`: files, or bytes a reader took from a Parquet file, a
TFRecord or a labelme JSON); `take(step)` then gives that picture's ImageInfo (or raises its ImageProblem), as
images.inspect_file / inspect_bytes would have, while the next few are decoded on the other threads.

What stays on the importer's thread: reading a file and its header (cheap), so the pixel limit is known
before a decode starts, and everything after the check (copying into the media store, the boxes' checks), so
the import does the same things in the same order as without threads. Memory stays bounded: at most
`AHEAD_PER_THREAD` files per thread are held ahead, and a picture over `PARALLEL_PIXELS` is decoded on the
importer's thread when its turn comes, so the decoders together hold at most one big picture and one
screen-sized picture per thread.

concurrent.futures (the standard library's pool) does the threading; this only keeps the order and the bounds.
"""

from __future__ import annotations

import os
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor

from desktop_app.images import ImageInfo, ImageProblem, decode_checked, read_file, read_header
from desktop_app.priority import in_background

AHEAD_PER_THREAD = 2  # files read ahead per decoding thread: enough to keep each busy, few held in memory
PARALLEL_PIXELS = 3840 * 2160 * 2  # larger pictures (over two 4K screens) are decoded on the importer's thread
MAX_THREADS = 4  # decoding beyond this many cores is held back by the disk and the importer's own work


def decoding_threads(background: bool | None = None) -> int:
    """How many threads decode for an import: one per core this process may run on, up to MAX_THREADS; one core
    fewer for background work (by default: whether this thread runs at the background priority, as the window's
    import of a folder does), which leaves the window a core of its own; 0 on one core (nothing is decoded
    ahead then: the importer checks each picture itself)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    if cores < 2:
        return 0
    if background is None:
        background = in_background()
    return min(cores - 1 if background else cores, MAX_THREADS)


class ImageLookahead:
    """Full checks of the pictures an import will ask for, in the order it will ask. With no thread it does
    nothing ahead: `take` returns None and the importer checks each picture itself, as before."""

    def __init__(self, max_pixels: int, threads: int | None = None):
        self.max_pixels = max_pixels
        self.threads = decoding_threads() if threads is None else threads
        self._pool = (ThreadPoolExecutor(self.threads, thread_name_prefix="image-check")
                      if self.threads > 0 else None)
        self._waiting: deque = deque()  # steps expected, not read yet
        self._started: dict[object, Future | tuple[bytes, object]] = {}  # read: a future, or a big picture's bytes

    def expect(self, steps: list) -> None:
        """The steps (formats.records.StepRecord) whose pictures the import will check next, in order: a file
        (`image`) or bytes already read (`image_bytes`, named by `image` in messages). What was expected before
        and not taken is dropped (the importer skipped those records)."""
        if self._pool is None:
            return
        self._drop()
        seen: set[object] = set()
        for step in steps:
            key = _key(step)
            if key is not None and key not in seen:  # a file named twice is read once (the importer remembers it)
                seen.add(key)
                self._waiting.append(step)
        self._top_up()

    def take(self, step) -> ImageInfo | None:
        """This step's picture checked, as images.inspect_file (or inspect_bytes) would give it (its ImageProblem
        raised); None when it was not expected: the importer checks it itself."""
        if self._pool is None:
            return None
        self._top_up()
        ahead = self._started.pop(_key(step), None)
        self._top_up()
        if ahead is None:
            return None
        if isinstance(ahead, Future):
            return ahead.result()
        data, header = ahead
        if isinstance(header, ImageProblem):
            raise header
        return decode_checked(data, header, step.image)  # a big picture, on this thread

    def close(self) -> None:
        """Stops the decoders (a decode under way finishes); what they held is let go."""
        self._drop()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __enter__(self) -> ImageLookahead:
        return self

    def __exit__(self, *_exc) -> None:
        self.close()

    def _drop(self) -> None:
        for ahead in self._started.values():
            if isinstance(ahead, Future):
                ahead.cancel()
        self._started.clear()
        self._waiting.clear()

    def _top_up(self) -> None:
        while self._waiting and len(self._started) < self.threads * AHEAD_PER_THREAD:
            step = self._waiting.popleft()
            self._started[_key(step)] = self._start(step)

    def _start(self, step) -> Future | tuple[bytes, object]:
        try:
            data = read_file(step.image, self.max_pixels) if step.image_bytes is None else step.image_bytes
            header = read_header(data, self.max_pixels, step.image)
        except ImageProblem as problem:
            return b"", problem
        if header.width * header.height > PARALLEL_PIXELS:
            return data, header
        return self._pool.submit(decode_checked, data, header, step.image)


def _key(step) -> object:
    """What a step's picture is known by here: its bytes' object, else its file; None for a step without one."""
    if step.image_bytes is not None:
        return id(step.image_bytes)
    return str(step.image) if step.image is not None else None
