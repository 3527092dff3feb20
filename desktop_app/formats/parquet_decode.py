"""The bytes of a Parquet file decoded: its Thrift compact metadata, its page codecs (Snappy, LZ4_RAW, Hadoop's
LZ4, Brotli and ZSTD through cramjam; GZIP through zlib) and its value and level encodings (PLAIN, dictionary
indices, RLE / bit-packed, the DELTA encodings, BYTE_STREAM_SPLIT). parquet_read.py puts the decoded levels and
values back together into rows.

Written from the format's own documents (apache/parquet-format: parquet.thrift, Encodings.md,
Compression.md; the Thrift compact protocol). Every length, offset and count is checked against the bytes there
are before anything is allocated for it: damage ends in a ParquetError.
"""

from __future__ import annotations

import struct
import zlib

import cramjam
import numpy as np


class ParquetError(Exception):
    """A file that is not Parquet, is damaged, or uses something this reader does not read; the message says
    which, in plain words, and (for the unsupported case) what the user can do."""


class Damaged(ParquetError):
    """The bytes contradict the format; raised deep down and given the column and row group on the way up."""


MAGIC = b"PAR1"
MAX_NESTING = 64  # Thrift structs and schema groups; real files nest a handful of levels
# A page may expand at most this much (deflate tops out near 1032:1, snappy and LZ4 far lower; ZSTD and Brotli
# can go further, but only on pages far larger than the floor below, which writers keep near 1 MB).
_MAX_EXPANSION = 1100
_MIN_PAGE_LIMIT = 1 << 24
MIN_LEVELS_LIMIT = 1 << 20  # level entries a page may hold whatever its size (an all-null page is tiny)
_RESAVE = ('re-save the file with Snappy compression, e.g. '
           'pyarrow.parquet.write_table(table, path, compression="snappy")')

BOOLEAN, INT32, INT64, INT96, FLOAT, DOUBLE, BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY = range(8)
TYPE_NAMES = ("BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY")
REQUIRED, OPTIONAL, REPEATED = 0, 1, 2
PLAIN, PLAIN_DICTIONARY, RLE, BIT_PACKED = 0, 2, 3, 4
DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, RLE_DICTIONARY, BYTE_STREAM_SPLIT = 5, 6, 7, 8, 9
ENCODING_NAMES = {0: "PLAIN", 2: "PLAIN_DICTIONARY", 3: "RLE", 4: "BIT_PACKED", 5: "DELTA_BINARY_PACKED",
                   6: "DELTA_LENGTH_BYTE_ARRAY", 7: "DELTA_BYTE_ARRAY", 8: "RLE_DICTIONARY", 9: "BYTE_STREAM_SPLIT",
                   10: "ALP"}
_CODEC_NAMES = {0: "UNCOMPRESSED", 1: "SNAPPY", 2: "GZIP", 3: "LZO", 4: "BROTLI", 5: "LZ4", 6: "ZSTD", 7: "LZ4_RAW"}
DATA_PAGE, INDEX_PAGE, DICTIONARY_PAGE, DATA_PAGE_V2 = 0, 1, 2, 3
NUMPY_TYPES = {INT32: np.dtype("<i4"), INT64: np.dtype("<i8"), FLOAT: np.dtype("<f4"), DOUBLE: np.dtype("<f8"),
                INT96: np.dtype([("nanos", "<i8"), ("days", "<i4")])}
I32 = struct.Struct("<I")


# ---------------------------------------------------------------------------------------------------------------
# Thrift compact protocol: every struct is read generically into {field id: value}, so fields this reader does not
# know are skipped by the same code that reads the ones it does.

def _uvarint(buf, pos: int, end: int) -> tuple[int, int]:
    result = shift = 0
    for _ in range(10):  # 64 bits; a longer varint would be damage, and unbounded would be a loop on garbage
        if pos >= end:
            raise Damaged("the data ends in the middle of a number")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
    raise Damaged("a number is longer than 64 bits")


def _zigzag(value: int) -> int:
    return (value >> 1) ^ -(value & 1)


class ThriftReader:
    def __init__(self, buf, pos: int, end: int):
        self.buf, self.pos, self.end = buf, pos, end

    def _byte(self) -> int:
        if self.pos >= self.end:
            raise Damaged("the metadata ends early")
        self.pos += 1
        return self.buf[self.pos - 1]

    def _take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > self.end:
            raise Damaged("a metadata field runs past the end of its bytes")
        self.pos += n
        return bytes(self.buf[self.pos - n:self.pos])

    def _int(self) -> int:
        value, self.pos = _uvarint(self.buf, self.pos, self.end)
        return _zigzag(value)

    def read_struct(self, depth: int = 0) -> dict:
        if depth > MAX_NESTING:
            raise Damaged("the metadata is nested too deeply")
        fields: dict[int, object] = {}
        last = 0
        while True:
            head = self._byte()
            if head == 0:
                return fields
            kind, delta = head & 0x0F, head >> 4
            last = last + delta if delta else self._int()
            if kind in (1, 2):  # a bool field carries its value in the type
                fields[last] = kind == 1
            else:
                fields[last] = self._value(kind, depth)

    def _value(self, kind: int, depth: int):
        if kind in (4, 5, 6):
            return self._int()
        if kind == 8:
            return self._take(self._uvarint())
        if kind == 12:
            return self.read_struct(depth + 1)
        if kind == 3:
            return int.from_bytes(self._take(1), "little", signed=True)
        if kind in (9, 10):
            head = self._byte()
            size, elem = head >> 4, head & 0x0F
            if size == 15:
                size = self._uvarint()
            if size > self.end - self.pos:  # every element takes at least one byte
                raise Damaged("a metadata list is longer than its bytes")
            if depth > MAX_NESTING:
                raise Damaged("the metadata is nested too deeply")
            if elem in (1, 2):
                return [b == 1 for b in self._take(size)]
            return [self._value(elem, depth + 1) for _ in range(size)]
        if kind == 11:
            size = self._uvarint()
            if size == 0:
                return []
            types = self._byte()
            if 2 * size > self.end - self.pos:
                raise Damaged("a metadata map is longer than its bytes")
            return [(self._value(types >> 4, depth + 1), self._value(types & 0x0F, depth + 1)) for _ in range(size)]
        if kind == 7:
            return struct.unpack("<d", self._take(8))[0]
        raise Damaged(f"unknown metadata field type {kind}")

    def _uvarint(self) -> int:
        value, self.pos = _uvarint(self.buf, self.pos, self.end)
        return value


def thrift_field(fields, fid: int, kind: type, what: str, default=...):
    """Field `fid` of a decoded struct, checked to be of the expected kind."""
    if not isinstance(fields, dict):
        raise Damaged(f"the metadata holds something else where {what} should be")
    value = fields.get(fid, default)
    if value is ...:
        raise Damaged(f"the metadata lacks {what}")
    if value is not default and (not isinstance(value, kind) or (kind is int and isinstance(value, bool))):
        raise Damaged(f"the metadata's {what} is of the wrong kind")
    return value


# ---------------------------------------------------------------------------------------------------------------
# Decompression: cramjam's C/Rust codecs (ADR 0030), GZIP through zlib. Each page is decoded into a buffer of the
# size its header declares, so a damaged or hostile page never makes the codec allocate more than that, and the
# declared size itself is checked against the page's bytes first.

def _snappy(data, out: bytearray) -> int:
    return cramjam.snappy.decompress_raw_into(data, out)


def _lz4_raw(data, out: bytearray) -> int:
    return cramjam.lz4.decompress_block_into(data, out)


def _lz4_hadoop(data, out: bytearray) -> int:
    """The deprecated LZ4 codec: Hadoop's framing (per block: its decoded and encoded sizes, 4 bytes each,
    big-endian, then an LZ4 block) as parquet-mr wrote it, else a bare LZ4 block as some other writers did.
    The codec's name says neither, so both are tried in that order (Arrow's reader does the same)."""
    data = memoryview(data)
    o = p = 0
    end, size = len(data), len(out)
    view = memoryview(out)
    try:
        while p + 8 <= end:
            decoded, encoded = _HADOOP_SIZES.unpack_from(data, p)
            p += 8
            if p + encoded > end or o + decoded > size:
                raise Damaged("no Hadoop frame")
            if cramjam.lz4.decompress_block_into(data[p:p + encoded], view[o:o + decoded]) != decoded:
                raise Damaged("a Hadoop frame decodes short")
            p += encoded
            o += decoded
        if p == end and o == size:
            return o
    except (Damaged, cramjam.DecompressionError):
        pass
    return _lz4_raw(data, out)


def _brotli(data, out: bytearray) -> int:
    return cramjam.brotli.decompress_into(data, out)


def _zstd(data, out: bytearray) -> int:
    return cramjam.zstd.decompress_into(data, out)


_HADOOP_SIZES = struct.Struct(">II")
_CODECS = {1: _snappy, 4: _brotli, 5: _lz4_hadoop, 6: _zstd, 7: _lz4_raw}


def codec_problem(codec: int) -> str | None:
    """Why pages compressed with `codec` cannot be read here, or None."""
    if codec == 0 or codec == 2 or codec in _CODECS:
        return None
    name = _CODEC_NAMES.get(codec, f"compression #{codec}")
    return f"it is compressed with {name}, which this reader does not read; {_RESAVE}"


def decompress(codec: int, data, size: int):
    """The page's bytes decoded; exactly `size` of them (the page header's word) or Damaged."""
    if codec == 0:
        if len(data) != size:
            raise Damaged(f"an uncompressed page holds {len(data)} bytes, its header says {size}")
        return data
    if size > max(_MIN_PAGE_LIMIT, _MAX_EXPANSION * len(data)):
        raise Damaged(f"a page of {len(data)} bytes claims to expand to {size}")
    if codec == 2:
        out = zlib.decompressobj(47).decompress(data, size + 1)  # 47: gzip or zlib header, either
        if len(out) != size:
            raise Damaged(f"a page decompresses to {len(out)} bytes, its header says {size}")
        return out
    if size == 0 and len(data) == 0:  # an empty page some writers leave without even a codec's end mark
        return bytearray()
    out = bytearray(size)
    name = _CODEC_NAMES[codec]
    try:
        got = _CODECS[codec](data, out)
    except cramjam.DecompressionError as exc:
        reason = str(exc).strip().splitlines()[0][:120] if str(exc).strip() else "it cannot be decoded"
        raise Damaged(f"a {name} page is damaged or holds more than its header's {size} bytes ({reason})") from None
    if got != size:
        raise Damaged(f"a {name} page decompresses to {got} bytes, its header says {size}")
    return out


# ---------------------------------------------------------------------------------------------------------------
# Encodings

def unpack(buf, pos: int, count: int, width: int, msb_first: bool = False) -> np.ndarray:
    """`count` unsigned integers of `width` bits packed back to back (LSB first, or MSB first for BIT_PACKED)."""
    dtype = np.uint64 if width > 32 else np.uint32
    if count == 0 or width == 0:
        return np.zeros(count, dtype)
    nbytes = (count * width + 7) // 8
    if pos < 0 or pos + nbytes > len(buf):
        raise Damaged("bit-packed values run past their data")
    raw = np.frombuffer(buf, np.uint8, nbytes, pos)
    if width == 8:
        return raw.astype(dtype)
    bits = np.unpackbits(raw, count=count * width, bitorder="big" if msb_first else "little").reshape(count, width)
    if width == 1:
        return bits[:, 0].astype(dtype)
    shifts = np.arange(width - 1, -1, -1, dtype=dtype) if msb_first else np.arange(width, dtype=dtype)
    return (bits.astype(dtype) << shifts).sum(axis=1, dtype=dtype)


def rle_hybrid(buf, pos: int, end: int, width: int, count: int) -> np.ndarray:
    if width > 32:
        raise Damaged(f"a bit width of {width} is more than 32")
    if width == 0 or count == 0:
        return np.zeros(count, np.uint32)
    value_bytes = (width + 7) // 8
    # Runs are only noted here and decoded together after: level data of list columns is thousands of runs a
    # few values long, and a numpy call per run cost more than the values. Bit-packed runs are whole bytes (8
    # values a group), so their bytes joined unpack as one.
    lengths, repeated, packed = [], [], []  # per run its length and value (-1: bit-packed); the packed bytes
    got = packed_count = 0
    while got < count:
        if pos < end and buf[pos] < 0x80:  # a one-byte header (runs under 64 values): most of them
            header = buf[pos]
            pos += 1
        else:
            header, pos = _uvarint(buf, pos, end)  # past the end: Damaged
        left = count - got
        if header & 1:
            groups = header >> 1
            take = groups * 8
            if take > left:  # only the last run holds more than is asked for
                take = left
            nbytes = (take * width + 7) // 8
            if pos + nbytes > end:
                raise Damaged("bit-packed values run past their data")
            packed.append(buf[pos:pos + nbytes])
            pos += groups * width
            repeated.append(-1)
            packed_count += take
        else:
            if pos + value_bytes > end:
                raise Damaged("a run of repeated values runs past its data")
            repeated.append(int.from_bytes(buf[pos:pos + value_bytes], "little"))
            pos += value_bytes
            take = header >> 1
            if take > left:
                take = left
        lengths.append(take)
        got += take
    if not packed:
        return np.repeat(np.array(repeated, np.uint32), lengths)
    values = unpack(b"".join(packed), 0, packed_count, width)
    if packed_count == count:
        return values.astype(np.uint32, copy=False)
    out = np.repeat(np.array(repeated, np.int64), lengths)
    out[out == -1] = values
    return out.astype(np.uint32)


def delta_binary(buf, pos: int, end: int, limit: int, bits: int) -> tuple[np.ndarray, int]:
    """DELTA_BINARY_PACKED: at most `limit` values (int32 or int64), and where the encoded bytes end."""
    block, pos = _uvarint(buf, pos, end)
    minis, pos = _uvarint(buf, pos, end)
    total, pos = _uvarint(buf, pos, end)
    first, pos = _uvarint(buf, pos, end)
    if block == 0 or minis == 0 or block % minis or (block // minis) % 8:
        raise Damaged(f"a delta block of {block} values in {minis} miniblocks is not valid")
    if total > limit:
        raise Damaged(f"delta-encoded data holds {total} values where {limit} were expected")
    per_mini = block // minis
    mask = np.uint64((1 << 64) - 1)
    deltas = []
    got = 1 if total else 0
    while got < total:
        min_delta, pos = _uvarint(buf, pos, end)
        min_delta = np.uint64(_zigzag(min_delta) & ((1 << 64) - 1))
        if pos + minis > end:
            raise Damaged("delta-encoded data ends early")
        widths = bytes(buf[pos:pos + minis])
        pos += minis
        for width in widths:
            if got >= total:
                break
            if width > bits:
                raise Damaged(f"a delta miniblock is {width} bits wide")
            take = min(per_mini, total - got)
            packed = unpack(buf, pos, take, width).astype(np.uint64)
            pos += min(per_mini * width // 8, end - pos)
            deltas.append((packed + min_delta) & mask)
            got += take
    values = np.empty(total, np.uint64)
    if total:
        values[0] = _zigzag(first) & ((1 << 64) - 1)
        if deltas:
            values[1:] = np.concatenate(deltas)
        np.cumsum(values, out=values)  # unsigned, so it wraps around as the encoder's did
    if bits == 32:
        return (values & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.int32), pos
    return values.view(np.int64), pos


def delta_lengths(buf, pos: int, end: int, count: int) -> tuple[list[bytes], int]:
    lengths, pos = delta_binary(buf, pos, end, count, 32)
    if len(lengths) != count:
        raise Damaged(f"{len(lengths)} lengths for {count} values")
    if count and int(lengths.min()) < 0:
        raise Damaged("a negative length")
    total = int(lengths.sum(dtype=np.int64))
    if pos + total > end:
        raise Damaged("byte arrays run past their page")
    view = memoryview(buf)
    out = []
    for n in lengths.tolist():
        out.append(bytes(view[pos:pos + n]))
        pos += n
    return out, pos


def delta_strings(buf, pos: int, end: int, count: int) -> list[bytes]:
    prefixes, pos = delta_binary(buf, pos, end, count, 32)
    suffixes, _ = delta_lengths(buf, pos, end, count)
    if len(prefixes) != count:
        raise Damaged(f"{len(prefixes)} prefix lengths for {count} values")
    budget = max(1 << 26, 1024 * (end - pos))  # shared prefixes can make each value long: bound the total
    out = []
    previous = b""
    for prefix, suffix in zip(prefixes.tolist(), suffixes, strict=True):
        if prefix < 0 or prefix > len(previous):
            raise Damaged("a shared prefix is longer than the value before it")
        previous = previous[:prefix] + suffix
        budget -= len(previous)
        if budget < 0:
            raise Damaged("prefix-encoded values expand far beyond their page")
        out.append(previous)
    return out


def decode_plain(ptype: int, width: int, buf, pos: int, end: int, count: int):
    """`count` PLAIN values: a numpy array for fixed-width numbers, a list of bytes for byte arrays."""
    if ptype == BYTE_ARRAY:
        if 4 * count > end - pos:
            raise Damaged("more byte arrays than the page has room for")
        # the page's bytes copied once, so each value is one slice of them; the values' bounds are checked
        # after the loop (a slice past the end is short, never large) to keep the loop to the few steps it needs
        data = bytes(memoryview(buf)[pos:end])
        unpack_from = I32.unpack_from
        out = [b""] * count
        p = 0
        try:
            for i in range(count):
                start = p + 4
                p = start + unpack_from(data, p)[0]
                out[i] = data[start:p]
        except struct.error:
            raise Damaged("byte arrays run past their page") from None
        if p > len(data):
            raise Damaged("a byte array runs past its page")
        return out
    if ptype == BOOLEAN:
        nbytes = (count + 7) // 8
        if pos + nbytes > end:
            raise Damaged("booleans run past their page")
        return unpack(buf, pos, count, 1).astype(bool)
    if ptype == FIXED_LEN_BYTE_ARRAY:
        if count * width > end - pos:
            raise Damaged("fixed-length values run past their page")
        data = bytes(memoryview(buf)[pos:pos + count * width])
        return [data[i:i + width] for i in range(0, count * width, width)]
    dtype = NUMPY_TYPES[ptype]
    if count * dtype.itemsize > end - pos:
        raise Damaged("values run past their page")
    return np.frombuffer(buf, dtype, count, pos) if count else np.zeros(0, dtype)


def byte_stream_split(ptype: int, width: int, buf, pos: int, end: int, count: int):
    if count * width > end - pos:
        raise Damaged("values run past their page")
    if count == 0:
        return [] if ptype == FIXED_LEN_BYTE_ARRAY else np.zeros(0, NUMPY_TYPES[ptype])
    joined = np.ascontiguousarray(np.frombuffer(buf, np.uint8, count * width, pos).reshape(width, count).T)
    if ptype == FIXED_LEN_BYTE_ARRAY:
        data = joined.tobytes()
        return [data[i:i + width] for i in range(0, count * width, width)]
    return joined.view(NUMPY_TYPES[ptype]).reshape(count)
