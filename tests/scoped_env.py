"""Environment variables set for a block, then put back as they were (tests and benchmarks share it)."""

from __future__ import annotations

import contextlib
import os


@contextlib.contextmanager
def environment(**values: str):
    """The variables set for the block, then as they were (unset again if they were unset)."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
