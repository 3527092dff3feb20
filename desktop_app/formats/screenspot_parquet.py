"""ScreenSpot as the Hugging Face mirrors store it: Parquet files with the screenshot inside each row.

Source: the dataset card of rootsautomation/ScreenSpot (huggingface.co/datasets/rootsautomation/ScreenSpot,
README.md): columns `file_name` (string), `bbox` (sequence of float64), `instruction`, `data_type`,
`data_source` (strings) and `image` (the datasets library's Image: a struct of `bytes` and `path`), in
data/test-0000N-of-00003.parquet. HongxinLi/ScreenSpot_v2 keeps the same columns.

The surprise: the card says the mirror turned SeeClick's [left, top, width, height] into corners, and the
numbers are also fractions of the image, not pixels: test row 0, "close this window" on a 960 x 540
screenshot, is [0.9479, 0.1444, 0.9938, 0.2074] (printed so in microsoft/GUI-Actor's README.md), that is
(910, 78, 954, 112) in pixels. So this format reads `bbox` as xyxy-normalised and converts with each row's
own image size; --bbox-format says otherwise for a mirror that kept pixels (box_layout.py refuses either
reading when the numbers cannot be that).

Each row becomes a one-step episode like a ScreenSpot JSON record (formats/screenspot.py): the instruction
is the goal, the box the gold action, the other columns are kept in meta["screenspot"], so a ScreenSpot
export writes them back. Field names in messages are `[row].column`, rows counted from 0 in each file.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from desktop_app.formats import box_layout
from desktop_app.formats.parquet_rows import open_parquet, parquet_rows
from desktop_app.formats.records import (
    BoxRecord,
    EpisodeRecord,
    FormatError,
    StepRecord,
    Where,
    got,
    image_bases,
    optional,
    parse_box,
    require,
    resolve_image,
)
from desktop_app.formats.screenspot import SCENARIO, platform_of
from desktop_app.formats.spec import FormatSpec

DEFAULT_LAYOUT = "xyxy-normalised"
REQUIRED_COLUMNS = ("bbox", "instruction", "image")
ROWS_PER_BATCH = 32  # rows decoded at a time: a row holds a whole screenshot
_NOT_META = {"bbox", "instruction", "image"}
_BOX_META = ("data_type", "ui_type")


def parquet_files(path: Path) -> list[Path]:
    """The file itself, or a folder's *.parquet files (or those of its data/ folder, the HF layout)."""
    path = Path(path)
    if path.is_dir():
        files = sorted(path.glob("*.parquet")) or sorted(path.glob("data/*.parquet"))
        if not files:
            raise FormatError("no .parquet files in this folder or its data/ folder", path)
        return files
    if not path.exists():
        raise FormatError("file not found", path)
    return [path]


def columns_of(file: Path) -> list[str]:
    with open_parquet(file) as parquet:
        return list(parquet.names)


def _rows(file: Path):
    """Every row of the file as a dict, a batch at a time; a FormatError naming the row where reading fails."""
    with open_parquet(file) as parquet:
        names = parquet.names
        missing = [c for c in REQUIRED_COLUMNS if c not in names]
        if missing:
            raise FormatError(f"no column {', '.join(repr(c) for c in missing)} (its columns: {', '.join(names)}); "
                              "this format reads the HF ScreenSpot Parquet files (bbox, instruction, image)", file)
        yield from parquet_rows(parquet, file, ROWS_PER_BATCH)


def _image(row: dict, where: Where, prefix: str, bases: list[Path]) -> tuple[Path, bytes | None]:
    """The picture of a row: its bytes (the usual case), or a file its `path` names beside the Parquet file."""
    value = row["image"]
    name = row.get("file_name") if isinstance(row.get("file_name"), str) else None
    if isinstance(value, (bytes, bytearray)):
        return Path(name or f"{where.file.name} {prefix}image"), bytes(value)
    if not isinstance(value, dict):
        raise where.error(f"expected the image's bytes, got {got(value)}", prefix + "image")
    data, path = value.get("bytes"), value.get("path")
    if isinstance(data, (bytes, bytearray)) and data:
        return Path(name or (path if isinstance(path, str) and path else f"{where.file.name} {prefix}image")), bytes(data)
    if isinstance(path, str) and path:
        return resolve_image(path, bases, where, prefix + "image.path"), None
    raise where.error("the row holds no image (neither bytes nor a path)", prefix + "image")


def _meta_value(value):
    return value if not isinstance(value, (bytes, bytearray)) else f"<{len(value)} bytes>"


def read(path: Path, options) -> list[EpisodeRecord]:
    box_layout.check_option(options.bbox_format)
    layout = options.bbox_format or DEFAULT_LAYOUT
    records: list[EpisodeRecord] = []
    pictures: dict[str, bytes] = {}  # one copy of each picture in memory: the mirror repeats it on every row
    for file in parquet_files(path):
        bases = image_bases(file, options.images_dir, "images")
        written: list[tuple[Where, str, tuple]] = []
        images: list[tuple[Path | None, bytes | None]] = []
        where = Where(file, None)
        for i, row in enumerate(_rows(file)):
            prefix = f"[{i}]."
            instruction = require(row, "instruction", str, where, prefix)
            numbers = parse_box(row["bbox"], where, prefix + "bbox")
            box = box_layout.corners(numbers, layout, where, prefix + "bbox", row["bbox"])
            image, data = _image(row, where, prefix, bases)
            if data is not None:
                data = pictures.setdefault(hashlib.sha256(data).hexdigest(), data)
            if not box_layout.is_normalised(layout):
                written.append((where, prefix + "bbox", numbers))
                images.append((None, data) if data is not None else (image, None))
            name = optional(row, "file_name", str, where, "", prefix) or image.name
            extra = {k: _meta_value(v) for k, v in row.items() if k not in _NOT_META}
            records.append(EpisodeRecord(
                key=f"{file.stem}-{i:05d}", where=where, goal=instruction, scenario=SCENARIO,
                meta={"screenspot": extra},
                steps=[StepRecord(
                    image=image, image_bytes=data, platform=platform_of(row, file), screen_source=name,
                    boxes=[BoxRecord(label="gold", box=box, field=prefix + "bbox", grid=box_layout.grid(layout),
                                     meta={k: row[k] for k in _BOX_META if isinstance(row.get(k), str)})],
                    field=prefix, image_field=prefix + "image",
                )],
            ))
        box_layout.refuse_pixels_that_look_normalised(written, images, layout)
    if not records:
        raise FormatError("no rows found", path)
    return records


def sign(path: Path) -> str | None:
    """'screenspot-parquet' when a .parquet file has the mirror's columns (its footer is all that is read)."""
    if path.suffix.lower() != ".parquet":
        return None
    try:
        names = columns_of(path)
    except FormatError:
        return None
    return SPEC.name if set(REQUIRED_COLUMNS) <= set(names) else None


def folder_sign(folder: Path) -> str | None:
    """The same, for a folder holding such files (or a data/ folder of them, as the HF repository does)."""
    files = sorted(folder.glob("*.parquet"))[:1] or sorted(folder.glob("data/*.parquet"))[:1]
    return sign(files[0]) if files else None


SPEC = FormatSpec(
    name="screenspot-parquet",
    description="ScreenSpot as the HF mirrors store it (rootsautomation/ScreenSpot): Parquet, images inside, "
                "bbox = x1, y1, x2, y2 as fractions 0-1 of the image",
    read=read,
    options=("bbox_format",),
)
