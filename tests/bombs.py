"""Decompression bombs and oversized texts for every importer that decodes or parses (issue 34), shared by
tests/test_input_budget.py (small ones) and benchmarks/reliability.py's `bombs` section (the issue's sizes).

Each builder writes a dataset into a folder and returns a Bomb: what to import, as which format, and words the
refusal must hold. The files are made cheaply: one compressed page (or GZIP member) is built once and repeated,
so a 5 MB file that decodes to gigabytes takes a fraction of a second to write.
"""

from __future__ import annotations

import gzip
import io
import json
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

import cramjam
from PIL import Image

from desktop_app.formats.tfrecord import masked_crc

MiB = 1 << 20


@dataclass(frozen=True)
class Bomb:
    name: str
    path: Path  # what is imported
    fmt: str
    words: tuple[str, ...]  # in the refusal's message
    on_disk: int  # bytes
    decodes_to: int  # bytes it would decode to (or hold) if nothing stopped it


def _png(path: Path, size=(200, 100)) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    Image.new("RGB", size, (40, 90, 160)).save(buf, "PNG")
    path.write_bytes(buf.getvalue())


def _disk(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.is_dir() else path.stat().st_size


# ------------------------------------------------------------------------------------------------ Parquet

def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _zz(n: int) -> bytes:
    return _varint((n << 1) ^ (n >> 63))


_KIND = {"i32": 5, "i64": 6, "bin": 8, "list": 9, "struct": 12}


def _thrift(fields: list[tuple]) -> bytes:
    """A Thrift compact struct from (field id, kind, value), in field id order."""
    out, last = bytearray(), 0
    for fid, kind, value in fields:
        out += bytes([((fid - last) << 4) | _KIND[kind]])
        last = fid
        out += _value(kind, value)
    return bytes(out + b"\0")


def _value(kind: str, value) -> bytes:
    if kind in ("i32", "i64"):
        return _zz(value)
    if kind == "bin":
        return _varint(len(value)) + value
    if kind == "struct":
        return _thrift(value)
    elem, items = value
    head = bytes([(len(items) << 4) | _KIND[elem]]) if len(items) < 15 else bytes([0xF0 | _KIND[elem]]) + \
        _varint(len(items))
    return head + b"".join(_value(elem, item) for item in items)


PARQUET_CODECS = {"gzip": 2, "snappy": 1, "zstd": 6}
_COMPRESS = {
    2: lambda d: _gzip(d),
    1: lambda d: bytes(cramjam.snappy.compress_raw(d)),
    6: lambda d: bytes(cramjam.zstd.compress(d, level=19)),
}


def _gzip(data: bytes) -> bytes:
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    return z.compress(data) + z.flush()


def parquet_page(codec: str, style: str, value_size: int = (1 << 24) - 4, count: int = 1 << 20) -> tuple[bytes, int, int]:
    """(compressed page, its decoded size, its value count): `style` "big" is one value of `value_size` zero
    bytes (pages that expand as far as the codec goes); "many" is `count` values of two bytes each (a page whose
    values cost far more held in memory than on disk)."""
    if style == "big":
        body = struct.pack("<I", value_size) + bytes(value_size)
        values = 1
    else:
        body = (struct.pack("<I", 2) + b"ab") * count
        values = count
    return _COMPRESS[PARQUET_CODECS[codec]](body), len(body), values


def screenspot_parquet(path: Path, codec: str, style: str, on_disk: int, claim_extra: int = 0, **page) -> Bomb:
    """A file with the HF ScreenSpot columns (bbox, instruction, image: enough for detection and the reader),
    its `bbox` column chunk pages of `style`, repeated until the file is about `on_disk` bytes."""
    data, usize, values = parquet_page(codec, style, **page)
    pages = max(1, on_disk // (len(data) + 40))
    out = bytearray(b"PAR1")
    start = len(out)
    header = _thrift([(1, "i32", 0), (2, "i32", usize + claim_extra), (3, "i32", len(data)),
                      (5, "struct", [(1, "i32", values), (2, "i32", 0), (3, "i32", 3), (4, "i32", 3)])])
    out += (header + data) * pages
    rows = pages * values
    size = len(out) - start
    chunks = []
    for name in ("bbox", "instruction", "image"):  # the other two are never reached: bbox is read first
        meta = [(1, "i32", 6), (2, "list", ("i32", [0])), (3, "list", ("bin", [name.encode()])),
                (4, "i32", PARQUET_CODECS[codec]), (5, "i64", rows), (6, "i64", usize * pages), (7, "i64", size),
                (9, "i64", start)]
        chunks.append([(2, "i64", start), (3, "struct", meta)])
    schema = [[(4, "bin", b"schema"), (5, "i32", 3)]] + [[(1, "i32", 6), (3, "i32", 0), (4, "bin", n)]
                                                         for n in (b"bbox", b"instruction", b"image")]
    footer = _thrift([(1, "i32", 1), (2, "list", ("struct", schema)), (3, "i64", rows),
                      (4, "list", ("struct", [[(1, "list", ("struct", chunks)), (2, "i64", size),
                                                (3, "i64", rows)]]))])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(out + footer + struct.pack("<I", len(footer)) + b"PAR1"))
    held = usize * pages if style == "big" else pages * values * 43  # a bytes object and its list slot each
    return Bomb(f"parquet {codec} pages ({style})", path, "screenspot-parquet",
                (path.name, "column 'bbox'", "the limit"), _disk(path), held)


# ------------------------------------------------------------------------------------------------ TFRecord

def _zeros_member(size: int) -> bytes:
    """A GZIP member of `size` zero bytes (members concatenate into one stream, as gzip.open reads them)."""
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    out = bytearray()
    chunk = bytes(MiB)
    for _ in range(size // MiB):
        out += z.compress(chunk)
    return bytes(out + z.compress(bytes(size % MiB)) + z.flush())


def tfrecord_claim(path: Path, compressed: bool, claim: int, decoded: int = 0) -> Bomb:
    """One record claiming `claim` bytes (its length checksum right); in a GZIP file followed by `decoded` zero
    bytes that really are there (16 MB members repeated), in a plain file by nothing."""
    length = struct.pack("<Q", claim)
    head = length + struct.pack("<I", masked_crc(length))
    path.parent.mkdir(parents=True, exist_ok=True)
    if not compressed:
        path.write_bytes(head + bytes(64))
        return Bomb("tfrecord plain, huge claimed length", path, "androidcontrol-tfrecord",
                    (path.name, "record 1", "cut short"), _disk(path), claim)
    member = _zeros_member(16 * MiB)
    with open(path, "wb") as fh:
        fh.write(gzip.compress(head))
        for _ in range(decoded // (16 * MiB)):
            fh.write(member)
    return Bomb("tfrecord gzip, huge claimed length", path, "androidcontrol-tfrecord",
                (path.name, "record 1", "the limit"), _disk(path), decoded)


def tfrecord_many(path: Path, record: int, records: int) -> Bomb:
    """GZIP records of `record` zero bytes each, every checksum right: each within the one-record limit, the
    file far past what its size may decode to."""
    data = bytes(record)
    length = struct.pack("<Q", record)
    framed = length + struct.pack("<I", masked_crc(length)) + data + struct.pack("<I", masked_crc(data))
    member = _gzip(framed)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(member * records)
    return Bomb("tfrecord gzip, many records", path, "androidcontrol-tfrecord",
                (path.name, "decodes to more than"), _disk(path), len(framed) * records)


# ------------------------------------------------------------------------------------------------ JSON Lines

def gzip_jsonl(folder: Path, decoded: int) -> Bomb:
    """ScreenLab's episodes.jsonl, GZIP-compressed (no importer reads GZIP JSON: it must be refused at once)."""
    path = folder / "episodes.jsonl"
    folder.mkdir(parents=True, exist_ok=True)
    line = b'{"id": "e1", "goal": "' + b"a" * 1000
    with open(path, "wb") as fh:
        fh.write(_gzip(line))
        member = _gzip(b"a" * (16 * MiB))
        for _ in range(decoded // (16 * MiB)):
            fh.write(member)
    return Bomb("jsonl gzip", path, "screenlab", (path.name, "line 1", "UTF-8"), _disk(path), decoded)


def long_jsonl_line(folder: Path, chars: int) -> Bomb:
    """ScreenLab's episodes.jsonl whose one episode's goal is `chars` characters long."""
    folder.mkdir(parents=True, exist_ok=True)
    _png(folder / "shot.png")
    path = folder / "episodes.jsonl"
    line = {"id": "e1", "goal": "g" * chars, "steps": [{"image": "shot.png", "actions": []}]}
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    return Bomb("jsonl long goal", path, "screenlab", (path.name, "goal", "characters; the limit is"),
                _disk(path), chars)


# ------------------------------------------------------------------------------------------------ XML

def cvat_attribute(folder: Path, chars: int, where: str = "text") -> Bomb:
    """CVAT for images 1.1 with one box whose <attribute> text (or, `where`="value", an XML attribute of the
    box) is `chars` characters long."""
    folder.mkdir(parents=True, exist_ok=True)
    _png(folder / "images" / "shot.png")
    path = folder / "annotations.xml"
    with open(path, "w", encoding="utf-8") as fh:
        fh.write('<?xml version="1.0" encoding="utf-8"?>\n<annotations>\n  <version>1.1</version>\n'
                 '  <image id="0" name="shot.png" width="200" height="100">\n')
        extra = ' note="' if where == "value" else ""
        fh.write(f'    <box label="button" xtl="1" ytl="1" xbr="50" ybr="40" occluded="0"{extra}')
        if where == "value":
            _repeat(fh, "x", chars)
            fh.write('">\n')
        else:
            fh.write('>\n      <attribute name="x">')
            _repeat(fh, "x", chars)
            fh.write("</attribute>\n")
        fh.write("    </box>\n  </image>\n</annotations>\n")
    words = (path.name, "shot.png" if where == "text" else "line 5", "the limit")
    return Bomb(f"cvat xml, {chars:,}-character {'attribute' if where == 'text' else 'tag'}", folder / "annotations.xml",
                "cvat-images", words, _disk(path), chars)


def _repeat(fh, ch: str, count: int) -> None:
    block = ch * MiB
    for _ in range(count // MiB):
        fh.write(block)
    fh.write(ch * (count % MiB))


def cvat_entities(folder: Path) -> Bomb:
    """The billion laughs: ten entities each ten of the one before (1 GB from a kilobyte)."""
    folder.mkdir(parents=True, exist_ok=True)
    _png(folder / "images" / "shot.png")
    lines = ['<?xml version="1.0"?>', "<!DOCTYPE annotations [", '  <!ENTITY l0 "lol">']
    lines += [f'  <!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, 10)]
    lines += ["]>", "<annotations><version>1.1</version>",
              '<image id="0" name="shot.png" width="200" height="100"><tag label="button">'
              '<attribute name="x">&l9;</attribute></tag></image></annotations>']
    path = folder / "annotations.xml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return Bomb("cvat xml, entity expansion", path, "cvat-images", (path.name, "DOCTYPE or entities"), _disk(path),
                3 * 10**9)


def sphinx_text_node(root: Path, chars: int, sparse: bool = False) -> Bomb:
    """A Sphinx task whose second dump has a node whose text is `chars` characters (or, `sparse`, a dump of
    `chars` bytes that are not even read: a file that size is refused by its size)."""
    folder = root / "groundtruth" / "7" / "demo"
    folder.mkdir(parents=True, exist_ok=True)
    node = ('<node index="0" text="Go" resource-id="p:id/go" class="android.widget.Button" package="p" '
            'clickable="true" bounds="[10,10][90,50]" />')
    dump = ("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n<hierarchy rotation=\"0\">\n"
            f"  <node index=\"0\" text=\"\" class=\"android.widget.FrameLayout\" package=\"p\" bounds=\"[0,0][200,100]\">\n"
            f"    {node}\n  </node>\n</hierarchy>\n")
    for i in range(2):
        _png(folder / f"{i}.png")
        (folder / f"{i}.xml").write_text(dump, encoding="utf-8")
    big = folder / "1.xml"
    if sparse:
        with open(big, "wb") as fh:
            fh.truncate(chars)
    else:
        head, tail = dump.split('text="Go"')
        with open(big, "w", encoding="utf-8") as fh:
            fh.write(head + 'text="')
            _repeat(fh, "w", chars)
            fh.write('"' + tail)
    element = {"text": "Go", "resource-id": "p:id/go", "class": "android.widget.Button", "bounds": "[10,10][90,50]"}
    (folder / "meta.json").write_text(json.dumps([{"type": "click", "element": element},
                                                  {"type": "stop", "element": None}]))
    (folder / "evaluator.json").write_text(json.dumps([
        {"type": "findaction", "match_type": "equal", "match_rules": {"action_type": "click"},
         "check_type": "equal", "check_rules": {"text": "Go"}}]))
    words = ("1.xml", "the limit is")
    return Bomb(f"sphinx dump, {'a' if not sparse else 'whole'} {chars:,}-{'character node text' if not sparse else 'byte file'}",
                root, "sphinx", words, _disk(big), chars)
