"""The screen an annotator will most likely open next, decoded before they ask: while they look at one
screen, the next step of its episode and the next sample of the list are read from disk, decoded, halved
into the canvas's pyramid and mapped for ink (what placing captions reads), off the UI thread. Decoding a
1280x800 screenshot costs about 20 ms and the rest about 8 ms: pressing D then shows a screen already in
memory (benchmarks/teams_postgres.py measures the next screen with decode and paint).

Only pictures: which screen a step shows is asked of the store in the same background call. What is not
ready (the first screen, a jump) is decoded as before, on the spot.
"""

from __future__ import annotations

import sys
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QImage, QImageReader

from desktop_app.api.samples import step_screen_at
from desktop_app.ui.canvas.placement import InkMap
from desktop_app.ui.tasks import run_in_background

INK_WIDTH = 1024  # the ink map has at most this many cells across (blocks of 2x2 pixels or more)
KEPT = 2  # decoded screens waiting to be shown (a 1280x800 one holds about 5 MB with its pyramid)


@dataclass(frozen=True)
class Decoded:
    """A screenshot ready for the canvas: the image, its halved copies, its ink map; or why it is missing."""

    path: str
    image: QImage | None
    levels: tuple[QImage, ...] = ()
    ink: InkMap | None = None
    error: str = ""


def halved(image: QImage) -> tuple[QImage, ...]:
    """The image and copies of it halved until small: zoomed-out repaints scale a small one."""
    levels, level = [image], image
    while level.width() > 512 and level.height() > 256:
        level = level.scaled(level.width() // 2, level.height() // 2, Qt.IgnoreAspectRatio, Qt.SmoothTransformation)
        levels.append(level)
    return tuple(levels)


def ink_of(image: QImage) -> InkMap:
    """The ink map of a screenshot, read from its green channel (text and icons differ from their
    background in it too; converting to grey first would double the cost)."""
    import numpy as np  # here: a launch's first screen is painted before numpy is imported (step_view.py)

    if image.format() not in (QImage.Format_RGB32, QImage.Format_ARGB32, QImage.Format_ARGB32_Premultiplied):
        image = image.convertToFormat(QImage.Format_RGB32)
    green = 1 if sys.byteorder == "little" else 2  # 0xAARRGGBB words: B G R A in memory on little-endian
    pixels = np.frombuffer(image.constBits(), dtype=np.uint8, count=image.sizeInBytes())
    rows = pixels.reshape(image.height(), image.bytesPerLine())
    return InkMap.of_channel(rows[:, green:image.width() * 4:4], INK_WIDTH)


def decode(path: Path | str, *, ink: bool = True) -> Decoded:
    """Read, decode, halve and map a screenshot (any thread: QImage is not tied to the UI's). Without `ink`, its
    ink map is left out (None), for the caller to compute later with ink_of."""
    reader = QImageReader(str(path))
    image = reader.read()
    if image.isNull():
        return Decoded(str(path), None, error=reader.errorString())
    return Decoded(str(path), image, halved(image), ink_of(image) if ink else None)


def ink_is_cheap() -> bool:
    """Whether the UI thread may map a screen's ink before painting it: a few milliseconds once numpy is loaded,
    but numpy's first import takes 50 ms, which a launch's first screen does not wait for (ADR 0071)."""
    return "numpy" in sys.modules


class Prefetch(QObject):
    def __init__(self, parent=None):
        super().__init__(parent)
        self._ready: OrderedDict[str, Decoded] = OrderedDict()
        self._asked: set[tuple[int, int]] = set()

    def want(self, project, episode_id: int | None, step_index: int) -> None:
        """Decode, in the background, the screen of this step of this episode (when it has one)."""
        if episode_id is None or (episode_id, step_index) in self._asked:
            return
        self._asked.add((episode_id, step_index))

        def work() -> Decoded | None:
            screen = step_screen_at(project, episode_id, step_index)
            if screen is None:
                return None
            path = str(project.image_path(screen))
            return None if path in self._ready else decode(path)

        def done(decoded: Decoded | None) -> None:
            self._asked.discard((episode_id, step_index))
            if decoded is not None and decoded.image is not None:
                self._ready[decoded.path] = decoded
                while len(self._ready) > KEPT:
                    self._ready.popitem(last=False)

        run_in_background(self, work, done, lambda _exc: self._asked.discard((episode_id, step_index)),
                          wait=None)  # ahead of the user: nobody waits on it yet

    def take(self, path: Path | str) -> Decoded | None:
        """The screen at `path` if it was decoded ahead (then forgotten here: the canvas holds it)."""
        return self._ready.pop(str(path), None)

    def clear(self) -> None:
        self._ready.clear()
