"""ScreenSpot as VLMEvalKit ships it: one TSV per split, the screenshots inside as base64.

Source: open-compass/VLMEvalKit, vlmeval/dataset/GUI/screenspot.py (ScreenSpot, ScreenSpot_v2_*: files
ScreenSpot_Mobile.tsv, ScreenSpot_v2_Desktop.tsv, ...) and screenspot_pro.py (ScreenSpot_Pro_*.tsv); the
files are written by vlmeval/smp/file.py (pandas to_csv, tab-separated, every field quoted) and read with
pandas read_csv(sep='\\t'). Columns:
    index        the row's id
    image        the screenshot as base64, or (64 characters or fewer) the index of the row whose image it
                 shares (vlmeval/dataset/image_base.py)
    image_path   the screenshot's file name (where VLMEvalKit writes it; also read when `image` is absent)
    question     the instruction (some copies call it `instruction`)
    bbox         the box as text, "[42, 1102, 197, 70]"
    data_type, data_source, category   kept in meta

Surprises: the layout of `bbox` depends on the file. ScreenSpot and ScreenSpot-v2 TSVs keep SeeClick's
[left, top, width, height] in pixels; the ScreenSpot-Pro TSVs keep [x1, y1, x2, y2] (screenspot_pro.py
reads them with convert_xywh_to_x1y1x2y2=False). So a file whose name says ScreenSpot_Pro is read as xyxy,
any other as xywh, and --bbox-format overrides. VLMEvalKit's scorer reads a coordinate of -1 as 0 ("a
special value", make_safe in screenspot.py), and so does this reader; its point scorer also takes the right
and bottom edges as x + w - 1, y + h - 1, where SeeClick's own scorer (and ScreenLab) uses x + w, y + h.
The bbox text is parsed as four numbers, never evaluated.
"""

from __future__ import annotations

import base64
import binascii
import csv
import io
import re
from pathlib import Path

from desktop_app.formats import box_layout
from desktop_app.formats.records import (
    BoxRecord,
    EpisodeRecord,
    FormatError,
    StepRecord,
    Where,
    image_bases,
    input_files,
    parse_box,
    read_text,
    resolve_image,
    shown,
)
from desktop_app.formats.screenspot import SCENARIO, platform_of
from desktop_app.formats.spec import FormatSpec

QUESTION_COLUMNS = ("question", "instruction")
IMAGE_REFERENCE_AT_MOST = 64  # characters: an `image` this short is another row's index (VLMEvalKit's rule)
FIELD_LIMIT = 2**31 - 1  # a base64 screenshot is megabytes long; csv's default limit is 128 KB
_NUMBER = r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*"
_BBOX = re.compile(r"\s*[\[(]" + ",".join([_NUMBER] * 4) + r",?\s*[\])]\s*")
_NOT_META = {"index", "image", "bbox", *QUESTION_COLUMNS}


def is_pro(file: Path) -> bool:
    return "screenspot_pro" in file.stem.lower().replace("-", "_")


def layout_of(file: Path, bbox_format: str | None) -> str:
    """The file's box layout: the option, else ScreenSpot-Pro's corners for its files, SeeClick's x, y, w, h."""
    if bbox_format:
        return bbox_format
    return "xyxy" if is_pro(file) else "xywh"


def _table(file: Path) -> tuple[list[str], list[tuple[int, dict]]]:
    """The header and every row (with the line it ends on) of a tab-separated file as pandas writes it."""
    if csv.field_size_limit() < FIELD_LIMIT:  # process-wide, and only ever raised: no other reader minds
        csv.field_size_limit(FIELD_LIMIT)
    reader = csv.reader(io.StringIO(read_text(file), newline=""), delimiter="\t")
    rows: list[tuple[int, dict]] = []
    header: list[str] | None = None
    try:
        for cells in reader:
            if not cells or cells == [""]:
                continue
            if header is None:
                header = [c.strip() for c in cells]
                continue
            if len(cells) != len(header):
                raise FormatError(f"this row has {len(cells)} fields, the header {len(header)} (a cut or damaged "
                                  "file?)", file, reader.line_num)
            rows.append((reader.line_num, dict(zip(header, cells, strict=True))))
    except csv.Error as exc:
        raise FormatError(f"not a readable TSV file ({exc})", file, reader.line_num) from None
    if header is None:
        raise FormatError("the file is empty", file)
    missing = [c for c in ("index", "bbox") if c not in header]
    if not any(c in header for c in QUESTION_COLUMNS):
        missing.append("question")
    if "image" not in header and "image_path" not in header:
        missing.append("image")
    if missing:
        raise FormatError(f"no column {', '.join(repr(c) for c in missing)} (its columns: "
                          f"{shown(', '.join(header), 200)}); this format reads VLMEvalKit's ScreenSpot TSVs", file, 1)
    return header, rows


def _numbers(text: str, where: Where) -> tuple[float, float, float, float]:
    found = _BBOX.fullmatch(text)
    if not found:
        raise where.error(f"expected four numbers like [42, 1102, 197, 70], got {shown(text)}", "bbox")
    # a 400-digit number reads as infinity: parse_box refuses it
    return parse_box([float(v) for v in found.groups()], where, "bbox")


def _pictures(rows: list[tuple[int, dict]], file: Path) -> dict[str, bytes]:
    """index -> decoded screenshot, for the rows that carry one (not those naming another row)."""
    pictures: dict[str, bytes] = {}
    for line, row in rows:
        cell = row.get("image", "").strip()
        if len(cell) <= IMAGE_REFERENCE_AT_MOST:
            continue
        where = Where(file, line)
        if cell.startswith("[") and cell.endswith("]"):
            raise where.error("this row holds several images; a ScreenSpot row has one screenshot", "image")
        try:
            pictures[row["index"].strip()] = base64.b64decode("".join(cell.split()), validate=True)
        except (binascii.Error, ValueError):
            raise where.error("the image is not base64 text (VLMEvalKit stores each screenshot as base64)",
                              "image") from None
    return pictures


def _image(row: dict, where: Where, pictures: dict[str, bytes], bases: list[Path]) -> tuple[Path, bytes | None]:
    cell = row.get("image", "").strip()
    name = row.get("image_path", "").strip() or f"{row['index']}.png"
    if cell:
        data = pictures.get(cell if len(cell) <= IMAGE_REFERENCE_AT_MOST else row["index"].strip())
        if data is None:
            raise where.error(f"the image names row {shown(cell)}, which holds no picture of its own", "image")
        return Path(name), data
    if not row.get("image_path", "").strip():
        raise where.error("the row has neither an image nor an image_path", "image")
    return resolve_image(name, bases, where, "image_path"), None


def read(path: Path, options) -> list[EpisodeRecord]:
    box_layout.check_option(options.bbox_format)
    records: list[EpisodeRecord] = []
    for file in input_files(Path(path), ".tsv"):
        header, rows = _table(file)
        layout = layout_of(file, options.bbox_format)
        question = next(c for c in QUESTION_COLUMNS if c in header)
        pictures = _pictures(rows, file)
        bases = image_bases(file, options.images_dir, "images", f"images/{file.stem}")
        written: list[tuple[Where, str, tuple]] = []
        images: list[tuple[Path | None, bytes | None]] = []
        for line, row in rows:
            where = Where(file, line)
            index = row["index"].strip()
            if not index:
                raise where.error("empty index", "index")
            goal = row[question].strip()
            if not goal:
                raise where.error("empty instruction", question)
            numbers = _numbers(row["bbox"], where)
            box = box_layout.corners(numbers, layout, where, "bbox", row["bbox"])
            box = tuple(0.0 if v == -1 else v for v in box)  # VLMEvalKit's make_safe, on the corners as there
            image, data = _image(row, where, pictures, bases)
            if not box_layout.is_normalised(layout):
                written.append((where, "bbox", numbers))
                images.append((None, data) if data is not None else (image, None))
            extra = {k: v for k, v in row.items() if k not in _NOT_META}
            records.append(EpisodeRecord(
                key=f"{file.stem}-{index}", where=where, goal=goal, scenario=SCENARIO,
                meta={"screenspot": extra, "vlmevalkit": {"index": index, "bbox": row["bbox"]}},
                steps=[StepRecord(
                    image=image, image_bytes=data, platform=platform_of(row, file, "desktop" if is_pro(file) else "web"),
                    screen_source=image.name,
                    boxes=[BoxRecord(label="gold", box=box, field="bbox", grid=box_layout.grid(layout),
                                     meta={k: row[k] for k in ("data_type", "ui_type") if row.get(k)})],
                    field="", image_field="image" if data is not None else "image_path",
                )],
            ))
        box_layout.refuse_pixels_that_look_normalised(written, images, layout)
    if not records:
        raise FormatError("no rows found", path)
    return records


def sign(path: Path) -> str | None:
    """'vlmevalkit-tsv' when a .tsv file's header names VLMEvalKit's ScreenSpot columns (its first line only)."""
    if path.suffix.lower() != ".tsv":
        return None
    with open(path, "rb") as fh:
        first = fh.readline(64 * 1024).decode("utf-8", errors="replace")
    columns = {c.strip().strip('"') for c in first.split("\t")}
    found = {"index", "bbox"} <= columns and bool(columns & {*QUESTION_COLUMNS}) and bool(columns & {"image", "image_path"})
    return SPEC.name if found else None


SPEC = FormatSpec(
    name="vlmevalkit-tsv",
    description="ScreenSpot as VLMEvalKit's TSV (base64 screenshots; bbox = x, y, width, height, or x1, y1, x2, y2 "
                "in ScreenSpot_Pro files)",
    read=read,
    options=("bbox_format",),
)
