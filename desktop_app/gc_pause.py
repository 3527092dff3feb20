"""Python's cycle collector paused while a bulk job makes millions of objects that hold no cycles.

The collector runs after every 700 allocations and, now and then, walks every object alive again; in a
job that makes rows or records by the million it takes a quarter of the time or more, and more as the
heap grows. What such a job makes is freed by reference counting all the same. Pauses may nest or
overlap (threads): the collector is switched back on by the pause that found it on.

heap_frozen: what is alive is left out of collections for a block (before a fork: evaluation/work_split.py).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextmanager
def heap_frozen() -> Iterator[None]:
    """The objects alive now are left out of every collection during the block (gc.freeze), then let back in,
    unless some were frozen before it (a caller's freeze stays)."""
    frozen_before = gc.get_freeze_count()
    gc.freeze()
    try:
        yield
    finally:
        if not frozen_before:
            gc.unfreeze()
