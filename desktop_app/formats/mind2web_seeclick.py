"""Mind2Web as SeeClick releases it: a JSON list of tasks per split, screenshots {annotation_id}-{action_uid}.jpg.

Source: njucckevin/SeeClick, agent_tasks/readme_agent.md (the annotations mind2web_data_train.json and
mind2web_data_test_{task,website,domain}.json, and the screenshots, are two separate downloads) and
agent_tasks/mind2web_process.py / mind2web_test.py (how SeeClick reads them). A task is Mind2Web's
(annotation_id, confirmed_task, website, domain, subdomain, action_reprs, actions) without the HTML; each action
keeps action_uid, operation and pos_candidates and gains
    bbox   {x, y, width, height}: the target in pixels of the action's screenshot (left, top, size: the scripts
           add width and height to x and y, then divide by the picture's size to score a click)
and its screenshot is <images>/{annotation_id}-{action_uid}.jpg. Operations as in mind2web_actions.py.

Surprises:
  - the screenshots are cut out of Mind2Web's full-length pages, so `bbox` and the candidates'
    bounding_box_rect (page pixels) differ by the cut's offset: y 163 against 1701 for the first action of
    mind2web_data_test_task.json. Only `bbox` fits the picture; bounding_box_rect is not read.
  - 14 of the 2,094 test_task actions have no `bbox` (SeeClick's scripts skip them: "action not found"). Such an
    action is a step without a box when its screenshot is there, and is left out, named in the episode's meta
    (mind2web.left_out), when it is not.
  - a few boxes reach past a 1280 x 1000 picture (x -63 for one, a 1280 x 7007 page for another): ingest checks
    each against its real picture and refuses, by field, one that does not fit.
  - the release holds no screenshots; they are looked for in mind2web_imgs/ beside the JSON, then beside it,
    then in --images.
Export writes the same layout: mind2web_data_<split>.json (mind2web_data.json without a split) and
mind2web_imgs/{annotation_id}-{action_uid}.jpg (pictures stored as PNG or WebP are re-encoded as JPEG, quality 95).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

from PIL import Image

from desktop_app.formats import mind2web_actions as m2w
from desktop_app.formats.records import (
    EpisodeRecord,
    FormatError,
    StepRecord,
    Where,
    input_files,
    is_file,
    optional,
    read_json,
    require,
    short_path,
)
from desktop_app.formats.spec import ExportContext, ExportReport, FormatSpec
from desktop_app.formats.writing import ImageWriter, atomic_output, inside, json_number, path_part

NAME = "mind2web-seeclick"
IMAGES_DIR = "mind2web_imgs"
PATTERN = "{annotation_id}-{action_uid}.jpg"


def _bases(file: Path, images_dir: Path | None) -> list[Path]:
    return [file.parent / IMAGES_DIR, file.parent] + ([Path(images_dir)] if images_dir else [])


def _real_folders(bases: list[Path]) -> dict[Path, Path | None]:
    """Each folder with symlinks resolved, once for all of a file's actions (None: it cannot be resolved)."""
    real = {}
    for base in bases:
        try:
            real[base] = base.resolve()
        except OSError:
            real[base] = None
    return real


def _inside(path: Path, folder: Path | None) -> bool:
    """records.is_within, the folder resolved already."""
    try:
        return folder is not None and path.resolve().is_relative_to(folder)
    except OSError:
        return False


def _find(name: str, bases: list[Path], real: dict[Path, Path | None], where: Where, field: str) -> Path | None:
    for base in bases:
        path = base / name
        if is_file(path):
            if not _inside(path, real[base]):
                raise where.error(f"screenshot {short_path(path)} lies outside the folders this import reads "
                                  f"({', '.join(str(b) for b in bases)}); copy it inside them or point --images at "
                                  "its folder", field)
            return path
    return None


def _not_found(where: Where, first: tuple[str, str], bases: list[Path], missing: int, total: int) -> FormatError:
    field, name = first
    looked = ", ".join(short_path(b / name) for b in bases)
    count = (f"none of the {total:,} screenshots this file names is there" if missing == total
             else f"{missing:,} of the {total:,} screenshots this file names are missing")
    return where.error(
        f"screenshot not found; looked for {looked} ({count}). SeeClick names each action's screenshot "
        f"{PATTERN} and ships them apart from the JSON: put them in {IMAGES_DIR}/ beside it, or name their folder "
        "with --images (the Import dialog's 'Images folder')", field)


def _task(obj, where: Where, bases: list[Path], real: dict[Path, Path | None], prefix: str, split: str,
          missing: list, total: list):
    if not isinstance(obj, dict):
        raise where.error("expected a task object", prefix.rstrip(".") or None)
    key = str(require(obj, "annotation_id", (str, int), where, prefix))
    goal = require(obj, "confirmed_task", str, where, prefix)
    actions = require(obj, "actions", list, where, prefix)
    reprs = optional(obj, "action_reprs", list, where, [], prefix)
    if not actions:
        raise where.error("task has no actions", prefix + "actions")
    steps, left_out, missing_before = [], [], len(missing)
    for i, action in enumerate(actions):
        name = f"{prefix}actions[{i}]"
        if not isinstance(action, dict):
            raise where.error("expected an object", name)
        uid = str(require(action, "action_uid", (str, int), where, name + "."))
        operation = m2w.read_operation(require(action, "operation", dict, where, name + "."), where,
                                       name + ".operation")
        bbox = action.get("bbox")
        box = m2w.xywh(bbox, where, name + ".bbox") if bbox is not None else None
        details = {}
        if box is not None:  # the element's tag and node, for the record (its page rect does not fit the picture)
            _, _, details = m2w.candidate_box(action.get("pos_candidates"), where, name)
        picture = PATTERN.format(annotation_id=key, action_uid=uid)
        image = _find(picture, bases, real, where, name)
        if box is not None:
            total.append(1)
        if image is None:
            if box is None:  # SeeClick skips these too
                left_out.append(uid)
            else:
                missing.append((name + ".action_uid", picture))
            continue
        steps.append(StepRecord(
            image=image, platform=m2w.PLATFORM, screen_source=picture, meta={"action_uid": uid},
            boxes=[m2w.gold(operation, box, name + ".bbox" if box else name, m2w.element_text(reprs, i), details,
                            uid)],
            field=name + ".", image_field=name + ".action_uid"))
    if not steps and len(missing) == missing_before:
        raise where.error("none of the task's actions has a bbox or a screenshot, so it has no step to import",
                          prefix + "actions")
    meta = m2w.task_meta(obj)
    if left_out:
        meta["left_out"] = left_out
    return EpisodeRecord(key=key, where=where, goal=goal, scenario=m2w.SCENARIO, split=split,
                         meta={"mind2web": meta}, steps=steps)


def read(path: Path, options) -> list[EpisodeRecord]:
    records = []
    for file in input_files(Path(path), ".json"):
        data = read_json(file)
        where = Where(file)
        bases = _bases(file, options.images_dir)
        tasks = data if isinstance(data, list) else [data]
        missing: list[tuple[str, str]] = []
        total: list[int] = []
        real = _real_folders(bases)
        file_records = [_task(obj, where, bases, real, f"[{i}]." if isinstance(data, list) else "",
                              m2w.split_of(file), missing, total) for i, obj in enumerate(tasks)]
        if missing:
            raise _not_found(where, missing[0], bases, len(missing), len(total))
        steps = [s for r in file_records for s in r.steps]
        m2w.refuse_fractions([(where, b.field, b.box) for s in steps for b in s.boxes if b.box is not None],
                             [(s.image, None) for s in steps])
        records += file_records
    if not records:
        raise FormatError("no tasks found", path)
    return records


# ---------- export ----------

def _jpeg(data: bytes) -> bytes:
    with Image.open(io.BytesIO(data)) as picture:
        out = io.BytesIO()
        picture.convert("RGB").save(out, format="JPEG", quality=95)
        return out.getvalue()


def write(ctx: ExportContext) -> ExportReport:
    report = ExportReport(NAME, ctx.out, skipped_why=m2w.LEFT_OUT)
    files: dict[str, list] = {}
    with atomic_output(ctx.out) as tmp:
        images = ImageWriter(tmp, ctx.image_bytes)
        converted = set()
        for bundle in ctx.bundles:
            episode = bundle.episode
            actions, left_out = m2w.actions_out(bundle)
            report.skipped += left_out
            if not actions:
                continue
            key = path_part(episode.key, episode.key, "id")
            task = m2w.task_out(episode, key, actions)
            task["actions"] = []
            for a in actions:
                rel = f"{IMAGES_DIR}/{PATTERN.format(annotation_id=key, action_uid=path_part(a.uid, key, 'action_uid'))}"
                screen = a.step.screen
                if screen.ext == "jpg":
                    images.add(screen, rel)
                else:  # the name says JPEG, and tools that trust names decode it as one
                    inside(tmp, rel).parent.mkdir(parents=True, exist_ok=True)
                    inside(tmp, rel).write_bytes(_jpeg(ctx.image_bytes(screen.sha256, screen.ext)))
                    converted.add(rel)
                action = {"action_uid": a.uid, "operation": a.operation, "pos_candidates": m2w.candidate_out(a)}
                if a.xywh is not None:
                    action["bbox"] = dict(zip(("x", "y", "width", "height"), map(json_number, a.xywh), strict=True))
                    report.annotations += 1
                task["actions"].append(action)
            split = path_part(episode.split, episode.key, "split") if episode.split else ""
            files.setdefault(f"mind2web_data_{split}.json" if split else "mind2web_data.json", []).append(task)
            report.episodes += 1
        for name, tasks in files.items():
            (tmp / name).write_text(json.dumps(tasks, ensure_ascii=False, indent=1), encoding="utf-8")
        report.images = images.count + len(converted)
    return report


SPEC = FormatSpec(
    name=NAME,
    description="Mind2Web as SeeClick releases it (mind2web_data_*.json: bbox = x, y, width, height in pixels of "
                "each action's screenshot {annotation_id}-{action_uid}.jpg, in mind2web_imgs/ or --images)",
    read=read,
    write=write,
)
