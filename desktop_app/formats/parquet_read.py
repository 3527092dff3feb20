"""Apache Parquet files read without pyarrow (which is a large share of the installer).

Written from the format's own documents (apache/parquet-format: parquet.thrift, Encodings.md, LogicalTypes.md;
the Thrift compact protocol); the page codecs are cramjam's (ADR 0030). A file is

    "PAR1"  column chunks, each a run of pages (page header in Thrift compact, then the page)  footer  "PAR1"

where the footer is a Thrift FileMetaData followed by its 4-byte length. Only the footer is read on opening; each
row group's selected column chunks are then read (one seek and one read each), decoded into level and value lists,
and put back together into rows as pyarrow's `to_pylist()` gives them (structs as dicts, lists as lists, maps as
lists of (key, value) tuples).

Read: every physical type; PLAIN, dictionary, RLE/bit-packed, BIT_PACKED levels, the DELTA encodings and
BYTE_STREAM_SPLIT; data pages v1 and v2; uncompressed, Snappy, GZIP, LZ4_RAW, LZ4 (Hadoop-framed or bare),
Brotli and ZSTD pages; string, integer, date, time, timestamp, decimal, float16 and INT96
annotations. Not read: LZO compression, encrypted files, VARIANT columns, the
VECTOR repetition; these give a ParquetError that says what to do. Values follow the Parquet schema alone, where
pyarrow also applies the Arrow schema it keeps in the file's metadata: a duration comes out as an int (pyarrow: a
timedelta), a timestamp in a named time zone as the same instant in UTC, and nanoseconds are cut to microseconds
(pyarrow refuses those without pandas). BIT_PACKED levels are unpacked most significant bit first as Encodings.md
says (pyarrow unpacks them the other way round).

A damaged file ends in a ParquetError: every length, offset and count is checked against the bytes there are
before anything is allocated for it. One pass of iter_batches keeps to the file's input budget (budget.py, ADR
0039): each page's declared size and the values it holds are spent before the page is inflated, so a file of
pages that expand a thousand times is refused at the first page past the budget, not after.
"""

from __future__ import annotations

import datetime as dt
import os
import pathlib
import stat
import struct
import zlib
from collections.abc import Callable, Iterator
from decimal import Decimal

import numpy as np

from desktop_app.formats.budget import VALUE_COST, Budget, OverBudget
from desktop_app.formats.parquet_decode import (
    BIT_PACKED,
    BOOLEAN,
    BYTE_ARRAY,
    BYTE_STREAM_SPLIT,
    DATA_PAGE,
    DATA_PAGE_V2,
    DELTA_BINARY_PACKED,
    DELTA_BYTE_ARRAY,
    DELTA_LENGTH_BYTE_ARRAY,
    DICTIONARY_PAGE,
    DOUBLE,
    ENCODING_NAMES,
    FIXED_LEN_BYTE_ARRAY,
    FLOAT,
    I32,
    INT32,
    INT64,
    INT96,
    MAGIC,
    MAX_NESTING,
    MIN_LEVELS_LIMIT,
    NUMPY_TYPES,
    OPTIONAL,
    PLAIN,
    PLAIN_DICTIONARY,
    REPEATED,
    REQUIRED,
    RLE,
    RLE_DICTIONARY,
    TYPE_NAMES,
    Damaged,
    ParquetError,
    ThriftReader,
    byte_stream_split,
    codec_problem,
    decode_plain,
    decompress,
    delta_binary,
    delta_lengths,
    delta_strings,
    rle_hybrid,
    thrift_field,
    unpack,
)

__all__ = ["ParquetError", "ParquetFile", "TooLarge"]


class TooLarge(ParquetError):
    """The file decodes to more than its input budget lets it (budget.py): refused, not damaged. `reason`
    says where and how much, without the file's name."""

    def __init__(self, name: str, reason: str):
        self.reason = reason
        super().__init__(f"{name}: {reason}")


# ---------------------------------------------------------------------------------------------------------------
# Logical types: raw decoded values to the Python values pyarrow's to_pylist() gives

_EPOCH = dt.datetime(1970, 1, 1)
_EPOCH_UTC = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_EPOCH_ORDINAL = dt.date(1970, 1, 1).toordinal()
_JULIAN_EPOCH_DAY = 2440588  # INT96 counts Julian days; this one is 1970-01-01
_MICROS = {1: 1000, 2: 1, 3: None}  # TimeUnit union: MILLIS, MICROS, NANOS


def _to_micros(value: int, unit: int) -> int:
    factor = _MICROS[unit]
    return value * factor if factor else value // 1000


def _time(micros: int) -> dt.time:
    if not 0 <= micros < 86_400_000_000:
        raise Damaged(f"a time of day of {micros} microseconds")
    seconds, micro = divmod(micros, 1_000_000)
    minutes, second = divmod(seconds, 60)
    return dt.time(minutes // 60, minutes % 60, second, micro)


def _decimal(unscaled: int, scale: int) -> Decimal:
    sign, digits, _ = Decimal(unscaled).as_tuple()
    return Decimal((sign, digits, -scale))  # built, not divided: no rounding to the context's precision


def _annotation(se: dict) -> tuple:
    """What a leaf's values mean: ('bytes',), ('str',), ('int', bits, signed), ('date',), ('time', unit),
    ('timestamp', unit, utc), ('decimal', scale), ('float16',), or ('unsupported', type name)."""
    logical = thrift_field(se, 10, dict, "a logical type", None)
    if logical:
        fid, body = next(iter(logical.items()))
        if fid in (1, 4, 12):
            return ("str",)
        if fid in (2, 3, 11, 13, 14, 17, 18):  # MAP/LIST on a leaf, NULL, BSON, UUID, GEOMETRY, GEOGRAPHY
            return ("bytes",)
        if fid == 5:
            return ("decimal", thrift_field(body, 1, int, "a decimal scale"))
        if fid == 6:
            return ("date",)
        if fid in (7, 8):
            unit_union = thrift_field(body, 2, dict, "a time unit")
            unit = next(iter(unit_union), 0)
            if unit not in _MICROS:
                return ("unsupported", f"time unit #{unit}")
            if fid == 7:
                return ("time", unit)
            return ("timestamp", unit, bool(thrift_field(body, 1, bool, "isAdjustedToUTC", False)))
        if fid == 10:
            return ("int", thrift_field(body, 1, int, "an integer width"), bool(thrift_field(body, 2, bool, "a sign", True)))
        if fid == 15:
            return ("float16",)
        names = {16: "VARIANT", 19: "VECTOR"}
        return ("unsupported", names.get(fid, f"logical type #{fid}"))
    converted = thrift_field(se, 6, int, "a converted type", None)
    if converted in (0, 4, 19):
        return ("str",)
    if converted == 5:
        return ("decimal", thrift_field(se, 7, int, "a decimal scale", 0))
    if converted == 6:
        return ("date",)
    if converted in (7, 8):
        return ("time", 1 if converted == 7 else 2)
    if converted in (9, 10):
        return ("timestamp", 1 if converted == 9 else 2, True)
    if converted is not None and 11 <= converted <= 18:
        return ("int", (8, 16, 32, 64)[(converted - 11) % 4], converted >= 15)
    return ("bytes",)


def _converter(ptype: int, width: int, ann: tuple) -> Callable[[object], list]:
    """A function from raw decoded values to Python values; raises ParquetError for a combination it does not
    read (the caller keeps that for when the column is read)."""
    kind = ann[0]
    if kind == "unsupported":
        raise ParquetError(f"type {ann[1]}")
    numeric = ptype in (INT32, INT64)
    if kind == "int" and numeric:
        if ann[2]:
            return lambda a: a.tolist()
        unsigned = np.uint32 if ptype == INT32 else np.uint64
        return lambda a: a.view(unsigned).tolist()
    if kind == "date" and ptype == INT32:
        return lambda a: [dt.date.fromordinal(_EPOCH_ORDINAL + v) for v in a.tolist()]
    if kind == "time" and numeric:
        unit = ann[1]
        return lambda a: [_time(_to_micros(v, unit)) for v in a.tolist()]
    if kind == "timestamp" and ptype == INT64:
        unit, epoch = ann[1], (_EPOCH_UTC if ann[2] else _EPOCH)
        return lambda a: [epoch + dt.timedelta(microseconds=_to_micros(v, unit)) for v in a.tolist()]
    if kind == "decimal" and ptype in (INT32, INT64, BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY):
        scale = ann[1]
        if numeric:
            return lambda a: [_decimal(v, scale) for v in a.tolist()]
        return lambda a: [_decimal(int.from_bytes(v, "big", signed=True), scale) for v in a]
    if kind == "str" and ptype == BYTE_ARRAY:
        return lambda a: [v.decode("utf-8") for v in a]
    if kind == "float16" and ptype == FIXED_LEN_BYTE_ARRAY and width == 2:
        return lambda a: np.frombuffer(b"".join(a), "<f2").astype(np.float64).tolist()
    if ptype == INT96:
        def int96(a):
            return [_EPOCH + dt.timedelta(days=days - _JULIAN_EPOCH_DAY, microseconds=nanos // 1000)
                    for nanos, days in zip(a["nanos"].tolist(), a["days"].tolist(), strict=True)]
        return int96
    if kind in ("bytes", "int") or (kind == "str" and ptype == FIXED_LEN_BYTE_ARRAY):
        if ptype in (BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY):
            return list
        return lambda a: a.tolist()
    raise ParquetError(f"type {kind} stored as {TYPE_NAMES[ptype]}")


# ---------------------------------------------------------------------------------------------------------------
# Schema

class _Node:
    """One schema element, with the definition and repetition levels at which it is present."""

    def __init__(self, se: dict, parent: _Node | None):
        name = thrift_field(se, 4, bytes, "a field name")
        self.name = name.decode("utf-8", "replace")
        self.repetition = thrift_field(se, 3, int, "a repetition", REQUIRED) if parent else REQUIRED
        self.path = f"{parent.path}.{self.name}" if parent and parent.path else self.name if parent else ""
        self.def_level = (parent.def_level if parent else 0) + (self.repetition in (OPTIONAL, REPEATED))
        self.rep_level = (parent.rep_level if parent else 0) + (self.repetition == REPEATED)
        self.se = se
        self.children: list[_Node] = []
        self.index = -1  # leaf column number

    @property
    def is_leaf(self) -> bool:
        return 1 in self.se and not self.children

    def annotated(self, *, converted: tuple[int, ...], logical: int) -> bool:
        ann = self.se.get(10)
        return self.se.get(6) in converted or (isinstance(ann, dict) and logical in ann)


class _Leaf:
    """A leaf column: how to read it, or why it cannot be read."""

    def __init__(self, node: _Node, index: int):
        self.index, self.path, self.max_def, self.max_rep = index, node.path, node.def_level, node.rep_level
        self.ptype = thrift_field(node.se, 1, int, f"the type of {node.path}")
        self.width = thrift_field(node.se, 2, int, "a type length", 0)
        self.problem: str | None = None
        self.convert: Callable[[object], list] = list
        if node.repetition not in (REQUIRED, OPTIONAL, REPEATED):
            self.problem = "the VECTOR repetition"
        elif not 0 <= self.ptype < 8:
            self.problem = f"physical type #{self.ptype}"
        elif self.ptype == FIXED_LEN_BYTE_ARRAY and self.width <= 0:
            self.problem = f"a fixed-length byte array of length {self.width}"
        else:
            if self.ptype != FIXED_LEN_BYTE_ARRAY:
                self.width = NUMPY_TYPES[self.ptype].itemsize if self.ptype in NUMPY_TYPES else 0
            try:
                self.convert = _converter(self.ptype, self.width, _annotation(node.se))
            except ParquetError as exc:
                self.problem = str(exc)


def _parse_schema(elements: list) -> tuple[_Node, list[_Node]]:
    if not elements:
        raise Damaged("the schema is empty")
    leaves: list[_Node] = []
    position = 0

    def build(parent: _Node | None, depth: int) -> _Node:
        nonlocal position
        if depth > MAX_NESTING:
            raise Damaged("the schema is nested too deeply")
        if position >= len(elements):
            raise Damaged("the schema has fewer fields than it says")
        node = _Node(elements[position], parent)
        position += 1
        count = thrift_field(node.se, 5, int, "a child count", 0)
        if count < 0 or count > len(elements) - position:
            raise Damaged("the schema has fewer fields than it says")
        if count == 0 and 1 in node.se:
            node.index = len(leaves)
            leaves.append(node)
        node.children = [build(node, depth + 1) for _ in range(count)]
        return node

    root = build(None, 0)
    if position != len(elements):
        raise Damaged("the schema has more fields than its root holds")
    return root, leaves


# ---------------------------------------------------------------------------------------------------------------
# Assembly: level and value lists back into nested values. A field is read either "flat" (nothing repeated below
# it: one entry per row in every leaf, done with numpy) or entry by entry with cursors, as the Dremel paper's
# record assembly does.

class _Column:
    """A leaf's decoded row group: definition and repetition levels (None when the leaf has none) and values."""

    def __init__(self, leaf: _Leaf, defs, reps, values: list):
        self.max_def, self.defs, self.reps, self.values = leaf.max_def, defs, reps, values
        self.pos = self.vpos = 0

    def flat(self, rows: int) -> list:
        if self.defs is None:
            if len(self.values) != rows:
                raise Damaged(f"{len(self.values)} values for {rows} rows")
            return self.values
        if len(self.defs) != rows:
            raise Damaged(f"{len(self.defs)} entries for {rows} rows")
        if len(self.values) == rows:
            return self.values
        out: list = [None] * rows
        for i, value in zip(np.flatnonzero(self.defs == self.max_def).tolist(), self.values, strict=True):
            out[i] = value
        return out

    def row_defs(self) -> np.ndarray:
        """The definition level of each row's first entry."""
        return self.defs if self.reps is None else self.defs[self.reps == 0]

    def for_cursor(self) -> None:
        count = len(self.values) if self.defs is None else len(self.defs)
        self.defs = [0] * count if self.defs is None else self.defs.tolist()
        self.reps = [0] * count if self.reps is None else self.reps.tolist()


class _Value:
    def __init__(self, index: int):
        self.leaves = [index]
        self.flat_ok = True

    def flat(self, columns: dict, rows: int) -> list:
        return columns[self.leaves[0]].flat(rows)

    def read(self, columns: dict):
        c = columns[self.leaves[0]]
        d = c.defs[c.pos]
        c.pos += 1
        if d == c.max_def:
            c.vpos += 1
            return c.values[c.vpos - 1]
        return None


class _Group:
    """A struct (dict), or a map's key and value (a tuple)."""

    def __init__(self, fields: list[tuple[str, object]], null_def: int | None, as_tuple: bool = False):
        self.names = [name for name, _ in fields]
        self.parts = [part for _, part in fields]
        self.null_def, self.as_tuple = null_def, as_tuple
        self.leaves = [i for part in self.parts for i in part.leaves]
        self.flat_ok = all(part.flat_ok for part in self.parts)

    def flat(self, columns: dict, rows: int) -> list:
        names = self.names
        out = [dict(zip(names, values, strict=True)) for values in
               zip(*(part.flat(columns, rows) for part in self.parts), strict=True)]
        if self.null_def is not None:
            for i in np.flatnonzero(columns[self.leaves[0]].row_defs() < self.null_def).tolist():
                out[i] = None
        return out

    def read(self, columns: dict):
        if self.null_def is not None:
            c = columns[self.leaves[0]]
            if c.defs[c.pos] < self.null_def:
                for i in self.leaves:
                    columns[i].pos += 1
                return None
        values = [part.read(columns) for part in self.parts]
        return tuple(values) if self.as_tuple else dict(zip(self.names, values, strict=True))


class _List:
    def __init__(self, null_def: int | None, repeated: _Node, element):
        self.null_def, self.empty_def, self.level = null_def, repeated.def_level, repeated.rep_level
        self.element = element
        self.leaves = element.leaves
        # a list of plain values with no list above it (a bounding box, say) is cut up with numpy
        self.flat_ok = isinstance(element, _Value) and self.level == 1

    def flat(self, columns: dict, rows: int) -> list:
        c = columns[self.leaves[0]]
        entries = c.flat(len(c.defs))
        starts = np.flatnonzero(c.reps == 0)
        if len(starts) != rows or (rows and starts[0] != 0):
            raise Damaged(f"{len(starts)} lists for {rows} rows")
        bounds = [*starts.tolist(), len(entries)]
        out = [entries[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
        first = c.defs[starts]
        for i in np.flatnonzero(first < self.empty_def).tolist():
            out[i] = None if self.null_def is not None and first[i] < self.null_def else []
        return out

    def read(self, columns: dict):
        c = columns[self.leaves[0]]
        d = c.defs[c.pos]
        if d < self.empty_def:
            for i in self.leaves:
                columns[i].pos += 1
            return None if self.null_def is not None and d < self.null_def else []
        element, reps, level = self.element, c.reps, self.level
        out = [element.read(columns)]
        while c.pos < len(reps) and reps[c.pos] == level:
            out.append(element.read(columns))
        return out


def _assembler(node: _Node, as_element: bool = False):
    """The reader of one schema node, following LogicalTypes.md (including its backward-compatibility rules
    for lists written in the older 2-level forms)."""
    if node.repetition not in (REQUIRED, OPTIONAL, REPEATED):
        raise ParquetError("a field with the VECTOR repetition")
    null_def = node.def_level if node.repetition == OPTIONAL else None
    kids = node.children
    if node.is_leaf:
        base = _Value(node.index)
    elif (node.annotated(converted=(3,), logical=3) and len(kids) == 1 and kids[0].repetition == REPEATED):
        repeated = kids[0]
        if (repeated.is_leaf or len(repeated.children) != 1
                or repeated.name in ("array", f"{node.name}_tuple")):
            element = _assembler(repeated, as_element=True)
        else:
            element = _assembler(repeated.children[0])
        base = _List(null_def, repeated, element)
    elif (node.annotated(converted=(1, 2), logical=2) and len(kids) == 1 and kids[0].repetition == REPEATED
          and len(kids[0].children) == 2):
        pair = _Group([(kid.name, _assembler(kid)) for kid in kids[0].children], None, as_tuple=True)
        base = _List(null_def, kids[0], pair)
    else:
        if not node.children:
            raise ParquetError("an empty group")
        base = _Group([(kid.name, _assembler(kid)) for kid in kids], null_def)
    if node.repetition == REPEATED and not as_element:
        return _List(None, node, base)  # a repeated field outside a LIST is a list of its values
    return base


# ---------------------------------------------------------------------------------------------------------------

class ParquetFile:
    """A Parquet file opened for reading; only its footer is read here."""

    def __init__(self, path: pathlib.Path):
        self.path = pathlib.Path(path)
        if not stat.S_ISREG(os.stat(self.path).st_mode):  # opening a pipe would wait for a writer forever
            raise ParquetError(f"{self.path.name} is not a regular file (a folder, a pipe or a device?)")
        self._file = open(self.path, "rb")  # noqa: SIM115 - kept open until close()
        try:
            self._open()
        except BaseException:
            self._file.close()
            raise

    def _open(self) -> None:
        size = self._size = os.fstat(self._file.fileno()).st_size
        if size < 12:
            raise ParquetError(f"{self.path.name} is not a Parquet file: it is only {size} bytes long")
        head = self._file.read(4)
        self._file.seek(size - 8)
        tail = self._file.read(8)
        if tail[4:] == b"PARE":
            raise ParquetError(f"{self.path.name} is an encrypted Parquet file, which this reader does not read")
        if head != MAGIC or tail[4:] != MAGIC:
            raise ParquetError(f"{self.path.name} is not a Parquet file (or it is damaged): it does not begin "
                               "and end with PAR1")
        footer_size = I32.unpack(tail[:4])[0]
        if footer_size > size - 12:
            raise ParquetError(f"{self.path.name} is damaged: its footer is {footer_size} bytes long, "
                               f"more than the file holds")
        self._data_end = size - 8 - footer_size
        self._file.seek(self._data_end)
        footer = self._file.read(footer_size)
        try:
            self._read_footer(footer)
        except (Damaged, RecursionError, ValueError, OverflowError, MemoryError, IndexError, KeyError,
                struct.error) as exc:
            raise ParquetError(f"{self.path.name} is damaged: {_reason(exc)}") from exc

    def _read_footer(self, footer: bytes) -> None:
        meta = ThriftReader(footer, 0, len(footer)).read_struct()
        if thrift_field(meta, 8, dict, "the encryption", None) is not None:
            raise ParquetError(f"{self.path.name} is an encrypted Parquet file, which this reader does not read")
        self.root, leaf_nodes = _parse_schema(thrift_field(meta, 2, list, "the schema"))
        self._leaves = [_Leaf(node, node.index) for node in leaf_nodes]
        self.names: list[str] = [kid.name for kid in self.root.children]
        self.num_rows: int = thrift_field(meta, 3, int, "the row count")
        self._row_groups = []
        total = 0
        for group in thrift_field(meta, 4, list, "the row groups"):
            rows = thrift_field(group, 3, int, "a row group's row count")
            chunks = thrift_field(group, 1, list, "a row group's columns")
            if rows < 0 or len(chunks) != len(self._leaves):
                raise Damaged("a row group does not match the schema")
            self._row_groups.append((rows, chunks))
            total += rows
        if total != self.num_rows or self.num_rows < 0:
            raise Damaged(f"its row groups hold {total} rows, its footer says {self.num_rows}")

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> ParquetFile:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def iter_batches(self, batch_size: int, columns: list[str] | None = None,
                     budget: Budget | None = None) -> Iterator[list[dict]]:
        """Rows as {name: value} dicts, `batch_size` at a time (the last batch may be shorter), within `budget`
        (by default the input budget of a file this size)."""
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        wanted = list(self.names) if columns is None else list(columns)
        fields = {kid.name: kid for kid in self.root.children}
        unknown = [name for name in wanted if name not in fields]
        if unknown:
            raise ParquetError(f"{self.path.name} has no column {', '.join(map(repr, unknown))} "
                               f"(its columns: {', '.join(self.names)})")
        readers = {name: self._reader(fields[name]) for name in wanted}
        return self._batches(batch_size, wanted, readers, budget or Budget(self._size))

    def _reader(self, field: _Node):
        """The field's assembler, or the ParquetError that says why it cannot be read."""
        leaves = []
        stack = [field]
        while stack:
            node = stack.pop()
            stack.extend(reversed(node.children))
            if node.index >= 0:
                leaves.append(self._leaves[node.index])
        for leaf in leaves:
            if leaf.problem:
                raise ParquetError(f"Column {leaf.path!r} of {self.path.name} uses {leaf.problem}, which this "
                                   "reader does not read; convert that column (or leave it out) and save again")
        try:
            return _assembler(field)
        except ParquetError as exc:
            raise ParquetError(f"Column {field.name!r} of {self.path.name} is {exc}, which this reader does "
                               "not read") from None

    def _batches(self, batch_size: int, names: list[str], readers: dict, budget: Budget) -> Iterator[list[dict]]:
        pending: list[dict] = []
        for number, (rows, _) in enumerate(self._row_groups):
            if self._file.closed:
                raise ValueError(f"{self.path.name} was closed while its rows were being read")
            values = [self._read_field(number, readers[name], name, budget) for name in names]
            done = 0
            while done < rows:
                take = min(batch_size - len(pending), rows - done)
                if values:
                    pending.extend(dict(zip(names, row, strict=True)) for row in
                                   zip(*(column[done:done + take] for column in values), strict=True))
                else:
                    pending.extend({} for _ in range(take))
                done += take
                if len(pending) == batch_size:
                    yield pending
                    pending = []
            del values  # let this row group go before the next is read
        if pending:
            yield pending

    def _read_field(self, number: int, reader, name: str, budget: Budget) -> list:
        rows = self._row_groups[number][0]
        columns = {i: self._read_chunk(number, self._leaves[i], budget) for i in reader.leaves}
        try:
            if reader.flat_ok:
                return reader.flat(columns, rows)
            for column in columns.values():
                column.for_cursor()
            out = [reader.read(columns) for _ in range(rows)]
            if any(c.pos != len(c.defs) or c.vpos != len(c.values) for c in columns.values()):
                raise Damaged("its levels and values do not add up to the row count")
            return out
        except (Damaged, IndexError, ValueError, RecursionError, MemoryError) as exc:
            raise ParquetError(f"{self.path.name} is damaged: cannot read column {name!r}, "
                               f"row group {number}: {_reason(exc)}") from exc

    def _read_chunk(self, number: int, leaf: _Leaf, budget: Budget) -> _Column:
        rows, chunks = self._row_groups[number]
        try:
            meta = thrift_field(chunks[leaf.index], 3, dict, "the column's metadata")
            codec = thrift_field(meta, 4, int, "the compression")
            problem = codec_problem(codec)
            if problem:
                raise ParquetError(f"Cannot read column {leaf.path!r} of {self.path.name}: {problem}")
            return self._decode_chunk(leaf, meta, codec, rows, budget)
        except OverBudget as exc:
            raise TooLarge(self.path.name, f"column {leaf.path!r}, row group {number}: {exc}") from None
        except (Damaged, IndexError, KeyError, ValueError, struct.error, zlib.error, RecursionError,
                MemoryError, OverflowError) as exc:
            raise ParquetError(f"{self.path.name} is damaged: cannot read column {leaf.path!r}, "
                               f"row group {number}: {_reason(exc)}") from exc

    def _decode_chunk(self, leaf: _Leaf, meta: dict, codec: int, rows: int, budget: Budget) -> _Column:
        if thrift_field(meta, 1, int, "the column's type") != leaf.ptype:
            raise Damaged("the column chunk's type differs from the schema's")
        total = thrift_field(meta, 5, int, "the value count")
        size = thrift_field(meta, 7, int, "the column chunk's size")
        start = thrift_field(meta, 9, int, "the data page offset")
        dictionary_at = thrift_field(meta, 11, int, "the dictionary page offset", None)
        if total < rows or (leaf.max_rep == 0 and total != rows):
            raise Damaged(f"{total} values for {rows} rows")
        if total == 0:  # writers leave odd offsets on chunks with no pages worth reading
            return _Column(leaf, np.zeros(0, np.uint32) if leaf.max_def else None,
                           np.zeros(0, np.uint32) if leaf.max_rep else None, [])
        # some writers put 0 for "no dictionary", one put 0 for the data page when the dictionary came first
        offsets = [offset for offset in (start, dictionary_at) if offset is not None and offset >= 4]
        start = min(offsets, default=0)
        if start < 4 or size < 0 or start + size > self._data_end:
            raise Damaged("the column chunk lies outside the file's data")
        self._file.seek(start)
        chunk = self._file.read(size)
        if len(chunk) != size:
            raise Damaged("the file ended while reading a column chunk")
        buf = memoryview(chunk)
        pos = seen = 0
        dictionary = None
        defs_parts, reps_parts, values = [], [], []
        while seen < total:
            if pos >= size:
                raise Damaged(f"the column chunk ends after {seen} of its {total} values")
            reader = ThriftReader(buf, pos, size)
            header = reader.read_struct()
            pos = reader.pos
            kind = thrift_field(header, 1, int, "a page type")
            usize = thrift_field(header, 2, int, "a page size")
            csize = thrift_field(header, 3, int, "a page size")
            if csize < 0 or usize < 0 or pos + csize > size:
                raise Damaged("a page runs past the end of its column chunk")
            page = buf[pos:pos + csize]
            pos += csize
            if kind == DICTIONARY_PAGE:
                head = thrift_field(header, 7, dict, "the dictionary page header")
                count = thrift_field(head, 1, int, "the dictionary size")
                if thrift_field(head, 2, int, "the dictionary encoding") not in (PLAIN, PLAIN_DICTIONARY) or count < 0:
                    raise Damaged("the dictionary page is not PLAIN-encoded")
                budget.take(usize + VALUE_COST * count, "its dictionary page")
                body = decompress(codec, page, usize)
                dictionary = leaf.convert(decode_plain(leaf.ptype, leaf.width, body, 0, len(body), count))
                continue
            if kind not in (DATA_PAGE, DATA_PAGE_V2):
                continue  # index pages and page types newer than this reader carry nothing it needs
            v2 = kind == DATA_PAGE_V2
            head = thrift_field(header, 8 if v2 else 5, dict, "the data page header")
            count = thrift_field(head, 1, int, "a page's value count")
            if not 0 <= count <= total - seen or count > max(MIN_LEVELS_LIMIT, 64 * usize):
                raise Damaged(f"a page claims {count} values")
            # spent before the page is inflated: its declared size (what the codec may write) and its values
            # held until the column chunk is assembled
            budget.take(usize + VALUE_COST * count, f"the page holding values {seen:,} to {seen + count:,}")
            if v2:
                encoding = thrift_field(head, 4, int, "a page encoding")
                def_size = thrift_field(head, 5, int, "the definition levels' size")
                rep_size = thrift_field(head, 6, int, "the repetition levels' size")
                if def_size < 0 or rep_size < 0 or def_size + rep_size > min(csize, usize):
                    raise Damaged("a page's levels are larger than the page")
                reps = (rle_hybrid(page, 0, rep_size, leaf.max_rep.bit_length(), count)
                        if leaf.max_rep else None)
                defs = (rle_hybrid(page, rep_size, rep_size + def_size, leaf.max_def.bit_length(), count)
                        if leaf.max_def else None)
                data = page[rep_size + def_size:]
                data_size = usize - rep_size - def_size
                if thrift_field(head, 7, bool, "the compressed flag", True):
                    body = decompress(codec, data, data_size)
                elif len(data) != data_size:
                    raise Damaged("an uncompressed page's size differs from its header's")
                else:
                    body = data
                p = 0
            else:
                encoding = thrift_field(head, 2, int, "a page encoding")
                body = decompress(codec, page, usize)
                p = 0
                reps = defs = None
                if leaf.max_rep:
                    reps, p = _levels_v1(body, p, thrift_field(head, 4, int, "a level encoding"), leaf.max_rep, count)
                if leaf.max_def:
                    defs, p = _levels_v1(body, p, thrift_field(head, 3, int, "a level encoding"), leaf.max_def, count)
            if reps is not None and count and int(reps.max()) > leaf.max_rep:
                raise Damaged("a repetition level is above the column's maximum")
            present = count
            if defs is not None:
                if count and int(defs.max()) > leaf.max_def:
                    raise Damaged("a definition level is above the column's maximum")
                present = int(np.count_nonzero(defs == leaf.max_def))
            values.extend(self._page_values(leaf, encoding, body, p, present, dictionary))
            if defs is not None:
                defs_parts.append(defs)
            if reps is not None:
                reps_parts.append(reps)
            seen += count
        defs = _join(defs_parts) if leaf.max_def else None
        reps = _join(reps_parts) if leaf.max_rep else None
        return _Column(leaf, defs, reps, values)

    @staticmethod
    def _page_values(leaf: _Leaf, encoding: int, body, pos: int, count: int, dictionary: list | None) -> list:
        end = len(body)
        ptype = leaf.ptype
        if encoding in (PLAIN_DICTIONARY, RLE_DICTIONARY):
            if dictionary is None:
                raise Damaged("a dictionary-encoded page comes without a dictionary")
            if count == 0:
                return []
            if pos >= end:
                raise Damaged("a dictionary-encoded page is empty")
            indices = rle_hybrid(body, pos + 1, end, body[pos], count)
            if int(indices.max()) >= len(dictionary):
                raise Damaged("a dictionary index points past the dictionary")
            return list(map(dictionary.__getitem__, indices.tolist()))
        if encoding == PLAIN:
            raw = decode_plain(ptype, leaf.width, body, pos, end, count)
        elif encoding == RLE and ptype == BOOLEAN:
            if pos + 4 > end:
                raise Damaged("a boolean page ends early")
            length = I32.unpack_from(body, pos)[0]
            if pos + 4 + length > end:
                raise Damaged("run-length booleans run past their page")
            raw = rle_hybrid(body, pos + 4, pos + 4 + length, 1, count).astype(bool)
        elif encoding == DELTA_BINARY_PACKED and ptype in (INT32, INT64):
            raw, _ = delta_binary(body, pos, end, count, 32 if ptype == INT32 else 64)
        elif encoding == DELTA_LENGTH_BYTE_ARRAY and ptype == BYTE_ARRAY:
            raw, _ = delta_lengths(body, pos, end, count)
        elif encoding == DELTA_BYTE_ARRAY and ptype in (BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY):
            raw = delta_strings(body, pos, end, count)
            if ptype == FIXED_LEN_BYTE_ARRAY and any(len(v) != leaf.width for v in raw):
                raise Damaged("a fixed-length value has the wrong length")
        elif encoding == BYTE_STREAM_SPLIT and ptype in (INT32, INT64, FLOAT, DOUBLE, FIXED_LEN_BYTE_ARRAY):
            raw = byte_stream_split(ptype, leaf.width, body, pos, end, count)
        else:
            name = ENCODING_NAMES.get(encoding, f"encoding #{encoding}")
            raise ParquetError(f"Column {leaf.path!r} uses the {name} encoding for {TYPE_NAMES[ptype]} values, "
                               "which this reader does not read; save the file again with pyarrow's default "
                               "settings")
        if len(raw) != count:
            raise Damaged(f"a page holds {len(raw)} values where its levels say {count}")
        return leaf.convert(raw)


def _levels_v1(body, pos: int, encoding: int, max_level: int, count: int) -> tuple[np.ndarray, int]:
    width = max_level.bit_length()
    if encoding == RLE:
        if pos + 4 > len(body):
            raise Damaged("a page ends in its levels")
        length = I32.unpack_from(body, pos)[0]
        pos += 4
        if pos + length > len(body):
            raise Damaged("a page's levels run past the page")
        return rle_hybrid(body, pos, pos + length, width, count), pos + length
    if encoding == BIT_PACKED:
        return unpack(body, pos, count, width, msb_first=True), pos + (count * width + 7) // 8
    raise Damaged(f"levels in the {ENCODING_NAMES.get(encoding, encoding)} encoding")


def _join(parts: list[np.ndarray]) -> np.ndarray:
    if not parts:
        return np.zeros(0, np.uint32)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return "it holds text that is not valid UTF-8"
    if isinstance(exc, MemoryError):
        return "it needs more memory than there is"
    if isinstance(exc, RecursionError):
        return "it is nested too deeply"
    if isinstance(exc, Damaged):
        return str(exc)
    return f"its data is inconsistent ({type(exc).__name__}: {exc})"
