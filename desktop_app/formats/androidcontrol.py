"""AndroidControl episodes (Li et al. 2024) as JSON, in the layouts converters of the released TFRecords write.

Definition: google-research/google-research, android_control/README.md (the TFRecord features and the action
space). The release is GZIP TFRecords (formats/androidcontrol_tfrecord.py reads those); the community
converters that turn them into JSON keep TFRecord's shapes, so one episode is one JSON object:

    episode_id          int | str | [int | str]     a converter keeps the feature's one-element list
    goal                str | [str]                 likewise
    step_instructions   [str]                       one per action
    screenshots | screenshot_path(s)  [str]         image paths, looked for beside the file and under --images
    screenshot_widths?, screenshot_heights?  [int]  per screenshot; an image of another size is refused
    actions             [object | JSON str]         {"action_type": "click", "x": 561, "y": 2011}, ...
    element_boxes?      [[x1, y1, x2, y2] | null]   per action: the target element, in pixels (ScreenLab's own)

Files: a .json file (one episode or a list of them), a .jsonl file (one episode a line, as
`android_control/data.jsonl` of the converters), or a folder of both kinds. `accessibility_tree(s)` and
`node_info` are dropped (they are large and ScreenLab does not read AndroidEnv's forests), and so is a
converter's line counter `index`; other keys are kept in the episode's meta (androidcontrol).

Surprises: the converters write the screenshot paths of their own machine (absolute, or relative to where they
ran), so a path is also looked up by its last parts (`screenshots/1/screenshot_1_0.png`, then
`1/screenshot_1_0.png`, then the file name). Coordinates are pixels of the screenshot (x right, y down), not
normalised. AndroidControl stores len(actions) + 1 screenshots: step i acts on screenshots[i], and the last
one shows the screen after the last action. That final screen has no action, so it is not imported as a
step; its path is kept in the episode's meta (androidcontrol.final_screenshot).

Each action becomes the step's one gold action (docs/decisions/0012-ambiguous-tasks.md):
click / long_press: the element box when given, else a zero-size box at (x, y) with meta
{"point": true} (with a box, the tap point is kept as meta x, y); scroll: no box, meta
direction; input_text (and type): action type `type`, text in type_text, the element box when
given; open_app: meta app_name; navigate_back, navigate_home, wait: the type alone.
The step's meta keeps the original action (parsed when it was a JSON string).

Export writes the converters' layout: data.jsonl (one episode a line, lists for episode_id and goal, actions as
JSON strings, screenshot_path, screenshot_widths / _heights, element_boxes where an action has a box) and the
screenshots in screenshots/<episode>/screenshot_<episode>_<i>.<ext> (episode_<line> for an id that cannot be a
file name). Only the gold action of each step can be
written; an episode a step of which has no single gold action AndroidControl can say is left out. The final
screen after the last action is not stored by the import, so an export has one screenshot per action.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath

from desktop_app.formats.records import (
    BoxRecord,
    EpisodeRecord,
    FormatError,
    StepRecord,
    Where,
    find_inside,
    finite,
    got,
    image_bases,
    optional,
    parse_box,
    read_json,
    read_jsonl,
    require,
    shown,
)
from desktop_app.formats.spec import ExportContext, ExportReport, FormatSpec
from desktop_app.formats.writing import ImageWriter, atomic_output, json_number

SCENARIO = "navigation"
PLATFORM = "android"
_POINTING = ("click", "long_press")
_TEXT = ("input_text", "type")
_BARE = ("navigate_back", "navigate_home", "wait")
KNOWN_ACTIONS = (*_POINTING, "scroll", *_TEXT, "open_app", *_BARE)
_SHOT_KEYS = ("screenshots", "screenshot_path", "screenshot_paths")  # as each converter names them
# read into the episode, or not kept: the trees are large, `index` only counts a converter's lines
_DROPPED = {"accessibility_trees", "accessibility_tree", "node_info", *_SHOT_KEYS, "screenshot_widths",
            "screenshot_heights", "actions", "step_instructions", "element_boxes", "goal", "episode_id", "index"}
_TAIL_PARTS = 3  # a path is also looked for by its last 3, 2 and 1 parts (converters write their own machine's)
DATA_FILE = "data.jsonl"


@dataclass(frozen=True)
class Screenshot:
    """One acted-on screenshot of an episode: a file, or a picture held in memory (TFRecord's PNG bytes)."""

    image: Path  # the file; for bytes, a name for messages
    source: str  # where the dataset says it came from (the screen's source)
    field: str  # the field that named it
    data: bytes | None = None


# ---------- one episode, whatever the container ----------

def _one(obj: dict, key: str, kind: tuple[type, ...], where: Where, prefix: str):
    """A value a converter may have kept as TFRecord's one-element list (`"goal": ["Open the app"]`)."""
    value = require(obj, key, (*kind, list), where, prefix)
    if not isinstance(value, list):
        return value
    if len(value) != 1:
        raise where.error(f"expected one value (or a list of one), got a list of {len(value)}", prefix + key)
    return _item(value[0], kind, where, f"{prefix}{key}[0]")


def _item(value, kind: tuple[type, ...], where: Where, name: str):
    if not isinstance(value, kind) or isinstance(value, bool):
        names = " or ".join({str: "text", int: "integer"}[k] for k in kind)
        raise where.error(f"expected {names}, got {got(value)}", name)
    return value


def _sizes(obj: dict, where: Where, prefix: str, count: int) -> list[tuple[int, int]] | None:
    """Each screenshot's (width, height) as the record states them, None when it does not."""
    widths = optional(obj, "screenshot_widths", list, where, None, prefix)
    heights = optional(obj, "screenshot_heights", list, where, None, prefix)
    if widths is None and heights is None:
        return None
    for key, values in (("screenshot_widths", widths), ("screenshot_heights", heights)):
        if values is None:
            raise where.error("missing (screenshot_widths and screenshot_heights come together)", prefix + key)
        if len(values) != count:
            raise where.error(f"{len(values)} values for {count} screenshots (expected one per screenshot)",
                              prefix + key)
        for i, value in enumerate(values):
            if not isinstance(value, int) or isinstance(value, bool) or not 0 < value < 1_000_000:
                raise where.error(f"expected a size in pixels (a positive integer), got {shown(value)}",
                                  f"{prefix}{key}[{i}]")
    return list(zip(widths, heights, strict=True))


def _number(obj: dict, key: str, where: Where, name: str) -> float:
    value = finite(require(obj, key, (int, float), where, name + "."))
    if value is None or value < 0:
        raise where.error(f"expected a pixel coordinate >= 0, got {shown(obj[key])}", f"{name}.{key}")
    return value


def _pixels(values: tuple[float, ...], where: Where, field: str, what: str) -> None:
    """AndroidControl's coordinates are pixels; numbers all within 0-1 with a fraction among them are a
    converter's normalised output, and would silently become a spot in the screen's top-left corner."""
    if all(v <= 1 for v in values) and any(not float(v).is_integer() for v in values):
        raise where.error(f"{what} {shown([json_number(v) for v in values])} looks normalised (fractions 0-1 of the "
                          "screen); AndroidControl gives pixels of the screenshot: multiply x by its width and y by "
                          "its height before importing", field)


def _tap(action: dict, where: Where, name: str) -> tuple[float, float]:
    x, y = _number(action, "x", where, name), _number(action, "y", where, name)
    _pixels((x, y), where, name, "the point (x, y)")
    return x, y


def _action(raw, where: Where, name: str) -> dict:
    if isinstance(raw, str):  # the TFRecords store each action as a JSON string
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise where.error(f"invalid JSON in the action string: {exc.msg} at column {exc.colno}", name) from None
        except (ValueError, RecursionError):  # a number past 4,300 digits, thousands of nested lists
            raise where.error("the action string holds a number too long or lists nested too deep to read",
                              name) from None
    if not isinstance(raw, dict):
        raise where.error(f"expected an object or a JSON string, got {got(raw)}", name)
    kind = require(raw, "action_type", str, where, name + ".")
    if kind not in KNOWN_ACTIONS:
        raise where.error(f"unknown action type '{kind}' (one of {', '.join(KNOWN_ACTIONS)})", name + ".action_type")
    return raw


def gold_box(action: dict, element, where: Where, name: str, box_name: str) -> BoxRecord:
    """The annotated action of one step as ScreenLab's gold box (decision 0012)."""
    kind = action["action_type"]
    if element is not None:
        _pixels(element, where, box_name, "the element box")
    if kind in _POINTING:
        x, y = _tap(action, where, name)
        if element is not None:
            return BoxRecord(label="gold", box=element, action_type=kind, meta={"x": json_number(x), "y": json_number(y)}, field=box_name)
        return BoxRecord(label="gold", box=(x, y, x, y), action_type=kind, meta={"point": True}, field=name)
    if kind == "scroll":
        direction = require(action, "direction", str, where, name + ".").strip().lower()
        if not direction:
            raise where.error("empty scroll direction", name + ".direction")
        return BoxRecord(label="gold", box=None, action_type="scroll", meta={"direction": direction}, field=name)
    if kind in _TEXT:
        text = require(action, "text", str, where, name + ".")
        if element is None and action.get("x") is not None and action.get("y") is not None:
            x, y = _tap(action, where, name)  # `type` taps the field first
            return BoxRecord(label="gold", box=(x, y, x, y), action_type="type", type_text=text,
                             meta={"point": True}, field=name)
        return BoxRecord(label="gold", box=element, action_type="type", type_text=text,
                         field=box_name if element is not None else name)
    if kind == "open_app":
        app = require(action, "app_name", str, where, name + ".")
        return BoxRecord(label="gold", box=None, action_type="open_app", meta={"app_name": app}, field=name)
    return BoxRecord(label="gold", box=None, action_type=kind, field=name)


def episode_record(obj, where: Where, prefix: str, shots_key: str, shot_count: int,
                   screenshot: Callable[[int], Screenshot], final_name: str | None = None) -> EpisodeRecord:
    """One episode from AndroidControl's fields (a JSON object, or a TFRecord's features made into one).
    `screenshot(i)` gives the i-th acted-on screenshot; `shots_key` names the field that lists them."""
    if not isinstance(obj, dict):
        raise where.error("expected an episode object", prefix.rstrip(".") or None)
    key = _one(obj, "episode_id", (str, int), where, prefix)
    goal = _one(obj, "goal", (str,), where, prefix)
    actions = require(obj, "actions", list, where, prefix)
    instructions = require(obj, "step_instructions", list, where, prefix)
    boxes = optional(obj, "element_boxes", list, where, [None] * len(actions), prefix)
    if not actions:
        raise where.error("episode has no actions", prefix + "actions")
    if len(instructions) != len(actions):
        raise where.error(f"{len(instructions)} instructions for {len(actions)} actions (expected one per action)",
                          prefix + "step_instructions")
    if shot_count not in (len(actions), len(actions) + 1):
        raise where.error(f"{shot_count} screenshots for {len(actions)} actions "
                          f"(expected {len(actions) + 1}: one per action and the final screen)", prefix + shots_key)
    if len(boxes) != len(actions):
        raise where.error(f"{len(boxes)} element boxes for {len(actions)} actions (use null where there is none)",
                          prefix + "element_boxes")
    sizes = _sizes(obj, where, prefix, shot_count)
    steps = []
    for i, raw in enumerate(actions):
        name = f"{prefix}actions[{i}]"
        instruction = instructions[i]
        if not isinstance(instruction, str):
            raise where.error(f"expected text, got {got(instruction)}", f"{prefix}step_instructions[{i}]")
        box_name = f"{prefix}element_boxes[{i}]"
        element = None if boxes[i] is None else parse_box(boxes[i], where, box_name)
        action = _action(raw, where, name)
        shot = screenshot(i)
        steps.append(StepRecord(
            image=shot.image, image_bytes=shot.data, boxes=[gold_box(action, element, where, name, box_name)],
            platform=PLATFORM, screen_source=shot.source, instruction=instruction,
            meta={"action": action}, field=f"{prefix}{shots_key}[{i}].", image_field=shot.field,
            expected_size=sizes[i] if sizes else None,
            size_field=f"{prefix}screenshot_widths[{i}], {prefix}screenshot_heights[{i}]",
        ))
    extra = {k: v for k, v in obj.items() if k not in _DROPPED}
    if final_name is not None and shot_count == len(actions) + 1:
        extra["final_screenshot"] = final_name
    return EpisodeRecord(key=str(key), where=where, goal=goal, scenario=SCENARIO,
                         meta={"androidcontrol": extra}, steps=steps)


# ---------- JSON and JSONL files ----------

def names_to_look_for(name: str) -> list[str]:
    """The path as written, then its last parts: converters write the paths of the machine they ran on."""
    windows = PureWindowsPath(name)
    parts = windows.parts if windows.drive or "\\" in name else PurePosixPath(name).parts
    parts = tuple(p for p in parts if p not in ("/", "\\") and not PureWindowsPath(p).drive)
    names = [] if Path(name).is_absolute() or windows.is_absolute() or windows.drive else [name]
    for count in range(min(_TAIL_PARTS, len(parts)), 0, -1):
        tail = parts[-count:]
        if ".." not in tail:
            names.append("/".join(tail))
    return list(dict.fromkeys(names)) or [name]


def _json_episode(obj, where: Where, bases: list[Path], prefix: str) -> EpisodeRecord:
    if not isinstance(obj, dict):
        raise where.error("expected an episode object", prefix.rstrip(".") or None)
    present = [k for k in _SHOT_KEYS if k in obj]
    if not present:
        raise where.error("missing (the screenshots' paths: `screenshots`, `screenshot_path` or `screenshot_paths`)",
                          prefix + "screenshots")
    shots_key = present[0]
    shots = require(obj, shots_key, list, where, prefix)
    for other in present[1:]:
        if obj[other] != shots:
            raise where.error(f"both {shots_key} and {other} are given and they differ; keep one", prefix + other)

    def screenshot(i: int) -> Screenshot:
        field = f"{prefix}{shots_key}[{i}]"
        name = shots[i]
        if not isinstance(name, str) or not name.strip():
            raise where.error(f"expected an image path, got {shown(name)}", field)
        return Screenshot(find_inside(names_to_look_for(name), bases, where, field), name, field)

    final = shots[-1] if shots and isinstance(shots[-1], str) else None
    return episode_record(obj, where, prefix, shots_key, len(shots), screenshot, final)


def data_files(path: Path) -> list[Path]:
    """The file itself, or the .json and .jsonl files of a folder (sorted); a clear error when none."""
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix.lower() in (".json", ".jsonl"))
        if not files:
            raise FormatError("no .json or .jsonl files in this folder (AndroidControl episodes: a JSON object per "
                              "episode, or one per line of a .jsonl file)", path)
        return files
    if not path.exists():
        raise FormatError("file not found", path)
    return [path]


def read(path: Path, options) -> list[EpisodeRecord]:
    records = []
    for file in data_files(path):
        bases = image_bases(file, options.images_dir)
        if file.suffix.lower() == ".jsonl":
            records += [_json_episode(obj, where, bases, "") for where, obj in read_jsonl(file)]
            continue
        data = read_json(file)
        where = Where(file, None)
        if isinstance(data, list):
            records += [_json_episode(obj, where, bases, f"[{i}].") for i, obj in enumerate(data)]
        else:
            records.append(_json_episode(data, where, bases, ""))
    if not records:
        raise FormatError("no episodes found", path)
    return records


# ---------- export ----------

def _tap_point(box) -> tuple[float | int, float | int]:
    """Where the action taps: the point of a point box, the kept tap point while it lies in the box, else the
    box's centre (the box was drawn or moved in ScreenLab)."""
    if box.meta.get("point"):
        return json_number(box.x1), json_number(box.y1)
    x, y = box.meta.get("x"), box.meta.get("y")
    if finite(x) is not None and finite(y) is not None and box.x1 <= x <= box.x2 and box.y1 <= y <= box.y2:
        return json_number(x), json_number(y)
    return json_number((box.x1 + box.x2) / 2), json_number((box.y1 + box.y2) / 2)


def export_action(step) -> tuple[dict, list | None] | None:
    """The step's gold action as AndroidControl's action and element box; None when it cannot say it."""
    golds = [b for b in step.boxes if b.label == "gold"]
    if len(golds) != 1:
        return None
    box = golds[0]
    kind = box.action_type
    element = None if not box.has_box or box.meta.get("point") else \
        [json_number(v) for v in (box.x1, box.y1, box.x2, box.y2)]
    if kind in _POINTING:
        if not box.has_box:
            return None
        x, y = _tap_point(box)
        return {"action_type": kind, "x": x, "y": y}, element
    if kind == "type":
        original = (step.step.meta or {}).get("action")
        said = original.get("action_type") if isinstance(original, dict) else None
        action = {"action_type": said if said in _TEXT else "input_text", "text": box.type_text}
        if box.has_box:
            action["x"], action["y"] = _tap_point(box)
        return action, element
    if kind == "scroll":
        direction = box.meta.get("direction")
        return ({"action_type": "scroll", "direction": direction}, None) if isinstance(direction, str) else None
    if kind == "open_app":
        app = box.meta.get("app_name")
        return ({"action_type": "open_app", "app_name": app}, None) if isinstance(app, str) else None
    if kind in _BARE:
        return {"action_type": kind}, None
    return None


def _shot_folder(key: str, index: int) -> str:
    """The episode's screenshot folder: its id, as the converters name it, when that makes a short, plain file
    name on every system; else episode_<line>. The line names each file, so any name reads back."""
    plain = (0 < len(key) <= 64 and key not in (".", "..") and key.isprintable()
             and not any(c in key for c in '/\\:*?"<>|'))
    return key if plain else f"episode_{index}"


def _episode_id(key: str) -> int | str:
    """AndroidControl's ids are integers; a key that reads back the same as one is written as one."""
    return int(key) if key.isascii() and key.isdigit() and str(int(key)) == key else key


def write(ctx: ExportContext) -> ExportReport:
    report = ExportReport("androidcontrol", ctx.out,
                          skipped_why="episodes a step of which has no single gold action AndroidControl can express "
                                      "(click, long_press, type, scroll, open_app, navigate_back / _home, wait)")
    with atomic_output(ctx.out) as tmp:
        images = ImageWriter(tmp, ctx.image_bytes)
        with open(tmp / DATA_FILE, "w", encoding="utf-8", newline="\n") as fh:
            for bundle in ctx.bundles:
                said = [export_action(sb) for sb in bundle.steps]
                if not said or any(s is None for s in said):
                    report.skipped += 1
                    continue
                key = _shot_folder(bundle.episode.key, report.episodes)
                shots = [images.add(sb.screen, f"screenshots/{key}/screenshot_{key}_{i}.{sb.screen.ext}")
                         for i, sb in enumerate(bundle.steps)]
                extra = {k: v for k, v in (bundle.episode.meta.get("androidcontrol") or {}).items()
                         if k not in _DROPPED and k != "final_screenshot"}
                line = {
                    **extra, "index": report.episodes, "episode_id": [_episode_id(bundle.episode.key)],
                    "goal": [bundle.episode.goal], "screenshot_path": shots,
                    "screenshot_widths": [sb.screen.width for sb in bundle.steps],
                    "screenshot_heights": [sb.screen.height for sb in bundle.steps],
                    "step_instructions": [sb.step.instruction for sb in bundle.steps],
                    "actions": [json.dumps(action, ensure_ascii=False, separators=(",", ":")) for action, _ in said],
                }
                if any(element is not None for _, element in said):
                    line["element_boxes"] = [element for _, element in said]
                fh.write(json.dumps(line, ensure_ascii=False) + "\n")
                report.episodes += 1
                report.annotations += len(said)
        report.images = images.count
    return report


SPEC = FormatSpec(
    name="androidcontrol",
    description="AndroidControl episodes as JSON / JSONL, as converters of the TFRecords write them "
                "(episode_id, goal, step_instructions, screenshots or screenshot_path, actions)",
    read=read,
    write=write,
)
