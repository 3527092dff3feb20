"""The Sphinx benchmark's layout (Ran et al. 2025), imported and exported.

A folder holding any of:
    groundtruth/<task_id>/<app>/   one recorded task in one app: N.png + N.xml (a uiautomator dump) per
                                   step, meta.json (the reference action of each step, the last one
                                   {"type": "stop"}), evaluator.json (the task's trajectory evaluators),
                                   activities.json ([package, activity] per step), skills.json
    task_info.json, task_info_all.json   [{id, description, apps}]: the goal of each task id
    lowlevel_tasks.json + lowlevel_tasks/N.png|N.xml   grounding tasks: {id, app, instruction,
                                   groundtruth: a reference action} on one screen each
    questions.json                 knowledge probes (formats/sphinx_probes.py): episodes of kind "probe"
The folder given may also be `groundtruth/` itself or one `<task_id>/<app>/` folder.

A recorded task becomes an episode (scenario "navigation", key sphinx-<task>-<app>) whose steps keep the
reference action (step.meta.reference_action, the authors' dict), the activity and the completion label
(continue; stop on the last step); the acted element is a gold box at its bounds, and the screen keeps
its tree (store: screen_tree). The evaluators are checked when read and kept in episode.meta.capability.
A grounding task becomes a one-step episode (scenario "grounding", goal = the instruction; the step keeps
no instruction of its own, so an edited goal is the one instruction there is).

Export writes the same layout back. A gold box an annotator moved (snapped to a node, promoted to the
clickable ancestor) is written as the node of the tree it now covers, and node flags (a wrong
`clickable`) are applied to the written dump; the stored trees themselves stay as imported.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path

from desktop_app.a11y.stored import parse_stored
from desktop_app.a11y.tree import TreeError, UiTree, format_bounds, parse_bounds
from desktop_app.capability.evaluators import EvaluatorError, parse_evaluators
from desktop_app.formats.budget import MAX_DOCUMENT, MAX_TEXT
from desktop_app.formats.records import (
    BoxRecord,
    EpisodeRecord,
    FormatError,
    StepRecord,
    Where,
    _read_utf8,
    finite,
    got,
    is_file,
    is_within,
    read_json,
    require,
    short_path,
    shown,
)
from desktop_app.formats.spec import ExportContext, ExportReport, FormatSpec
from desktop_app.formats.sphinx_probes import FILE as PROBES_FILE
from desktop_app.formats.sphinx_probes import probe_json, read_probes
from desktop_app.formats.writing import atomic_output, path_part

NAME = "sphinx"
PLATFORM = "android"
TASK_SCENARIO = "navigation"
GROUNDING_SCENARIO = "grounding"
GROUNDING_FILE = "lowlevel_tasks.json"
GOAL_FILES = ("task_info_all.json", "task_info.json")
# The authors' action types -> ScreenLab's box action types (store.models.ACTION_TYPES); stop has no box.
ACTION_TYPES = {"click": "click", "longclick": "long_press", "input": "type", "text": "type", "swipe": "scroll",
                "back": "navigate_back", "home": "navigate_home", "enter": "key", "restart": "open_app",
                "wait": "wait", "stop": None}
ELEMENT_ACTIONS = ("click", "longclick", "input", "text", "swipe")


# -- reading ---------------------------------------------------------------------------------------
def _task_folders(root: Path) -> tuple[Path | None, list[Path]]:
    """The folder holding task_info and lowlevel files, and the task folders (<task>/<app>/) under root."""
    if (root / "meta.json").is_file():  # one task folder
        return None, [root]
    base = root
    if (root / "groundtruth").is_dir():
        gt = root / "groundtruth"
    elif root.name == "groundtruth":
        gt, base = root, root.parent
    else:
        gt = None
    folders = []
    if gt is not None:
        for task in sorted(gt.iterdir(), key=_numeric_name):
            if task.is_dir():
                folders += sorted(p for p in task.iterdir() if p.is_dir())
    return base, folders


def _numeric_name(path: Path):
    return (0, int(path.name), "") if path.name.isdigit() else (1, 0, path.name)


def _goals(base: Path) -> dict[str, str]:
    goals: dict[str, str] = {}
    for name in reversed(GOAL_FILES):  # task_info_all.json wins where both describe a task
        path = base / name
        if not path.is_file():
            continue
        data = read_json(path)
        if not isinstance(data, list):
            raise FormatError("expected a list of {id, description, apps}", path)
        for i, item in enumerate(data):
            where = Where(path)
            task_id = require(item, "id", (int, str), where, f"[{i}].")
            goals[str(task_id)] = require(item, "description", str, where, f"[{i}].")
    return goals


def _element(raw, where: Where, name: str) -> dict | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or not all(isinstance(v, str) for v in raw.values()):
        raise where.error("expected an object of text attributes (a node of the dump)", name)
    if "bounds" not in raw:
        raise where.error("missing", name + ".bounds")
    try:
        bounds = parse_bounds(raw["bounds"])
    except ValueError as exc:
        raise where.error(str(exc), name + ".bounds") from None
    if None in (finite(v) for v in bounds):
        raise where.error(f"bounds {shown(raw['bounds'], 60)} hold a number too large for a pixel", name + ".bounds")
    return raw


def _action(raw, where: Where, name: str) -> dict:
    if not isinstance(raw, dict):
        raise where.error(f"expected an action object, got {got(raw)}", name)
    kind = require(raw, "type", str, where, name + ".")
    if kind not in ACTION_TYPES:
        raise where.error(f"unknown action type '{kind}' (one of {', '.join(ACTION_TYPES)})", name + ".type")
    element = _element(raw.get("element"), where, name + ".element")
    if kind in ELEMENT_ACTIONS and element is None:
        raise where.error(f"a {kind} action needs the element it acts on", name + ".element")
    if kind in ("input", "text"):
        require(raw, "message", str, where, name + ".")
    return raw


def _gold_box(action: dict, field: str) -> BoxRecord | None:
    kind = action["type"]
    box_type = ACTION_TYPES[kind]
    if box_type is None:
        return None
    element = action.get("element")
    box = tuple(float(v) for v in parse_bounds(element["bounds"])) if element else None
    text = (element.get("text") or element.get("content-desc") or "") if element else ""
    meta = {"key": "enter"} if kind == "enter" else {}
    if kind == "swipe" and action.get("direction"):
        meta["direction"] = action["direction"]
    return BoxRecord(label="gold", box=box, action_type=box_type, element_text=text.strip(),
                     type_text=action.get("message", "") if kind in ("input", "text") else "", meta=meta,
                     field=field)


def read_tree_file(path: Path) -> str:
    """An accessibility-tree dump read whole and checked (also ScreenLab JSONL's step trees)."""
    # kept whole in the project: a dump within the budget's document size, each of its texts within its text
    # length (ADR 0039); real dumps are 10-500 KB, their longest text a few thousand characters
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise FormatError(f"cannot read the file ({exc.strerror or exc})", path) from None
    if size > MAX_DOCUMENT:
        raise FormatError(f"the accessibility-tree dump is {size:,} bytes; the limit is {MAX_DOCUMENT:,}", path)
    text = _read_utf8(path)
    try:
        UiTree.from_xml(text, MAX_TEXT)
    except TreeError as exc:
        raise FormatError(exc.message, path, exc.line, exc.field) from None
    return text


def _read_task(folder: Path, goals: dict[str, str]) -> EpisodeRecord:
    task_id, app = folder.parent.name, folder.name
    meta_path = folder / "meta.json"
    if not meta_path.is_file():
        raise FormatError("no meta.json: a Sphinx task folder holds N.png, N.xml, meta.json and evaluator.json",
                          folder)
    actions = read_json(meta_path)
    where = Where(meta_path)
    if not isinstance(actions, list) or not actions:
        raise where.error("expected a list of reference actions ending in {\"type\": \"stop\"}")
    actions = [_action(a, where, f"[{i}]") for i, a in enumerate(actions)]
    if actions[-1]["type"] != "stop":
        raise where.error("the last reference action must be {\"type\": \"stop\"}", f"[{len(actions) - 1}].type")
    screens = sorted((p for p in folder.glob("*.png") if p.stem.isdigit()), key=lambda p: int(p.stem))
    for screen in screens:
        _inside(screen, folder)
    if [int(p.stem) for p in screens] != list(range(len(screens))):
        raise FormatError("screens must be numbered 0.png, 1.png, ... without gaps", folder)
    if len(screens) != len(actions):
        raise where.error(f"{len(actions)} reference actions for {len(screens)} screens (0.png to "
                          f"{len(screens) - 1}.png): each screen needs its action, the last one stop; fix the "
                          "file or leave this task folder out")
    activities = _activities(folder / "activities.json", len(actions))
    evaluators_path = folder / "evaluator.json"
    evaluators = read_json(evaluators_path) if evaluators_path.is_file() else []
    try:
        parse_evaluators(evaluators, str(evaluators_path))
    except EvaluatorError as exc:
        raise FormatError(exc.message, evaluators_path, None, exc.path) from None
    skills = read_json(folder / "skills.json") if (folder / "skills.json").is_file() else []
    steps = []
    for i, (screen, action) in enumerate(zip(screens, actions, strict=True)):
        xml_path = screen.with_suffix(".xml")
        if not xml_path.is_file():
            raise FormatError(f"no {xml_path.name} beside {screen.name}: each screen needs its uiautomator dump",
                              folder)
        _inside(xml_path, folder)
        box = _gold_box(action, f"[{i}]")
        meta = {"reference_action": action, "completion": "stop" if action["type"] == "stop" else "continue"}
        if activities is not None:
            meta["activity"] = activities[i]
        steps.append(StepRecord(image=screen, boxes=[box] if box else [], platform=PLATFORM,
                                screen_source=f"{task_id}/{app}/{screen.name}", meta=meta,
                                tree_xml=read_tree_file(xml_path), field=f"[{i}]."))
    capability = {"task_id": task_id, "app": app, "evaluators": evaluators, "skills": skills}
    return EpisodeRecord(key=f"sphinx-{task_id}-{app}", where=where, goal=goals.get(task_id, ""),
                         scenario=TASK_SCENARIO, meta={"capability": capability}, steps=steps)


def _inside(path: Path, folder: Path, where: Where | None = None, field: str | None = None) -> None:
    """A screen or dump that is a link out of its folder is refused by name: an import reads only the folders
    the user named."""
    if not is_within(path, folder):
        message = (f"{path} is a link to a file outside {folder}, which an import does not read; copy the "
                   "file itself into the folder")
        raise where.error(message, field) if where else FormatError(message, path)


def _activities(path: Path, steps: int) -> list | None:
    if not path.is_file():
        return None
    data = read_json(path)
    where = Where(path)
    if not isinstance(data, list) or len(data) != steps:
        raise where.error(f"expected {steps} [package, activity] pairs, one per screen")
    for i, pair in enumerate(data):
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(v, str) for v in pair)):
            raise where.error("expected [package, activity]", f"[{i}]")
    return data


def _read_grounding(path: Path) -> list[EpisodeRecord]:
    data = read_json(path)
    where = Where(path)
    if not isinstance(data, list):
        raise where.error("expected a list of {id, app, instruction, groundtruth}")
    folder = path.parent / path.stem
    records = []
    for i, item in enumerate(data):
        prefix = f"[{i}]."
        task_id = require(item, "id", (int, str), where, prefix)
        app = require(item, "app", str, where, prefix)
        instruction = require(item, "instruction", str, where, prefix)
        action = _action(require(item, "groundtruth", dict, where, prefix), where, prefix + "groundtruth")
        name = str(task_id)
        if not name or name in (".", "..") or any(c in name for c in "/\\\0") or len(name) > 200:
            raise where.error(f"id {short_path(name, 80)!r} cannot name the screen file {name[:80]}.png "
                              f"in {folder.name}/", prefix + "id")
        screen = folder / f"{task_id}.png"
        xml_path = folder / f"{task_id}.xml"
        for needed in (screen, xml_path):
            if not is_file(needed):
                raise where.error(f"{needed} not found (grounding task screens live in {folder.name}/)",
                                  prefix + "id")
            _inside(needed, folder, where, prefix + "id")
        box = _gold_box(action, prefix + "groundtruth")
        records.append(EpisodeRecord(
            key=f"sphinx-grounding-{task_id}", where=where, goal=instruction, scenario=GROUNDING_SCENARIO,
            meta={"capability": {"task_id": str(task_id), "app": app, "grounding": True}},
            steps=[StepRecord(image=screen, boxes=[box] if box else [], platform=PLATFORM,
                              screen_source=f"{folder.name}/{screen.name}",
                              meta={"reference_action": action}, tree_xml=read_tree_file(xml_path), field=prefix)]))
    return records


def read(path: Path, options) -> list[EpisodeRecord]:
    root = Path(path)
    if not root.is_dir():
        if root.name == GROUNDING_FILE:
            return _read_grounding(root)
        if root.name == PROBES_FILE:
            return read_probes(root)
        raise FormatError("expected a Sphinx folder (groundtruth/<task>/<app>/ with N.png, N.xml, meta.json, "
                          f"evaluator.json; or {GROUNDING_FILE} with its screens; or {PROBES_FILE})", root)
    base, folders = _task_folders(root)
    # one task folder (<root>/groundtruth/<task>/<app>): its goal is described three levels up
    goals = _goals(base if base is not None else root.parent.parent.parent)
    records = [_read_task(folder, goals) for folder in folders]
    if base is not None and (base / GROUNDING_FILE).is_file():
        records += _read_grounding(base / GROUNDING_FILE)
    if base is not None and (base / PROBES_FILE).is_file():
        records += read_probes(base / PROBES_FILE)
    if not records:
        raise FormatError("no Sphinx tasks here: expected groundtruth/<task>/<app>/ folders (N.png, N.xml, "
                          f"meta.json, evaluator.json) or {GROUNDING_FILE}", root)
    return records


# -- writing ---------------------------------------------------------------------------------------
def _written_tree(tree_row) -> tuple[str, Callable[[], UiTree | None]]:
    """The dump to write (the annotators' corrections applied), and its parsed tree on demand: most dumps
    are written back verbatim and never need parsing (only a moved gold box asks for its node)."""
    if tree_row is None:
        return "", lambda: None
    if not tree_row.flags:
        return tree_row.xml, functools.cache(lambda: parse_stored(tree_row).tree)
    tree = parse_stored(tree_row).tree
    return tree.to_xml(), lambda: tree


BOX_TYPES = {"click": "click", "long_press": "longclick", "type": "input", "scroll": "swipe"}


def _reference(step, tree_of: Callable[[], UiTree | None], unwritten: list[str]) -> dict:
    """The step's reference action as the annotators left it: its type and typed text from the gold box,
    its element the node of the tree the box now covers (a box moved where no node is is listed in
    `unwritten`: the recorded element is written)."""
    action = dict(step.step.meta.get("reference_action") or {"type": "stop", "element": None})
    gold = [b for b in step.boxes if b.label == "gold"]
    if not gold or action.get("element") is None:
        return action
    box_type = BOX_TYPES.get(gold[0].action_type)
    if box_type is not None:
        action["type"] = box_type
        if box_type == "input":
            action["message"] = gold[0].type_text
        else:
            action.pop("message", None)
    if not gold[0].has_box:
        return action
    box = (gold[0].x1, gold[0].y1, gold[0].x2, gold[0].y2)
    if format_bounds(box) == action["element"].get("bounds"):
        return action
    tree = tree_of()
    node = tree.best_match(box, min_iou=0.5) if tree is not None else None
    if node is not None:
        action["element"] = dict(node.attrs)
    else:
        unwritten.append(step.step.id)
    return action


def write(ctx: ExportContext) -> ExportReport:
    from desktop_app.store.models import Episode
    from desktop_app.store.orm import select
    from desktop_app.store.trees import trees_of_steps

    report = ExportReport(NAME, ctx.out)
    with atomic_output(ctx.out) as tmp:
        goals: dict[str, dict] = {}
        grounding, grounding_ids, unwritten = [], GroundingIds(), []
        for bundle in ctx.bundles:
            info = (bundle.episode.meta or {}).get("capability")
            if not info:
                report.skipped += 1
                continue
            trees = trees_of_steps(ctx.session, [s.step for s in bundle.steps])
            if info.get("grounding"):
                step = bundle.steps[0]
                xml, tree_of = _written_tree(trees.get(step.step.id))
                folder = tmp / "lowlevel_tasks"
                folder.mkdir(exist_ok=True)
                task_id = grounding_ids.take(info.get("task_id"))
                _write_screen(folder, str(task_id), step.screen, xml, ctx)
                grounding.append({"id": task_id, "app": info["app"],
                                  "instruction": bundle.episode.goal, "groundtruth": _reference(step, tree_of, unwritten)})
                report.images += 1
            else:
                folder = (tmp / "groundtruth" / path_part(info["task_id"], bundle.episode.key, "task_id")
                          / path_part(info["app"], bundle.episode.key, "app"))
                folder.mkdir(parents=True, exist_ok=False)
                actions, activities = [], []
                for i, step in enumerate(bundle.steps):
                    xml, tree_of = _written_tree(trees.get(step.step.id))
                    _write_screen(folder, str(i), step.screen, xml, ctx)
                    actions.append(_reference(step, tree_of, unwritten))
                    activities.append(step.step.meta.get("activity"))
                    report.images += 1
                _write_json(folder / "meta.json", actions)
                _write_json(folder / "evaluator.json", info.get("evaluators", []))
                _write_json(folder / "skills.json", info.get("skills", []))
                if all(a is not None for a in activities):
                    _write_json(folder / "activities.json", activities)
                entry = goals.setdefault(str(info["task_id"]), {"id": _as_id(info["task_id"]),
                                                                  "description": bundle.episode.goal, "apps": []})
                entry["apps"].append(info["app"])
            report.episodes += 1
            report.annotations += sum(1 for s in bundle.steps for b in s.boxes if b.label == "gold")
        # the knowledge probes are the project's question set, not screens: all of them go with the export
        probes = [probe_json(e.goal, e.meta["capability"]["probe"]) for e in ctx.session.execute(
            select(Episode).where(Episode.kind == "probe").order_by(Episode.id)).scalars()
            if "probe" in (e.meta or {}).get("capability", {})]
        if probes:
            _write_json(tmp / PROBES_FILE, probes)
            report.annotations += len(probes)
        if goals:
            _write_json(tmp / "task_info.json", list(goals.values()))
        if grounding:
            _write_json(tmp / GROUNDING_FILE, grounding)
        why = []
        if report.skipped:
            why.append(f"{report.skipped} episodes not from the Sphinx layout (no task id or app)")
        if unwritten:
            # said, not dropped silently: the file keeps the recorded element, the project's box is elsewhere
            why.append(f"{len(unwritten)} moved gold boxes with no node under them: their recorded element was "
                       f"written (steps {', '.join(map(str, unwritten[:10]))})")
        if why:
            report.skipped += len(unwritten)
            report.skipped_why = "(" + "; ".join(why) + ")"
    return report


class GroundingIds:
    """Grounding task ids for the export: a task's own id when it is a whole number not taken yet, else the
    next free one (tasks made from recorded steps carry their recording's id, shared by its steps)."""

    def __init__(self):
        self.used: set[int] = set()
        self.pending = 0

    def take(self, wanted) -> int:
        value = int(wanted) if str(wanted).isdigit() else None
        if value is None or value in self.used:
            value = max(self.used | {self.pending}) + 1
        self.used.add(value)
        self.pending = max(self.pending, value)
        return value


def _as_id(value):
    return int(value) if str(value).isdigit() else value


def _write_screen(folder: Path, stem: str, screen, xml: str, ctx: ExportContext) -> None:
    data = ctx.image_bytes(screen.sha256, screen.ext)
    if screen.ext != "png":  # the layout names screens N.png; convert rather than mislabel the bytes
        import io

        from PIL import Image
        with Image.open(io.BytesIO(data)) as picture:
            out = io.BytesIO()
            picture.save(out, "PNG")
            data = out.getvalue()
    (folder / f"{stem}.png").write_bytes(data)
    if xml:
        (folder / f"{stem}.xml").write_text(xml, encoding="utf-8")


def _write_json(path: Path, value) -> None:
    path.write_text(json.dumps(value, indent=4, ensure_ascii=False) + "\n", encoding="utf-8")


SPEC = FormatSpec(NAME, "Sphinx benchmark: groundtruth/<task>/<app>/ (N.png + N.xml, meta.json, evaluator.json) "
                  "and lowlevel_tasks.json", read=read, write=write)
