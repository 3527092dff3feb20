"""Android in the Wild (AITW) as SeeClick releases it: `aitw_data_{train,val,test}.json`. Import only.

Definition: njucckevin/SeeClick, agent_tasks/readme_agent.md (the download), agent_tasks/aitw_test.py and
agent_tasks/action_matching.py (how each field is read), agent_tasks/action_type.py (the action codes, from
google-research android_in_the_wild). The file is an object of categories (general, single, webshopping,
install, googleapps), each a list of episodes, each a list of steps:

    img_filename     str           the screenshot without its extension: SeeClick opens <imgs_dir>/<name>.png
    goal             str           the episode's instruction (repeated on every step)
    action_type_id   int           3 type, 4 dual point (tap or swipe), 5 back, 6 home, 7 enter,
                                   10 task complete, 11 task impossible
    action_type_text str           for 4: "click", or "scroll down" / "up" / "left" / "right"
    touch, lift      [x, y]        where the finger went down and up, as fractions 0-1 of the screen
    type_text        str           for 3
    annot_position   [y, x, h, w, ...]  the screen's detected elements, flattened, fractions 0-1 (kept in meta)
    ep_id?, step?    the AITW episode id and step number, when present

Surprises: `touch` and `lift` are [x, y] (x first) while `annot_position` is [y, x, height, width], AITW's own
order; SeeClick's evaluation swaps touch / lift to (y, x) before AITW's matching function (action_matching.py
action_2_format; confirmed by its author in njucckevin/SeeClick issue #49). Coordinates are fractions of the
image, not pixels: a tap becomes a point box on the image's 0-1 grid (BoxRecord.grid), which the import
turns into pixels with the screenshot's own size. A tap is the midpoint of touch and lift, as SeeClick takes it.
Scrolls keep their direction (from action_type_text, SeeClick's convention) and no box.

Each step's action becomes its one gold action: click -> a point; type -> `type` with the text; back / home ->
navigate_back / navigate_home; enter -> `key` (meta key: enter); complete / impossible -> no action box,
meta status. Screenshots are looked for under --images, beside the file, and in aitw_images/ or aitw_imgs/
beside it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from desktop_app.formats.json_stream import Item, JsonArrays
from desktop_app.formats.records import (
    BoxRecord,
    EpisodeRecord,
    FormatError,
    StepRecord,
    Where,
    check_storable,
    find_inside,
    finite,
    got,
    image_bases,
    input_files,
    names_to_try,
    optional,
    require,
    shown,
)
from desktop_app.formats.spec import FormatSpec
from desktop_app.images import IMAGE_SUFFIXES

SCENARIO = "navigation"
PLATFORM = "android"
IMAGE_FOLDERS = ("aitw_images", "aitw_imgs")
FILE_NAME = re.compile(r"aitw_data_(\w+)\.json$", re.IGNORECASE)
TYPE, DUAL_POINT, BACK, HOME, ENTER, COMPLETE, IMPOSSIBLE = 3, 4, 5, 6, 7, 10, 11
ACTION_CODES = {TYPE: "type", DUAL_POINT: "dual point (tap or scroll)", BACK: "press back", HOME: "press home",
                ENTER: "press enter", COMPLETE: "status task complete", IMPOSSIBLE: "status task impossible"}
_SCROLLS = ("scroll down", "scroll up", "scroll left", "scroll right")
_READ = {"img_filename", "goal", "action_type_id", "action_type_text", "touch", "lift", "type_text", "ep_id"}


def _fraction_point(step: dict, key: str, where: Where, prefix: str) -> tuple[float, float]:
    value = require(step, key, list, where, prefix)
    numbers = [finite(v) for v in value] if len(value) == 2 else []
    if len(numbers) != 2 or None in numbers:
        raise where.error(f"expected [x, y], two numbers, got {shown(value)}", prefix + key)
    x, y = numbers
    if not (0 <= x <= 1 and 0 <= y <= 1):
        looks = " (these look like pixels)" if max(x, y) > 1.5 else ""
        raise where.error(f"expected [x, y] as fractions 0-1 of the screen, as SeeClick's AITW release writes them, "
                          f"got {shown(value)}{looks}; a file of pixel coordinates is not this format", prefix + key)
    return x, y


def _step_action(step: dict, where: Where, prefix: str) -> tuple[list[BoxRecord], dict]:
    """The step's gold action (none for complete / impossible) and what the step's meta says about it."""
    code = require(step, "action_type_id", int, where, prefix)
    text = optional(step, "action_type_text", str, where, "", prefix).strip().lower()
    name = prefix + "action_type_id"
    meta: dict = {"action_type_id": code, "action_type_text": text}
    if code == DUAL_POINT:
        if text in _SCROLLS:
            meta["direction"] = text.split()[1]
            return [BoxRecord(label="gold", box=None, action_type="scroll", meta={"direction": meta["direction"]},
                              field=name)], meta
        if text != "click":
            raise where.error(f"a dual-point action (4) is 'click' or one of {', '.join(_SCROLLS)}; got {shown(text)}",
                              prefix + "action_type_text")
        (tx, ty), (lx, ly) = _fraction_point(step, "touch", where, prefix), _fraction_point(step, "lift", where, prefix)
        x, y = (tx + lx) / 2, (ty + ly) / 2  # SeeClick's click point: the midpoint of touch and lift
        meta.update(touch=[tx, ty], lift=[lx, ly])
        return [BoxRecord(label="gold", box=(x, y, x, y), grid=(1.0, 1.0), action_type="click", meta={"point": True},
                          field=prefix + "touch")], meta
    if code == TYPE:
        typed = require(step, "type_text", str, where, prefix)
        return [BoxRecord(label="gold", box=None, action_type="type", type_text=typed, field=name)], meta
    if code in (BACK, HOME):
        kind = "navigate_back" if code == BACK else "navigate_home"
        return [BoxRecord(label="gold", box=None, action_type=kind, field=name)], meta
    if code == ENTER:
        return [BoxRecord(label="gold", box=None, action_type="key", meta={"key": "enter"}, field=name)], meta
    if code in (COMPLETE, IMPOSSIBLE):
        meta["status"] = "complete" if code == COMPLETE else "impossible"
        return [], meta
    codes = ", ".join(f"{c} {what}" for c, what in ACTION_CODES.items())
    raise where.error(f"unknown action_type_id {code} (one of: {codes})", name)


def _image_names(name: str) -> list[str]:
    """SeeClick stores the name without '.png' and adds it when it opens the file."""
    names = names_to_try(name)
    return names if Path(name).suffix.lower() in IMAGE_SUFFIXES else [n + ".png" for n in names] + names


def _episode(steps, where: Where, bases: list[Path], prefix: str, key: str, category: str,
             split: str) -> EpisodeRecord:
    if not isinstance(steps, list):
        raise where.error(f"expected an episode: a list of steps, got {got(steps)}", prefix.rstrip(".") or None)
    if not steps:
        raise where.error("episode has no steps", prefix.rstrip(".") or None)
    records, goal, ep_id = [], None, None
    for j, step in enumerate(steps):
        at = f"{prefix}[{j}]."
        if not isinstance(step, dict):
            raise where.error(f"expected a step object, got {got(step)}", at.rstrip("."))
        image = require(step, "img_filename", str, where, at)
        if not image.strip():
            raise where.error("empty image name", at + "img_filename")
        step_goal = require(step, "goal", str, where, at)
        step_ep = optional(step, "ep_id", (str, int), where, None, at)
        goal = step_goal if goal is None else goal
        ep_id = step_ep if ep_id is None else ep_id
        boxes, action_meta = _step_action(step, where, at)
        rest = {k: v for k, v in step.items() if k not in _READ}
        meta = {"aitw": {**action_meta, **rest}}
        if step_goal != goal:  # AITW repeats the goal on every step; a step that says otherwise keeps its own
            meta["goal"] = step_goal
        check_storable(meta, where, at.rstrip("."))
        records.append(StepRecord(
            image=find_inside(_image_names(image), bases, where, at + "img_filename"), boxes=boxes,
            platform=PLATFORM, screen_source=image, meta=meta, field=at, image_field=at + "img_filename"))
    episode_key = str(ep_id) if ep_id is not None else key
    return EpisodeRecord(key=episode_key, where=where, goal=goal or "", scenario=SCENARIO, split=split,
                         meta={"aitw": {"category": category}}, steps=records)


def _where_in(item: Item, file: Path) -> tuple[str, str]:
    """(category, field prefix) of an episode the file holds: an object of categories, or a bare list of
    episodes."""
    where = Where(file)
    if item.index is None:
        if item.key is not None:
            raise where.error(f"expected a list of episodes, got {got(item.value)}", item.key)
        raise where.error(f"expected an object of categories (general, single, ...) holding lists of episodes, "
                          f"got {got(item.value)}")
    if item.key is None:
        return "", f"[{item.index}]"
    return item.key, f"{item.key}[{item.index}]"


def _size(file: Path) -> int:
    try:
        return file.stat().st_size
    except OSError:  # JsonArrays says what is wrong with it when it comes to it
        return 0


class _Episodes:
    """The episodes of the files, read one at a time (a release's train file is hundreds of MB): ingest takes
    them as they come, and asks read_fraction() how far it got."""

    def __init__(self, path: Path, options):
        self.path, self.options = path, options
        self.files = input_files(path, ".json")
        self.sizes = [_size(f) for f in self.files]
        self.done_bytes = 0
        self.reading: JsonArrays | None = None

    def read_fraction(self) -> float:
        current = self.reading.bytes_read if self.reading is not None else 0
        return min((self.done_bytes + current) / max(sum(self.sizes), 1), 1.0)

    def __iter__(self) -> Iterator[EpisodeRecord]:
        found = False
        for file, size in zip(self.files, self.sizes, strict=True):
            bases = image_bases(file, self.options.images_dir, *IMAGE_FOLDERS)
            named = FILE_NAME.search(file.name)
            split = named.group(1).lower() if named else ""
            self.reading = JsonArrays(file)
            for item in self.reading:
                category, prefix = _where_in(item, file)
                yield _episode(item.value, Where(file), bases, prefix, f"{file.stem}-{prefix}", category, split)
                found = True
            self.reading, self.done_bytes = None, self.done_bytes + size
        if not found:
            raise FormatError("no episodes found", self.path)


def read(path: Path, options) -> Iterable[EpisodeRecord]:
    return _Episodes(Path(path), options)


_OPENING = re.compile(r'\{\s*"(?:general|single|webshopping|install|googleapps)"\s*:\s*\[\s*\[\s*\{')
_SIGN_BYTES = 4096


def sign(path: Path) -> str | None:
    """'aitw' for SeeClick's file name (aitw_data_test.json), or a JSON file opening with one of AITW's categories
    holding episodes whose first step has an action_type_id (the first 4 KB read)."""
    path = Path(path)
    if path.suffix.lower() != ".json":
        return None
    if FILE_NAME.fullmatch(path.name):
        return SPEC.name
    with open(path, "rb") as fh:
        head = fh.read(_SIGN_BYTES).decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    return SPEC.name if _OPENING.match(head) and '"action_type_id"' in head else None


def folder_sign(folder: Path) -> str | None:
    """'aitw' when the folder holds SeeClick's aitw_data_*.json files."""
    return SPEC.name if any(FILE_NAME.fullmatch(p.name) for p in Path(folder).glob("aitw_data_*.json")) else None


SPEC = FormatSpec(
    name="aitw",
    description="Android in the Wild as SeeClick releases it (aitw_data_*.json: categories of episodes, "
                "touch / lift as 0-1 fractions; import only)",
    read=read,
)
