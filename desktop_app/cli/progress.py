"""A small progress bar on stderr for long CLI commands (silent when not a terminal)."""

from __future__ import annotations

import sys
import time


class ProgressBar:
    def __init__(self, stream=None, width: int = 30):
        self.stream = stream or sys.stderr
        self.width = width
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self._stage = None
        self._last = 0.0

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        finished = done >= total
        if stage == self._stage and not finished and now - self._last < 0.1:
            return
        self._last = now
        if self.tty:
            filled = int(self.width * done / total) if total else self.width
            bar = "#" * filled + "-" * (self.width - filled)
            self.stream.write(f"\r{stage:<16} [{bar}] {done}/{total}")
            if finished:
                self.stream.write("\n")
        self._stage = stage
        self.stream.flush()
