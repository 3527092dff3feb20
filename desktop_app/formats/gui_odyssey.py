"""GUI-Odyssey (Lu et al. 2024): one JSON file per episode, cross-app Android navigation. Import only.

Definition: OpenGVLab/GUI-Odyssey, introduction.md (the fields), README.md (the layout: data/annotations/*.json
beside data/screenshots/*.png) and data/format_converter.py (how the authors read `action` and `info`).

    episode_id    str
    device_info   {product, release_version, sdk_version, h, w, device_name}
    task_info     {category, app, meta_task, task, instruction}   the goal is `instruction`, as the authors' own
                  converter takes it for the high-level task
    step_length   int
    steps[]       {step, screenshot, action, info, ps, and in the later release low_level_instruction,
                   description, intention, context, sam2_bbox}

Actions and their `info`: CLICK / LONG_PRESS: [[x, y], ...] (the tap is the first point; the release repeats it as
touch and lift) or a key: KEY_HOME, KEY_BACK, KEY_APPSELECT; SCROLL: [[x1, y1], [x2, y2]] from where the finger
went down to where it lifted; TEXT (TYPE in the field list of introduction.md): the typed text; COMPLETE,
INCOMPLETE (IMPOSSIBLE in an older field list): the end of the episode. HOME and BACK, named in the first field
list, are read too.

Surprises: every coordinate is on a 0-1000 grid over the screenshot, x first, not pixels; a point or the
`sam2_bbox` (x1, y1, x2, y2, on the same grid) becomes a box on the image's 0-1000 grid (BoxRecord.grid), turned
into pixels by the import with the screenshot's own size. The text action is named TEXT in the data although
the field list says TYPE. A scroll's direction is the finger's movement along its larger axis, named as the
authors' converter names it (up = the finger moved up the screen); the two points are kept in meta.

Each step's action becomes its gold action: click / long_press -> the sam2_bbox when the step has one (the tap
kept in meta, on the 0-1000 grid), else a point; keys -> navigate_home, navigate_back, key (meta key:
recent_apps); TEXT -> type; SCROLL -> scroll, no box; COMPLETE / INCOMPLETE -> no action box, meta status.
Screenshots are looked for under --images, beside the file, and in screenshots/ beside it or beside its folder.
"""

from __future__ import annotations

from pathlib import Path

from desktop_app.formats.records import (
    BoxRecord,
    EpisodeRecord,
    FormatError,
    StepRecord,
    Where,
    check_storable,
    finite,
    got,
    image_bases,
    optional,
    read_json,
    require,
    resolve_image,
    shown,
)
from desktop_app.formats.spec import FormatSpec

SCENARIO = "navigation"
PLATFORM = "android"
GRID = 1000.0
IMAGE_FOLDERS = ("screenshots", "../screenshots")
_KEYS = {"KEY_HOME": ("navigate_home", {}), "KEY_BACK": ("navigate_back", {}),
         "KEY_APPSELECT": ("key", {"key": "recent_apps"})}
_ENDS = {"COMPLETE": "complete", "INCOMPLETE": "impossible", "IMPOSSIBLE": "impossible"}
ACTIONS = ("CLICK", "LONG_PRESS", "SCROLL", "TEXT", "TYPE", "HOME", "BACK", *_ENDS)
_STEP_READ = {"step", "screenshot", "action", "info", "low_level_instruction", "sam2_bbox"}


def _point(value, where: Where, field: str) -> tuple[float, float]:
    numbers = [finite(v) for v in value] if isinstance(value, list) and len(value) == 2 else []
    if len(numbers) != 2 or None in numbers:
        raise where.error(f"expected a point [x, y], two numbers, got {shown(value)}", field)
    x, y = numbers
    if not (0 <= x <= GRID and 0 <= y <= GRID):
        raise where.error(f"point {shown(value)} lies off GUI-Odyssey's 0-1000 grid (coordinates are relative to "
                          "the screenshot, 0-1000 on each axis, not pixels)", field)
    return x, y


def _points(info, where: Where, field: str, least: int) -> list[tuple[float, float]]:
    if not isinstance(info, list) or len(info) < least:
        raise where.error(f"expected a list of {least} or more points [[x, y], ...], got {shown(info)}", field)
    return [_point(p, where, f"{field}[{i}]") for i, p in enumerate(info)]


def _element(step: dict, where: Where, prefix: str) -> tuple[float, float, float, float] | None:
    """sam2_bbox: the tapped element as SAM2 cut it out, x1, y1, x2, y2 on the 0-1000 grid; [] when none."""
    value = step.get("sam2_bbox")
    if value is None or value == []:
        return None
    numbers = [finite(v) for v in value] if isinstance(value, list) and len(value) == 4 else []
    if len(numbers) != 4 or None in numbers:
        raise where.error(f"expected [x1, y1, x2, y2] or [], got {shown(value)}", prefix + "sam2_bbox")
    return tuple(numbers)  # type: ignore[return-value]


def _action(step: dict, where: Where, prefix: str) -> tuple[list[BoxRecord], dict]:
    """The step's gold action (none at the end of an episode) and what its meta keeps."""
    action = require(step, "action", str, where, prefix).strip().upper()
    name = prefix + "action"
    info = step.get("info", "")
    field = prefix + "info"
    if action in ("CLICK", "LONG_PRESS"):
        kind = action.lower()
        if isinstance(info, str):
            if info.strip() not in _KEYS:
                raise where.error(f"expected points [[x, y], ...] or one of {', '.join(_KEYS)}, got {shown(info)}",
                                  field)
            key_type, meta = _KEYS[info.strip()]
            return [BoxRecord(label="gold", box=None, action_type=key_type, meta=dict(meta), field=field)], {}
        x, y = _points(info, where, field, 1)[0]
        element = _element(step, where, prefix)
        # SAM2's cut-out is the element only when the tap lies in it; otherwise the tap alone is the truth
        if element is not None and element[0] <= x <= element[2] and element[1] <= y <= element[3]:
            return [BoxRecord(label="gold", box=element, grid=(GRID, GRID), action_type=kind,
                              meta={"tap_0_1000": [x, y]}, field=prefix + "sam2_bbox")], {}
        return [BoxRecord(label="gold", box=(x, y, x, y), grid=(GRID, GRID), action_type=kind, meta={"point": True},
                          field=field)], {}
    if action == "SCROLL":
        (x1, y1), (x2, y2) = _points(info, where, field, 2)[:2]
        dx, dy = x2 - x1, y2 - y1
        direction = ("left" if dx < 0 else "right") if abs(dx) > abs(dy) else ("up" if dy < 0 else "down")
        return [BoxRecord(label="gold", box=None, action_type="scroll", field=field,
                          meta={"direction": direction, "from_0_1000": [x1, y1], "to_0_1000": [x2, y2]})], {}
    if action in ("TEXT", "TYPE"):
        if not isinstance(info, str):
            raise where.error(f"expected the typed text, got {got(info)}", field)
        return [BoxRecord(label="gold", box=None, action_type="type", type_text=info, field=field)], {}
    if action in ("HOME", "BACK"):
        return [BoxRecord(label="gold", box=None, action_type=f"navigate_{action.lower()}", field=name)], {}
    if action in _ENDS:
        return [], {"status": _ENDS[action]}
    raise where.error(f"unknown action {shown(action)} (one of {', '.join(ACTIONS)})", name)


def _episode(obj, where: Where, bases: list[Path], prefix: str) -> EpisodeRecord:
    if not isinstance(obj, dict):
        raise where.error(f"expected an episode object, got {got(obj)}", prefix.rstrip(".") or None)
    key = require(obj, "episode_id", (str, int), where, prefix)
    task = require(obj, "task_info", dict, where, prefix)
    goal = require(task, "instruction", str, where, prefix + "task_info.")
    steps = require(obj, "steps", list, where, prefix)
    if not steps:
        raise where.error("episode has no steps", prefix + "steps")
    records = []
    for i, step in enumerate(steps):
        at = f"{prefix}steps[{i}]."
        if not isinstance(step, dict):
            raise where.error(f"expected a step object, got {got(step)}", at.rstrip("."))
        shot = require(step, "screenshot", str, where, at)
        if not shot.strip():
            raise where.error("empty image name", at + "screenshot")
        boxes, action_meta = _action(step, where, at)
        instruction = optional(step, "low_level_instruction", str, where, "", at)
        meta = {"odyssey": {"action": step.get("action"), "info": step.get("info", ""), **action_meta,
                            **{k: v for k, v in step.items() if k not in _STEP_READ}}}
        check_storable(meta, where, at.rstrip("."))
        records.append(StepRecord(
            image=resolve_image(shot, bases, where, at + "screenshot"), boxes=boxes, platform=PLATFORM,
            screen_source=shot, instruction=instruction, meta=meta, field=at, image_field=at + "screenshot"))
    rest = {k: v for k, v in obj.items() if k not in ("episode_id", "steps")}
    check_storable(rest, where, prefix.rstrip(".") or "episode")
    return EpisodeRecord(key=str(key), where=where, goal=goal, scenario=SCENARIO, meta={"odyssey": rest},
                         steps=records)


def _files(path: Path) -> list[Path]:
    """The file, a folder's *.json, or the dataset's own folder (data/, holding annotations/)."""
    path = Path(path)
    if path.is_dir():
        files = sorted(path.glob("*.json"))
        if not files and (path / "annotations").is_dir():
            files = sorted((path / "annotations").glob("*.json"))
        if not files:
            raise FormatError("no .json files in this folder (GUI-Odyssey: annotations/*.json, one episode each)",
                              path)
        return files
    if not path.exists():
        raise FormatError("file not found", path)
    return [path]


def read(path: Path, options) -> list[EpisodeRecord]:
    records = []
    for file in _files(path):
        data = read_json(file)
        bases = image_bases(file, options.images_dir, *IMAGE_FOLDERS)
        where = Where(file)
        if isinstance(data, list):
            records += [_episode(obj, where, bases, f"[{i}].") for i, obj in enumerate(data)]
        else:
            records.append(_episode(data, where, bases, ""))
    if not records:
        raise FormatError("no episodes found", path)
    return records


SPEC = FormatSpec(
    name="gui-odyssey",
    description="GUI-Odyssey episodes (one JSON per episode: steps with screenshot, action, info on a 0-1000 "
                "grid; import only)",
    read=read,
)
