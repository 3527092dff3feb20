"""Mind2Web's official JSON, one episode per task, with each action's screenshot from the raw dump.

Source: OSU-NLP-Group/Mind2Web, README.md ("Data Fields"; "Raw Dump with Full Traces and Snapshots"), and how the
same group's SeeAct reads the dump (OSU-NLP-Group/SeeAct, src/offline_experiments/screenshot_generation/
image_annotation.py: task/{id}/processed/screenshot.json, entry by action_uid, ["before"]["screenshot"] decoded
from base64, candidates drawn on it as they are). A file is a list of tasks:

    annotation_id    the episode's key
    confirmed_task   the goal
    website, domain, subdomain, action_reprs   kept in the episode's meta
    actions          [{action_uid, raw_html, cleaned_html, operation, pos_candidates, neg_candidates}]

Operations and target boxes are read as mind2web_actions.py says (bounding_box_rect: pixels of the whole page).
The JSON holds no pictures. Each action's screenshot is, in this order:
  - its `screenshot` field, a path to a picture file (as the first Multimodal-Mind2Web card described); with it,
    a `bbox` ({x, y, width, height} or a list) is also read, before the candidates;
  - else the raw dump's, which keeps no picture files either: task/{annotation_id}/processed/screenshot.json is a
    list of {action_uid, before: {screenshot: base64 JPEG}, after: ...}, and the action's picture is the
    "before" one (the page it acted on, full length, the frame bounding_box_rect is measured in). That file is
    looked for under --images and beside the JSON, as {annotation_id}/processed/screenshot.json,
    task/{annotation_id}/..., or raw_dump/task/{annotation_id}/... (--images may name the dump, its task/
    folder, or a folder of copied task folders).
Surprises: SeeClick's per-action pictures ({annotation_id}-{action_uid}.jpg) are cut out of those pages, so the
page coordinates here do not fit them; an action carrying SeeClick's `bbox` without a `screenshot` is refused
with the format that reads it (mind2web-seeclick). "-1,-1,-1,-1" marks an element that was not rendered. An
action without a drawn positive candidate is a step without a box. raw_html / cleaned_html / neg_candidates
are not kept.

Export writes the same layout: <split>_0.json (tasks_0.json for episodes without a split) and
raw_dump/task/{annotation_id}/processed/screenshot.json with each action's picture, as stored, in "before";
neg_candidates is written empty and the HTML, which ScreenLab never had, not at all.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field
from pathlib import Path

from desktop_app.formats import mind2web_actions as m2w
from desktop_app.formats.records import (
    EpisodeRecord,
    FormatError,
    StepRecord,
    Where,
    image_bases,
    input_files,
    is_file,
    is_within,
    optional,
    read_json,
    require,
    resolve_image,
    short_path,
)
from desktop_app.formats.spec import ExportContext, ExportReport, FormatSpec
from desktop_app.formats.writing import atomic_output, inside, path_part

NAME = "mind2web"
DUMP_FILE = "processed/screenshot.json"
# where a task's screenshot.json may sit under a folder the import reads
DUMP_PATHS = ("{id}/" + DUMP_FILE, "task/{id}/" + DUMP_FILE, "raw_dump/task/{id}/" + DUMP_FILE)
SEECLICK_NAME = "{id}-{uid}.jpg"


@dataclass
class _Dumps:
    """The raw dump's screenshot files met so far: each task's file is read once, for all its actions."""

    roots: list[Path]
    pictures: dict[str, dict[str, tuple[Path, str, str]]] = field(default_factory=dict)  # id -> uid -> ...

    def find(self, key: str) -> Path | None:
        for root in self.roots:
            for pattern in DUMP_PATHS:
                path = root / pattern.format(id=key)
                if is_file(path):
                    if not is_within(path, root):
                        raise FormatError(f"lies outside the folders this import reads "
                                          f"({', '.join(str(r) for r in self.roots)}); copy the raw dump inside "
                                          "them or point --images at it", path)
                    return path
        return None

    def of_task(self, key: str) -> dict[str, tuple[Path, str, str]] | None:
        """uid -> (the dump file, the field holding the picture, its base64 text); None without a dump file."""
        if key not in self.pictures:
            path = self.find(key)
            self.pictures[key] = _read_dump(path) if path else None
        return self.pictures[key]

    def looked_for(self, key: str) -> list[str]:
        return [short_path(root / p.format(id=key)) for root in self.roots for p in DUMP_PATHS]


def _read_dump(path: Path) -> dict[str, tuple[Path, str, str]]:
    data = read_json(path)
    where = Where(path)
    if not isinstance(data, list):
        raise where.error("expected the raw dump's list of {action_uid, before, after}")
    found = {}
    for i, entry in enumerate(data):
        uid = require(entry, "action_uid", (str, int), where, f"[{i}].")
        before = require(entry, "before", dict, where, f"[{i}].")
        picture = require(before, "screenshot", str, where, f"[{i}].before.")
        found.setdefault(str(uid), (path, f"[{i}].before.screenshot", picture))
    return found


def _decode(dump: Path, field_name: str, text: str) -> bytes:
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise Where(dump).error("not a base64 picture", field_name) from None
    if not data:
        raise Where(dump).error("empty picture", field_name)
    return data


def _seeclick_pictures(roots: list[Path], key: str, uid: str) -> Path | None:
    for root in roots:
        for folder in (root, root / "mind2web_imgs"):
            path = folder / SEECLICK_NAME.format(id=key, uid=uid)
            if is_file(path):
                return path
    return None


def _not_found(where: Where, name: str, dumps: _Dumps, key: str, uid: str, missing: int, total: int) -> FormatError:
    message = (f"screenshot not found: the action has no 'screenshot' field and no raw dump file holds it; "
               f"looked for {', '.join(dumps.looked_for(key)[:6])}")
    if missing > 1:
        message += f" ({missing:,} of the file's {total:,} actions have no screenshot)"
    message += (". Mind2Web's raw dump keeps each action's screenshot in task/{annotation_id}/processed/"
                "screenshot.json (the 'before' picture of its action_uid): name the folder holding task/ with "
                "--images (the Import dialog's 'Images folder'), or give each action a 'screenshot' path")
    crop = _seeclick_pictures(dumps.roots, key, uid)
    if crop is not None:
        message += (f". {short_path(crop)} is SeeClick's picture of this action, cut out of the page: these page "
                    "coordinates do not fit it; import SeeClick's JSON with --format mind2web-seeclick instead")
    return where.error(message, name + ".screenshot")


def _action(action, i: int, key: str, reprs, where: Where, bases: list[Path], dumps: _Dumps, prefix: str):
    """(the step, or None when its screenshot is missing; box and screenshot for the fractions check)."""
    name = f"{prefix}actions[{i}]"
    if not isinstance(action, dict):
        raise where.error("expected an object", name)
    operation = m2w.read_operation(require(action, "operation", dict, where, name + "."), where,
                                   name + ".operation")
    uid = str(optional(action, "action_uid", (str, int), where, "", name + "."))
    shot = optional(action, "screenshot", str, where, None, name + ".")
    text = m2w.element_text(reprs, i)
    if shot is not None:
        image, data, source = resolve_image(shot, bases, where, name + ".screenshot"), None, shot
        if action.get("bbox") is not None:
            box, field_name, details = m2w.xywh(action["bbox"], where, name + ".bbox"), name + ".bbox", {}
        else:
            box, field_name, details = m2w.candidate_box(action.get("pos_candidates"), where, name)
    else:
        if "bbox" in action:
            raise where.error("SeeClick's `bbox` without a `screenshot`: this is SeeClick's copy of Mind2Web, whose "
                              "boxes are pixels of its own cut-out pictures ({annotation_id}-{action_uid}.jpg); "
                              "import it with --format mind2web-seeclick", name + ".bbox")
        box, field_name, details = m2w.candidate_box(action.get("pos_candidates"), where, name)
        found = (dumps.of_task(key) or {}).pop(uid, None) if uid else None  # taken out: held once, as bytes
        if found is None:
            return None, box
        dump, picture_field, picture = found
        data = _decode(dump, picture_field, picture)
        image = Path(f"{dump}#{uid}")  # the picture has no file of its own: a name for messages
        source = f"task/{key}/{DUMP_FILE}#{uid}"
    step = StepRecord(
        image=image, image_bytes=data,
        boxes=[m2w.gold(operation, box, field_name, text, details, uid)],
        platform=m2w.PLATFORM, screen_source=source, meta={"action_uid": uid} if uid else {},
        field=name + ".", image_field=name + ".screenshot")
    return step, box


def _task(obj, where: Where, bases: list[Path], dumps: _Dumps, prefix: str, split: str, missing: list):
    if not isinstance(obj, dict):
        raise where.error("expected a task object", prefix.rstrip(".") or None)
    key = str(require(obj, "annotation_id", (str, int), where, prefix))
    goal = require(obj, "confirmed_task", str, where, prefix)
    actions = require(obj, "actions", list, where, prefix)
    reprs = optional(obj, "action_reprs", list, where, [], prefix)
    if not actions:
        raise where.error("task has no actions", prefix + "actions")
    steps = []
    for i, action in enumerate(actions):
        step, _ = _action(action, i, key, reprs, where, bases, dumps, prefix)
        if step is None:
            missing.append((f"{prefix}actions[{i}]", key, str(action.get("action_uid", ""))))
        else:
            steps.append(step)
    return EpisodeRecord(key=key, where=where, goal=goal, scenario=m2w.SCENARIO, split=split,
                         meta={"mind2web": m2w.task_meta(obj)}, steps=steps)


def read(path: Path, options) -> list[EpisodeRecord]:
    records = []
    for file in input_files(Path(path), ".json"):
        data = read_json(file)
        where = Where(file)
        bases = image_bases(file, options.images_dir, "images", "screenshots")
        dumps = _Dumps([b for b in (options.images_dir, file.parent) if b is not None])
        tasks = data if isinstance(data, list) else [data]
        missing: list[tuple[str, str, str]] = []
        file_records = [_task(obj, where, bases, dumps, f"[{i}]." if isinstance(data, list) else "",
                              m2w.split_of(file), missing) for i, obj in enumerate(tasks)]
        if missing:
            name, key, uid = missing[0]
            total = sum(len(r.steps) for r in file_records) + len(missing)
            raise _not_found(where, name, dumps, key, uid, len(missing), total)
        steps = [s for r in file_records for s in r.steps]
        m2w.refuse_fractions([(where, b.field, b.box) for s in steps for b in s.boxes if b.box is not None],
                             [(None if s.image_bytes else s.image, s.image_bytes) for s in steps])
        records += file_records
    if not records:
        raise FormatError("no tasks found", path)
    return records


# A task of the official files is megabytes of HTML, so its first record rarely fits the head detect.py parses
HEAD_BYTES = 256 * 1024
_TASK_KEYS = ('"annotation_id"', '"confirmed_task"', '"actions"')


def sign(path: Path) -> str | None:
    """'mind2web' for a .json file whose first task shows the official keys and the HTML in its first bytes."""
    if path.suffix.lower() != ".json" or not is_file(path):
        return None
    with open(path, "rb") as fh:
        head = fh.read(HEAD_BYTES).decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if not head.startswith(("[", "{")) or '"turns"' in head:  # MT-Mind2Web nests such tasks in turns
        return None
    if all(k in head for k in _TASK_KEYS) and ('"raw_html"' in head or '"cleaned_html"' in head):
        return NAME
    return None


def folder_sign(folder: Path) -> str | None:
    files = sorted(folder.glob("*.json"))[:1]
    return sign(files[0]) if files else None


# ---------- export ----------

def write(ctx: ExportContext) -> ExportReport:
    report = ExportReport(NAME, ctx.out, skipped_why=m2w.LEFT_OUT)
    files: dict[str, list] = {}
    with atomic_output(ctx.out) as tmp:
        pictures = set()
        for bundle in ctx.bundles:
            episode = bundle.episode
            actions, left_out = m2w.actions_out(bundle)
            report.skipped += left_out
            if not actions:
                continue
            key = path_part(episode.key, episode.key, "id")
            dump = []
            for a in actions:
                data = ctx.image_bytes(a.step.screen.sha256, a.step.screen.ext)
                dump.append({"action_uid": a.uid, "before": {"screenshot": base64.b64encode(data).decode("ascii")}})
                pictures.add(a.step.screen.sha256)
            target = inside(tmp, f"raw_dump/task/{key}/{DUMP_FILE}")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(dump), encoding="utf-8")
            task = m2w.task_out(episode, key, actions)
            task["actions"] = [{"action_uid": a.uid, "operation": a.operation, "pos_candidates": m2w.candidate_out(a),
                                "neg_candidates": []} for a in actions]
            split = path_part(episode.split, episode.key, "split") if episode.split else "tasks"
            files.setdefault(split, []).append(task)
            report.episodes += 1
            report.annotations += sum(1 for a in actions if a.xywh is not None)
        for split, tasks in files.items():
            (tmp / f"{split}_0.json").write_text(json.dumps(tasks, ensure_ascii=False, indent=1), encoding="utf-8")
        report.images = len(pictures)
    return report


SPEC = FormatSpec(
    name=NAME,
    description="Mind2Web's official JSON (annotation_id, confirmed_task, actions with operation and pos_candidates); "
                "screenshots from each action's `screenshot` path or the raw dump "
                "(task/{annotation_id}/processed/screenshot.json under --images)",
    read=read,
    write=write,
)
