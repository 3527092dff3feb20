"""ScreenSpot and ScreenSpot-Pro grounding annotations.

ScreenSpot (SeeClick) writes `bbox` as [left, top, width, height]; ScreenSpot-Pro
writes [x1, y1, x2, y2]. Mixing them up is a known source of wrong scores
(SeeClick issue #50), so the reading is explicit: a record with `img_size` is
ScreenSpot-Pro, otherwise ScreenSpot, unless --bbox-format says which. The HF
mirror's JSON keeps 0-1 corners (--bbox-format xyxy-normalised); a file read as
pixels whose boxes are all that small is refused, naming that layout (box_layout.py).
Images are looked for where each release puts them beside its file: SeeClick's
`screenspot_imgs/`, ScreenSpot-v2's `screenspotv2_image/` (OS-Copilot/ScreenSpot-v2),
`images/`, and ScreenSpot-Pro's `../images/` (annotations/ and images/<app>/ side
by side, likaixin2000/ScreenSpot-Pro-GUI-Grounding); --images comes first.
Each instruction becomes a one-step episode whose goal is the instruction and
whose gold action is the box. Exports write the original ScreenSpot layout.
"""

from __future__ import annotations

import json
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
    optional,
    parse_box,
    read_json,
    require,
    resolve_image,
)
from desktop_app.formats.spec import ExportContext, ExportReport, FormatSpec
from desktop_app.formats.writing import ImageWriter, atomic_output, json_number

SCENARIO = "grounding"
_PLATFORMS = {"ios": "ios", "android": "android", "windows": "desktop", "macos": "desktop", "mac": "desktop",
              "linux": "desktop", "desktop": "desktop", "web": "web", "mobile": "android"}
_KNOWN = {"img_filename", "bbox", "instruction", "id"}
# Where the releases put their screenshots, beside the annotation file (see the docstring)
IMAGE_FOLDERS = ("images", "screenspot_imgs", "screenspotv2_image", "../images")
ANNOTATIONS_DIR = "annotations"  # ScreenSpot-Pro: annotations/*.json beside images/<app>/


def platform_of(obj: dict, file: Path, default: str = "web") -> str:
    for key in ("platform", "data_source"):
        value = str(obj.get(key, "")).lower()
        if value in _PLATFORMS:
            return _PLATFORMS[value]
    for word in ("mobile", "desktop", "web"):
        if word in file.stem.lower():
            return _PLATFORMS[word]
    return default


def _layout(obj: dict, bbox_format: str | None) -> str:
    return bbox_format or ("xyxy" if "img_size" in obj else "xywh")


def _data_files(path: Path) -> list[Path]:
    """The file, or a folder's *.json, or (ScreenSpot-Pro's release: annotations/ beside images/) the *.json of
    its annotations folder."""
    if path.is_dir() and not any(path.glob("*.json")) and (path / ANNOTATIONS_DIR).is_dir():
        return input_files(path / ANNOTATIONS_DIR, ".json")
    return input_files(path, ".json")


def read(path: Path, options) -> list[EpisodeRecord]:
    box_layout.check_option(options.bbox_format)
    records = []
    for file in _data_files(Path(path)):
        data = read_json(file)
        if not isinstance(data, list):
            raise FormatError("expected a JSON list of annotations", file)
        bases = image_bases(file, options.images_dir, *IMAGE_FOLDERS)
        written: list[tuple[Where, str, tuple]] = []  # each box as the file writes it, for the 0-1 check
        first = len(records)
        for i, obj in enumerate(data):
            where = Where(file, None)
            prefix = f"[{i}]."
            if not isinstance(obj, dict):
                raise where.error("expected an object", f"[{i}]")
            name = require(obj, "img_filename", str, where, prefix)
            require(obj, "bbox", list, where, prefix)
            numbers = parse_box(obj["bbox"], where, prefix + "bbox")
            layout = _layout(obj, options.bbox_format)
            box = box_layout.corners(numbers, layout, where, prefix + "bbox", obj["bbox"])
            instruction = require(obj, "instruction", str, where, prefix)
            key = str(optional(obj, "id", (str, int), where, f"{file.stem}-{i:05d}", prefix))
            image = resolve_image(name, bases, where, prefix + "img_filename")
            if not box_layout.is_normalised(layout):
                written.append((where, prefix + "bbox", numbers))
            extra = {k: v for k, v in obj.items() if k not in _KNOWN}
            records.append(EpisodeRecord(
                key=key, where=where, goal=instruction, scenario=SCENARIO,
                meta={"screenspot": extra},
                steps=[StepRecord(
                    image=image, platform=platform_of(obj, file), screen_source=name,
                    boxes=[BoxRecord(label="gold", box=box, field=prefix + "bbox", grid=box_layout.grid(layout),
                                     meta={k: obj[k] for k in ("data_type", "ui_type") if k in obj})],
                    field=prefix, image_field=prefix + "img_filename",
                )],
            ))
        box_layout.refuse_pixels_that_look_normalised(
            written, [(r.steps[0].image, None) for r in records[first:]], options.bbox_format or "xywh")
    if not records:
        raise FormatError("no annotations found", path)
    return records


def write(ctx: ExportContext) -> ExportReport:
    report = ExportReport("screenspot", ctx.out, skipped_why="episodes without a gold box (or with several steps)")
    rows = []
    with atomic_output(ctx.out) as tmp:
        images = ImageWriter(tmp, ctx.image_bytes)
        for bundle in ctx.bundles:
            golds = [b for sb in bundle.steps for b in sb.boxes if b.label == "gold" and b.has_box]
            if len(bundle.steps) != 1 or not golds:
                report.skipped += 1
                continue
            screen = bundle.steps[0].screen
            rel = images.add(screen)
            # img_size marks ScreenSpot-Pro's x1y1x2y2 boxes; we write the left-top-width-height layout
            extra = {k: v for k, v in bundle.episode.meta.get("screenspot", {}).items() if k != "img_size"}
            for n, box in enumerate(golds):
                rows.append({
                    **extra,
                    "id": bundle.episode.key if len(golds) == 1 else f"{bundle.episode.key}#{n + 1}",
                    "img_filename": rel.removeprefix("images/"),
                    "bbox": [json_number(v) for v in (box.x1, box.y1, box.x2 - box.x1, box.y2 - box.y1)],
                    "instruction": bundle.episode.goal,
                    "data_type": box.meta.get("data_type", extra.get("data_type", "text")),
                })
                report.annotations += 1
            report.episodes += 1
        (tmp / "screenspot.json").write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")
        report.images = images.count
    return report


SPEC = FormatSpec(
    name="screenspot",
    description="ScreenSpot (bbox = left, top, width, height) and ScreenSpot-Pro (bbox = x1, y1, x2, y2) JSON",
    read=read,
    write=write,
    options=("bbox_format",),
)
