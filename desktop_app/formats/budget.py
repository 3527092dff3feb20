"""The one input budget every reader keeps to (ADR 0039): how much a file may decode to, and how long a text may be.

An attacker's file is small on disk and huge once read: GZIP pages that expand a thousand times, a TFRecord
that claims a 2 GB record, a 200 MB attribute in an XML file. Every reader of an imported file keeps to the
numbers below, stated here once, and refuses with one line naming the file (and the field) before the memory
is taken, not after:

* a file's decoded bytes (every page, record, line or item it decodes to, in total) are at most EXPANSION
  times its size on disk plus ALLOWANCE, and never more than MAX_DECODED;
* one piece held whole at a time (a TFRecord record, a JSON line, a Parquet page) is at most MAX_RECORD bytes;
* one text field or attribute (a goal, a label, an element's text, a node's text in an accessibility tree, a
  CVAT attribute) is at most MAX_TEXT characters; one document kept whole (an accessibility-tree dump, an HTML
  page) is at most MAX_DOCUMENT bytes;
* one picture is at most MAX_PIXELS pixels (images.py's limit, which Pillow also enforces while decoding).

Decoders stream: page by page, record by record, with checksums checked as they read, so the budget is
spent as the bytes come and a file over it is refused at the first byte past it. Real datasets stay far
inside: Parquet and TFRecord files of screenshots decode to about their own size (PNG does not compress),
text-heavy ones to 3-10 times; an accessibility-tree dump is 10-500 KB, its longest text a few thousand
characters. Nothing here knows Qt, the UI or a format.
"""

from __future__ import annotations

from desktop_app.images import DEFAULT_MAX_PIXELS

MiB = 1 << 20
EXPANSION = 16  # decoded bytes a file may reach per byte on disk, in total...
ALLOWANCE = 32 * MiB  # ...plus this much, whatever its size (a small file of repetitive text expands far)
MAX_DECODED = 4 << 30  # and never more than this, however large the file
MAX_RECORD = 128 * MiB  # one record, line or page held whole (an AndroidControl episode: tens of MB)
MAX_TEXT = 1_000_000  # characters in one text field or attribute; real ones are under a few thousand
MAX_DOCUMENT = 32 * MiB  # one document kept whole (an accessibility-tree dump, an HTML page)
MAX_PIXELS = DEFAULT_MAX_PIXELS  # one picture (images.py: 100 megapixels)
VALUE_COST = 32  # bytes a decoded value costs held in memory beyond its own bytes (a Python object, a list slot)


class OverBudget(ValueError):
    """A file decodes (or claims to decode) to more than the budget lets it; the message says how much and the
    limit, without the file (each reader adds the file and where in it)."""


def decoded_limit(on_disk: int, expansion: int = EXPANSION, allowance: int = ALLOWANCE,
                  cap: int = MAX_DECODED) -> int:
    """The most a file of `on_disk` bytes may decode to."""
    return min(cap, expansion * max(on_disk, 0) + allowance)


def _size(n: int) -> str:
    return f"{n / MiB:,.0f} MB" if n >= 10 * MiB else f"{n:,} bytes"


class Budget:
    """What one file may still decode to; readers `take` each piece before decoding it."""

    def __init__(self, on_disk: int, *, expansion: int = EXPANSION, allowance: int = ALLOWANCE,
                 cap: int = MAX_DECODED, record: int = MAX_RECORD):
        self.on_disk, self.expansion, self.allowance, self.cap = on_disk, expansion, allowance, cap
        self.limit = decoded_limit(on_disk, expansion, allowance, cap)
        self.record = record
        self.used = 0

    @property
    def left(self) -> int:
        return self.limit - self.used

    def take(self, n: int, what: str = "its data") -> None:
        """Spend `n` decoded bytes on `what`, or OverBudget when that would pass the file's limit (nothing is
        spent then: the caller refuses the file)."""
        if n > self.record:
            raise OverBudget(f"{what} is {_size(n)} once decoded; the limit for one piece held whole is "
                             f"{_size(self.record)}")
        if self.used + n > self.limit:
            raise OverBudget(f"it decodes to more than {_size(self.limit)} ({what} would bring it to "
                             f"{_size(self.used + n)}): the limit is {self.expansion} times its "
                             f"{_size(self.on_disk)} on disk plus {_size(self.allowance)}, at most "
                             f"{_size(self.cap)}; a file that expands this much is a decompression bomb or damaged")
        self.used += n


def text_too_long(length: int, what: str, limit: int = MAX_TEXT) -> str | None:
    """The message for a text of `length` characters, or None when it is within the limit."""
    if length <= limit:
        return None
    return f"{what} is {length:,} characters; the limit is {limit:,}"


def longest_text(value, path: str = "", limit: int = MAX_TEXT) -> str | None:
    """The message for the first text (or key) longer than `limit` in a parsed value (dicts, lists, tuples),
    named by its path from `path`; None when every text is within it. Walked with a stack, so depth costs no
    recursion."""
    stack = [(value, path)]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str):
            problem = text_too_long(len(value), path or "the text", limit)
            if problem:
                return problem
        elif isinstance(value, dict):
            for k, v in value.items():
                key = k if isinstance(k, str) else str(k)
                if len(key) > limit:
                    return text_too_long(len(key), f"a key in {path or 'an object'}", limit)
                stack.append((v, f"{path}.{key}" if path else key))
        elif isinstance(value, (list, tuple)):
            stack.extend((v, f"{path}[{i}]") for i, v in enumerate(value))
    return None
