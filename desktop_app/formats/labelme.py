"""LabelMe JSON: one annotation file per picture, the picture beside it.

Definition: github.com/wkentaro/labelme, labelme/_label_file.py (read_label_file, write_label_file) and the
examples in examples/bbox_detection/data_annotated/*.json. A file holds `imagePath` (relative to the JSON file;
LabelMe reads a Windows path's backslashes as separators), `imageData` (the picture in base64, or null),
`imageHeight` / `imageWidth`, `flags`, and `shapes`: {label, points [[x, y], ...], shape_type, group_id,
description, flags}, in pixels of the picture. Surprises: a rectangle's two points are any two opposite
corners, in the order the user dragged (not top-left first); points are floats; a shape without a shape_type
(old files) is a polygon; LabelMe itself refuses a file whose imageHeight / imageWidth are not the picture's,
and so do we.

Rules: each JSON file is a screen (see labelling_tools: its key is the picture's path under the folder
imported). A `rectangle` is a box; an `oriented_rectangle` whose corners are axis-aligned is a box, a rotated
one is refused (taking it as unrotated would move its corners); polygons, circles, lines, points, line strips
and masks are what --shapes says (labelling_tools.other_shape): refused by default (ScreenLab's boxes are
axis-aligned rectangles), taken as their bounding box (a circle's is the square around it, a mask's the
rectangle LabelMe placed it in, a point's a box of no size), or left out. A shape's `description` is the box's element text; its `flags` and `group_id`
stay in the box's meta and are written back on export; an `attributes` object on a shape (our export writes
one; LabelMe keeps keys it does not know) holds the box's attributes. When the picture is not beside the file,
the picture embedded in `imageData` is imported.
Export: a folder of picture + JSON pairs (imageData null), which LabelMe opens with File > Open Dir.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from pathlib import Path, PurePosixPath, PureWindowsPath

from desktop_app.formats.images import path_order
from desktop_app.formats.labelling_tools import (
    ScreenNames,
    box_parts,
    box_values,
    check_size,
    declared_side,
    image_size,
    other_shape,
    refuse_normalised,
    screen_key,
    tool_label,
    unique_keys,
)
from desktop_app.formats.records import (
    BoxRecord,
    EpisodeRecord,
    FormatError,
    StepRecord,
    Where,
    check_storable,
    find_inside,
    finite,
    got,
    is_within,
    names_to_try,
    optional,
    read_json,
    require,
    shown,
)
from desktop_app.formats.spec import ExportContext, ExportReport, FormatSpec
from desktop_app.formats.writing import ImageWriter, atomic_output, inside, json_number
from desktop_app.store import label_set

VERSION = "5.7.0"  # the LabelMe release whose files our export imitates (examples/primitives/primitives.json)
SIGN_BYTES = 64 * 1024
AXIS_ALIGNED = 1e-6  # pixels two corners may differ by and still share an edge
# shapes that are not rectangles, by what a user calls them: --shapes decides (labelling_tools.other_shape)
_OTHER = {"polygon": "polygon", "circle": "circle", "line": "line", "point": "point", "linestrip": "line strip",
          "points": "set of points", "mask": "mask"}


def read(path: Path, options) -> list[EpisodeRecord]:
    path = Path(path)
    root = path if path.is_dir() else path.parent
    records = [_read_file(file, root, options.images_dir, options.shapes) for file in _json_files(path)]
    unique_keys(records, lambda r: r.where.file.name)
    return records


def _json_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise FormatError("no such file or folder", path)
    files = sorted((p for p in path.rglob("*.json") if p.is_file()), key=path_order(path))
    outside = [f for f in files if not is_within(f, path)]
    if outside:
        raise FormatError(f"{outside[0]} is a link to a file outside this folder, which an import does not read; "
                          "copy the file into it", path)
    if not files:
        raise FormatError("no LabelMe .json files in this folder (searched sub-folders too)", path)
    return files


def _read_file(file: Path, root: Path, images_dir: Path | None, shapes_rule: str = "refuse") -> EpisodeRecord:
    where = Where(file)
    data = read_json(file)
    if not isinstance(data, dict):
        raise where.error(f"expected a LabelMe annotation (an object with shapes and imagePath), got {got(data)}")
    name = require(data, "imagePath", str, where)
    shapes = require(data, "shapes", list, where)
    declared = (declared_side(data, "imageWidth", where), declared_side(data, "imageHeight", where))
    embedded = optional(data, "imageData", str, where, None)
    flags = check_storable(optional(data, "flags", dict, where, {}), where, "flags")

    posix = PureWindowsPath(name).as_posix()  # as LabelMe reads it: a Windows path's backslashes separate
    if not posix.strip() or posix in (".", ".."):
        raise where.error(f"expected the picture's file name, got {shown(name)}", "imagePath")
    picture, image_bytes = _picture(posix, file, root, images_dir, embedded, where)
    if picture is not None:
        key, size = screen_key(picture, [root, images_dir]), image_size(picture)
    else:
        key, size = screen_key(file.with_name(PurePosixPath(posix).name), [root]), image_size(None, image_bytes)
    check_size(declared, size, where, "imageWidth" if declared[0] is not None else "imageHeight", key)

    boxes, skipped = [], []
    for i, shape in enumerate(shapes):
        box = _box(shape, where, f"shapes[{i}]", size, shapes_rule)
        if isinstance(box, str):
            skipped.append(box)
        else:
            boxes.append(box)
    return EpisodeRecord(
        key=key, where=where, meta={"labelme": {"flags": flags}} if flags else {},
        steps=[StepRecord(image=picture or Path(key), image_bytes=image_bytes, screen_source=key, boxes=boxes,
                          image_field="imagePath", skipped_shapes=skipped)],
    )


def _picture(name: str, file: Path, root: Path, images_dir: Path | None, embedded: str | None,
             where: Where) -> tuple[Path | None, bytes | None]:
    """The picture's file (beside the JSON, or in --images by its path or its name), else the embedded one."""
    bases = [file.parent] + ([images_dir] if images_dir else [])
    names = names_to_try(name) + [PurePosixPath(name).name]
    try:
        return find_inside(names, bases, where, "imagePath"), None
    except FormatError:
        if not embedded:
            raise
    try:
        return None, base64.b64decode("".join(embedded.split()), validate=True)
    except (binascii.Error, ValueError):
        raise where.error("the picture is not beside the file, and imageData is not base64 text", "imageData") from None


def _box(shape, where: Where, field: str, size: tuple[int, int] | None, shapes_rule: str) -> BoxRecord | str:
    """The shape's box; for a shape --shapes skip leaves out, the kind skipped ("polygon")."""
    if not isinstance(shape, dict):
        raise where.error(f"expected a shape (an object), got {got(shape)}", field)
    prefix = field + "."
    label = tool_label(require(shape, "label", str, where, prefix), where, prefix + "label")
    shape_type = optional(shape, "shape_type", str, where, "polygon", prefix)
    points = [_point(p, where, f"{prefix}points[{j}]")
              for j, p in enumerate(require(shape, "points", list, where, prefix))]
    kind = ""
    if shape_type in _OTHER:
        kind = _OTHER[shape_type]
        box = other_shape(kind, _extent(shape_type, points, where, field), shapes_rule, where,
                          prefix + "shape_type", "in LabelMe, redraw it as a rectangle (or delete it)")
        if box is None:
            return kind
    else:
        box = _rectangle(shape_type, points, where, field)
    refuse_normalised(box, size, where, prefix + "points", "LabelMe")
    description = optional(shape, "description", str, where, "", prefix)
    group_id = optional(shape, "group_id", int, where, None, prefix)
    shape_flags = check_storable(optional(shape, "flags", dict, where, {}, prefix), where, prefix + "flags")
    fields, meta = box_parts(optional(shape, "attributes", dict, where, {}, prefix), where, prefix + "attributes")
    labelme = {k: v for k, v in (("flags", shape_flags), ("group_id", group_id)) if v not in ({}, None)}
    if labelme:
        meta["labelme"] = labelme
    if description:
        fields["element_text"] = description
    return BoxRecord(label=label, box=box, field=prefix + "points", meta=meta, shape=kind, **fields)


def _point(value, where: Where, field: str) -> tuple[float, float]:
    if not isinstance(value, list) or len(value) != 2:
        raise where.error(f"expected a point [x, y], got {shown(value)}", field)
    x, y = finite(value[0]), finite(value[1])
    if x is None or y is None:
        raise where.error(f"expected a point [x, y] of two finite numbers, got {shown(value)}", field)
    return x, y


def _rectangle(shape_type: str, points: list[tuple[float, float]], where: Where,
               field: str) -> tuple[float, float, float, float]:
    corners = {"rectangle": 2, "oriented_rectangle": 4}
    if shape_type not in corners:
        raise where.error(f"a shape of type {shape_type!r}, which LabelMe does not draw: ScreenLab's boxes are "
                          "axis-aligned rectangles; in LabelMe, redraw it as a rectangle (or delete it), then import "
                          "again", field + ".shape_type")
    if len(points) != corners[shape_type]:
        raise where.error(f"a {shape_type} has {corners[shape_type]} points, this one has {len(points)}",
                          field + ".points")
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    box = (min(xs), min(ys), max(xs), max(ys))
    if shape_type == "oriented_rectangle":
        on_edges = all(min(abs(x - box[0]), abs(x - box[2])) <= AXIS_ALIGNED and
                       min(abs(y - box[1]), abs(y - box[3])) <= AXIS_ALIGNED for x, y in points)
        if not on_edges:
            (ax, ay), (bx, by) = points[0], points[1]
            angle = math.degrees(math.atan2(by - ay, bx - ax)) % 90
            raise where.error(f"a rectangle rotated by {angle:.1f} degrees: ScreenLab's boxes are axis-aligned, and "
                              "taking it as unrotated would move its corners; in LabelMe, redraw it as a "
                              "rectangle, then import again", field + ".points")
    return box


def _extent(shape_type: str, points: list[tuple[float, float]], where: Where,
            field: str) -> list[tuple[float, float]]:
    """Points a shape's bounding box holds: a circle's (LabelMe keeps its centre and a point on its edge) are
    the corners of the square around it; a mask's two points are the rectangle LabelMe placed it in."""
    if not points:
        raise where.error(f"a {_OTHER[shape_type]} without points", field + ".points")
    if shape_type == "circle":
        if len(points) != 2:
            raise where.error(f"a circle has 2 points (its centre and one on its edge), this one has {len(points)}",
                              field + ".points")
        (cx, cy), (ex, ey) = points
        r = math.hypot(ex - cx, ey - cy)
        return [(cx - r, cy - r), (cx + r, cy + r)]
    return points


def sign(path: Path) -> str | None:
    """'labelme' for a .json object whose first bytes hold "shapes" and "imagePath" (LabelMe writes them before
    imageData, which can be megabytes)."""
    if path.suffix.lower() != ".json":
        return None
    with open(path, "rb") as fh:
        head = fh.read(SIGN_BYTES).decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    return SPEC.name if head.startswith("{") and '"shapes"' in head and '"imagePath"' in head else None


def folder_sign(folder: Path) -> str | None:
    """'labelme' when the first .json files of the folder are LabelMe files (their pictures sit beside them)."""
    files = sorted(folder.glob("*.json"), key=lambda p: p.name)[:3]
    return SPEC.name if files and all(f.is_file() and sign(f) for f in files) else None


def write(ctx: ExportContext) -> ExportReport:
    report = ExportReport("labelme", ctx.out, skipped_why="actions without a box (text-only or out of screen)")
    names = ScreenNames()
    with atomic_output(ctx.out) as tmp:
        images = ImageWriter(tmp, ctx.image_bytes)
        for bundle in ctx.bundles:
            report.episodes += 1
            for sb in bundle.steps:
                rel = images.add(sb.screen, names.name(bundle, sb))
                shapes = []
                for box in sb.boxes:
                    if not box.has_box:
                        report.skipped += 1
                        continue
                    shapes.append(_shape(box))
                kept = bundle.episode.meta.get("labelme")
                doc = {"version": VERSION, "flags": kept.get("flags", {}) if isinstance(kept, dict) else {},
                       "shapes": shapes, "imagePath": PurePosixPath(rel).name, "imageData": None,
                       "imageHeight": sb.screen.height, "imageWidth": sb.screen.width}
                target = inside(tmp, str(PurePosixPath(rel).with_suffix(".json")))
                target.write_text(json.dumps(doc, ensure_ascii=False, indent=2), encoding="utf-8")
                report.annotations += len(shapes)
        report.images = images.count
    return report


def _shape(box) -> dict:
    kept = box.meta.get("labelme", {}) if isinstance(box.meta.get("labelme"), dict) else {}
    values = box_values(box)
    description = values.pop("element_text", "")
    shape = {"label": label_set.category_of(box.label, box.category), "points": [[json_number(box.x1), json_number(box.y1)],
                                            [json_number(box.x2), json_number(box.y2)]],
             "group_id": kept.get("group_id"), "description": description, "shape_type": "rectangle",
             "flags": kept.get("flags", {}), "mask": None}
    if values:
        shape["attributes"] = dict(sorted(values.items()))
    return shape


SPEC = FormatSpec(
    name="labelme",
    description="LabelMe JSON: one .json per picture (rectangles; imagePath beside it, or imageData)",
    read=read,
    write=write,
    options=("shapes",),
)
