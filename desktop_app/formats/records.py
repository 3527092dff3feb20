"""Format-neutral records that readers produce and writers consume.

Readers only parse: they turn a file into EpisodeRecords and raise FormatError
with the file, line and field. Checking images and boxes against each other and
writing to the project happens once, in formats/ingest.py, for every format.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PureWindowsPath
from typing import Any

from desktop_app.formats.budget import MAX_RECORD


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
        # text from the file (a value, a key, a path) may hold control characters: written out, a NUL or an
        # escape sequence can neither cut the message short in a dialog nor drive the terminal; lines stay lines
        return _UNPRINTABLE.sub(_escaped, (", ".join(where) + ": " if where else "") + self.message)


@dataclass(frozen=True)
class Where:
    """A location in the input, used to build FormatErrors."""

    file: Path
    line: int | None = None

    def error(self, message: str, field: str | None = None) -> FormatError:
        return FormatError(message, self.file, self.line, field)


@dataclass
class BoxRecord:
    # the file's name for the box: a role (gold, distracted, other, any case) or else its class, as the file
    # spells it (ingest.role_and_class)
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
    # The box's numbers are on a grid this wide x high laid over the image, not in pixels: (1, 1) for 0-1
    # fractions (AITW), (1000, 1000) for GUI-Odyssey's 0-1000, (100, 100) for percent. Only ingest knows the
    # image's size: it turns the box into pixels there, refusing numbers off the grid. None: pixels.
    grid: tuple[float, float] | None = None
    # the shape the tool drew when it was not a rectangle ("polygon"), taken as its bounding box (--shapes bbox):
    # the import's summary counts them
    shape: str = ""
    # the role of a box whose label is a class, when the file says it (our exports' "role" attribute); else other
    role: str = ""
    # its label's place in the file's own list of categories (COCO's categories, YOLO's names), so the classes an
    # import adds keep the file's order (class 37 of the file is the project's 37th); None: order of appearance
    class_rank: int | None = None


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
    skipped_shapes: list[str] = field(default_factory=list)  # shapes left out by --shapes skip ("point"), counted
    field: str = ""
    image_bytes: bytes | None = None  # a picture made in memory (a render), checked like a file
    tree_xml: str = ""  # the screen's accessibility tree (uiautomator dump), checked by the reader
    image_field: str = ""  # the field that named the image, as the user's file calls it; default field + "image"
    # The picture's width and height as the record states them (AndroidControl's screenshot_widths / _heights):
    # ingest refuses an image of another size, naming size_field, since the record's pixels would not fit it.
    expected_size: tuple[int, int] | None = None
    size_field: str = ""

    @property
    def image_named_by(self) -> str:
        return self.image_field or self.field + "image"


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


def _open_binary(path: Path):
    """The file open for reading bytes, or a FormatError saying why it cannot be."""
    if path.exists() and not path.is_file() and not path.is_dir():
        raise FormatError("not a regular file (a pipe or a device?); reading it would wait forever", path)
    try:
        return open(path, "rb")  # noqa: SIM115 - the caller closes it
    except FileNotFoundError:
        raise FormatError("file not found", path) from None
    except IsADirectoryError:
        raise FormatError("is a folder; expected a file", path) from None
    except OSError as exc:
        raise FormatError(f"cannot read the file ({exc.strerror or exc})", path) from None


def open_binary(path: Path):
    """The file open for reading bytes (a reader streaming it closes it), or a FormatError saying why not."""
    return _open_binary(path)


def _read_utf8(path: Path) -> str:
    with _open_binary(path) as file:
        try:
            raw = file.read()
        except OSError as exc:
            raise FormatError(f"cannot read the file ({exc.strerror or exc})", path) from None
    try:
        return raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise FormatError(f"not valid UTF-8 (byte {column} of the line); save the file as UTF-8",
                          path, line) from None


# Python refuses to read integers longer than this (4,300 digits) rather than spend quadratic time on them
_LONG_INTEGER = re.compile(rf"\d{{{sys.get_int_max_str_digits() + 1},}}")
MAX_DEPTH = 100  # nesting a record may have; real datasets stay under 20, Python's parser stops near 1,000


def _loads(text: str, path: Path, line: int | None):
    """json.loads with every way it can fail turned into a FormatError naming the line and column, and what it
    read checked for what no project can store (see unstorable)."""
    odd: list[str] = []  # the numbers read as NaN or infinity (1e400 is read as inf), noted as the parser meets them

    def number(literal: str) -> float:
        value = float(literal)
        if not math.isfinite(value):
            odd.append(literal)
        return value

    def constant(literal: str) -> float:
        odd.append(literal)
        return float(literal)

    try:
        value = json.loads(text, parse_float=number, parse_constant=constant)
    except json.JSONDecodeError as exc:
        raise FormatError(f"invalid JSON: {exc.msg} at column {exc.colno}", path, line or exc.lineno) from None
    except RecursionError:  # the parser recurses once per level: thousands of nested lists exhaust its stack
        index = too_deep_at(text)
        problem = f"lists or objects nested more than {MAX_DEPTH} levels deep"
    except ValueError:
        found = _LONG_INTEGER.search(text)
        index = found.start() if found else None
        problem = (f"a number with {len(found.group()):,} digits; no coordinate, size or id is that long" if found
                   else "a number Python cannot read")
    else:
        # walking every value costs as much as parsing: only when a number was odd, a surrogate escape is there
        # (\\udXXX), or there are brackets enough to nest past MAX_DEPTH
        if odd or "\\ud" in text or "\\uD" in text or text.count("[") + text.count("{") > MAX_DEPTH:
            return _check_parsed(value, path, line)
        return value
    if index is None:
        raise FormatError(problem, path, line)
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    raise FormatError(f"{problem} (column {column})", path, line or text.count("\n", 0, index) + 1)


def too_deep_at(text: str, start: int = 0, depth: int = 0) -> int | None:
    """Where lists or objects first nest deeper than MAX_DEPTH (brackets inside strings do not count), reading
    `text` from `start` at nesting `depth` (json_stream.py reads a file piece by piece)."""
    in_string, escaped = False, False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return i
        elif ch in "]}":
            depth -= 1
    return None


class JsonLines:
    """The objects of a JSON Lines file as (Where, object), read a line at a time: a file of a million
    episodes is never held whole (issue 19: import in bounded memory). Fails as the whole-file reading did,
    a FormatError naming the line (blank lines skipped, a byte-order mark dropped), only when the reading
    comes to that line: what ingest takes in one pass and refuses whole. bytes_read: how far it got."""

    def __init__(self, path: Path, max_line: int = MAX_RECORD):
        self.path = Path(path)
        self.bytes_read = 0
        self.max_line = max_line

    def __iter__(self) -> Iterator[tuple[Where, Any]]:
        self.bytes_read = 0
        with _open_binary(self.path) as file:
            number = 0
            while True:
                # a line is read up to the budget's one-piece limit, never further: a file of one endless line
                # is refused without holding it (ADR 0039)
                raw = file.readline(self.max_line + 1)
                if not raw:
                    return
                number += 1
                if len(raw) > self.max_line:
                    raise FormatError(f"the line is longer than {self.max_line:,} bytes, the limit for one record "
                                      "(is this a JSON Lines file?)", self.path, number)
                self.bytes_read += len(raw)
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise FormatError(f"not valid UTF-8 (byte {exc.start + 1} of the line); save the file as UTF-8",
                                      self.path, number) from None
                if number == 1:
                    text = text.removeprefix("\ufeff")
                if text.strip():
                    yield Where(self.path, number), _loads(text, self.path, number)

    def read_fraction(self) -> float:
        try:
            return min(self.bytes_read / max(self.path.stat().st_size, 1), 1.0)
        except OSError:
            return 0.0


class JsonLinesRecords:
    """make(where, object) of each line of a JSON Lines file, as ingest takes them: one at a time, with
    read_fraction() for its progress."""

    def __init__(self, path: Path, make: Callable[[Where, Any], Any]):
        self.lines, self.make = JsonLines(path), make

    def __iter__(self) -> Iterator[Any]:
        for where, obj in self.lines:
            yield self.make(where, obj)

    def read_fraction(self) -> float:
        return self.lines.read_fraction()


def read_jsonl(path: Path) -> list[tuple[Where, Any]]:
    return list(JsonLines(path))


def read_json(path: Path) -> Any:
    return _loads(_read_utf8(path), path, None)


def read_text(path: Path) -> str:
    """A whole text file (TSV, a task's .txt) as UTF-8, a BOM dropped; a FormatError naming the line where it
    is not UTF-8, and for a pipe, a folder or a file that is not there."""
    return _read_utf8(path)


def got(value: Any) -> str:
    """What a value is, for 'expected X, got Y': Python's name for ordinary values (as messages always said),
    JSON's for the rest (null, NaN, Infinity), never 'NoneType'."""
    if value is None:
        return "null"
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return type(value).__name__


def unstorable(value: Any, path: str = "") -> str | None:
    """What in a value cannot be stored, said with where it is; None when all is well: a text holding what
    UTF-8 cannot encode (a lone surrogate from a JSON \\ud800 escape), a number that is not finite (NaN,
    Infinity, 1e400), lists or objects nested deeper than MAX_DEPTH. Any of these, once stored, would break
    every later export or the JSON encoder. Walked with a stack, so a deep value cannot exhaust Python's."""
    if _all_storable(value):  # the common case, without building a path for every value
        return None
    stack = [(value, path, 0)]
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, str):
            if not value.isascii():
                try:
                    value.encode("utf-8")
                except UnicodeEncodeError as exc:
                    return (f"{path or 'a text'} holds a lone surrogate (U+{ord(value[exc.start]):04X}), "
                            "which no file can store")
        elif isinstance(value, float) and not math.isfinite(value):
            return f"{path or 'a number'} is {got(value)}, not a finite number (NaN, Infinity or past 1e308)"
        elif isinstance(value, (dict, list, tuple)):
            if depth >= MAX_DEPTH:
                return f"{path or 'a value'} nests lists or objects more than {MAX_DEPTH} levels deep"
            items = list(value.items() if isinstance(value, dict) else enumerate(value))
            for k, v in reversed(items):
                if isinstance(value, dict):
                    key = _printable(k)
                    if isinstance(k, str) and key != k:
                        return f"{path or 'an object'} has a key holding a lone surrogate ({key!r})"
                    stack.append((v, f"{path}.{key}" if path else key, depth + 1))
                else:
                    stack.append((v, f"{path}[{k}]", depth + 1))
    return None


def _all_storable(value: Any) -> bool:
    stack = [(value, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            if not value.isascii() and _printable(value) != value:
                return False
        elif isinstance(value, float):
            if not math.isfinite(value):
                return False
        elif isinstance(value, dict):
            if depth >= MAX_DEPTH or not all(isinstance(k, str) and (k.isascii() or _printable(k) == k) for k in value):
                return False
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, (list, tuple)):
            if depth >= MAX_DEPTH:
                return False
            stack.extend((v, depth + 1) for v in value)
    return True


def _printable(text: Any) -> str:
    """A text with any lone surrogate shown as an escape, so a message about it can itself be printed."""
    return str(text).encode("utf-8", "backslashreplace").decode("utf-8")


def check_storable(value: Any, where: Where, field: str) -> Any:
    """The value, or a FormatError naming the field when it cannot be stored (see unstorable)."""
    problem = unstorable(value)
    if problem:
        raise where.error(problem, field)
    return value


def _check_parsed(value: Any, path: Path, line: int | None) -> Any:
    """A file's parsed JSON, or a FormatError for the first value no project can store, named in the file's own
    field names as the readers name them ('meta', '[0].instruction') with the rest of the way in the message."""
    for name, inner in _top_fields(value):
        problem = unstorable(inner)
        if problem:
            raise FormatError(problem, path, line, name or None)
    return value


def _top_fields(value: Any, prefix: str = ""):
    if isinstance(value, dict):
        for key, inner in value.items():
            if not isinstance(key, str) or _printable(key) != key:  # the key itself is the problem: unstorable says so
                yield prefix.rstrip("."), {key: inner}
            else:
                yield prefix + key, inner
    elif isinstance(value, list) and not prefix:
        for i, inner in enumerate(value):
            yield from _top_fields(inner, f"[{i}].") if isinstance(inner, dict) else [(f"[{i}]", inner)]
    else:
        yield prefix.rstrip("."), value


def require(obj: Any, key: str, kind: type | tuple[type, ...], where: Where, prefix: str = "") -> Any:
    name = f"{prefix}{key}"
    if not isinstance(obj, dict) or key not in obj:
        raise where.error("missing", name)
    value = obj[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _as_tuple(kind)):
        raise where.error(f"expected {_kind_name(kind)}, got {got(value)}", name)
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


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_UNPRINTABLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # control characters but line feeds and tabs


def _escaped(match: re.Match) -> str:
    return f"\\x{ord(match.group()):02x}"


def visible(text: str) -> str:
    """Text from a file for a message with its control characters written out (a NUL in a path as \\x00): a
    terminal or a dialog would otherwise cut the message there or show nothing."""
    return _CONTROL.sub(_escaped, text)


def shown(value: Any, limit: int = 80) -> str:
    """A value as JSON for a message, cut short; never raises (NaN, huge integers, lone surrogates)."""
    try:
        text = json.dumps(value)
    except (ValueError, TypeError, RecursionError):
        text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def finite(value: Any) -> float | None:
    """A JSON number as a finite float; None for text, true/false, NaN, infinity or an integer past 1e308."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def parse_box(value: Any, where: Where, field: str) -> tuple[float, float, float, float]:
    """Four numbers x1, y1, x2, y2; order and bounds are checked later against the image."""
    if not isinstance(value, (list, tuple)) or len(value) != 4:
        raise where.error(f"expected 4 numbers [x1, y1, x2, y2], got {shown(value)}", field)
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        raise where.error(f"box coordinates must be numbers, got {shown(value)}", field)
    numbers = [finite(v) for v in value]
    if None in numbers:
        raise where.error(f"box {shown(value)} has a coordinate that is not a finite number of pixels", field)
    return tuple(numbers)  # type: ignore[return-value]


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
            if is_file(path):
                if not is_within(path, base):
                    outside.append(path)
                    continue
                return path
    if outside:
        raise where.error(f"{what} {outside[0]} lies outside the folders this import reads "
                          f"({', '.join(str(b) for b in bases)}); copy it inside them or point --images at its folder",
                          field)
    raise where.error(f"{what} not found; looked for " + ", ".join(short_path(p) for p in tried[:6])
                      + (f" and {len(tried) - 6} more" if len(tried) > 6 else "")
                      + f"; if the {what}s are in another folder, name it with --images (the Import dialog's "
                        "'Images folder')", field)


def is_file(path: Path) -> bool:
    """Path.is_file, False for a name the system cannot even look up (too long: ENAMETOOLONG)."""
    try:
        return path.is_file()
    except OSError:
        return False


def short_path(path: Path | str, limit: int = 200) -> str:
    """A path for a message: a name thousands of characters long is cut, a NUL shown as \\x00."""
    text = str(path).replace("\0", "\\x00")
    return text if len(text) <= limit else text[:limit // 2] + "..." + text[-limit // 2:]


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
    try:  # the project stores UTC: 9999-12-31T23:59-23:59 is a valid time that UTC cannot hold
        parsed.astimezone(UTC)
    except OverflowError:
        raise where.error(f"time {value!r} lies past the year 9999 or before the year 1 in UTC", field) from None
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
