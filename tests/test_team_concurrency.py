"""Two annotators editing the same screens at once on PostgreSQL, for 30 s, in two processes: every edit
either lands or is refused as stale; the stored boxes are exactly the audit trail replayed; no update was
written over a state its writer had not seen."""

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

from sqlalchemy import select

from desktop_app.formats.transfer import import_path
from desktop_app.store import audit
from desktop_app.store.models import AuditEntry
from desktop_app.store.project import Project

from conftest import make_image

TOOL = Path(__file__).parent / "tools" / "edit_loop.py"
SECONDS = 30


def test_two_processes_editing_the_same_screens_lose_nothing(pg_server, tmp_path):
    url = pg_server.new_database()
    media = tmp_path / "media"
    for i in range(3):
        make_image(tmp_path / "shots" / f"s{i}.png", size=(400, 100), color=(i * 60, 0, 0))
    with Project.init(url, media) as project:
        import_path(project, tmp_path / "shots", "images")
        with project.reading() as s:
            start, after = audit.box_state(s)

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)}
    workers = [subprocess.Popen([sys.executable, str(TOOL), url, str(media), str(SECONDS), str(seed)],
                                env={**env, "SCREENLAB_USER": who}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True) for seed, who in ((1, "ann"), (2, "bob"))]
    reports = {}
    for who, worker in zip(("ann", "bob"), workers, strict=True):
        out, err = worker.communicate(timeout=SECONDS + 120)
        assert worker.returncode == 0, err
        reports[who] = json.loads(out)

    with Project.open(url, media) as project, project.reading() as s:
        entries = list(s.execute(select(AuditEntry).where(AuditEntry.id > after, AuditEntry.entity == "action_box")
                                 .order_by(AuditEntry.id)).scalars())
        # the final state equals the audit trail replayed
        assert audit.replay_boxes(s, start, after) == audit.stored_boxes(s)
        # every edit a worker saw succeed is in the log under its name, and nothing else is
        logged = Counter((e.actor, e.action) for e in entries)
        for who, report in reports.items():
            assert {op: logged[(who, op)] for op in report["landed"]} == report["landed"], who
        assert sum(logged.values()) == sum(sum(r["landed"].values()) for r in reports.values())
        # no silent overwrite: each update's "before" is the state the replay holds at that point
        boxes = {k: dict(v) for k, v in start.items()}
        for e in entries:
            if e.action == "update":
                seen = boxes[e.entity_id]
                assert {k: seen[k] for k in e.changes["before"]} == e.changes["before"], e.id
            audit.apply_entry(boxes, e)
    print("edits per annotator:", reports)
    # both really competed: thousands of edits, and stale writes refused on both sides
    assert all(sum(r["landed"].values()) > 100 for r in reports.values()), reports
    assert all(r["stale"] > 0 for r in reports.values()), reports

