"""One person editing the same few screens as fast as they can for a while, through one door (the concurrency
test starts two of these, each with its own login, against one PostgreSQL project): every edit passes the
version its writer read with the boxes; a refused stale write reads again and goes on.

    python tests/tools/edit_loop.py api|cli URL MEDIA SECONDS SEED DONE_DIR WRITERS

The URL carries the person's login and no password (SCREENLAB_DB_PASSWORD holds it). Prints JSON: how many
edits landed and were refused, and for every landed edit, in order, what the writer had read of the box it
changed (the test compares it with the audit trail's "before").
"""

import contextlib
import io
import json
import random
import sys
import time
from pathlib import Path

from sqlalchemy import select

from desktop_app import api
from desktop_app.cli.main import main as cli
from desktop_app.store.models import Episode, Step

FIELDS = ("x1", "y1", "x2", "y2", "label")


def read_api(project, step_id):
    shown = api.screen(project, step_id)
    return shown.version, {b.id: {k: getattr(b, k) for k in FIELDS} for b in shown.boxes}


def read_cli(where, step_id):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli(["boxes", "show", where[0], *where[1:], str(step_id), "--json"]) == 0
    shown = json.loads(out.getvalue())
    return shown["version"], {b["id"]: {k: b[k] for k in FIELDS} for b in shown["boxes"]}


def edit_api(project, op, step_id, box, values, version):
    if op == "create":
        api.add_boxes(project, step_id, [values], expected_version=version)
    elif op == "update":
        api.edit_boxes(project, {box: values}, expected_version=version)
    else:
        api.delete_boxes(project, [box], expected_version=version)


def edit_cli(where, op, step_id, box, values, version) -> bool:
    """True when it landed, False when refused as stale (any other failure raises)."""
    err, out = io.StringIO(), io.StringIO()
    v = ["--expected-version", str(version)]
    if op == "create":
        argv = ["boxes", "add", *where, str(step_id), f"{values['x1']},{values['y1']},{values['x2']},{values['y2']}",
                "--label", values["label"], *v]
    elif op == "update":
        argv = ["boxes", "edit", *where, str(box), *v] + [a for k, x in values.items() for a in ("--set", f"{k}={x}")]
    else:
        argv = ["boxes", "delete", *where, str(box), *v]
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        code = cli(argv)
    if code == 0:
        return True
    if code == 2 and "changed this screen since you read it" in err.getvalue():
        return False
    raise RuntimeError(f"{argv}: exit {code}: {err.getvalue().strip()}")


MIN_LANDED = 20  # what tests/test_team_concurrency.py asks of each writer


def main(door: str, url: str, media: str, seconds: float, seed: int, done: Path, writers: int) -> None:
    rng = random.Random(seed)
    landed, stale, read_before = {"create": 0, "update": 0, "delete": 0}, 0, []
    where = [url, "--media", media]
    with api.open_project(url, media) as project:
        with project.reading() as s:
            episodes = list(s.execute(select(Episode.id).where(Episode.kind == "sample")).scalars())
            steps = {e: s.execute(select(Step.id).where(Step.episode_id == e)).scalars().first() for e in episodes}
        # at least `seconds`, and on until every writer has had enough edits landed and refused to judge by: on a
        # loaded machine 15 s made 13 writes and no refusal through the CLI door. Each writer says so with a file in
        # `done`, and all go on until all have (the refusals need the others still writing), within two minutes more.
        started = time.monotonic()
        deadline, last = started + seconds, started + seconds + 120
        while time.monotonic() < last:
            if time.monotonic() >= deadline:
                if sum(landed.values()) > MIN_LANDED and stale > 0:
                    (done / str(seed)).touch()
                if len(list(done.iterdir())) >= writers:
                    break
            step_id = steps[rng.choice(episodes)]
            version, boxes = read_api(project, step_id) if door == "api" else read_cli(where, step_id)
            op = rng.choice(["create", "update", "update", "delete"] if boxes else ["create"])
            x = rng.randrange(0, 300)
            box = rng.choice(sorted(boxes)) if op != "create" else None
            values = ({"x1": x, "y1": 5, "x2": x + 20, "y2": 30, "label": rng.choice(["gold", "other"])}
                      if op == "create" else {"x1": x, "x2": x + 40, "label": rng.choice(["gold", "distracted"])}
                      if op == "update" else {})
            if door == "api":
                try:
                    edit_api(project, op, step_id, box, values, version)
                    ok = True
                except api.StaleEdit:
                    ok = False
            else:
                ok = edit_cli(where, op, step_id, box, values, version)
            if ok:
                landed[op] += 1
                read_before.append([op, box, boxes.get(box)])
            else:
                stale += 1
    print(json.dumps({"landed": landed, "stale": stale, "read": read_before}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5]), Path(sys.argv[6]),
         int(sys.argv[7]))
