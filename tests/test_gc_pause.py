"""An import pauses Python's cycle collector while it works (desktop_app/gc_pause.py): it must be back on
afterwards, whether the import succeeded or was refused, or a long session (the window) would keep every
cycle it makes from then on."""

import gc
import json
import shutil
from pathlib import Path

import pytest

from desktop_app.formats.records import FormatError
from desktop_app.formats.transfer import import_path
from desktop_app.gc_pause import gc_paused

DEMO = Path(__file__).resolve().parents[1] / "datasets" / "demo"


def test_the_collector_is_on_after_an_import_and_after_a_refused_one(project, tmp_path):
    report = import_path(project, DEMO, "screenlab")
    assert report.episodes > 0 and gc.isenabled()

    bad = tmp_path / "bad"
    shutil.copytree(DEMO, bad)
    lines = (bad / "episodes.jsonl").read_text().splitlines()
    record = json.loads(lines[-1])
    record["id"] = "a new one"
    record["steps"][0]["actions"] = [{"label": "no such label", "box": [0, 0, 5, 5]}]
    (bad / "episodes.jsonl").write_text("\n".join([*lines, json.dumps(record)]) + "\n")
    with pytest.raises(FormatError, match="no such label"):
        import_path(project, bad, "screenlab")
    assert gc.isenabled()


def test_overlapping_pauses_leave_the_collector_as_the_first_found_it():
    assert gc.isenabled()
    outer = gc_paused()
    outer.__enter__()
    with gc_paused():  # another job's, started meanwhile
        assert not gc.isenabled()
    assert not gc.isenabled()
    outer.__exit__(None, None, None)
    assert gc.isenabled()

    gc.disable()  # someone else's choice is kept
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
