"""The items of the arrays in a JSON file, one at a time: a file of any size read in bounded memory.

A dataset released as one JSON file (AITW's aitw_data_train.json: an object of categories, each a list of
episodes; a list of tasks) can be larger than what its records take once read one at a time. `JsonArrays`
walks the top of the file by hand and decodes each item of its arrays with json's own decoder
(JSONDecoder.raw_decode) from a text buffer refilled as it goes, so memory holds one item and a chunk of the
file, never the whole. It fails as records.read_json does, as a FormatError naming the line and column:
invalid UTF-8, a syntax error, nesting past MAX_DEPTH, an integer Python refuses to read, and values no
project can store (NaN, 1e400, a lone surrogate), these named by field as read_json names them.

What it yields (Item): for a file that is an array, each element (key None); for an object, each element of
each member that is an array (key: the member's name), and a member that is not an array whole (index None);
for anything else, the value whole (key and index None).
"""

from __future__ import annotations

import codecs
import json
import math
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop_app.formats.records import MAX_DEPTH, FormatError, too_deep_at, unstorable

CHUNK = 1 << 20  # characters read at a time; an item longer than this grows the buffer until it fits
_WHITESPACE = " \t\n\r"
_LONG_INTEGER = re.compile(rf"\d{{{sys.get_int_max_str_digits() + 1},}}")
_NUMBER_TAIL = re.compile(r"[0-9eE.+-]*\Z")
_NEAR_END = 64  # a syntax error this close to the end of what is read may be the item going on past it


@dataclass(frozen=True)
class Item:
    key: str | None  # the top-level object's member holding it; None when the file is an array (or a value)
    index: int | None  # its place in that array; None for a member (or a file) that is not an array
    value: Any


def _printable(text: str) -> str:
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


class JsonArrays:
    """Iterate once: `for item in JsonArrays(path)`. `bytes_read` of `size` tells how far it got."""

    def __init__(self, path: Path, chunk: int = CHUNK):
        self.path = Path(path)
        self.chunk = chunk
        if self.path.exists() and not self.path.is_file() and not self.path.is_dir():
            raise FormatError("not a regular file (a pipe or a device?); reading it would wait forever", self.path)
        try:
            self.size = self.path.stat().st_size
        except FileNotFoundError:
            raise FormatError("file not found", self.path) from None
        except OSError as exc:
            raise FormatError(f"cannot read the file ({exc.strerror or exc})", self.path) from None
        if self.path.is_dir():
            raise FormatError("is a folder; expected a file", self.path)
        self.bytes_read = 0
        self._odd: list[str] = []  # numbers read as NaN or infinity since the last item began
        self._decoder = json.JSONDecoder(parse_float=self._number, parse_constant=self._constant)

    # ---- numbers no project can store, noted as the parser meets them (as records._loads does)
    def _number(self, literal: str) -> float:
        value = float(literal)
        if not math.isfinite(value):
            self._odd.append(literal)
        return value

    def _constant(self, literal: str) -> float:
        self._odd.append(literal)
        return float(literal)

    # ---- the buffer
    def _open(self):
        try:
            return open(self.path, "rb")  # noqa: SIM115 (closed by __iter__'s with)
        except OSError as exc:
            raise FormatError(f"cannot read the file ({exc.strerror or exc})", self.path) from None

    def __iter__(self) -> Iterator[Item]:
        with self._open() as fh:
            self._fh = fh
            self._utf8 = codecs.getincrementaldecoder("utf-8")()
            self._newlines = 0  # b"\n" in the bytes decoded so far, and where the last one was
            self._last_newline = -1
            self._buf, self._pos, self._eof = "", 0, False
            self._line, self._column = 1, 0  # where _buf[0] sits in the file (column counted from 0)
            self._fill(self.chunk)
            self._buf = self._buf.removeprefix("\ufeff")
            yield from self._top()

    def _fill(self, want: int) -> bool:
        """Read at least `want` more characters (fewer at the end of the file); False when nothing is left."""
        if self._eof:
            return False
        if self._pos > len(self._buf) // 2:  # drop what is read, keeping track of where the rest sits
            dropped = self._buf[:self._pos]
            lines = dropped.count("\n")
            self._line += lines
            self._column = (self._pos - dropped.rfind("\n") - 1) if lines else self._column + self._pos
            self._buf, self._pos = self._buf[self._pos:], 0
        parts, got = [], 0
        while got < want:
            data = self._fh.read(max(want - got, self.chunk))
            final = not data
            text = self._decode(data, final)
            self.bytes_read += len(data)
            parts.append(text)
            got += len(text)
            if final:
                self._eof = True
                break
        self._buf += "".join(parts)
        return got > 0

    def _decode(self, data: bytes, final: bool) -> str:
        pending = self._utf8.getstate()[0]
        try:
            text = self._utf8.decode(data, final)
        except UnicodeDecodeError as exc:  # where, in bytes, as records.read_json says it
            at = exc.start - len(pending)  # in `data`; pending bytes are a character's start, no newline
            before = data[:max(at, 0)]
            line = self._newlines + before.count(b"\n") + 1
            newline = before.rfind(b"\n")
            line_start = (self.bytes_read + newline + 1) if newline >= 0 else self._last_newline + 1
            column = self.bytes_read + at - line_start + 1
            raise FormatError(f"not valid UTF-8 (byte {column} of the line); save the file as UTF-8",
                              self.path, line) from None
        newline = data.rfind(b"\n")
        if newline >= 0:
            self._newlines += data.count(b"\n")
            self._last_newline = self.bytes_read + newline
        return text

    def _where(self, index: int) -> tuple[int, int]:
        """Line and column (from 1) of the buffer's character `index`."""
        lines = self._buf.count("\n", 0, index)
        if lines:
            return self._line + lines, index - self._buf.rfind("\n", 0, index)
        return self._line, self._column + index + 1

    def _syntax(self, message: str, index: int) -> FormatError:
        line, column = self._where(index)
        return FormatError(f"invalid JSON: {message} at column {column}", self.path, line)

    # ---- reading the top of the file by hand
    def _peek(self) -> str:
        """The next character that is not whitespace, '' at the end of the file."""
        while True:
            buf, pos = self._buf, self._pos
            while pos < len(buf) and buf[pos] in _WHITESPACE:
                pos += 1
            self._pos = pos
            if pos < len(buf):
                return buf[pos]
            if not self._fill(self.chunk):
                return ""

    def _expect(self, allowed: str, message: str) -> str:
        found = self._peek()
        if not found or found not in allowed:
            raise self._syntax(message, self._pos)
        self._pos += 1
        return found

    def _value(self, depth: int) -> tuple[Any, int, int]:
        """The next value (at `depth` in the file), where it starts and ends in the buffer."""
        if not self._peek():
            raise self._syntax("Expecting value", self._pos)
        while True:
            start = self._pos
            self._odd.clear()
            try:
                value, end = self._decoder.raw_decode(self._buf, start)
            except json.JSONDecodeError as exc:
                # a value cut off by the end of the buffer fails near that end (or in an unterminated string)
                cut = exc.pos >= len(self._buf) - _NEAR_END or exc.msg.startswith("Unterminated string")
                if cut and self._fill(max(self.chunk, len(self._buf) - start)):
                    continue
                raise self._syntax(exc.msg, exc.pos) from None
            except RecursionError:  # the parser recurses once per level: thousands exhaust its stack
                raise self._too_deep(start, depth) from None
            except ValueError:  # an integer past Python's digit limit
                found = _LONG_INTEGER.search(self._buf, start)
                if found and found.end() == len(self._buf) and self._fill(max(self.chunk, len(self._buf) - start)):
                    continue  # its digits go on: count them all
                at = found.start() if found else start
                line, column = self._where(at)
                problem = (f"a number with {len(found.group()):,} digits; no coordinate, size or id is that long"
                           if found else "a number Python cannot read")
                raise FormatError(f"{problem} (column {column})", self.path, line) from None
            # a number read up to the end of the buffer ("-2" of "-2.5", "1" of "1e10") may go on in the next chunk
            if not isinstance(value, (dict, list, str)) and _NUMBER_TAIL.match(self._buf, end) \
                    and self._fill(self.chunk):
                continue
            self._pos = end
            return value, start, end

    def _too_deep(self, start: int, depth: int) -> FormatError:
        at = too_deep_at(self._buf, start, depth)
        if at is None:
            return FormatError(f"lists or objects nested more than {MAX_DEPTH} levels deep", self.path)
        line, column = self._where(at)
        return FormatError(f"lists or objects nested more than {MAX_DEPTH} levels deep (column {column})",
                           self.path, line)

    def _checked(self, value: Any, start: int, end: int, depth: int, field: str | None, path: str = "") -> Any:
        """The value, or a FormatError naming `field` when it holds what no project can store. Walking it
        costs as much as parsing: only when a number was odd, a surrogate escape is there, or it has brackets
        enough to nest past MAX_DEPTH."""
        buf = self._buf
        if not (self._odd or buf.find("\\ud", start, end) >= 0 or buf.find("\\uD", start, end) >= 0
                or buf.count("[", start, end) + buf.count("{", start, end) + depth > MAX_DEPTH):
            return value
        problem = unstorable(value, path)
        if problem:
            raise FormatError(problem, self.path, None, field)
        return value

    def _array(self, key: str | None, depth: int) -> Iterator[Item]:
        """The elements of the array whose '[' is next."""
        self._pos += 1
        if self._peek() == "]":
            self._pos += 1
            return
        index = 0
        while True:
            value, start, end = self._value(depth)
            if key is not None:  # as read_json names it: the member, then the way in from there
                value = self._checked(value, start, end, depth, key, f"[{index}]")
            elif isinstance(value, dict):
                for name, inner in value.items():
                    if _printable(name) != name:
                        self._checked({name: inner}, start, end, MAX_DEPTH + 1, f"[{index}]")
                    self._checked(inner, start, end, depth + 1, f"[{index}].{name}")
            else:
                value = self._checked(value, start, end, depth, f"[{index}]")
            yield Item(key, index, value)
            index += 1
            if self._expect(",]", "Expecting ',' delimiter") == "]":
                return

    def _object(self) -> Iterator[Item]:
        self._pos += 1
        if self._peek() == "}":
            self._pos += 1
            return
        while True:
            if self._peek() != '"':
                raise self._syntax("Expecting property name enclosed in double quotes", self._pos)
            key, _, _ = self._value(1)
            self._expect(":", "Expecting ':' delimiter")
            if _printable(key) != key:
                raise FormatError(unstorable({key: None}), self.path)
            if self._peek() == "[":
                yield from self._array(key, 2)
            else:
                value, start, end = self._value(1)
                yield Item(key, None, self._checked(value, start, end, 1, key))
            if self._expect(",}", "Expecting ',' delimiter") == "}":
                return

    def _top(self) -> Iterator[Item]:
        first = self._peek()
        if first == "[":
            yield from self._array(None, 1)
        elif first == "{":
            yield from self._object()
        else:
            value, start, end = self._value(0)
            yield Item(None, None, self._checked(value, start, end, 0, None))
        if self._peek():
            raise self._syntax("Extra data", self._pos)
