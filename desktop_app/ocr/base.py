"""What every OCR engine returns, and the small geometry the rest of the package shares.

Coordinates are image pixels. A box `xyxy` is (x1, y1, x2, y2) with x2/y2 exclusive, the
same convention as DOM rects and ActionBox rows, so a 34 px wide button at x=816 is
(816, y1, 850, y2). A quad is four (x, y) points clockwise from the top-left corner:
engines report slanted lines that way and an axis-aligned box loses the slant.
"""

from __future__ import annotations

import unicodedata
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:  # numpy is imported by the functions that use it: a launch paints its first screen without it
    import numpy as np  # (50 ms; ADR 0071)


Box = tuple[float, float, float, float]
Point = tuple[float, float]
Quad = tuple[Point, Point, Point, Point]

WORD_KINDS = ("word", "line")
PROPOSAL_KINDS = ("button", "input", "icon", "card", "text")


class OcrUnavailable(RuntimeError):
    """The engine cannot run here; the message says what is missing and how to fix it."""


def quad_from_xyxy(box: Box) -> Quad:
    x1, y1, x2, y2 = (float(v) for v in box)
    return ((x1, y1), (x2, y1), (x2, y2), (x1, y2))


@dataclass(frozen=True)
class Word:
    quad: Quad
    text: str
    conf: float  # 0..1
    kind: str = "word"  # "line" when an engine could not split a line into words

    @property
    def xyxy(self) -> Box:
        xs = [p[0] for p in self.quad]
        ys = [p[1] for p in self.quad]
        return (min(xs), min(ys), max(xs), max(ys))

    @property
    def center(self) -> Point:
        x1, y1, x2, y2 = self.xyxy
        return ((x1 + x2) / 2, (y1 + y2) / 2)

    def to_json(self) -> dict[str, Any]:
        return {"quad": [[round(x, 1), round(y, 1)] for x, y in self.quad], "text": self.text,
                "conf": round(float(self.conf), 4), "kind": self.kind}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Word:
        quad = tuple((float(x), float(y)) for x, y in d["quad"])
        return cls(quad, d["text"], float(d.get("conf", 1.0)), d.get("kind", "word"))  # type: ignore[arg-type]

    @classmethod
    def from_xyxy(cls, box: Box, text: str, conf: float = 1.0, kind: str = "word") -> Word:
        return cls(quad_from_xyxy(box), text, conf, kind)


@dataclass(frozen=True)
class Proposal:
    """A UI element found in the pixels (elements.py), with the OCR text inside it."""

    box: Box
    kind: str  # one of PROPOSAL_KINDS
    text: str = ""
    score: float = 0.0  # 0..1, how sure the detector is that this is one element

    def to_json(self) -> dict[str, Any]:
        return {"box": [round(float(v), 1) for v in self.box], "kind": self.kind, "text": self.text,
                "score": round(float(self.score), 3)}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Proposal:
        return cls(tuple(float(v) for v in d["box"]), d["kind"], d.get("text", ""),  # type: ignore[arg-type]
                   float(d.get("score", 0.0)))


@dataclass
class OcrOutcome:
    words: list[Word]
    elements: list[Proposal]
    engine: str
    language: str
    settings: str  # the canonical JSON the cache is keyed by
    cached: bool
    duration_ms: float  # what running OCR + proposals cost when the result was made
    elapsed_ms: float = 0.0  # what this call cost (a cache hit: reading the row)
    extra: dict[str, Any] = field(default_factory=dict)


class OcrEngine(ABC):
    """One OCR backend. Instances are heavy (models); registry.get_engine keeps one per process."""

    name: ClassVar[str]
    description: ClassVar[str] = ""

    def __init__(self, language: str = "en", **options: Any):
        self.language = language
        self.options = options

    @classmethod
    @abstractmethod
    def available(cls, language: str = "en", **options: Any) -> tuple[bool, str]:
        """(True, "") when read() can run, else (False, what to install or where to put files)."""

    # options that do not change results (paths, download permission) stay out of the cache key
    runtime_options: ClassVar[frozenset[str]] = frozenset({"model_dir", "allow_downloads", "binary"})

    @classmethod
    def settings_for(cls, language: str = "en", **options: Any) -> dict[str, Any]:
        """Everything that changes the output; part of the cache key. A classmethod so a
        cache lookup needs no engine instance (loading models costs ~0.3 s)."""
        return {"language": language, **{k: v for k, v in sorted(options.items()) if k not in cls.runtime_options}}

    def settings(self) -> dict[str, Any]:
        return self.settings_for(self.language, **self.options)

    @abstractmethod
    def read(self, image: np.ndarray) -> list[Word]:
        """Words of an RGB uint8 image (H, W, 3), in reading order."""


# -- reading order and proportional splitting ------------------------------------------

def reading_order(words: list[Word]) -> list[Word]:
    """Top-to-bottom lines, left-to-right inside a line.

    Two words share a line when their vertical centres are closer than half the smaller
    height; sorting by y alone would interleave words of a line whose boxes differ by a pixel.
    """
    rows: list[list[Word]] = []
    for w in sorted(words, key=lambda w: w.center[1]):
        _, y1, _, y2 = w.xyxy
        h = max(1.0, y2 - y1)
        for row in rows:
            ry1, ry2 = row[0].xyxy[1], row[0].xyxy[3]
            if abs(w.center[1] - (ry1 + ry2) / 2) < min(h, max(1.0, ry2 - ry1)) / 2:
                row.append(w)
                break
        else:
            rows.append([w])
    return [w for row in rows for w in sorted(row, key=lambda w: w.center[0])]


# Advance widths (in em) of a typical UI sans-serif; only the ratios matter.
_NARROW = set("iIjlftr.,;:!|'`()[]{}")
_WIDE = set("mwMW@%")


def char_weight(ch: str) -> float:
    if ch.isspace():
        return 0.32
    if unicodedata.east_asian_width(ch) in ("W", "F"):
        return 1.0  # CJK ideographs and full-width forms are square
    if ch in _NARROW:
        return 0.3
    if ch in _WIDE or unicodedata.category(ch) == "So":  # ★ ☆ ✓ → are about as wide as M
        return 0.9
    if ch.isupper() or ch.isdigit():
        return 0.66
    return 0.56


def split_line(line: Word) -> list[Word]:
    """Split a text line into words by estimated character widths.

    Used when an engine reports only lines (easyocr phrases, rapidocr lines whose word
    boxes are unavailable). Each word gets the slice of the line's quad that its characters
    take in proportion to their typical advance widths, interpolated along the top and
    bottom edges, so slanted lines stay slanted. Boxes are estimates (a few px off on long
    lines), which is why engines that know real word positions do not use this.
    """
    import numpy as np
    text = line.text
    tokens = text.split()
    if len(tokens) <= 1:
        return [Word(line.quad, text.strip(), line.conf, "word")] if text.strip() else []
    weights = [char_weight(c) for c in text]
    total = sum(weights) or 1.0
    # cumulative fraction at each character boundary
    cum = np.concatenate([[0.0], np.cumsum(weights) / total])
    (tlx, tly), (trx, try_), (brx, bry), (blx, bly) = line.quad

    def at(frac: float) -> tuple[Point, Point]:
        top = (tlx + (trx - tlx) * frac, tly + (try_ - tly) * frac)
        bottom = (blx + (brx - blx) * frac, bly + (bry - bly) * frac)
        return top, bottom

    words = []
    pos = 0
    for tok in tokens:
        start = text.index(tok, pos)
        end = start + len(tok)
        pos = end
        (t0, b0), (t1, b1) = at(float(cum[start])), at(float(cum[end]))
        words.append(Word((t0, t1, b1, b0), tok, line.conf, "word"))
    return words


def words_to_json(words: list[Word]) -> list[dict[str, Any]]:
    return [w.to_json() for w in words]


def words_from_json(items: list[dict[str, Any]]) -> list[Word]:
    return [Word.from_json(d) for d in items]
