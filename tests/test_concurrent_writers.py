"""Writers in separate processes at once, on SQLite and PostgreSQL (issue 20): an import while a run writes its
predictions, two annotators' box edits through the API on the same screens, agent profiles and runs made during
an import. No 'database is locked', no run left 'running', no failed write, no edit lost.
The scenes are tests/writer_loops.py's (benchmarks/reliability.py repeats them and prints the counts)."""

from __future__ import annotations

import pytest
from writer_loops import rows, writer_loops


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_concurrent_writers_lose_nothing_and_never_see_a_lock(backend, tmp_path, request):
    pg = request.getfixturevalue("pg_server") if backend == "postgresql" else None
    figures = writer_loops(backend, tmp_path, loops=1, pg=pg)
    for name, value in rows(figures):
        print(f"{name:<55} {value}")
    assert figures.loops == 1 and figures.imports == 2 and figures.runs == 1 and figures.edits > 0
    assert figures.runs_created > 0
    assert (figures.locked, figures.left_running, figures.failed_writes, figures.edits_lost) == (0, 0, 0, 0), \
        figures.problems
