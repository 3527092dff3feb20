"""The authors' UnifiedTrajectory layout (Agent-Eval-Refine), imported and exported.

A folder with:
    trajectory_log.json      [{uid, intent, response, steps: [{img, other: {raw_action | translated_action
                             | action}}]}]; web steps carry raw_action (WebArena's action string), iOS
                             translated_action, Android action ("Action Type: DualPoint, Touch Point: (x, y),
                             Lift Point: (x, y)", normalised, x first)
    images/<img>             the screenshots
    captions/<captioner>.json   optional: {image name without extension: description}
    evals/<log>.jsonl        optional: human labels, one line each {dataset_path, task_idx, task_uid, user_uid,
                             annotation: Success | Failure | Unsure | Emulator Error, comment}; later lines
                             replace earlier ones of the same task and annotator (the log is append-only)
Each trajectory becomes an episode of kind "trajectory" (judging/trajectories.py); its key is the uid
(prefixed with the folder's name when two datasets share uids is the user's call: import into
separate projects or rename). The platform is read per step from which action key it has.
"""

from __future__ import annotations

import json
from pathlib import Path

from desktop_app.formats.records import (
    EpisodeRecord,
    FormatError,
    StepRecord,
    Where,
    optional,
    read_json,
    read_jsonl,
    require,
    resolve_image,
)
from desktop_app.formats.spec import ExportContext, ExportReport, FormatSpec
from desktop_app.formats.trajectory_layout import (
    KIND,
    TrajectoryAction,
    info_of,
    trajectory_meta,
    unified_action,
)
from desktop_app.formats.writing import atomic_output

LOG = "trajectory_log.json"
PLATFORM_KEYS = (("raw_action", "web"), ("translated_action", "ios"), ("action", "android"))
ANNOTATIONS = {"success": "success", "failure": "failure", "unsure": "unsure", "emulator error": "emulator_error",
               "impossible": "impossible", "task impossible": "impossible", "task-impossible": "impossible"}
WRITTEN = {"success": "Success", "failure": "Failure", "unsure": "Unsure", "emulator_error": "Emulator Error",
           "impossible": "Impossible"}


def _log_path(path: Path) -> Path:
    if path.is_dir():
        path = path / LOG
    if path.name != LOG:
        raise FormatError(f"expected a folder with {LOG} (the UnifiedTrajectory layout), or that file", path)
    if not path.is_file():
        raise FormatError(f"no {LOG} here: a UnifiedTrajectory folder has {LOG}, images/, captions/ and evals/",
                          path.parent)
    return path


def _platform(other: dict, where: Where, field: str) -> str:
    for key, platform in PLATFORM_KEYS:
        if key in other:
            return platform
    raise where.error("the step names no action (expected other.raw_action, translated_action or action)", field)


def _captions(root: Path) -> dict[str, dict[str, str]]:
    out = {}
    folder = root / "captions"
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        data = read_json(path)
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            raise FormatError("expected an object {image name without extension: caption text}", path)
        out[path.stem] = data
    return out


def evals_rows(path: Path) -> list[tuple[Where, dict, str, str]]:
    """The lines of an evals/<log>.jsonl that name a task: (where, line, task uid, user uid stripped)."""
    rows = []
    for where, obj in read_jsonl(path):
        uid = require(obj, "task_uid", str, where)
        if uid == "" or obj.get("task_idx") == -1:
            continue  # the authors' app writes these for skipped tasks
        rows.append((where, obj, uid, require(obj, "user_uid", str, where).strip()))
    return rows


def _labels(root: Path, uids: set[str]) -> dict[str, dict[str, dict]]:
    """uid -> annotator -> label, from every evals/*.jsonl (later lines win)."""
    out: dict[str, dict[str, dict]] = {}
    folder = root / "evals"
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
        for where, obj, uid, annotator in evals_rows(path):
            if uid not in uids:
                raise where.error(f"no trajectory with uid {uid!r} in {LOG}", "task_uid")
            if not annotator:
                raise where.error("empty annotator", "user_uid")
            raw = require(obj, "annotation", str, where)
            outcome = ANNOTATIONS.get(raw.strip().lower())
            if outcome is None:
                raise where.error(f"unknown annotation {raw!r} (Success, Failure, Unsure, Emulator Error)",
                                  "annotation")
            out.setdefault(uid, {})[annotator] = {"annotator": annotator, "outcome": outcome,
                                                  "comment": optional(obj, "comment", str, where, "")}
    return out


def read(path: Path, options) -> list[EpisodeRecord]:
    log = _log_path(Path(path))
    root = log.parent
    data = read_json(log)
    if not isinstance(data, list):
        raise FormatError("expected a list of trajectories", log)
    captions = _captions(root)
    uids = {str(t.get("uid")) for t in data if isinstance(t, dict)}
    labels = _labels(root, uids)
    bases = [options.images_dir] if options.images_dir else []
    bases += [root / "images", root]
    records, seen = [], {}
    for n, obj in enumerate(data):
        where = Where(log, None)
        prefix = f"[{n}]."
        if not isinstance(obj, dict):
            raise where.error("expected an object", f"[{n}]")
        uid = str(require(obj, "uid", (str, int), where, prefix))
        if uid in seen:
            raise where.error(f"uid {uid!r} repeats trajectory [{seen[uid]}]", prefix + "uid")
        seen[uid] = n
        intent = require(obj, "intent", str, where, prefix)
        response = optional(obj, "response", str, where, "", prefix)
        steps_in = require(obj, "steps", list, where, prefix)
        if not steps_in:
            raise where.error("a trajectory with no steps", prefix + "steps")
        steps, platform = [], "web"
        for i, step in enumerate(steps_in):
            sp = f"{prefix}steps[{i}]."
            img = require(step, "img", str, where, sp)
            other = optional(step, "other", dict, where, {}, sp)
            platform = _platform(other, where, sp + "other")
            action: TrajectoryAction = unified_action(other, platform)
            stem = Path(img).stem
            steps.append(StepRecord(
                image=resolve_image(img, bases, where, sp + "img"), platform=platform,
                screen_source=f"unified:{img}", meta={"action": action.to_json()}, field=sp, image_field=sp + "img",
                captions={name: caps[stem] for name, caps in captions.items() if stem in caps}))
        records.append(EpisodeRecord(
            key=uid, where=where, goal=intent, scenario=KIND, kind=KIND,
            meta=trajectory_meta(optional(obj, "policy", str, where, "", prefix) or root.name, response or "",
                                 platform, {"dataset_path": root.name, "task_idx": n, "uid": uid}),
            steps=steps, labels=list(labels.get(uid, {}).values())))
    if not records:
        raise FormatError("no trajectories found", log)
    return records


def write(ctx: ExportContext) -> ExportReport:
    """trajectory_log.json, images/, captions/<captioner>.json and evals/screenlab.jsonl (the human labels)."""
    from sqlalchemy import select

    from desktop_app.store import models as m

    report = ExportReport("unified-trajectory", ctx.out)
    log, captions, evals = [], {}, []
    with atomic_output(ctx.out) as root:
        (root / "images").mkdir()
        written: set[str] = set()
        for task_idx, bundle in enumerate(ctx.bundles):
            e = bundle.episode
            info = info_of(e.meta)
            steps = []
            for sb in bundle.steps:
                name = f"{sb.screen.sha256}.{sb.screen.ext}"
                if name not in written:
                    (root / "images" / name).write_bytes(ctx.image_bytes(sb.screen.sha256, sb.screen.ext))
                    written.add(name)
                action = TrajectoryAction.from_json((sb.step.meta or {}).get("action"))
                key = {"web": "raw_action", "ios": "translated_action"}.get(info.get("platform", "web"), "action")
                steps.append({"img": name, "other": {key: action.raw or action.text}})
            log.append({"uid": e.key, "intent": e.goal, "response": info.get("response", ""),
                        "policy": info.get("policy", ""), "steps": steps})
            if ctx.session is not None:
                for label in ctx.session.execute(select(m.TrajectoryLabel).where(
                        m.TrajectoryLabel.episode_id == e.id).order_by(m.TrajectoryLabel.id)).scalars():
                    evals.append({"dataset_path": ctx.out.name, "task_idx": task_idx, "task_uid": e.key,
                                  "user_uid": label.annotator, "annotation": WRITTEN[label.outcome],
                                  "comment": label.comment})
                for sb in bundle.steps:
                    for cap in ctx.session.execute(select(m.ScreenCaption).where(
                            m.ScreenCaption.screen_id == sb.screen.id)).scalars():
                        captions.setdefault(cap.captioner, {})[sb.screen.sha256] = cap.text
            report.episodes += 1
        (root / LOG).write_text(json.dumps(log, indent=1, ensure_ascii=False), encoding="utf-8")
        if captions:
            (root / "captions").mkdir()
            for name, caps in captions.items():
                (root / "captions" / f"{_safe(name)}.json").write_text(json.dumps(caps, indent=1, ensure_ascii=False),
                                                                     encoding="utf-8")
        if evals:
            (root / "evals").mkdir()
            (root / "evals" / "screenlab.jsonl").write_text(
                "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in evals), encoding="utf-8")
        report.images = len(written)
        report.annotations = len(evals)
    return report


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "captions"


SPEC = FormatSpec(
    name="unified-trajectory",
    description="Agent-Eval-Refine's UnifiedTrajectory folder (trajectory_log.json, images/, captions/, evals/)",
    read=read,
    write=write,
    episode_kind=KIND,
)
