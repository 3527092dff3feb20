"""Format-neutral records that readers produce and writers consume.

Readers only parse: they turn a file into EpisodeRecords and raise FormatError
with the file, line and field. Checking images and boxes against each other and
writing to the project happens once, in formats/ingest.py, for every format.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PureWindowsPath
from typing import Any


class FormatError(ValueError):
    """Bad input, located as precisely as we can: file, line, field."""

    def __init__(self, message: str, file: Path | str | None = None, line: int | None = None,
                 field: str | None = None):
        self.message = message
        self.file = str(file) if file is not None else None
        self.line = line
        self.field = field
        super().__init__(str(self))

    def __str__(self) -> str:
        where = []
        if self.file:
            where.append(self.file)
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.field:
            where.append(f"field '{self.field}'")
        return (", ".join(where) + ": " if where else "") + self.message


@dataclass(frozen=True)
class Where:
    """A location in the input, used to build FormatErrors."""

    file: Path
    line: int | None = None

    def error(self, message: str, field: str | None = None) -> FormatError:
        return FormatError(message, self.file, self.line, field)


@dataclass
class BoxRecord:
    label: str
    box: tuple[float, float, float, float] | None  # x1, y1, x2, y2 in image pixels
    element_text: str = ""
    action_type: str = "click"
    type_text: str = ""
    source: str = "import"
    author: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    created_at: datetime | None = None
    updated_at: datetime | None = None
    version: int = 1
    field: str = ""  # where in the record it came from, for error messages


@dataclass
class StepRecord:
    image: Path | None  # the file, a name for messages when image_bytes holds the picture, None for a probe
    boxes: list[BoxRecord] = field(default_factory=list)
    expected_sha256: str | None = None
    platform: str = "web"
    screen_source: str = ""
    screen_meta: dict[str, Any] = field(default_factory=dict)
    instruction: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    captions: dict[str, str] = field(default_factory=dict)  # captioner -> description of the screen
    field: str = ""
    image_bytes: bytes | None = None  # a picture made in memory (a render), checked like a file
    tree_xml: str = ""  # the screen's accessibility tree (uiautomator dump), checked by the reader


@dataclass
class EpisodeRecord:
    key: str
    where: Where
    goal: str = ""
    scenario: str = ""
    split: str = ""
    review_status: str = "unreviewed"
    meta: dict[str, Any] = field(default_factory=dict)
    steps: list[StepRecord] = field(default_factory=list)
    reviews: list[dict[str, Any]] = field(default_factory=list)
    kind: str = "sample"  # or "trajectory" (an agent's steps, judged as a whole), "probe" (a question, no screen)
    labels: list[dict[str, Any]] = field(default_factory=list)  # trajectory labels: annotator, outcome, comment


def _read_utf8(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise FormatError("file not found", path) from None
    except IsADirectoryError:
        raise FormatError("is a folder; expected a file", path) from None
    try:
        return raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise FormatError(f"not valid UTF-8 (byte {column} of the line); save the file as UTF-8",
                          path, line) from None


def read_jsonl(path: Path) -> list[tuple[Where, Any]]:
    rows = []
    for number, text in enumerate(_read_utf8(path).split("\n"), start=1):
        if not text.strip():
            continue
        where = Where(path, number)
        try:
            rows.append((where, json.loads(text)))
        except json.JSONDecodeError as exc:
            raise where.error(f"invalid JSON: {exc.msg} at column {exc.colno}") from None
    return rows


def read_json(path: Path) -> Any:
    try:
        return json.loads(_read_utf8(path))
    except json.JSONDecodeError as exc:
        raise FormatError(f"invalid JSON: {exc.msg} at column {exc.colno}", path, exc.lineno) from None


def require(obj: Any, key: str, kind: type | tuple[type, ...], where: Where, prefix: str = "") -> Any:
    name = f"{prefix}{key}"
    if not isinstance(obj, dict) or key not in obj:
        raise where.error("missing", name)
    value = obj[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _as_tuple(kind)):
        raise where.error(f"expected {_kind_name(kind)}, got {type(value).__name__}", name)
    return value


def optional(obj: dict, key: str, kind: type | tuple[type, ...], where: Where, default: Any,
             prefix: str = "") -> Any:
    if key not in obj or obj[key] is None:
        return default
    return require(obj, key, kind, where, prefix)


def _as_tuple(kind) -> tuple:
    return kind if isinstance(kind, tuple) else (kind,)


def _kind_name(kind) -> str:
    names = {str: "text", int: "integer", float: "number", list: "list", dict: "object", bool: "true/false"}
    return " or ".join(names.get(k, k.__name__) for k in _as_tuple(kind))


def parse_box(value: Any, where: Where, field: str) -> tuple[float, float, float, float]:
    """Four numbers x1, y1, x2, y2; order and bounds are checked later against the image."""
    if not isinstance(value, (list, tuple)) or len(value) != 4:
        raise where.error(f"expected 4 numbers [x1, y1, x2, y2], got {json.dumps(value)[:80]}", field)
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        raise where.error(f"box coordinates must be numbers, got {json.dumps(value)[:80]}", field)
    return tuple(float(v) for v in value)  # type: ignore[return-value]


def resolve_image(name: str, bases: list[Path], where: Where, field: str) -> Path:
    """The first existing file among the bases; the error lists every place looked at.

    Images are read only under the folders the user named: a relative path that leaves them (`..`, a
    symlink pointing out) is refused by name, and an absolute path (the authors' records carry their own)
    is looked up in them by its file name."""
    return find_inside(names_to_try(name), bases, where, field)


def names_to_try(name: str) -> list[str]:
    """An image name as a record gives it, or its file name alone when it is absolute (a Windows path too)."""
    windows = PureWindowsPath(name)
    if Path(name).is_absolute() or windows.is_absolute() or windows.drive:
        return [windows.name]
    return [name]


def find_inside(names: list[str], bases: list[Path], where: Where, field: str, what: str = "image") -> Path:
    tried, outside = [], []
    for name in dict.fromkeys(names):
        for base in bases:
            path = base / name
            tried.append(path)
            if path.is_file():
                if not is_within(path, base):
                    outside.append(path)
                    continue
                return path
    if outside:
        raise where.error(f"{what} {outside[0]} lies outside the folders this import reads "
                          f"({', '.join(str(b) for b in bases)}); copy it inside them or point --images at its folder",
                          field)
    raise where.error(f"{what} not found; looked for " + ", ".join(str(p) for p in tried[:6])
                      + (f" and {len(tried) - 6} more" if len(tried) > 6 else ""), field)


def is_within(path: Path, folder: Path) -> bool:
    """Whether the file a path names (symlinks followed) lies inside the folder."""
    try:
        path.resolve().relative_to(folder.resolve())
    except (ValueError, OSError):
        return False
    return True


def parse_time(value: Any, where: Where, field: str) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise where.error("expected an ISO 8601 time string", field)
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise where.error(f"not an ISO 8601 time: {value!r}", field) from None
    if parsed.tzinfo is None:
        raise where.error(f"time {value!r} has no time zone (add +00:00)", field)
    return parsed


def image_bases(source: Path, images_dir: Path | None, *extra: str) -> list[Path]:
    """Where a format's relative image paths may point: --images first, then beside the file."""
    base = source if source.is_dir() else source.parent
    bases = [images_dir] if images_dir else []
    bases.append(base)
    bases.extend(base / e for e in extra)
    return bases


def read_json_objects(path: Path, images_dir: Path | None, parse, what: str, *extra_dirs: str) -> list:
    """Every `*.json` file of `path`, each one object or a list of them, through
    parse(obj, where, image_bases, field_prefix); a clear error when there are none."""
    records = []
    for file in input_files(Path(path), ".json"):
        data = read_json(file)
        bases = image_bases(file, images_dir, *extra_dirs)
        where = Where(file, None)
        if isinstance(data, list):
            records += [parse(obj, where, bases, f"[{i}].") for i, obj in enumerate(data)]
        else:
            records.append(parse(data, where, bases, ""))
    if not records:
        raise FormatError(f"no {what} found", path)
    return records


def read_jsonl_objects(path: Path, images_dir: Path | None, parse, what: str) -> list:
    """Every `*.jsonl` file of `path`, one object per line, through parse(obj, where, image_bases)."""
    records = []
    for file in input_files(Path(path), ".jsonl"):
        bases = image_bases(file, images_dir)
        records += [parse(obj, where, bases) for where, obj in read_jsonl(file)]
    if not records:
        raise FormatError(f"no {what} found", path)
    return records


def input_files(path: Path, suffix: str) -> list[Path]:
    """The file itself, or every `*<suffix>` file of a folder (sorted); a clear error when none."""
    path = Path(path)
    if path.is_dir():
        files = sorted(path.glob(f"*{suffix}"))
        if not files:
            raise FormatError(f"no {suffix} files in this folder", path)
        return files
    if not path.exists():
        raise FormatError("file not found", path)
    return [path]
