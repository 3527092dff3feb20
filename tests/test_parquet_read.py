"""Our Parquet reader against pyarrow: files written by pyarrow (or by hand, for the older layouts and codecs
pyarrow no longer writes) must read back as pq.read_table(path).to_pylist() gives them, and damaged files must
end in ParquetError and nothing else."""

from __future__ import annotations

import datetime as dt
import random
import struct
from decimal import Decimal
from pathlib import Path

import cramjam
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop_app.formats.parquet_read import ParquetError, ParquetFile

from conftest import varint


def read_all(path: Path, batch_size: int = 7, columns: list[str] | None = None) -> list[dict]:
    with ParquetFile(path) as f:
        return [row for batch in f.iter_batches(batch_size, columns) for row in batch]


def roundtrip(tmp_path: Path, table: pa.Table, name: str = "t.parquet", batch_size: int = 7, **options) -> Path:
    path = tmp_path / name
    pq.write_table(table, path, **options)
    assert read_all(path, batch_size) == pq.read_table(path).to_pylist()
    return path


def _nullable(values: list, every: int = 3) -> list:
    return [None if i % every == 1 else v for i, v in enumerate(values)]


def _types_table(rows: int = 40) -> pa.Table:
    rng = random.Random(1)
    ints = [rng.randint(-2**31, 2**31 - 1) for _ in range(rows)]
    longs = [rng.randint(-2**63, 2**63 - 1) for _ in range(rows)]
    columns = {
        "bool": pa.array([rng.random() < 0.5 for _ in range(rows)]),
        "i32": pa.array(ints, pa.int32()),
        "i64": pa.array(longs, pa.int64()),
        "f32": pa.array([float(rng.randint(-1000, 1000)) / 8 for _ in range(rows)], pa.float32()),
        "f64": pa.array([rng.uniform(-1e9, 1e9) for _ in range(rows)]),
        "bin": pa.array([rng.randbytes(rng.randint(0, 20)) for _ in range(rows)]),
        "str": pa.array([f"é{rng.randint(0, 5)}✓" * rng.randint(0, 3) for _ in range(rows)]),
        "fixed": pa.array([rng.randbytes(5) for _ in range(rows)], pa.binary(5)),
        "i8": pa.array([rng.randint(-128, 127) for _ in range(rows)], pa.int8()),
        "i16": pa.array([rng.randint(-2**15, 2**15 - 1) for _ in range(rows)], pa.int16()),
        "u8": pa.array([rng.randint(0, 255) for _ in range(rows)], pa.uint8()),
        "u16": pa.array([rng.randint(0, 2**16 - 1) for _ in range(rows)], pa.uint16()),
        "u32": pa.array([rng.randint(2**31, 2**32 - 1) for _ in range(rows)], pa.uint32()),
        "u64": pa.array([rng.randint(2**63, 2**64 - 1) for _ in range(rows)], pa.uint64()),
        "date": pa.array([dt.date(1970, 1, 1) + dt.timedelta(days=rng.randint(-30000, 30000)) for _ in range(rows)]),
        "ts_utc": pa.array([dt.datetime(2001, 2, 3, tzinfo=dt.UTC) + dt.timedelta(seconds=rng.randint(0, 10**8))
                            for _ in range(rows)], pa.timestamp("us", tz="UTC")),
        "ts_ms": pa.array([dt.datetime(1969, 2, 3, 4, 5, 6, rng.randint(0, 999) * 1000) for _ in range(rows)],
                          pa.timestamp("ms")),
        "time": pa.array([dt.time(rng.randint(0, 23), 59, 1, 5000) for _ in range(rows)], pa.time32("ms")),
        "dec": pa.array([Decimal(rng.randint(-10**8, 10**8)).scaleb(-3) for _ in range(rows)], pa.decimal128(9, 3)),
        "dec38": pa.array([Decimal(rng.randint(-10**37, 10**37)).scaleb(-10) for _ in range(rows)],
                          pa.decimal128(38, 10)),
        "f16": pa.array([rng.randint(-50, 50) / 4 for _ in range(rows)], pa.float16()),
    }
    return pa.table({name: array for name, array in columns.items()})


def _with_nulls(table: pa.Table) -> pa.Table:
    return pa.table({name: pa.array(_nullable(table[name].to_pylist()), table[name].type)
                     for name in table.column_names})


@pytest.mark.parametrize("nulls", [False, True])
@pytest.mark.parametrize("options", [
    {},
    {"use_dictionary": False},
    {"data_page_version": "2.0"},
    {"data_page_version": "2.0", "use_dictionary": False, "compression": "gzip"},
    {"data_page_version": "2.0", "compression": "none"},
    {"dictionary_pagesize_limit": 64, "data_page_size": 64},  # dictionaries full early: PLAIN pages follow
    {"version": "1.0"},  # converted types only, PLAIN_DICTIONARY pages
    {"compression": "none"},
    {"compression": "lz4"},
    {"store_decimal_as_integer": True, "compression": "snappy"},
])
def test_every_physical_type(tmp_path, nulls, options):
    table = _types_table()
    roundtrip(tmp_path, _with_nulls(table) if nulls else table, **options)


def test_int96_timestamps(tmp_path):
    times = [dt.datetime(1901, 1, 1), dt.datetime(2024, 2, 29, 23, 59, 59, 999999), None, dt.datetime(1970, 1, 1)]
    table = pa.table({"t": pa.array(times, pa.timestamp("us"))})
    roundtrip(tmp_path, table, use_deprecated_int96_timestamps=True)


def test_image_column_of_incompressible_bytes(tmp_path):
    rng = random.Random(7)
    images = []
    for i in range(12):
        if i == 3:
            images.append(None)
        elif i == 5:
            images.append({"bytes": None, "path": "only/a/path.png"})
        elif i == 8:
            images.append({"bytes": rng.randbytes(300_000), "path": None})
        else:
            images.append({"bytes": rng.randbytes(rng.randint(250_000, 320_000)), "path": f"img{i}.png"})
    kind = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    table = pa.table({"image": pa.array(images, kind), "label": pa.array([f"row {i}" for i in range(12)])})
    for compression in ("snappy", "none", "gzip"):
        roundtrip(tmp_path, table, f"{compression}.parquet", batch_size=5, compression=compression, row_group_size=5)


def test_nested_lists_structs_and_maps(tmp_path):
    point = pa.struct([("a", pa.int32()), ("b", pa.string())])
    table = pa.table({
        "strings": pa.array([["a", None, "ccc"], [], None, ["d"], [None], []], pa.list_(pa.string())),
        "doubles": pa.array([[1.5], None, [], [2.0, -3.0, None], [], [0.0]], pa.list_(pa.float64())),
        "nested": pa.array([[[1, 2], [], None], None, [[3]], [], [None, [4, 5, 6]], [[]]],
                           pa.list_(pa.list_(pa.int64()))),
        "points": pa.array([[{"a": 1, "b": "x"}, None], [], None, [{"a": None, "b": None}], [{"a": 5, "b": "y"}],
                            None], pa.list_(point)),
        "map": pa.array([[("k", 1), ("l", None)], None, [], [("m", 2)], [("n", 3), ("o", 4), ("p", 5)], []],
                        pa.map_(pa.string(), pa.int64())),
        "struct_of_list": pa.array([{"xs": [1, 2], "y": "q"}, None, {"xs": None, "y": None}, {"xs": [], "y": "r"},
                                    {"xs": [7], "y": None}, {"xs": [None], "y": "s"}],
                                   pa.struct([("xs", pa.list_(pa.int32())), ("y", pa.string())])),
        "required_list": pa.array([[1], [], [2, 3], [], [4], [5]], pa.list_(pa.field("item", pa.int16(), False))),
    })
    table = table.cast(table.schema.set(6, pa.field("required_list", table["required_list"].type, False)))
    for options in ({}, {"data_page_version": "2.0"}, {"use_dictionary": False, "compression": "gzip"},
                    {"row_group_size": 2, "write_batch_size": 1, "data_page_size": 1}):
        roundtrip(tmp_path, table, **options)
        for batch_size in (1, 4):
            path = tmp_path / "t.parquet"
            assert read_all(path, batch_size) == pq.read_table(path).to_pylist()


def test_deeper_and_bigger_nesting(tmp_path):
    rng = random.Random(3)

    def maybe(make):
        roll = rng.random()
        return None if roll < 0.15 else [] if roll < 0.25 else [make() for _ in range(rng.randint(1, 4))]

    kind = pa.list_(pa.struct([("name", pa.string()), ("tags", pa.list_(pa.list_(pa.int32()))),
                               ("attrs", pa.map_(pa.string(), pa.list_(pa.float64())))]))
    rows = [maybe(lambda: {"name": rng.choice(["a", None, "bb"]),
                           "tags": maybe(lambda: maybe(lambda: rng.choice([1, None, 3]))),
                           "attrs": maybe(lambda: (str(rng.randint(0, 9)), maybe(lambda: rng.random())))})
            for _ in range(300)]
    table = pa.table({"deep": pa.array(rows, kind), "n": pa.array(range(300))})
    roundtrip(tmp_path, table, row_group_size=70, data_page_size=200, write_batch_size=13)
    roundtrip(tmp_path, table, "v2.parquet", data_page_version="2.0", compression="snappy")


def test_many_pages_row_groups_and_batch_sizes(tmp_path):
    rows = 2500
    table = pa.table({
        "id": pa.array(range(rows), pa.int64()),
        "text": pa.array([None if i % 11 == 0 else f"text {i % 97}" for i in range(rows)]),
        "ratio": pa.array([i / 7 for i in range(rows)]),
        "flag": pa.array([None if i % 5 == 0 else i % 3 == 0 for i in range(rows)]),
    })
    path = tmp_path / "many.parquet"
    pq.write_table(table, path, row_group_size=600, data_page_size=512, write_batch_size=50)
    assert pq.ParquetFile(path).metadata.num_row_groups == 5
    want = pq.read_table(path).to_pylist()
    for batch_size in (1, 7, 1000, 5000):
        with ParquetFile(path) as f:
            batches = list(f.iter_batches(batch_size))
        assert [len(b) for b in batches[:-1]] == [batch_size] * (len(batches) - 1)
        assert 0 < len(batches[-1]) <= batch_size
        assert [row for batch in batches for row in batch] == want


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_delta_and_byte_stream_split_encodings(tmp_path, version):
    rng = random.Random(5)
    rows = 1000
    sorted_ints = sorted(rng.randint(-10**6, 10**6) for _ in range(rows))
    wild = [rng.choice([2**63 - 1, -2**63, 0, rng.randint(-2**63, 2**63 - 1)]) for _ in range(rows)]
    words = sorted(f"prefix/{rng.randint(0, 50)}/{'x' * rng.randint(0, 30)}" for _ in range(rows))
    table = pa.table({
        "dbp32": pa.array(_nullable(sorted_ints), pa.int32()),
        "dbp32_wild": pa.array([rng.randint(-2**31, 2**31 - 1) for _ in range(rows)], pa.int32()),
        "dbp64": pa.array(wild, pa.int64()),
        "dlba": pa.array(_nullable(words)),
        "dba": pa.array(words),
        "dba_bin": pa.array(_nullable([w.encode() for w in words], 4)),
        "dba_fixed": pa.array([rng.randbytes(1) * 3 + rng.randbytes(1) for _ in range(rows)], pa.binary(4)),
        "bss_f32": pa.array(_nullable([rng.random() for _ in range(rows)]), pa.float32()),
        "bss_f64": pa.array([rng.uniform(-1, 1) for _ in range(rows)]),
        "bss_i32": pa.array([rng.randint(-2**31, 2**31 - 1) for _ in range(rows)], pa.int32()),
        "bss_i64": pa.array(_nullable(wild), pa.int64()),
        "bss_fixed": pa.array([rng.randbytes(3) for _ in range(rows)], pa.binary(3)),
        "rle_bool": pa.array(_nullable([rng.random() < 0.2 for _ in range(rows)])),
    })
    encodings = {"dbp32": "DELTA_BINARY_PACKED", "dbp32_wild": "DELTA_BINARY_PACKED", "dbp64": "DELTA_BINARY_PACKED",
                 "dlba": "DELTA_LENGTH_BYTE_ARRAY", "dba": "DELTA_BYTE_ARRAY", "dba_bin": "DELTA_BYTE_ARRAY",
                 "dba_fixed": "DELTA_BYTE_ARRAY", "bss_f32": "BYTE_STREAM_SPLIT", "bss_f64": "BYTE_STREAM_SPLIT",
                 "bss_i32": "BYTE_STREAM_SPLIT", "bss_i64": "BYTE_STREAM_SPLIT", "bss_fixed": "BYTE_STREAM_SPLIT",
                 "rle_bool": "RLE"}
    path = roundtrip(tmp_path, table, use_dictionary=False, column_encoding=encodings, data_page_version=version,
                     data_page_size=2000)
    used = {pq.ParquetFile(path).metadata.row_group(0).column(i).path_in_schema:
            pq.ParquetFile(path).metadata.row_group(0).column(i).encodings for i in range(len(encodings))}
    for column, encoding in encodings.items():
        assert encoding in used[column], (column, used[column])


def test_columns_names_and_num_rows(tmp_path):
    table = pa.table({"a": [1, 2, 3], "b": ["x", None, "z"], "c": pa.array([[1], [], None]),
                      "d": pa.array([{"e": 1.0}, None, {"e": None}])})
    path = roundtrip(tmp_path, table, row_group_size=2)
    with ParquetFile(path) as f:
        assert f.names == ["a", "b", "c", "d"]
        assert f.num_rows == 3
        assert [r for b in f.iter_batches(2, ["d", "b"]) for r in b] == \
            pq.read_table(path, columns=["d", "b"]).to_pylist()
        assert [r for b in f.iter_batches(2, []) for r in b] == [{}, {}, {}]
        with pytest.raises(ParquetError, match="no column 'zz'"):
            f.iter_batches(2, ["a", "zz"])


def test_empty_table(tmp_path):
    path = roundtrip(tmp_path, pa.table({"a": pa.array([], pa.int64()), "b": pa.array([], pa.string())}))
    with ParquetFile(path) as f:
        assert f.num_rows == 0 and list(f.iter_batches(3)) == []


def test_snappy_long_overlapping_copies(tmp_path):
    table = pa.table({"s": ["abc" * 20_000, "xy" * 30_001, "z" * 65_537, "abcd" * 7 + "q" * 100_000]})
    path = roundtrip(tmp_path, table, compression="snappy", use_dictionary=False)
    assert pq.ParquetFile(path).metadata.row_group(0).column(0).total_compressed_size < 20_000  # mostly copies
    roundtrip(tmp_path, table, "lz4.parquet", compression="lz4", use_dictionary=False)


def _text_table(rows: int = 300) -> pa.Table:
    """Text as the datasets hold it (instructions, HTML, chat turns), so each codec has copies to make."""
    rng = random.Random(5)
    words = ["the", "a", "click", "open", "search", "cart", "settings", "button", "menu", "item", "price",
        "<div", "class=x>", "</div>", "é", "✓"]
    text = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 120))) for _ in range(rows)]
    return pa.table({
        "id": pa.array(range(rows), pa.int64()),
        "instruction": pa.array(_nullable(text)),
        "html": pa.array(["".join(reversed(t)) * 3 for t in text]),
        "turns": pa.array([[{"role": "user", "content": t}, {"role": "assistant", "content": t[::2]}][:i % 3]
                           for i, t in enumerate(text)]),
        "score": pa.array([rng.random() for _ in range(rows)], pa.float32()),
    })


@pytest.mark.parametrize("codec", ["snappy", "lz4", "brotli", "zstd", "gzip"])
@pytest.mark.parametrize("options", [{}, {"data_page_version": "2.0", "use_dictionary": False},
                                     {"data_page_size": 2048, "row_group_size": 120}])
def test_every_codec_pyarrow_writes_reads_row_for_row(tmp_path, codec, options):
    for table in (_text_table(), _types_table(), _with_nulls(_types_table())):
        path = roundtrip(tmp_path, table, f"{codec}.parquet", batch_size=64, compression=codec, **options)
        column = pq.ParquetFile(path).metadata.row_group(0).column(table.column_names.index("f64")
                                                                  if "f64" in table.column_names else 2)
        assert column.compression == codec.upper()  # pyarrow names LZ4_RAW, which it writes, "LZ4"
        if "html" in table.column_names:
            assert column.total_compressed_size < column.total_uncompressed_size / 2


# ---------------------------------------------------------------------------------------------------------------
# Files written by hand: the older list and map layouts, BIT_PACKED levels, unknown metadata and pages

def _zz(n: int) -> bytes:
    return varint((n << 1) ^ (n >> 63))


_KIND = {"i32": 5, "i64": 6, "bin": 8, "list": 9, "struct": 12, "double": 7}


def _thrift(fields: list[tuple]) -> bytes:
    """A compact-protocol struct from (field id, kind, value) triples, in field id order."""
    out, last = bytearray(), 0
    for fid, kind, value in fields:
        code = (1 if value else 2) if kind == "bool" else _KIND[kind]
        out += bytes([((fid - last) << 4) | code]) if 0 < fid - last <= 15 else bytes([code]) + _zz(fid)
        last = fid
        if kind != "bool":
            out += _thrift_value(kind, value)
    return bytes(out + b"\0")


def _thrift_value(kind: str, value) -> bytes:
    if kind in ("i32", "i64"):
        return _zz(value)
    if kind == "bin":
        return varint(len(value)) + value
    if kind == "double":
        return struct.pack("<d", value)
    if kind == "struct":
        return _thrift(value)
    elem, items = value
    head = bytes([(len(items) << 4) | _KIND[elem]]) if len(items) < 15 else bytes([0xF0 | _KIND[elem]]) + \
        varint(len(items))
    return head + b"".join(_thrift_value(elem, item) for item in items)


def _levels(levels: list[int], max_level: int, bit_packed: bool) -> bytes:
    width = max_level.bit_length()
    if bit_packed:  # the deprecated encoding: most significant bit first, no header
        bits = "".join(format(v, f"0{width}b") for v in levels)
        bits += "0" * (-len(bits) % 8)
        return bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8))
    padded = levels + [0] * (-len(levels) % 8)
    packed = sum(v << (i * width) for i, v in enumerate(padded)).to_bytes(len(padded) * width // 8, "little")
    body = varint((len(padded) // 8) << 1 | 1) + packed
    return struct.pack("<I", len(body)) + body


def _shred(rows: list, empty_level: int, get=lambda e: e, optional_elements: bool = False):
    """Repetition levels, definition levels and values of a list-of-leaf column whose empty list has definition
    level `empty_level` (a null list one less)."""
    reps, defs, values = [], [], []
    for row in rows:
        if not row:
            reps.append(0)
            defs.append(empty_level - 1 if row is None else empty_level)
            continue
        for i, element in enumerate(row):
            reps.append(0 if i == 0 else 1)
            value = get(element)
            defs.append(empty_level + 1 + (optional_elements and value is not None))
            if value is not None:
                values.append(value)
    return reps, defs, values


def _handmade(path: Path, bit_packed: bool, extra_page: bool = False, odd_leaf: bool = False, **codec) -> None:
    rows = 6
    two_level = [[1, 2], [], None, [3], [4, 5, 6], None]
    array_structs = [[{"x": 1}], None, [], [{"x": 2}, {"x": 3}], [], [{"x": 4}]]
    tuples = [["a"], ["b", "c"], None, [], ["d"], []]
    legacy_map = [[("k", 1), ("j", None)], None, [], [("m", 2)], [], [("n", None)]]
    bare = [[7, 8], [], [9], [], [10, 11, 12], [13]]
    groups = [[{"y": 1, "z": b"q"}], [], [{"y": 2, "z": None}, {"y": 3, "z": b"r"}], [], [], [{"y": 4, "z": None}]]
    # a null list's definition level is the one below the list; an empty one's is the list's own
    columns = [  # name, physical type, max definition level, max repetition level, (reps, defs, values)
        ("a.array", 1, 2, 1, _shred(two_level, 1)),
        ("b.array.x", 1, 2, 1, _shred(array_structs, 1, lambda e: e["x"])),
        ("c.c_tuple.s", 6, 2, 1, _shred(tuples, 1, lambda e: e.encode())),
        ("m.map.key", 6, 2, 1, _shred(legacy_map, 1, lambda e: e[0].encode())),
        ("m.map.value", 1, 3, 1, _shred(legacy_map, 1, lambda e: e[1], optional_elements=True)),
        ("r", 1, 1, 1, _shred(bare, 0)),
        ("g.y", 1, 1, 1, _shred(groups, 0, lambda e: e["y"])),
        ("g.z", 6, 2, 1, _shred(groups, 0, lambda e: e["z"], optional_elements=True)),
    ]
    schema = [[(4, "bin", b"schema"), (5, "i32", 6 + odd_leaf)],
              [(3, "i32", 1), (4, "bin", b"a"), (5, "i32", 1), (6, "i32", 3)],
              [(1, "i32", 1), (3, "i32", 2), (4, "bin", b"array")],
              [(3, "i32", 1), (4, "bin", b"b"), (5, "i32", 1), (6, "i32", 3)],
              [(3, "i32", 2), (4, "bin", b"array"), (5, "i32", 1)],
              [(1, "i32", 1), (3, "i32", 0), (4, "bin", b"x")],
              [(3, "i32", 1), (4, "bin", b"c"), (5, "i32", 1), (6, "i32", 3)],
              [(3, "i32", 2), (4, "bin", b"c_tuple"), (5, "i32", 1)],
              [(1, "i32", 6), (3, "i32", 0), (4, "bin", b"s"), (6, "i32", 0)],
              [(3, "i32", 1), (4, "bin", b"m"), (5, "i32", 1), (6, "i32", 1)],
              [(3, "i32", 2), (4, "bin", b"map"), (5, "i32", 2), (6, "i32", 2)],
              [(1, "i32", 6), (3, "i32", 0), (4, "bin", b"key"), (6, "i32", 0)],
              [(1, "i32", 1), (3, "i32", 1), (4, "bin", b"value")],
              [(1, "i32", 1), (3, "i32", 2), (4, "bin", b"r")],
              [(3, "i32", 2), (4, "bin", b"g"), (5, "i32", 2)],
              [(1, "i32", 1), (3, "i32", 0), (4, "bin", b"y")],
              [(1, "i32", 6), (3, "i32", 1), (4, "bin", b"z")]]
    if odd_leaf:  # a type this reader does not read (a VARIANT annotation on a leaf)
        schema.append([(1, "i32", 6), (3, "i32", 1), (4, "bin", b"odd"), (10, "struct", [(16, "struct", [])])])
        columns.append(("odd", 6, 1, 0, ([], [0] * rows, [])))
    _write(path, rows, schema, columns, bit_packed, extra_page, **codec)


def _write(path: Path, rows: int, schema: list, columns: list, bit_packed: bool = False,
           extra_page: bool = False, codec: int = 0, compress=bytes, claim: int = 0) -> None:
    """A one-row-group file of PLAIN v1 pages, `compress`ed and marked as `codec` (uncompressed by default), each
    page's header claiming `claim` bytes more than the page holds; columns are (path, physical type, max
    definition level, max repetition level, (repetition levels, definition levels, values))."""
    out = bytearray(b"PAR1")
    chunks = []
    for name, ptype, max_def, max_rep, (reps, defs, values) in columns:
        body = b""
        if max_rep:
            body += _levels(reps, max_rep, bit_packed)
        if max_def:
            body += _levels(defs, max_def, bit_packed)
        for v in values:
            body += struct.pack("<i", v) if ptype == 1 else struct.pack("<q", v) if ptype == 2 else \
                struct.pack("<I", len(v)) + v
        level_encoding = 4 if bit_packed else 3
        start = len(out)
        if extra_page:  # an index page and a page type from the future, both to be skipped
            for kind in (1, 9):
                out += _thrift([(1, "i32", kind), (2, "i32", 3), (3, "i32", 3), (99, "double", 1.5)]) + b"abc"
        page = compress(body)
        header = [(1, "i32", 0), (2, "i32", len(body) + claim), (3, "i32", len(page)),
                  (5, "struct", [(1, "i32", len(defs)), (2, "i32", 0), (3, "i32", level_encoding),
                                 (4, "i32", level_encoding)])]
        out += _thrift(header) + page
        meta = [(1, "i32", ptype), (2, "list", ("i32", [0, level_encoding])),
                (3, "list", ("bin", [p.encode() for p in name.split(".")])), (4, "i32", codec),
                (5, "i64", len(defs)), (6, "i64", len(out) - start), (7, "i64", len(out) - start),
                (9, "i64", start)]
        chunks.append([(2, "i64", start), (3, "struct", meta)])
    footer = _thrift([(1, "i32", 1), (2, "list", ("struct", schema)), (3, "i64", rows),
                      (4, "list", ("struct", [[(1, "list", ("struct", chunks)), (2, "i64", len(out)),
                                                (3, "i64", rows)]])),
                      (6, "bin", b"handmade"),
                      (40, "list", ("struct", [[(1, "double", 2.5), (300, "list", ("i64", [1, -2]))]]))])
    path.write_bytes(bytes(out + footer + struct.pack("<I", len(footer)) + b"PAR1"))


def test_converted_types_without_logical_types(tmp_path):
    """Files from writers older than the LogicalType annotation carry only the converted type."""
    values = {
        "u32": (1, 13, [0, 2**31 + 5, None, 2**32 - 1]),  # UINT_32: stored as negative int32s
        "u64": (2, 14, [2**63, None, 1, 2**64 - 1]),
        "i8": (1, 15, [-128, 127, None, 0]),
        "date": (1, 6, [0, -1, 18000, None]),
        "ts_ms": (2, 9, [0, 1_600_000_000_123, None, -5]),
        "ts_us": (2, 10, [0, 1_600_000_000_123_456, None, -5]),
        "time_ms": (1, 7, [0, 86_399_999, None, 5]),
        "dec": (1, 5, [12345, -1, None, 0]),
        "text": (6, 0, ["a", None, "ü", ""]),
        "json": (6, 19, ['{"a": 1}', None, "[]", "1"]),
    }
    schema = [[(4, "bin", b"schema"), (5, "i32", len(values))]]
    columns = []
    for name, (ptype, converted, column) in values.items():
        element = [(1, "i32", ptype), (3, "i32", 1), (4, "bin", name.encode()), (6, "i32", converted)]
        if name == "dec":
            element += [(7, "i32", 2), (8, "i32", 9)]
        schema.append(element)
        raw = [v.encode() if isinstance(v, str) else v % 2**32 - (2**32 if v % 2**32 >= 2**31 else 0)
               if ptype == 1 else v - (2**64 if v >= 2**63 else 0) for v in column if v is not None]
        columns.append((name, ptype, 1, 0, ([], [0 if v is None else 1 for v in column], raw)))
    path = tmp_path / "converted.parquet"
    _write(path, 4, schema, columns)
    want = pq.read_table(path).to_pylist()
    assert want[0]["u32"] == 0 and want[1]["u32"] == 2**31 + 5 and want[1]["text"] is None
    assert read_all(path, 3) == want


@pytest.mark.parametrize("bit_packed", [False, True])
def test_legacy_list_layouts_match_pyarrow(tmp_path, bit_packed):
    path = tmp_path / "legacy.parquet"
    _handmade(path, bit_packed)
    if bit_packed:
        # pyarrow unpacks BIT_PACKED levels least significant bit first; the format (Encodings.md) and the Java
        # writers that used it pack the most significant bit first, as this reader does. Same data, RLE levels:
        _handmade(tmp_path / "rle.parquet", False)
        want = pq.read_table(tmp_path / "rle.parquet").to_pylist()
    else:
        want = pq.read_table(path).to_pylist()
    assert want[0]["a"] == [1, 2] and want[0]["b"] == [{"x": 1}] and want[0]["m"] == [("k", 1), ("j", None)]
    for batch_size in (1, 4, 100):
        assert read_all(path, batch_size) == want


def test_unknown_pages_are_skipped_and_unread_types_fail_only_when_read(tmp_path):
    reference = tmp_path / "plain.parquet"
    _handmade(reference, False)
    path = tmp_path / "odd.parquet"
    _handmade(path, False, extra_page=True, odd_leaf=True)
    with ParquetFile(path) as f:
        assert f.names == ["a", "b", "c", "m", "r", "g", "odd"]
        names = f.names[:-1]
        assert [r for b in f.iter_batches(4, names) for r in b] == pq.read_table(reference).to_pylist()
        with pytest.raises(ParquetError, match="'odd'.*VARIANT"):
            f.iter_batches(4)


def _lz4_block(data: bytes) -> bytes:
    return bytes(cramjam.lz4.compress_block(data, store_size=False))


def _hadoop_lz4(data: bytes, frame: int = 1 << 30) -> bytes:
    """Hadoop's LZ4 framing as parquet-mr writes it: per frame its decoded and encoded sizes, big-endian."""
    out = b""
    for start in range(0, len(data), frame):
        block = _lz4_block(data[start:start + frame])
        out += struct.pack(">II", len(data[start:start + frame]), len(block)) + block
    return out


@pytest.mark.parametrize("compress", [_hadoop_lz4, lambda data: _hadoop_lz4(data, 16), _lz4_block],
                         ids=["hadoop-framed", "hadoop-many-frames", "bare-block"])
def test_the_deprecated_lz4_codec_in_both_framings_pyarrow_reads(tmp_path, compress):
    """Codec 5 (LZ4): Hadoop-framed as parquet-mr wrote it, or a bare block as others did. pyarrow no longer
    writes it but reads both, so the file is made by hand and pyarrow's reading is the oracle."""
    plain, path = tmp_path / "plain.parquet", tmp_path / "lz4.parquet"
    _handmade(plain, False)
    _handmade(path, False, codec=5, compress=compress)
    assert path.read_bytes() != plain.read_bytes()
    want = pq.read_table(path).to_pylist()
    assert want == pq.read_table(plain).to_pylist() and read_all(path, 4) == want


def test_lzo_is_refused_with_what_to_do(tmp_path):
    path = tmp_path / "lzo.parquet"
    _handmade(path, False, codec=3)
    with ParquetFile(path) as f, pytest.raises(ParquetError, match=r"lzo.parquet: it is compressed with LZO.*"
                                                                   r"compression=\"snappy\""):
        list(f.iter_batches(4))


_COMPRESSORS = {1: lambda d: bytes(cramjam.snappy.compress_raw(d)), 4: lambda d: bytes(cramjam.brotli.compress(d)),
                6: lambda d: bytes(cramjam.zstd.compress(d)), 7: _lz4_block}


@pytest.mark.parametrize("codec", sorted(_COMPRESSORS))
@pytest.mark.parametrize("claim", [-1, 5])
def test_a_page_that_decodes_to_other_than_its_declared_size_names_the_file(tmp_path, codec, claim):
    path = tmp_path / "sizes.parquet"
    _handmade(path, False, codec=codec, compress=_COMPRESSORS[codec], claim=claim)
    with ParquetFile(path) as f, pytest.raises(ParquetError, match=r"sizes.parquet is damaged: cannot read column "
                                                                   r"'a.array', row group 0: .*page"):
        list(f.iter_batches(4))


@pytest.mark.parametrize("codec", sorted(_COMPRESSORS))
def test_a_damaged_compressed_page_ends_in_a_parquet_error(tmp_path, codec):
    path = tmp_path / "damaged.parquet"
    _handmade(path, False, codec=codec, compress=lambda d: _COMPRESSORS[codec](d)[:-3])  # cut short
    with ParquetFile(path) as f, pytest.raises(ParquetError, match=r"damaged.parquet is damaged: cannot read"):
        list(f.iter_batches(4))


def test_a_page_claiming_more_than_the_budget_is_refused_before_it_is_decoded(tmp_path):
    path = tmp_path / "bomb.parquet"
    _handmade(path, False, codec=6, compress=_COMPRESSORS[6], claim=1 << 30)  # 1 GB from a few bytes
    with ParquetFile(path) as f, pytest.raises(ParquetError, match=r"bomb.parquet: column 'a.array', row group 0: "
                                                                   r"the page holding values 0 to 9 is 1,024 MB "
                                                                   r"once decoded; the limit for one piece held whole"):
        list(f.iter_batches(4))


# ---------------------------------------------------------------------------------------------------------------
# Damaged files

def _fixture_file(tmp_path: Path, **options) -> bytes:
    rng = random.Random(11)
    rows = 60
    table = pa.table({
        "id": pa.array(range(rows), pa.int64()),
        "s": pa.array(_nullable([f"word{rng.randint(0, 9)}" for _ in range(rows)])),
        "f": pa.array([rng.random() for _ in range(rows)], pa.float32()),
        "l": pa.array([[rng.randint(0, 5)] * rng.randint(0, 3) for _ in range(rows)], pa.list_(pa.int32())),
        "img": pa.array([{"bytes": rng.randbytes(200), "path": "p"} if i % 4 else None for i in range(rows)],
                        pa.struct([("bytes", pa.binary()), ("path", pa.string())])),
        "d": pa.array([rng.randint(-1000, 1000) for _ in range(rows)], pa.int32()),
    })
    path = tmp_path / "fixture.parquet"
    pq.write_table(table, path, row_group_size=25, data_page_size=300, **options)
    return path.read_bytes()


def _read_or_parquet_error(path: Path) -> None:
    try:
        with ParquetFile(path) as f:
            for _ in f.iter_batches(16):
                pass
    except ParquetError:
        pass


@pytest.mark.parametrize("cut", [0, 3, 4, 11, 100, 0.5, -1, -4, -8, -9, -30])
def test_truncated_files(tmp_path, cut):
    data = _fixture_file(tmp_path)
    end = int(len(data) * cut) if isinstance(cut, float) else cut if cut >= 0 else len(data) + cut
    path = tmp_path / "cut.parquet"
    path.write_bytes(data[:end])
    with pytest.raises(ParquetError), ParquetFile(path) as f:
        for _ in f.iter_batches(16):
            pass


def test_bad_magic_and_footer_length(tmp_path):
    data = _fixture_file(tmp_path)
    path = tmp_path / "bad.parquet"
    for damaged, message in [(b"PAR2" + data[4:], "PAR1"), (data[:-4] + b"PAR2", "PAR1"),
                             (data[:-8] + struct.pack("<I", len(data)) + b"PAR1", "footer"),
                             (data[:-8] + struct.pack("<I", 2**32 - 1) + b"PAR1", "footer"),
                             (b"not parquet at all", "PAR1"), (b"PAR1PAR1", "bytes long")]:
        path.write_bytes(damaged)
        with pytest.raises(ParquetError, match=message):
            ParquetFile(path)
    with pytest.raises(ParquetError, match="regular file"):
        ParquetFile(tmp_path)


def test_invalid_utf8_names_the_column(tmp_path):
    path = tmp_path / "u.parquet"
    pq.write_table(pa.table({"ok": [1], "text": ["café ~~~~~"]}), path, compression="none", use_dictionary=False,
                   write_statistics=False)
    path.write_bytes(path.read_bytes().replace("café ~~~~~".encode(), b"caf\xff\xfe ~~~~~"))
    with ParquetFile(path) as f:
        assert [r for b in f.iter_batches(5, ["ok"]) for r in b] == [{"ok": 1}]
        with pytest.raises(ParquetError, match="'text'.*UTF-8"):
            list(f.iter_batches(5))


def test_hostile_footers(tmp_path):
    path = tmp_path / "hostile.parquet"
    schema_field = _thrift_value("list", ("struct", [[(4, "bin", b"schema"), (5, "i32", 1)],
                                                     [(1, "i32", 1), (3, "i32", 1), (4, "bin", b"x")]]))
    footers = [
        b"\x1c" * 5000,  # structs nested in structs
        b"\x19" * 3000,  # lists nested in lists
        b"\x19\xf5\xff\xff\xff\xff\x0f",  # a list claiming 2**32 elements
        b"\x18\xff\xff\xff\xff\x0f",  # a string claiming 4 GB
        b"\x15\x02\x19" + schema_field[1:] + b"\x16\xfe\xff\xff\xff\xff\xff\xff\xff\x7f",  # schema ends early
        _thrift([(1, "i32", 1), (2, "list", ("struct", [[(4, "bin", b"schema"), (5, "i32", 2**30)]])),
                 (3, "i64", 0), (4, "list", ("struct", []))]),  # more children than the schema has
        _thrift([(1, "i32", 1), (2, "list", ("struct", [[(4, "bin", b"schema"), (5, "i32", 1)],
                                                       [(1, "i32", 1), (3, "i32", 1), (4, "bin", b"x")]])),
                 (3, "i64", 10**15), (4, "list", ("struct", [[(1, "list", ("struct", [[(2, "i64", 4)]])),
                                                              (2, "i64", 0), (3, "i64", 10**15)]]))]),
    ]
    for footer in footers:
        path.write_bytes(b"PAR1" + footer + struct.pack("<I", len(footer)) + b"PAR1")
        with pytest.raises(ParquetError), ParquetFile(path) as f:
            for _ in f.iter_batches(10):
                pass


_FUZZ_CACHE: dict[str, bytes] = {}


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_byte_flips_end_in_parquet_error_or_values(tmp_path, data):
    if "plain" not in _FUZZ_CACHE:
        _FUZZ_CACHE["plain"] = _fixture_file(tmp_path, use_dictionary=["s"])
        _FUZZ_CACHE["v2"] = _fixture_file(tmp_path, data_page_version="2.0", compression="snappy")
    original = _FUZZ_CACHE[data.draw(st.sampled_from(["plain", "v2"]))]
    footer_at = len(original) - 8 - struct.unpack("<I", original[-8:-4])[0]
    damaged = bytearray(original)
    for _ in range(data.draw(st.integers(1, 4))):
        where = data.draw(st.integers(4, footer_at - 1) if data.draw(st.integers(0, 9)) else
                          st.integers(footer_at, len(original) - 9))
        damaged[where] ^= data.draw(st.integers(1, 255))
    path = tmp_path / "flipped.parquet"
    path.write_bytes(bytes(damaged))
    _read_or_parquet_error(path)
