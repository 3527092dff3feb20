"""How a grounding dataset writes a box's four numbers, and the check that catches a wrong reading.

The ScreenSpot family writes the same four numbers three ways:
  xywh             [left, top, width, height] in pixels: SeeClick's ScreenSpot, ScreenSpot-v2, VLMEvalKit's TSVs
  xyxy             [x1, y1, x2, y2] in pixels: ScreenSpot-Pro, UI-Venus's v2 records (marked by `img_size`)
  xyxy-normalised  [x1, y1, x2, y2] as fractions 0-1 of the image: the HF mirror rootsautomation/ScreenSpot
                   (its card: the mirror turned SeeClick's x, y, w, h into corners; GUI-Actor's README prints
                   test row 0 as [0.9479, 0.1444, 0.9938, 0.2074] on a 960 x 540 screenshot)
No release we know writes x, y, width, height as fractions, so there is no such layout.

A normalised box goes to ingest as it is written, with BoxRecord.grid = (1, 1): ingest scales it by the size of
the image it decodes. Read as pixels, a 0-1 box is a box 1 px wide in the image's corner that every later check
accepts. So a file
whose boxes all lie within 0-1.5 on a screenshot far larger is refused, naming the layout that reads it; and a
box said to be normalised with a coordinate past 1.5 is refused, naming the pixel layouts.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

from PIL import Image

from desktop_app.formats.records import FormatError, Where, is_file, shown

# The layouts --bbox-format takes, with the words the Import dialog's "Box layout" shows for each.
LAYOUTS: dict[str, str] = {
    "xywh": "x, y, width, height (pixels)",
    "xyxy": "x1, y1, x2, y2 (pixels)",
    "xyxy-normalised": "normalised 0-1: x1, y1, x2, y2 (fractions of the image)",
}
CLI_FLAG = "--bbox-format"
DIALOG_FIELD = "Box layout"
NORMALISED_AT_MOST = 1.5  # a 0-1 coordinate rounded or padded stays below this; a pixel box of a screen does not
FAR_LARGER = 32  # pixels: on a picture this wide and high, boxes all within 1.5 px cannot be what was meant
SIZES_TRIED = 5  # images whose size is read to tell a file of 0-1 boxes (the rest are checked by ingest)


def choice(layout: str) -> str:
    """How a user picks a layout, at the command line and in the Import dialog."""
    return f"{CLI_FLAG} {layout} (Import dialog: {DIALOG_FIELD} \"{LAYOUTS[layout]}\")"


def check_option(layout: str | None, allowed: tuple[str, ...] = tuple(LAYOUTS)) -> None:
    if layout is not None and layout not in allowed:
        raise FormatError(f"unknown box layout '{layout}' for {CLI_FLAG} (one of {', '.join(allowed)})")


def is_normalised(layout: str) -> bool:
    return layout.endswith("-normalised")


def corners(numbers: tuple[float, float, float, float], layout: str, where: Where, field: str,
            raw=None) -> tuple[float, float, float, float]:
    """x1, y1, x2, y2 in the layout's own unit (pixels, or fractions for a normalised layout)."""
    x, y, a, b = numbers
    if layout == "xywh":
        if a < 0 or b < 0:
            raise where.error(f"negative width or height in [left, top, width, height] = {shown(raw or list(numbers))}",
                              field)
        return x, y, x + a, y + b
    if is_normalised(layout) and max(numbers) > NORMALISED_AT_MOST:
        raise where.error(f"box {shown(raw or list(numbers))} has a coordinate past 1, so it is not normalised "
                          f"(fractions 0-1 of the image); if it is in pixels, import again with {choice('xyxy')} "
                          f"or {choice('xywh')}", field)
    return x, y, a, b


def grid(layout: str) -> tuple[float, float] | None:
    """BoxRecord.grid for a box read in this layout: ingest turns 0-1 fractions into the pixels of the image
    it decodes, and refuses numbers off the grid."""
    return (1, 1) if is_normalised(layout) else None


def image_size(path: Path | None = None, data: bytes | None = None) -> tuple[int, int] | None:
    """Width and height from the picture's header (no decoding); None when it cannot be read."""
    if data is None and (path is None or not is_file(path)):  # a pipe would block Pillow forever
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # decompression-bomb warnings: ingest refuses those pictures itself
            with Image.open(io.BytesIO(data) if data is not None else path) as picture:
                width, height = picture.size
    except Exception:  # noqa: BLE001 - any way Pillow fails means "size unknown"; ingest names the bad image
        return None
    return (width, height) if width > 0 and height > 0 else None


def looks_normalised(boxes: list[tuple[Where, str, tuple[float, ...]]],
                     images: list[tuple[Path | None, bytes | None]]) -> tuple[Where, str, tuple, tuple[int, int]] | None:
    """When every box of a file lies within 0-1.5 while its screenshots are far larger (fractions of the image
    that, read as pixels, would be specks in its corner every later check accepts): the first box (where, field,
    numbers) and a screenshot's size; else None. `boxes`: (where, field, the four numbers as written) of each box
    of one file; `images`: its pictures, as (file, None) or (None, bytes)."""
    if not boxes or any(v < 0 or v > NORMALISED_AT_MOST for _, _, numbers in boxes for v in numbers):
        return None
    for path, data in images[:SIZES_TRIED]:
        size = image_size(path, data)
        if size is None:
            continue
        if min(size) < FAR_LARGER:
            return None
        return (*boxes[0], size)
    return None


def refuse_pixels_that_look_normalised(boxes: list[tuple[Where, str, tuple[float, ...]]],
                                       images: list[tuple[Path | None, bytes | None]], layout: str) -> None:
    """Refuse a file read as pixels whose boxes look normalised (looks_normalised), naming the layout to use."""
    if is_normalised(layout) or (found := looks_normalised(boxes, images)) is None:
        return
    where, field, numbers, size = found
    raise where.error(
        f"every box of this file lies within 0-{NORMALISED_AT_MOST:g} (the first: {shown(list(numbers))}), "
        f"yet its screenshots are {size[0]}x{size[1]} pixels: these boxes are normalised (fractions of the "
        f"image), not pixels. Import again with {choice('xyxy-normalised')}", field)
