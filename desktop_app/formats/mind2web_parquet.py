"""Multimodal-Mind2Web: Parquet shards with one row per action and its screenshot inside. Import only.

Source: the dataset card of osunlp/Multimodal-Mind2Web on Hugging Face (README.md, dataset_info and "Data
Fields"; its shards are data/{train,test_task,test_website,test_domain}-000NN-of-000MM-<hash>.parquet). Columns:
    annotation_id, confirmed_task, website, domain, subdomain, action_reprs   the task, repeated on each row
    action_uid          the action
    operation           JSON text {"original_op": ..., "value": ..., "op": ...}
    pos_candidates      a list of JSON texts, one per positive candidate, whose `attributes` is JSON text again
                        (bounding_box_rect: pixels of the page, which here is the screenshot)
    screenshot          Hugging Face's image struct {bytes, path}: the full-length page the action acted on
    target_action_index the action's place in the task, as text ("0"); target_action_reprs its action_reprs line
    raw_html, cleaned_html, neg_candidates   not read (they are most of a shard's bytes)
Rows are grouped into one episode per annotation_id, in the order of target_action_index (row order without it),
whatever shard they sit in, so give the folder of a split's shards: a task cut at a shard's end would otherwise
come in part. A shard's split is read from its name. Operations and boxes as mind2web_actions.py says.
Surprises: "-1,-1,-1,-1" marks an element that was not rendered; the card's "screenshot" was once a path
(the JSON era): a struct with no bytes but a path is looked up under --images and beside the shard.
Only the columns used are read, a batch of rows at a time; each screenshot is kept as the compressed bytes the
shard holds (decoded once, by ingest), so a shard needs memory for its pictures, not for its HTML.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from desktop_app.formats import mind2web_actions as m2w
from desktop_app.formats.parquet_rows import open_parquet, parquet_rows
from desktop_app.formats.records import (
    EpisodeRecord,
    FormatError,
    StepRecord,
    Where,
    check_storable,
    got,
    image_bases,
    resolve_image,
    shown,
)
from desktop_app.formats.spec import FormatSpec

NAME = "mind2web-parquet"
REQUIRED = ("annotation_id", "action_uid", "confirmed_task", "operation", "screenshot")
OPTIONAL = ("pos_candidates", "website", "domain", "subdomain", "action_reprs", "target_action_index",
            "target_action_reprs")
BATCH_ROWS = 64  # rows converted to Python at once: a few dozen full-page screenshots


@dataclass
class _Task:
    where: Where
    goal: str
    split: str
    meta: dict
    rows: list[tuple[int | None, str, StepRecord]] = field(default_factory=list)  # (index, where it is, step)
    uids: dict[str, str] = field(default_factory=dict)  # action_uid -> where it is


def shards(path: Path) -> list[Path]:
    """The file itself, or the *.parquet files of a folder (or of its data/ folder, as the dataset's repository
    holds them), sorted."""
    path = Path(path)
    if path.is_dir():
        for folder in (path, path / "data"):
            found = sorted(p for p in folder.glob("*.parquet"))
            if found:
                return found
        raise FormatError("no .parquet files in this folder (nor in its data/ folder)", path)
    if not path.exists():
        raise FormatError("file not found", path)
    return [path]


def _text(row: dict, column: str, where: Where, name: str) -> str:
    value = row.get(column)
    if not isinstance(value, str):
        raise where.error(f"expected text, got {got(value)}" if value is not None else "missing", name + column)
    if not value:
        raise where.error("empty", name + column)
    return check_storable(value, where, name + column)


def _json(value, where: Where, field_name: str):
    """A cell the dataset stores as JSON text (a struct, when someone saved it again with the datasets library)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            raise where.error(f"not JSON: {shown(value)}", field_name) from None
    return check_storable(value, where, field_name)


def _index(value, where: Where, field_name: str) -> int | None:
    if value is None:
        return None
    digits = value.strip() if isinstance(value, str) else ""
    if digits.isascii() and digits.isdigit() and len(digits) < 10:
        return int(digits)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10**9:
        return value
    raise where.error(f"expected the action's place in the task (\"0\", \"1\", ...), got {shown(value)}", field_name)


def _picture(value, where: Where, field_name: str, bases: list[Path]) -> tuple[bytes | None, Path | None]:
    """(bytes, None) for a picture held in the shard, (None, file) for one it names by path."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value), None
    if isinstance(value, dict):
        data, path = value.get("bytes"), value.get("path")
        if isinstance(data, (bytes, bytearray)) and data:
            return bytes(data), None
        if isinstance(path, str) and path:
            return None, resolve_image(check_storable(path, where, field_name), bases, where, field_name)
    raise where.error(f"expected a picture ({{bytes, path}} with its bytes), got {shown(value, 60)}", field_name)


def _row(row: dict, i: int, file: Path, bases: list[Path], tasks: dict[str, _Task]) -> StepRecord:
    where = Where(file)
    name = f"[{i}]."
    key = _text(row, "annotation_id", where, name)
    uid = _text(row, "action_uid", where, name)
    operation = m2w.read_operation(_json(row.get("operation"), where, name + "operation"), where, name + "operation")
    box, box_field, details = m2w.candidate_box(row.get("pos_candidates"), where, name.rstrip("."))
    reprs = _json(row.get("action_reprs"), where, name + "action_reprs")
    index = _index(row.get("target_action_index"), where, name + "target_action_index")
    text = m2w.repr_text(row.get("target_action_reprs")) or (m2w.element_text(reprs, index) if index is not None
                                                              else "")
    data, image = _picture(row.get("screenshot"), where, name + "screenshot", bases)
    step = StepRecord(
        image=image or Path(f"{file.name}[{i}].screenshot"), image_bytes=data,
        boxes=[m2w.gold(operation, box, box_field, text, details, uid)],
        platform=m2w.PLATFORM, screen_source=f"{file.name}[{i}]",
        meta={"action_uid": uid, **({"target_action_index": index} if index is not None else {})},
        field=name, image_field=name + "screenshot")
    task = tasks.get(key)
    if task is None:
        meta = {k: check_storable(row[k], where, name + k) for k in ("website", "domain", "subdomain")
                if row.get(k) is not None}
        if reprs is not None:
            meta["action_reprs"] = reprs
        task = tasks[key] = _Task(where, _text(row, "confirmed_task", where, name), m2w.split_of(file),
                                  {"mind2web": m2w.task_meta(meta)})
    here = f"row {i} of {file.name}"
    if uid in task.uids:
        raise where.error(f"action {uid} of task {key} comes twice ({task.uids[uid]} and {here}); each action is "
                          "one row: leave the repeated shard out", name + "action_uid")
    task.uids[uid] = here
    task.rows.append((index, here, step))
    return step


def _read_shard(file: Path, options, tasks: dict[str, _Task]) -> list[StepRecord]:
    bases = image_bases(file, options.images_dir)
    with open_parquet(file, "give a .parquet file or a folder of them") as shard:
        names = shard.names
        absent = [c for c in REQUIRED if c not in names]
        if absent:
            raise FormatError(f"no {', '.join(absent)} column: not a Multimodal-Mind2Web shard (it has one row per "
                              f"action with {', '.join(REQUIRED)}, ...)", file)
        columns = [*REQUIRED, *(c for c in OPTIONAL if c in names)]
        return [_row(row, i, file, bases, tasks) for i, row in enumerate(parquet_rows(shard, file, BATCH_ROWS, columns))]


def columns_of(file: Path) -> list[str] | None:
    """A .parquet file's column names, from its footer; None when it cannot be read."""
    try:
        with open_parquet(file) as shard:
            return list(shard.names)
    except FormatError:
        return None


def sign(path: Path) -> str | None:
    """'mind2web-parquet' for a .parquet file with Multimodal-Mind2Web's columns (for the Import dialog's guess)."""
    if path.suffix.lower() != ".parquet":
        return None
    names = columns_of(path)
    return NAME if names is not None and set(REQUIRED) <= set(names) else None


def folder_sign(folder: Path) -> str | None:
    """The same for a folder of shards, or its data/ folder (the dataset repository's layout)."""
    files = sorted(folder.glob("*.parquet"))[:1] or sorted(folder.glob("data/*.parquet"))[:1]
    return sign(files[0]) if files else None


def _episode(key: str, task: _Task) -> EpisodeRecord:
    rows = task.rows
    if all(index is not None for index, _, _ in rows):
        seen: dict[int, str] = {}
        for index, here, _ in rows:
            if index in seen:
                raise task.where.error(f"task {key} has two actions at place {index} ({seen[index]} and {here})",
                                       "target_action_index")
            seen[index] = here
        rows = sorted(rows, key=lambda r: r[0])
    return EpisodeRecord(key=key, where=task.where, goal=task.goal, scenario=m2w.SCENARIO, split=task.split,
                         meta=task.meta, steps=[step for _, _, step in rows])


def read(path: Path, options) -> list[EpisodeRecord]:
    tasks: dict[str, _Task] = {}
    for file in shards(path):
        steps = _read_shard(file, options, tasks)
        m2w.refuse_fractions([(Where(file), b.field, b.box) for s in steps for b in s.boxes if b.box is not None],
                             [(None if s.image_bytes else s.image, s.image_bytes) for s in steps])
    if not tasks:
        raise FormatError("no rows found", path)
    return [_episode(key, task) for key, task in tasks.items()]


SPEC = FormatSpec(
    name=NAME,
    description="Multimodal-Mind2Web Parquet (a shard, or a folder of them): one row per action with its screenshot; "
                "import only",
    read=read,
)
