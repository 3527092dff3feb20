"""One simulated annotator for benchmarks/teams_postgres.py: a process of its own, logged in to the server
with its own login (the password arrives in SCREENLAB_DB_PASSWORD, as a person's shell holds it), editing
its own samples through desktop_app.api at one write every `period` seconds.

    SCREENLAB_DB_PASSWORD=... python benchmarks/teams_annotator.py   (the plan arrives on stdin)

Talks to the benchmark over stdin / stdout, one JSON object a line:
  in:  {"url", "media", "login", "samples": [episode ids], "seconds", "period", "offset", "done_every"}
  out: {"ready": true, "visible": n, "open_s": s}   after opening the project and warming up: on the first
                                                     sample (not written again) a read and one write of
                                                     each kind
  in:  {"start": t}                                  t on time.monotonic()'s clock (CLOCK_MONOTONIC: the
                                                     same in every process of the machine)
  out: {"writes": [[kind, seconds, stale, started at (s after start)], ...], "reads": [seconds, ...], "conflicts": n, "errors": [...],
        "cpu_s": this process's CPU time from the start to its last write, "gc": the collector's runs}
  in:  an empty line: every annotator has finished; close the project and end (not while others still write)

Its writes, in turn: add_boxes (after reading the sample's screen with api.screen half a period earlier:
every edit of the sample passes that version as expected_version, raised by one after each), edit_boxes,
delete_boxes on that box, and on every `done_every`-th sample api.set_state(..., "done") as a fourth write;
then the next sample. Write k is due at start + offset + k * period (a write that ends late delays only
itself; the next one keeps its time).
"""

from __future__ import annotations

import gc
import json
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def say(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    from sqlalchemy import func, select

    from desktop_app import api
    from desktop_app.store.models import Episode, Step
    from desktop_app.store.project import Project

    plan = json.loads(sys.stdin.readline())
    login, samples = plan["login"], plan["samples"]
    t0 = time.perf_counter()
    project = Project.open(plan["url"], plan["media"])
    try:
        assert project.user == login, f"opened as {project.user}, not {login}"
        with project.reading() as s:  # what this login sees of the project (row-level security)
            visible = s.execute(select(func.count()).select_from(Episode)).scalar_one()
            steps = dict(s.execute(select(Step.episode_id, Step.id).where(Step.episode_id.in_(samples))
                                   .where(Step.index == 0)).all())
        open_s = time.perf_counter() - t0
        # warm up on the first sample (not written again): each kind of call once, so what is timed below is
        # the steady state of a window that has been working, not the first call's loading and compiling
        warm, samples = samples[0], samples[1:]
        version = api.screen(project, steps[warm]).version
        (box,) = api.add_boxes(project, steps[warm], [{"x1": 10, "y1": 10, "x2": 90, "y2": 34, "label": "gold"}],
                               expected_version=version)
        api.edit_boxes(project, {box.id: {"label": "other"}}, expected_version=version + 1)
        api.delete_boxes(project, [box.id], expected_version=version + 2)
        api.set_state(project, warm, "done")
        say({"ready": True, "visible": visible, "open_s": open_s})
        start = json.loads(sys.stdin.readline())["start"]
        cpu0 = time.process_time()
        pauses: list[tuple[int, float, float]] = []  # the cycle collector's runs: generation, start, seconds
        began = {}

        def collector(phase, info):
            if phase == "start":
                began["t"] = time.perf_counter()
            else:
                pauses.append((info["generation"], began["t"], time.perf_counter() - began["t"]))
        gc.callbacks.append(collector)
        writes: list[tuple[str, float, bool]] = []
        reads: list[float] = []
        out = {"writes": writes, "reads": reads, "conflicts": 0, "errors": []}

        def timed(kind, fn, *args, **kw):
            at = time.monotonic() - start
            t = time.perf_counter()
            try:
                result = fn(*args, **kw)
            except api.StaleEdit:
                writes.append((kind, time.perf_counter() - t, True, at))
                raise
            writes.append((kind, time.perf_counter() - t, False, at))
            return result

        def read(step_id: int) -> int:
            t = time.perf_counter()
            version = api.screen(project, step_id).version
            reads.append(time.perf_counter() - t)
            return version

        end = start + plan["seconds"]
        period, done_every = plan["period"], plan["done_every"]
        # the writes, one per tick: (sample number, what)
        def ticks():
            n = 0
            while True:
                for what in ("add", "edit", "delete") + (("done",) if n % done_every == done_every - 1 else ()):
                    yield n, what
                n += 1

        box_id, version = None, 0
        for k, (n, what) in enumerate(ticks()):
            due = start + plan["offset"] + k * period
            if due >= end:
                break
            if n >= len(samples):
                out["errors"].append(f"{login}: ran out of samples after {n}")
                break
            episode_id = samples[n]
            step_id = steps[episode_id]
            if what == "add":  # the screen as the annotator opens it, half a period before the first edit
                time.sleep(max(0.0, max(start + plan["offset"], due - period / 2) - time.monotonic()))
                version = read(step_id)
            time.sleep(max(0.0, due - time.monotonic()))
            try:
                if what == "add":
                    x, y = 40 + 7 * (k % 100), 60 + 5 * (k % 120)
                    (box,) = timed("add_boxes", api.add_boxes, project, step_id,
                                   [{"x1": x, "y1": y, "x2": x + 80, "y2": y + 24, "label": "gold",
                                     "element_text": login}], expected_version=version)
                    box_id = box.id
                    version += 1
                elif what == "edit":
                    timed("edit_boxes", api.edit_boxes, project, {box_id: {"label": "distracted"}},
                          expected_version=version)
                    version += 1
                elif what == "delete":
                    timed("delete_boxes", api.delete_boxes, project, [box_id], expected_version=version)
                    version += 1
                else:
                    timed("set_state", api.set_state, project, episode_id, "done")
            except api.StaleEdit:  # nobody else edits these samples: counted, read again
                out["conflicts"] += 1
                version = read(step_id)
            except Exception:
                out["errors"].append(f"{login} {what} on {episode_id}: "
                                     + traceback.format_exc(limit=2).strip().splitlines()[-1])
                version = read(step_id)
        out["cpu_s"] = time.process_time() - cpu0  # this process's own CPU time over the writes
        gc.callbacks.remove(collector)
        out["gc"] = [(g, d) for g, _, d in pauses]
        say(out)
        sys.stdin.readline()  # leave (close, exit: CPU work) only when everyone's writes are over
    finally:
        project.close()


if __name__ == "__main__":
    main()
