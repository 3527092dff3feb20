"""TFRecord files read without TensorFlow: the record framing, GZIP-compressed or plain.

Definition: tensorflow/tensorflow, tensorflow/core/lib/io/record_writer.cc (and the format notes of
tensorflow/python/lib/io/python_io.py). A file is records one after the other, each

    uint64  length                        little-endian
    uint32  masked CRC-32C of those 8 bytes
    bytes   data[length]
    uint32  masked CRC-32C of the data

with masked(crc) = ((crc >> 15) | (crc << 17)) + 0xa282ead8, modulo 2**32, and CRC-32C the Castagnoli CRC
(reflected polynomial 0x82F63B78, as iSCSI uses). A GZIP file is the same bytes compressed as one stream
(TFRecordOptions(compression_type="GZIP"), as AndroidControl ships); it is told by its first two bytes.

Both checksums are checked: the length's, so that a file that is not a TFRecord (or has lost its place) is
refused at once rather than read as a huge length, and the data's, so a damaged record is refused by number
instead of being imported with a wrong goal or action. CRC-32C comes from google-crc32c (Google's C library,
with the processor's CRC instruction where there is one; ADR 0030); the masking is TFRecord's own and stays here.

A record's claimed length is checked before a byte of it is read (ADR 0039): in a plain file against the bytes
left in the file, in a GZIP file against the file's input budget (budget.py: what the file may decode to in
total, and what one record held whole may be), so a 1.5 MB file claiming a 2 GB record is refused at once. The
data is then read a chunk at a time, its checksum extended as it comes.
"""

from __future__ import annotations

import gzip
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path

import google_crc32c

from desktop_app.formats.budget import Budget, OverBudget
from desktop_app.formats.records import FormatError

GZIP_MAGIC = b"\x1f\x8b"
HEADER = 12  # length (8) and its checksum (4)
MAX_RECORD = 2**31 - 1  # protobuf's own limit on a message; a larger length is damage, not data
CHUNK = 1 << 20  # bytes of a record read at a time
_MASK_DELTA = 0xA282EAD8


def crc32c(data: bytes) -> int:
    return google_crc32c.value(data)


def masked_crc(data: bytes) -> int:
    return _masked(crc32c(data))


def _masked(crc: int) -> int:
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF


def _read_record(fh, length: int) -> tuple[bytes, int]:
    """Up to `length` bytes (fewer when the file ends first), a chunk at a time, and their CRC-32C: a lying
    length costs no more memory than the bytes that are there."""
    if length <= CHUNK:
        data = fh.read(length)
        return data, crc32c(data)
    out = bytearray()
    crc = 0
    while len(out) < length:
        chunk = fh.read(min(CHUNK, length - len(out)))
        if not chunk:
            break
        crc = google_crc32c.extend(crc, chunk)
        out += chunk
    return bytes(out), crc


def frame(data: bytes) -> bytes:
    """One record as a TFRecord file holds it (for writers and tests)."""
    length = struct.pack("<Q", len(data))
    return (length + struct.pack("<I", masked_crc(length)) + data + struct.pack("<I", masked_crc(data)))


def is_gzip(path: Path) -> bool:
    with open(path, "rb") as fh:
        return fh.read(2) == GZIP_MAGIC


def looks_like_tfrecord(path: Path) -> bool:
    """Whether the file starts with a TFRecord header whose length checksum holds (read: 12 bytes, or the
    few kilobytes of a GZIP file that hold them). Cheap enough to guess a format from."""
    try:
        if not path.is_file():
            return False
        opener = gzip.open if is_gzip(path) else open
        with opener(path, "rb") as fh:
            head = fh.read(HEADER)
    except (OSError, EOFError, zlib.error):
        return False
    return len(head) == HEADER and struct.unpack("<I", head[8:])[0] == masked_crc(head[:8])


def records(path: Path, budget: Budget | None = None) -> Iterator[tuple[int, bytes]]:
    """(number, data) of each record, numbered from 1; a FormatError naming the record when the file is not a
    TFRecord, is cut short or damaged, or decodes past `budget` (by default the input budget of its size)."""
    path = Path(path)
    if path.exists() and not path.is_file() and not path.is_dir():
        raise FormatError("not a regular file (a pipe or a device?); reading it would wait forever", path)
    try:
        compressed = is_gzip(path)
    except IsADirectoryError:
        raise FormatError("is a folder; expected a TFRecord file", path) from None
    except FileNotFoundError:
        raise FormatError("file not found", path) from None
    except OSError as exc:
        raise FormatError(f"cannot read the file ({exc.strerror or exc})", path) from None
    number = 0
    try:
        on_disk = path.stat().st_size
        budget = budget or Budget(on_disk)
        at = 0  # where the next record starts in the (decoded) file
        with (gzip.open(path, "rb") if compressed else open(path, "rb")) as fh:
            while True:
                number += 1
                head = fh.read(HEADER)
                if not head:
                    return
                if len(head) < HEADER:
                    raise FormatError(f"record {number}: the file ends inside the record's header "
                                      f"({len(head)} of {HEADER} bytes): the file is cut short", path)
                length, = struct.unpack("<Q", head[:8])
                if struct.unpack("<I", head[8:])[0] != masked_crc(head[:8]):
                    raise FormatError(
                        f"record {number}: the checksum of the record's length does not match: "
                        + ("the file is damaged" if number > 1 else
                           "this is not a TFRecord file (or it is damaged)"
                           + ("" if compressed else "; a GZIP TFRecord starts with the bytes 1f 8b")), path)
                if length > MAX_RECORD:
                    raise FormatError(f"record {number} claims {length:,} bytes, more than any record holds: "
                                      "the file is damaged", path)
                left = on_disk - at - HEADER - 4
                if not compressed and length > left:  # known before reading: the bytes are not there
                    raise FormatError(f"record {number}: the file ends inside the record ({max(left, 0):,} of "
                                      f"{length:,} bytes): the file is cut short", path)
                try:
                    budget.take(HEADER + length + 4, "the record")
                except OverBudget as exc:
                    raise FormatError(f"record {number}: {exc}", path) from None
                data, crc = _read_record(fh, length)
                footer = fh.read(4)
                if len(data) < length or len(footer) < 4:
                    raise FormatError(f"record {number}: the file ends inside the record ({len(data):,} of "
                                      f"{length:,} bytes): the file is cut short", path)
                at += HEADER + length + 4
                if struct.unpack("<I", footer)[0] != _masked(crc):
                    raise FormatError(f"record {number}: the checksum of the record's data does not match: the "
                                      "file is damaged", path)
                yield number, data
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise FormatError(f"record {number}: the GZIP stream is cut short or damaged ({exc})", path) from None
    except OSError as exc:
        raise FormatError(f"record {number}: cannot read the file ({exc.strerror or exc})", path) from None
