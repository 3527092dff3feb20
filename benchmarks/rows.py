"""One figure of the README's Measured table, said by the benchmark that measured it (ADR 0053).

A benchmark prints its usual lines for people and, for each figure the README shows, one more line:

    bench-row: {"figure": ..., "ours": ..., "peer": ..., "unit": ..., "goal": ..., ...}

benchmarks/table.py runs the benchmarks, keeps these lines and writes the table from them and nothing else,
so a figure in the README is one a benchmark printed in that run, beside its peer measured in the same run.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass

PREFIX = "bench-row: "


@dataclass
class Row:
    figure: str  # what was measured, with its sizes ("open a folder of 2,000 PNGs from launch ...")
    ours: float
    unit: str  # "s", "ms", "MB"
    peer: float | None = None  # the same figure for the peer, measured in the same run
    peer_name: str = ""  # "labelme 5.8.1", "tesseract 5.3.0"
    goal: str = ""  # as the issue states it ("<= labelme", "<= 10 s")
    met: bool | None = None  # None: a figure without a goal
    runs: int = 1  # how many measurements the median is of
    load: float | None = None  # the 1-minute load average while it was measured (the machine is shared)
    note: str = ""  # what a reader needs to read the figure right (recall, the peer's figure's meaning)
    command: str = ""  # the benchmark that printed it

    @property
    def ratio(self) -> float | None:
        """ours / peer: below 1 ours takes less (time, memory)."""
        if self.peer is None or not self.peer or math.isnan(self.peer):
            return None
        return self.ours / self.peer


def load1() -> float:
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")


def emit(figure: str, ours: float, unit: str, **fields) -> Row:
    """Print the row for benchmarks/table.py (and for a person reading the output) and return it."""
    fields.setdefault("load", load1())
    row = Row(figure=figure, ours=float(ours), unit=unit, **fields)
    print(PREFIX + json.dumps(asdict(row)), flush=True)
    return row


def parse(line: str) -> Row | None:
    """The row a `bench-row:` line holds, or None for any other line."""
    if not line.startswith(PREFIX):
        return None
    return Row(**json.loads(line[len(PREFIX):]))
