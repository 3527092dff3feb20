"""Golden images: a widget rendered now against its PNG in tests/data/snapshots/ (issue 33).

    check(image, "canvas", tmp_path)     # fails, naming the actual and a diff PNG written to tmp_path

Two pixels are the same when no channel differs by more than TOLERANCE (anti-aliasing at a glyph's or a line's
edge); a picture matches when at most MAX_SHARE of its pixels differ. Moving or hiding a widget changes the
pixels of its whole text or border, far more than that (tests/test_gui_snapshots.py proves it does).

To take the pictures again on purpose (a change of the layout that is meant): `make snapshots`, that is
`SCREENLAB_UPDATE_SNAPSHOTS=1 pytest tests/test_gui_snapshots.py`; look at them before committing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from PySide6.QtGui import QImage

SNAPSHOTS = Path(__file__).parent / "data" / "snapshots"
UPDATE = os.environ.get("SCREENLAB_UPDATE_SNAPSHOTS", "") not in ("", "0")
TOLERANCE = 40  # of 255, per channel
MAX_SHARE = 0.0002  # of the pixels: 210 of a 1366x768 window, 65 of a 720x450 canvas
QUANTIZED = 10  # a reference kept in 256 colours is this close to what was rendered (the rest of TOLERANCE is left)


def pixels(image: QImage) -> np.ndarray:
    """Height x width x 3 (RGB) bytes of a QImage."""
    rgb = image.convertToFormat(QImage.Format_RGB888)
    rows = np.frombuffer(rgb.constBits(), dtype=np.uint8).reshape(rgb.height(), rgb.bytesPerLine())
    return rows[:, :rgb.width() * 3].reshape(rgb.height(), rgb.width(), 3).copy()


@dataclass
class Difference:
    differing: int  # pixels beyond TOLERANCE
    total: int
    largest: int  # the largest difference of a channel

    @property
    def share(self) -> float:
        return self.differing / self.total

    @property
    def matches(self) -> bool:
        return self.share <= MAX_SHARE

    def __str__(self) -> str:
        return (f"{self.differing} of {self.total} pixels differ by more than {TOLERANCE} ({self.share:.4%}, at most "
                f"{MAX_SHARE:.4%} may; the largest difference is {self.largest})")


def difference(actual: np.ndarray, reference: np.ndarray) -> Difference:
    if actual.shape != reference.shape:
        return Difference(actual.shape[0] * actual.shape[1], actual.shape[0] * actual.shape[1], 255)
    delta = np.abs(actual.astype(np.int16) - reference.astype(np.int16)).max(axis=2)
    return Difference(int((delta > TOLERANCE).sum()), delta.size, int(delta.max()))


def diff_picture(actual: np.ndarray, reference: np.ndarray) -> Image.Image:
    """The reference faded to grey, the differing pixels in red: where to look."""
    if actual.shape != reference.shape:
        return Image.fromarray(actual)
    faded = (reference.mean(axis=2, keepdims=True) * 0.35 + 160).astype(np.uint8).repeat(3, axis=2)
    delta = np.abs(actual.astype(np.int16) - reference.astype(np.int16)).max(axis=2)
    faded[delta > TOLERANCE] = (255, 0, 0)
    return Image.fromarray(faded)


def save(array: np.ndarray, path: Path, small: bool = False) -> None:
    """A PNG; `small`: in 256 colours (a quarter of the size) when none is off by more than QUANTIZED of TOLERANCE."""
    path.parent.mkdir(parents=True, exist_ok=True)
    picture = Image.fromarray(array)
    if small:
        fewer = picture.quantize(256, method=Image.Quantize.MAXCOVERAGE, dither=Image.Dither.NONE)
        if np.abs(np.asarray(fewer.convert("RGB")).astype(np.int16) - array).max() <= QUANTIZED:
            picture = fewer
    picture.save(path, optimize=True)


def reference(name: str) -> np.ndarray | None:
    path = SNAPSHOTS / f"{name}.png"
    return np.asarray(Image.open(path).convert("RGB")) if path.exists() else None


def check(image: QImage, name: str, out: Path) -> None:
    """The picture matches tests/data/snapshots/<name>.png; with SCREENLAB_UPDATE_SNAPSHOTS=1 it becomes it."""
    actual = pixels(image)
    if UPDATE:
        save(actual, SNAPSHOTS / f"{name}.png", small=True)
        return
    expected = reference(name)
    if expected is None:
        pytest.fail(f"no picture {SNAPSHOTS / name}.png yet: take it with `make snapshots` and look at it")
    found = difference(actual, expected)
    if found.matches:
        return
    save(actual, out / f"{name}-actual.png")
    diff_picture(actual, expected).save(out / f"{name}-diff.png")
    size = f"{actual.shape[1]}x{actual.shape[0]} against {expected.shape[1]}x{expected.shape[0]}; " \
        if actual.shape != expected.shape else ""
    pytest.fail(f"{name} looks different from {SNAPSHOTS / name}.png: {size}{found}.\n"
                f"  actual: {out / name}-actual.png\n  diff:   {out / name}-diff.png (differing pixels in red)\n"
                "If the change is meant, take the pictures again: make snapshots")
