"""A run carried to another project as files: its row, its answers, and the episodes it wrote itself.

Layout of a run folder (`screenlab export-run`):

    run.json           the run: name, protocol, the agent as frozen when it ran (never a key, only where one
                       is found), options, status, totals, times, and the keys of the episodes it selected
    predictions.jsonl  one answer per line: the key of the episode and the index of the step it answers,
                       then the prediction's fields (the box it matched: its place among the step's boxes)
    episodes/          the episodes the run wrote as it ran (a live run's trajectories, with their
                       screenshots and trees), in ScreenLab JSONL

Import (`screenlab import-run`) needs the samples the run answered to be in the project already (matched by
episode key, as an import of the same dataset makes them); its own episodes come with it, renamed for the new
run's id. A live run answered only its own trajectories, so it imports anywhere; without its recorded tasks
its outcomes stand but it cannot be resumed (the summary says how many it selected are missing). Everything goes in or nothing does: a prediction whose step is not there refuses the import, naming
the line. Why a format of its own rather than a dataset format: a run is not episodes, and its verdicts, the
engine's resume state and a live run's outcomes are tied to ids the new project gives out again (ADR 0051).
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from sqlalchemy import delete, select

from desktop_app.formats.ingest import ImportOptions, ingest
from desktop_app.formats.records import FormatError, Where
from desktop_app.formats.screenlab_jsonl import read as read_episodes
from desktop_app.formats.screenlab_jsonl import write_episodes
from desktop_app.formats.spec import ExportReport
from desktop_app.formats.writing import atomic_output
from desktop_app.runs.protocols import PROTOCOLS
from desktop_app.runs.protocols.live_store import run_prefix
from desktop_app.runs.selection import RunSelection
from desktop_app.store import audit
from desktop_app.store import models as m
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter, episode_ids, load_bundles

VERSION = 1
RUN_FILE = "run.json"
PREDICTIONS_FILE = "predictions.jsonl"
EPISODES_FOLDER = "episodes"
RUN_FIELDS = ("name", "protocol", "options", "status", "failure", "agent", "kind", "model", "pattern", "convention",
              "samples", "excluded", "prompt_tokens", "completion_tokens", "cost", "cached", "executions")
TIMES = ("created_at", "started_at", "finished_at")
PROFILE_FIELDS = ("name", "base_url", "model", "pattern", "convention", "api_key_ref", "params")
PREDICTION_TEXTS = ("raw_text", "element_text", "verdict", "error")
PREDICTION_NUMBERS = ("x", "y", "latency_ms", "prompt_tokens", "completion_tokens")
MACHINE_OPTIONS = ("browser",)  # a path on the machine that ran it: meaningless elsewhere


@dataclass(frozen=True)
class RunTransfer:
    run_id: int
    name: str
    protocol: str
    predictions: int
    episodes: int  # the run's own (a live run's trajectories)
    path: Path
    missing: int = 0  # episodes it had selected that the importing project does not have

    def summary(self, verb: str) -> str:
        own = f", {self.episodes} of its own episodes" if self.episodes else ""
        gone = (f"; {self.missing} of the episodes it selected are not in this project (import them first to "
                f"resume it or run it again)") if self.missing else ""
        return (f"run {self.run_id} {self.name!r} ({self.protocol}) {verb} {self.path}: {self.predictions} "
                f"answers{own}{gone}")


def _own_episodes(session, run: m.Run) -> list[int]:
    """The episodes a run wrote as it ran (only the live protocol writes any: its tasks' trajectories)."""
    if run.protocol != "live":
        return []
    return list(session.execute(select(m.Episode.id).where(m.Episode.key.like(run_prefix(run.id) + "%"))
                                .order_by(m.Episode.id)).scalars())


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def export_run(project: Project, run_id: int, out: Path) -> RunTransfer:
    """Write run `run_id` as a run folder at `out` (a new or empty folder)."""
    with project.reading() as s:
        run = s.get(m.Run, run_id)
        if run is None:
            raise ValueError(f"no run {run_id} in this project")
        if run.status == "running":
            raise ValueError(f"run {run_id} is running; export it when it has stopped")
        profile = s.get(m.AgentProfile, run.profile_id)
        own = _own_episodes(s, run)
        selection = RunSelection.from_json(run.selection)
        selected = [i for i in episode_ids(s, selection.episodes) if i not in set(own)]
        keys = dict(s.execute(select(m.Episode.id, m.Episode.key).where(m.Episode.id.in_(selected))).all()) \
            if selected else {}
        data = {"v": VERSION, **{f: getattr(run, f) for f in RUN_FIELDS}, **{f: _iso(getattr(run, f)) for f in TIMES},
                "options": {k: v for k, v in (run.options or {}).items() if k not in MACHINE_OPTIONS},
                "profile": {f: getattr(profile, f) for f in PROFILE_FIELDS} if profile else {},
                "selection": {"kind": selection.episodes.kind, "review_statuses": list(selection.episodes.review_statuses),
                              "include_unlabelled": selection.include_unlabelled,
                              "episodes": [keys[i] for i in selected]}}
        rows = s.execute(select(m.Prediction, m.Step, m.Episode.key).join(m.Step, m.Step.id == m.Prediction.step_id)
                         .join(m.Episode, m.Episode.id == m.Step.episode_id).where(m.Prediction.run_id == run_id)
                         .order_by(m.Prediction.id)).all()
        matched = {p.matched_box_id for p, _, _ in rows if p.matched_box_id is not None}
        places = {}
        if matched:
            steps = {p.step_id for p, _, _ in rows if p.matched_box_id is not None}
            boxes = s.execute(select(m.ActionBox.id, m.ActionBox.step_id).where(m.ActionBox.step_id.in_(steps))
                              .order_by(m.ActionBox.step_id, m.ActionBox.id)).all()
            count: dict[int, int] = {}
            for box_id, step_id in boxes:
                places[box_id] = count.get(step_id, 0)
                count[step_id] = places[box_id] + 1
        with atomic_output(Path(out)) as tmp:
            (tmp / RUN_FILE).write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
            with open(tmp / PREDICTIONS_FILE, "w", encoding="utf-8", newline="\n") as fh:
                for p, step, key in rows:
                    line = {"episode": key, "step": step.index, **{f: getattr(p, f) for f in PREDICTION_TEXTS},
                            **{f: getattr(p, f) for f in PREDICTION_NUMBERS}, "parsed": p.parsed,
                            "wrong_format": p.wrong_format, "created_at": _iso(p.created_at)}
                    if p.matched_box_id in places:
                        line["matched_box"] = places[p.matched_box_id]
                    fh.write(json.dumps(line, ensure_ascii=False) + "\n")
            if own:
                (tmp / EPISODES_FOLDER).mkdir()
                write_episodes(tmp / EPISODES_FOLDER, load_bundles(s, own), project.media.read, s,
                               ExportReport("screenlab", tmp / EPISODES_FOLDER))
    return RunTransfer(run_id, run.name, run.protocol, len(rows), len(own), Path(out))


# -- import ---------------------------------------------------------------------------------------------------
def _read_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FormatError(f"no {path.name} here: not a run folder (screenlab export-run writes one)", path) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FormatError(f"cannot read it as JSON ({exc})", path) from None
    if not isinstance(data, dict):
        raise FormatError("expected a JSON object", path)
    return data


def _field(data: dict, name: str, kind, path: Path, default=None):
    value = data.get(name, default)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise FormatError(f"{name}: expected {getattr(kind, '__name__', kind)}, got {value!r}", path)
    return value


def _time(value, path: Path, name: str) -> datetime | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise FormatError(f"{name}: not a date and time ({value!r})", path) from None


def _predictions(path: Path) -> list[tuple[Where, dict]]:
    out = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise FormatError(f"no {path.name} in the run folder", path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise FormatError(f"cannot read it ({exc})", path) from None
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        where = Where(path, number)
        try:
            line = json.loads(text)
        except json.JSONDecodeError as exc:
            raise where.error(f"not JSON ({exc.msg})") from None
        if not isinstance(line, dict) or not isinstance(line.get("episode"), str) or \
                not isinstance(line.get("step"), int):
            raise where.error("expected an object with episode (a key) and step (an index)")
        verdict = line.get("verdict", "")
        if verdict and verdict not in m.VERDICTS:
            raise where.error(f"unknown verdict {verdict!r}", "verdict")
        out.append((where, line))
    return out


def import_run(project: Project, folder: Path, name: str = "") -> RunTransfer:
    """A run folder (export_run) as a new run of this project; `name` replaces the run's own."""
    folder = Path(folder)
    run_path = folder / RUN_FILE
    data = _read_json(run_path)
    if _field(data, "v", int, run_path, VERSION) > VERSION:
        raise FormatError(f"written by a newer ScreenLab (run folder v{data['v']}; this one reads v{VERSION})",
                          run_path)
    protocol = _field(data, "protocol", str, run_path)
    if protocol not in PROTOCOLS:
        raise FormatError(f"protocol: {protocol!r} is not one this ScreenLab knows", run_path)
    status = _field(data, "status", str, run_path)
    if status not in m.RUN_STATES or status == "running":
        raise FormatError(f"status: {status!r} (a run is imported stopped or finished)", run_path)
    profile_data = _field(data, "profile", dict, run_path, {})
    selection = _field(data, "selection", dict, run_path, {})
    predictions = _predictions(folder / PREDICTIONS_FILE)
    own_folder = folder / EPISODES_FOLDER
    records = list(read_episodes(own_folder, ImportOptions())) if own_folder.is_dir() else []
    own_keys = {r.key for r in records}

    with project.reading() as s:
        wanted = {line["episode"] for _, line in predictions if line["episode"] not in own_keys}
        wanted |= set(selection.get("episodes") or [])
        task_keys = {(r.meta.get("live") or {}).get("task") for r in records} - {None}
        found = {}
        for chunk in _chunks(sorted(wanted | task_keys)):
            found.update(s.execute(select(m.Episode.key, m.Episode.id).where(
                m.Episode.key.in_(chunk), m.Episode.kind.in_(("sample", "trajectory")))).all())
        steps = {}
        ids = [found[k] for k in wanted if k in found]
        for chunk in _chunks(ids):
            for episode_id, index, step_id in s.execute(select(m.Step.episode_id, m.Step.index, m.Step.id)
                                                        .where(m.Step.episode_id.in_(chunk))):
                steps[(episode_id, index)] = step_id
    for where, line in predictions:
        key = line["episode"]
        if key in own_keys:
            continue
        if key not in found:
            raise where.error(f"no episode {key!r} in this project: import the samples the run answered first",
                              "episode")
        if (found[key], line["step"]) not in steps:
            raise where.error(f"episode {key!r} has no step {line['step']}", "step")

    with project.transaction() as s:
        profile = m.AgentProfile(**{f: profile_data.get(f, d) for f, d in (
            ("name", data.get("agent", "")), ("base_url", ""), ("model", ""), ("pattern", "direct"),
            ("convention", ""), ("api_key_ref", ""), ("params", {}))})
        s.add(profile)
        s.flush()
        values = {f: data[f] for f in RUN_FIELDS if f in data}
        values.update(name=name.strip() or str(data.get("name", "")), protocol=protocol, status=status,
                      profile_id=profile.id, options=_field(data, "options", dict, run_path, {}))
        for f in TIMES:
            if data.get(f):
                values[f] = _time(data[f], run_path, f)
        picked = tuple(sorted(found[k] for k in selection.get("episodes") or [] if k in found))
        values["selection"] = RunSelection(EpisodeFilter(
            ids=picked or (-1,),  # none of them here: a selection of nothing, never "everything"
            kind=selection.get("kind", "sample"), review_statuses=tuple(selection.get("review_statuses") or ())),
            bool(selection.get("include_unlabelled"))).to_json()
        run = m.Run(**values)
        s.add(run)
        s.flush()
        run_id, profile_id = run.id, profile.id
    try:
        renamed = [_renamed(r, data, run_id, found) for r in records]
        if renamed:
            ingest(project, renamed, "screenlab", str(own_folder))
        with project.transaction() as s:
            own = {}
            if renamed:
                own_ids = dict(s.execute(select(m.Episode.key, m.Episode.id).where(
                    m.Episode.key.in_([r.key for r in renamed]))).all())
                for record, new in zip(records, renamed, strict=True):
                    for index, step_id in s.execute(select(m.Step.index, m.Step.id)
                                                    .where(m.Step.episode_id == own_ids[new.key])):
                        own[(record.key, index)] = step_id
            boxes = _box_places(s, {steps.get((found.get(line["episode"]), line["step"])) for _, line in predictions
                                    if "matched_box" in line})
            for where, line in predictions:
                key = line["episode"]
                step_id = own.get((key, line["step"])) if key in own_keys else steps[(found[key], line["step"])]
                if step_id is None:
                    raise where.error(f"the run's episode {key!r} has no step {line['step']}", "step")
                s.add(m.Prediction(
                    run_id=run_id, step_id=step_id, parsed=line.get("parsed") or {},
                    wrong_format=bool(line.get("wrong_format")),
                    matched_box_id=boxes.get((step_id, line.get("matched_box"))),
                    **{f: str(line.get(f) or "") for f in PREDICTION_TEXTS},
                    **{f: line.get(f) for f in PREDICTION_NUMBERS if isinstance(line.get(f), int | float)},
                    **({"created_at": _time(line["created_at"], where.file, "created_at")}
                       if line.get("created_at") else {})))
            audit.record(s, "import", "run", run_id, {"from": str(folder), "predictions": len(predictions),
                                                      "episodes": len(records)})
    except BaseException:
        with contextlib.suppress(Exception), project.transaction() as s:
            s.execute(delete(m.Episode).where(m.Episode.key.like(run_prefix(run_id) + "%")))
            s.execute(delete(m.Prediction).where(m.Prediction.run_id == run_id))
            s.execute(delete(m.Run).where(m.Run.id == run_id))
            s.execute(delete(m.AgentProfile).where(m.AgentProfile.id == profile_id))
        raise
    missing = sum(k not in found for k in selection.get("episodes") or [])
    return RunTransfer(run_id, values["name"], protocol, len(predictions), len(records), folder, missing)


def _chunks(items: list, size: int = 500):
    for start in range(0, len(items), size):
        yield items[start:start + size]


def _box_places(session, step_ids: set) -> dict[tuple[int, int], int]:
    """(step id, place among its boxes by id) -> box id, for the steps whose predictions matched a box."""
    step_ids = {i for i in step_ids if i is not None}
    out: dict[tuple[int, int], int] = {}
    if not step_ids:
        return out
    count: dict[int, int] = {}
    for box_id, step_id in session.execute(select(m.ActionBox.id, m.ActionBox.step_id)
                                           .where(m.ActionBox.step_id.in_(step_ids))
                                           .order_by(m.ActionBox.step_id, m.ActionBox.id)):
        out[(step_id, count.get(step_id, 0))] = box_id
        count[step_id] = count.get(step_id, 0) + 1
    return out


def _renamed(record, data: dict, run_id: int, found: dict):
    """A live run's trajectory under the new run's id: its key, and the run and task its meta names."""
    old = record.key.split(":", 1)
    key = run_prefix(run_id) + old[1] if len(old) == 2 and old[0].startswith("live") else record.key
    meta = json.loads(json.dumps(record.meta))
    live = meta.get("live")
    if isinstance(live, dict):
        live["run"] = run_id
        task = live.get("task")
        if task in found:
            live["task_id"] = found[task]
        else:
            live.pop("task_id", None)  # the task is not here: the outcome stays, resume cannot match it
    source = (meta.get("trajectory") or {}).get("source")
    if isinstance(source, dict) and "run" in source:
        source["run"] = run_id
    return replace(record, key=key, meta=meta)
