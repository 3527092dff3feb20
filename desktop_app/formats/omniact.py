"""OmniACT (Kapoor et al. 2024): a task on one desktop or web screen, its PyAutoGUI script, the screen's boxes.

Source: the dataset card and files of Writer/omniact (huggingface.co/datasets/Writer/omniact: README.md,
eval.py). A split file (train.json, val.json, test.json) maps a task's number to three paths, relative to the
folder holding it (the unzipped data.zip):
    "2849": {"task": "data/tasks/desktop/ibooks/task_1.30.txt",
             "image": "data/data/desktop/ibooks/screen_1.png",
             "box": "data/metadata/desktop/boxes/ibooks/screen_1.json"}
The task file is text: "Task: <what to do>", then "Output Script:", then one pyautogui call a line, e.g.
pyautogui.click(1504.5,1971.5). The box file maps each interactable element of the screen to
{"top_left": [x, y], "bottom_right": [x, y], "label": ...} in the screenshot's pixels.

Surprises: the script's coordinates are pixels of the screenshot, and a gold click is the centre of an element's
box (eval.py's get_bounds looks the box up by its centre); eval.py counts click, rightClick, moveTo and dragTo as
pointing actions. Some copies name the web screens screen1.png and their boxes screen1_boxes.json where the
split file says screen_1.png and screen_1.json (eval.py keeps the rewrite, commented out); both names are tried.

Each task becomes a one-step episode: the goal is the task, the gold action the element box the script's first
pointing call lands in (the one centred on the point, else the smallest around it; a zero-size box at the point,
meta {"point": true}, when none holds it). A script without a pointing call gives its first call as a box-less
gold action (type, key, scroll). Every line of the script is kept in the step's meta. The script is read as
text, never run: a call is its name and the numbers and quoted strings between its brackets.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path, PurePosixPath

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
    is_file,
    is_within,
    names_to_try,
    read_json,
    read_text,
    require,
    shown,
    visible,
)
from desktop_app.formats.spec import FormatSpec

SCENARIO = "navigation"
SPLITS = ("train", "val", "test")
# pyautogui calls that point at the screen, and the action type each becomes
POINTING = {"click": "click", "leftClick": "click", "doubleClick": "click", "tripleClick": "click",
            "middleClick": "click", "rightClick": "click", "moveTo": "hover", "dragTo": "other"}
_OTHERS = {"write": "type", "typewrite": "type", "press": "key", "hotkey": "key", "keyDown": "key",
           "keyUp": "key", "scroll": "scroll", "hscroll": "scroll", "vscroll": "scroll"}
_CALL = re.compile(r"\s*pyautogui\.(\w+)\s*\((.*)\)\s*;?\s*")
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_TEXT = re.compile(r"\"((?:[^\"\\]|\\.)*)\"|'((?:[^'\\]|\\.)*)'")
HEAD_BYTES = 64 * 1024  # what the Import dialog reads of a split file to recognise it


def split_files(path: Path) -> list[Path]:
    """A split file, or the split files of the dataset's folder."""
    path = Path(path)
    if path.is_dir():
        files = [path / f"{name}.json" for name in SPLITS if (path / f"{name}.json").exists()]
        if not files:
            raise FormatError("no train.json, val.json or test.json here: give OmniACT's folder (where data.zip "
                              "was unzipped) or one of its split files", path)
        return files
    if not path.exists():
        raise FormatError("file not found", path)
    return [path]


def _renamed(name: str, suffix: str = "") -> list[str]:
    """The name the split file gives, then the one some copies use: screen_1.png -> screen1.png,
    screen_1.json -> screen1_boxes.json."""
    path = PurePosixPath(name)
    if not path.name:  # "", "." or "/": nothing to rename, the lookup names what was given
        return [name]
    other = path.name.replace("screen_", "screen", 1)
    if suffix:
        other = other.removesuffix(".json") + suffix
    return list(dict.fromkeys([name, str(path.with_name(other))]))


def _dataset_file(names: list[str], root: Path, where: Where, field: str, what: str) -> Path:
    """A task or box file under the dataset's folder (paths in a split file are relative to it)."""
    for name in names:
        candidate = root / name
        if is_file(candidate):
            if not is_within(candidate, root):
                raise where.error(f"{what} {candidate} lies outside the dataset's folder {root}", field)
            return candidate
    raise where.error(f"{what} not found: looked for {', '.join(visible(str(root / n))[-200:] for n in names)}; OmniACT's "
                      f"paths are relative to the folder of {where.file.name} (unzip data.zip there)", field)


# -- the task file ------------------------------------------------------------------------------------------
def parse_task(text: str, file: Path) -> tuple[str, list[dict], list[str]]:
    """The task, its pyautogui calls ({"call", "line", "numbers", "texts"}) and the script's lines."""
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None or not lines[first].strip().lower().startswith("task:"):
        raise FormatError("expected the first line to be 'Task: <what to do>'", file, (first or 0) + 1, "Task")
    goal = lines[first].strip()[len("task:"):].strip()
    if not goal:
        raise FormatError("the task is empty", file, first + 1, "Task")
    script, calls = [], []
    for number, line in enumerate(lines[first + 1:], start=first + 2):
        if not line.strip() or line.strip().lower() == "output script:":
            continue
        script.append(line.strip())
        found = _CALL.fullmatch(line)
        if found:
            calls.append(_call(found.group(1), found.group(2), Where(file, number)))
    if not calls:
        raise FormatError("no pyautogui call in the Output Script", file, None, "Output Script")
    return goal, calls, script


def _call(name: str, args: str, where: Where) -> dict:
    numbers = []
    for literal in _NUMBER.findall(_TEXT.sub("", args)):
        value = float(literal)  # a 400-digit literal reads as infinity
        if not math.isfinite(value):
            raise where.error(f"pyautogui.{name} has a number that is not finite: {shown(literal, 40)}", "Output Script")
        numbers.append(value)
    texts = [a if a is not None else b for a, b in _TEXT.findall(args)]
    return {"call": name, "line": where.line, "numbers": numbers, "texts": texts}


# -- the box file -------------------------------------------------------------------------------------------
def _corner(entry: dict, key: str, where: Where, prefix: str) -> tuple[float, float]:
    value = require(entry, key, list, where, prefix)
    if len(value) != 2 or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        raise where.error(f"expected two numbers [x, y], got {shown(value)}", prefix + key)
    x, y = (finite(v) for v in value)  # None for NaN, infinity, an integer past 1e308
    if x is None or y is None:
        raise where.error(f"{shown(value)} is not a finite point in pixels", prefix + key)
    return x, y


def read_boxes(file: Path) -> list[tuple[str, tuple[float, float, float, float], str]]:
    """(element name, x1 y1 x2 y2, label) of every element of a box file."""
    data = read_json(file)
    where = Where(file, None)
    if not isinstance(data, dict):
        raise where.error(f"expected an object mapping each element to its box, got {got(data)}")
    elements = []
    for name, entry in data.items():
        prefix = f"{name}."
        if not isinstance(entry, dict):
            raise where.error(f"expected an object with top_left and bottom_right, got {got(entry)}", name)
        x1, y1 = _corner(entry, "top_left", where, prefix)
        x2, y2 = _corner(entry, "bottom_right", where, prefix)
        label = entry.get("label")
        elements.append((name, (x1, y1, x2, y2), label if isinstance(label, str) else name))
    return elements


def _element_at(x: float, y: float, elements):
    """The element centred on the point (eval.py's rule), else the smallest holding it; None if none does."""
    holding = [e for e in elements if e[1][0] <= x <= e[1][2] and e[1][1] <= y <= e[1][3]]
    if not holding:
        return None

    def rank(element):
        x1, y1, x2, y2 = element[1]
        centred = abs((x1 + x2) / 2 - x) < 1e-6 and abs((y1 + y2) / 2 - y) < 1e-6
        return (not centred, (x2 - x1) * (y2 - y1))
    return min(holding, key=rank)


def gold_action(calls: list[dict], elements, field: str) -> BoxRecord:
    for call in calls:
        if call["call"] in POINTING and len(call["numbers"]) >= 2:
            x, y = call["numbers"][:2]
            kind = POINTING[call["call"]]
            meta = {"call": call["call"], "x": x, "y": y}
            element = _element_at(x, y, elements)
            if element is None:
                return BoxRecord(label="gold", box=(x, y, x, y), action_type=kind, meta={**meta, "point": True},
                                 field=field)
            name, box, label = element
            return BoxRecord(label="gold", box=box, action_type=kind, element_text=label,
                             meta={**meta, "element": name}, field=field)
    call = calls[0]
    kind = _OTHERS.get(call["call"], "other")
    meta = {"call": call["call"]}
    if kind == "key":
        meta["keys"] = call["texts"]
    if kind == "scroll" and call["numbers"]:
        meta["amount"] = call["numbers"][0]
    return BoxRecord(label="gold", box=None, action_type=kind, meta=meta, field=field,
                     type_text=call["texts"][0] if kind == "type" and call["texts"] else "")


# -- the split file -----------------------------------------------------------------------------------------
def read(path: Path, options) -> list[EpisodeRecord]:
    records: list[EpisodeRecord] = []
    boxes: dict[Path, list] = {}  # a screen's box file serves every task on that screen
    for file in split_files(path):
        data = read_json(file)
        if not isinstance(data, dict):
            raise FormatError(f"expected an object mapping each task's number to its task, image and box files, "
                              f"got {got(data)}", file)
        root = file.parent
        split = file.stem if file.stem in SPLITS else ""
        bases = image_bases(file, options.images_dir)
        where = Where(file, None)
        for key, entry in data.items():
            prefix = f"{key}."
            if not isinstance(entry, dict):
                raise where.error(f"expected an object with task, image and box, got {got(entry)}", key)
            task_name = require(entry, "task", str, where, prefix)
            image_name = require(entry, "image", str, where, prefix)
            box_name = require(entry, "box", str, where, prefix)
            task_file = _dataset_file([task_name], root, where, prefix + "task", "task file")
            goal, calls, script = parse_task(read_text(task_file), task_file)
            box_file = _dataset_file(_renamed(box_name, "_boxes.json"), root, where, prefix + "box", "box file")
            if box_file not in boxes:
                boxes[box_file] = read_boxes(box_file)
            image = find_inside([n for name in _renamed(image_name) for n in names_to_try(name)], bases, where,
                                prefix + "image")
            platform = "desktop" if "desktop" in PurePosixPath(image_name).parts else "web"
            extra = {k: v for k, v in entry.items() if k not in ("task", "image", "box")}
            records.append(EpisodeRecord(
                key=f"omniact-{split or file.stem}-{key}", where=where, goal=goal, scenario=SCENARIO, split=split,
                meta={"omniact": {"id": key, "task": task_name, "box": box_name, **extra}},
                steps=[StepRecord(
                    image=image, platform=platform, screen_source=image_name,
                    boxes=[gold_action(calls, boxes[box_file], prefix + "task")],
                    meta={"omniact": {"script": script}}, field=prefix, image_field=prefix + "image",
                )],
            ))
    if not records:
        raise FormatError("no tasks found", path)
    return records


# -- what the Import dialog reads to recognise it -----------------------------------------------------------
def sign(path: Path) -> str | None:
    """'omniact' when a .json file opens with a task number mapped to its task, image and box files."""
    if path.suffix.lower() != ".json":
        return None
    with open(path, "rb") as fh:
        head = fh.read(HEAD_BYTES).decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    opening = re.match(r"\{\s*\"(?:[^\"\\]|\\.)*\"\s*:\s*", head)
    if not opening:
        return None
    try:
        first, _ = json.JSONDecoder().raw_decode(head, opening.end())
    except ValueError:
        return None
    return SPEC.name if isinstance(first, dict) and {"task", "image", "box"} <= first.keys() else None


def folder_sign(folder: Path) -> str | None:
    files = [folder / f"{name}.json" for name in SPLITS if is_file(folder / f"{name}.json")]
    return sign(files[0]) if files else None


SPEC = FormatSpec(
    name="omniact",
    description="OmniACT: split files (train/val/test.json) naming each task's text + PyAutoGUI script, screenshot "
                "and screen boxes; the gold action is the box the script's click lands in",
    read=read,
)
