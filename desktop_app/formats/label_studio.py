"""Label Studio JSON: the project export of tasks with their annotations (rectangle labels).

Definition: github.com/HumanSignal/label-studio, the task format (docs/source/guide/task_format.md) and the
RectangleLabels tag (docs/source/tags/rectanglelabels.md); a real export is
label_studio/tests/test_suites/samples/image_urls_with_bboxes_gt.json. A file holds a list of tasks (or one):
{id, data: {image: <URL or path>, ...}, annotations: [{result: [...], was_cancelled, ground_truth,
completed_by}], predictions}. A rectangle is a result of type `rectanglelabels` (or `rectangle` with a `labels`
result of the same region id) whose value is {x, y, width, height, rotation, rectanglelabels}. Surprises: x, y,
width and height are PERCENT of the picture (0-100), not pixels nor fractions; `original_width` /
`original_height` (pixels) sit beside `value`, not inside it; `rotation` (degrees, clockwise, about the top-left
corner) is inside `value`; data.image is a URL ("/data/upload/3/1a2b3c4d-shot.png" with an 8-hex prefix the
upload adds, "/data/local-files/?d=dir/shot.png", http(s), s3, gs), not a file path; per-region answers (the
attributes of a region: choices, text areas, numbers with perRegion) are separate results sharing the region's
id; a region's `meta.text` is the free text of its Meta field.

Rules: a task is a screen (see labelling_tools for its key; two tasks naming one picture get "#<task id>"
after it). The picture is looked up by the URL's path, its file name, and its file name without the upload
prefix, under --images, the file's folder and its images/ folder. One annotation per task is read: the only
one not cancelled, or the one marked ground truth; several otherwise are refused (ScreenLab keeps one set of
boxes per screen). Predictions are a model's proposals and are not read. Percentages are turned into pixels of
the picture itself, after checking original_width / original_height are its size. Refused: values over 100
(pixels given as percent), a file whose every rectangle lies within 0-1 (fractions given as percent), a
rectangle past the picture's edge, a rotated rectangle (or a rotated picture), and polygons, ellipses, key
points and brush masks. Per-region answers and the region's meta become the box's attributes (named by the
answer's from_name; "meta" for the Meta text); task-level answers are kept in the step's meta.
Export: tasks.json (one task per screen, its picture as a local-files URL), images/, label_config.xml (the
labelling interface for these tasks) and README.txt (how to open it in Label Studio).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit
from xml.sax.saxutils import quoteattr

from desktop_app.formats.labelling_tools import (
    ScreenNames,
    attribute_text,
    box_parts,
    box_values,
    check_size,
    declared_side,
    image_size,
    other_shape,
    pixels,
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
    input_files,
    names_to_try,
    optional,
    read_json,
    require,
    shown,
)
from desktop_app.formats.spec import ExportContext, ExportReport, FormatSpec
from desktop_app.formats.writing import ImageWriter, atomic_output
from desktop_app.images import IMAGE_SUFFIXES
from desktop_app.store import label_set

RECTANGLES = ("rectanglelabels", "rectangle")
# regions of other shapes, by what a user calls them: --shapes decides (labelling_tools.other_shape)
OTHER = {"polygonlabels": "polygon", "polygon": "polygon", "ellipselabels": "ellipse", "ellipse": "ellipse",
         "keypointlabels": "key point", "keypoint": "key point", "brushlabels": "brush mask", "brush": "brush mask",
         "magicwand": "magic-wand mask"}
GEOMETRY = (*RECTANGLES, *OTHER)
TOLERANCE = 1e-6  # percent a rectangle may pass the edge by (float noise), then clamped
LOCAL_FILES = "/data/local-files/?d="
_UPLOAD_PREFIX = re.compile(r"^[0-9a-f]{8}-(.+)$")  # what Label Studio puts before an uploaded file's name
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_VALUE_KEY = {"textarea": "text"}  # where a result of each type keeps its answer (value[type] otherwise)


def read(path: Path, options) -> list[EpisodeRecord]:
    path = Path(path)
    root = path if path.is_dir() else path.parent
    records: list[EpisodeRecord] = []
    idents: dict[int, str] = {}
    for file in input_files(path, ".json"):
        data = read_json(file)
        bases = ([options.images_dir] if options.images_dir else []) + [file.parent, file.parent / "images"]
        tasks = data if isinstance(data, list) else [data]
        rectangles: list[tuple[str, tuple[float, ...], tuple[int, int] | None]] = []
        where = Where(file)
        for i, task in enumerate(tasks):
            prefix = f"[{i}]." if isinstance(data, list) else ""
            record = _task(task, where, prefix, bases, [root, options.images_dir], rectangles, options.shapes)
            idents[id(record)] = str(task.get("id", i)) if isinstance(task.get("id"), (int, str)) else str(i)
            records.append(record)
        _refuse_fractions(rectangles, where)
    if not records:
        raise FormatError("no tasks found (the file holds an empty list)", path)
    unique_keys(records, lambda r: idents[id(r)])
    return records


def _task(task, where: Where, prefix: str, bases, roots, rectangles, shapes_rule: str = "refuse") -> EpisodeRecord:
    if not isinstance(task, dict):
        raise where.error(f"expected a task (an object with data and annotations), got {got(task)}",
                          prefix.rstrip(".") or None)
    if "data" not in task and "image" in task and any(k in task for k in ("label", "annotator", "annotation_id")):
        raise where.error("this is Label Studio's JSON-MIN export, which leaves out the regions' ids and "
                          "answers; export the project as JSON instead", prefix.rstrip(".") or None)
    data = require(task, "data", dict, where, prefix)
    image_field = _image_field(data, where, prefix)
    reference = require(data, image_field, str, where, prefix + "data.")
    picture = find_inside(image_names(reference), [b for b in bases if b], where, f"{prefix}data.{image_field}")
    key, size = screen_key(picture, roots), image_size(picture)
    goal = optional(data, "goal", str, where, "", prefix + "data.")
    boxes: list[BoxRecord] = []
    answers: list[dict] = []
    skipped: list[str] = []
    annotation = _annotation(task, where, prefix)
    if annotation is not None:
        boxes, answers, skipped = _regions(*annotation, where, key, size, rectangles, shapes_rule)
    task_id = task.get("id")
    meta = {"label_studio": {"id": task_id}} if isinstance(task_id, (int, str)) and task_id is not True \
        and task_id is not False else {}
    return EpisodeRecord(
        key=key, where=where, goal=goal, meta=meta,
        steps=[StepRecord(image=picture, screen_source=key, boxes=boxes, field=prefix,
                          image_field=f"{prefix}data.{image_field}", skipped_shapes=skipped,
                          meta={"label_studio": {"answers": answers}} if answers else {})],
    )


def _image_field(data: dict, where: Where, prefix: str) -> str:
    """Which of the task's data names the picture: `image`, else the one value that names a picture file."""
    if "image" in data:
        return "image"
    pictures = [k for k, v in data.items() if isinstance(v, str)
                and urlsplit(v).path.lower().endswith(IMAGE_SUFFIXES)]
    if len(pictures) == 1:
        return pictures[0]
    raise where.error("no data.image, and not one other field naming a picture "
                      f"({', '.join(pictures) or 'none'}); name the picture's field image", prefix + "data")


def image_names(reference: str) -> list[str]:
    """Where a task's picture may be, as relative names: the URL's path, its file name, and the file name
    without the prefix an upload adds."""
    if _URL.match(reference) or reference.startswith("/data/"):
        parts = urlsplit(reference)
        local = parse_qs(parts.query).get("d") if parts.path.rstrip("/").endswith("local-files") else None
        path = local[0] if local else unquote(parts.path)
        names = names_to_try(path) if local else [path.lstrip("/")]
    else:
        path = reference
        names = names_to_try(reference)
    base = PurePosixPath(path.replace("\\", "/")).name
    names.append(base)
    upload = _UPLOAD_PREFIX.match(base)
    if upload:
        names.append(upload.group(1))
    return [n for n in dict.fromkeys(names) if n and n not in (".", "..")] or [reference]


def _annotation(task: dict, where: Where, prefix: str) -> tuple[dict, str] | None:
    """The one annotation to read, with its field prefix; None when the task has none."""
    name = "completions" if "completions" in task and "annotations" not in task else "annotations"
    live = []
    for j, annotation in enumerate(optional(task, name, list, where, [], prefix)):
        at = f"{prefix}{name}[{j}]"
        if not isinstance(annotation, dict):
            raise where.error(f"expected an annotation (an object with result), got {got(annotation)}", at)
        if not optional(annotation, "was_cancelled", bool, where, False, at + "."):
            live.append((annotation, at + "."))
    if len(live) <= 1:
        return live[0] if live else None
    truth = [pair for pair in live if pair[0].get("ground_truth") is True]
    if len(truth) == 1:
        return truth[0]
    who = ", ".join(_annotator(a) for a, _ in live)
    raise where.error(f"{len(live)} annotations of one task ({who}) and not one of them marked ground truth: ScreenLab "
                      "keeps one set of boxes per screen; mark one as ground truth in Label Studio (or export "
                      "one annotator's), then import again", prefix + name)


def _annotator(annotation: dict) -> str:
    by = annotation.get("completed_by")
    if isinstance(by, dict) and isinstance(by.get("email"), str):
        return by["email"]
    return f"user {by}" if isinstance(by, (int, str)) and not isinstance(by, bool) else "unknown annotator"


def _regions(annotation: dict, at: str, where: Where, key: str, size, rectangles,
             shapes_rule: str) -> tuple[list, list, list]:
    """The boxes of one annotation, its answers that belong to no region, and the kinds of the shapes
    --shapes skip left out."""
    by_region: dict[str, list[tuple[str, dict]]] = {}
    loose: list[tuple[str, dict]] = []
    for k, result in enumerate(require(annotation, "result", list, where, at)):
        field = f"{at}result[{k}]"
        if not isinstance(result, dict):
            raise where.error(f"expected a result (an object with type and value), got {got(result)}", field)
        kind = require(result, "type", str, where, field + ".")
        region = result.get("id")
        if kind in OTHER and (not isinstance(region, (str, int)) or isinstance(region, bool)):  # no id: its own region
            region = f"#{k}"
        if isinstance(region, (str, int)) and not isinstance(region, bool):
            by_region.setdefault(str(region), []).append((field, result))
        else:
            loose.append((field, result))
    boxes, skipped = [], []
    for region, results in by_region.items():
        shapes = [(f, r) for f, r in results if r["type"] in GEOMETRY]
        if not shapes:
            loose += results
            continue
        if len(shapes) > 1:
            raise where.error(f"region {region!r} has {len(shapes)} rectangles; a region is one rectangle",
                              shapes[1][0] + ".id")
        box = _box(shapes[0], [(f, r) for f, r in results if r["type"] not in GEOMETRY], annotation, where,
                   key, size, rectangles, shapes_rule)
        if isinstance(box, str):
            skipped.append(box)
        elif box is not None:
            boxes.append(box)
    answers = [check_storable({"from_name": r.get("from_name"), "type": r["type"], "value": r.get("value")},
                              where, f) for f, r in loose]
    return boxes, answers, skipped


def _box(shape: tuple[str, dict], others: list[tuple[str, dict]], annotation: dict, where: Where, key: str,
         size, rectangles, shapes_rule: str = "refuse") -> BoxRecord | str | None:
    """The region's box; None when its picture cannot be read; the kind of shape --shapes skip left out."""
    field, result = shape
    value = require(result, "value", dict, where, field + ".")
    kind = OTHER.get(result["type"], "")
    if kind:
        corners = _extent(result["type"], value, where, f"{field}.value.") if shapes_rule == "bbox" else None
        extent = other_shape(f"{kind} region", corners, shapes_rule, where, field + ".type", _REDRAW)
        if extent is None:
            return kind
        x, y = extent[0], extent[1]
        w, h = extent[2] - x, extent[3] - y
    else:
        x, y, w, h = (_percent(value, name, where, f"{field}.value.") for name in ("x", "y", "width", "height"))
    for name, holder, at in (("rotation", value, f"{field}.value."), ("image_rotation", result, field + ".")):
        if kind and name == "rotation":  # an ellipse's rotation is in its bounding box already
            continue
        angle = finite(holder.get(name, 0) if holder.get(name) is not None else 0)
        if angle is None:
            raise where.error(f"expected a number of degrees, got {shown(holder.get(name))}", at + name)
        if abs((angle + 180) % 360 - 180) > 1e-6:
            what = "a rectangle rotated" if name == "rotation" else "a rectangle on a picture rotated"
            raise where.error(f"{what} by {angle:g} degrees: ScreenLab's boxes are axis-aligned on the picture as "
                              "it is, and taking it as unrotated would move its corners; redraw it unrotated "
                              "in Label Studio, then export again", at + name)
    declared = tuple(declared_side(result, n, where, field + ".") for n in ("original_width", "original_height"))
    check_size(declared, size, where, field + ".original_width", key)
    if x + w > 100 + TOLERANCE or y + h > 100 + TOLERANCE:
        edge, end = ("width", x + w) if x + w > 100 + TOLERANCE else ("height", y + h)
        raise where.error(f"the rectangle ends at {end:g}% of the picture's {edge}: it reaches outside the picture",
                          f"{field}.value")
    rectangles.append((f"{field}.value", (x, y, w, h), size))
    label = _label(value, others, where, field, result["type"])
    values: dict[str, Any] = {}
    for at, other in others:
        if other["type"] != "labels":
            values[require(other, "from_name", str, where, at + ".")] = _answer(other, where, at)
    region_meta = optional(result, "meta", dict, where, {}, field + ".")
    for name, text in region_meta.items():
        joined = "\n".join(text) if isinstance(text, list) and all(isinstance(t, str) for t in text) else text
        values["meta" if name == "text" else f"meta.{name}"] = joined
    fields, meta = box_parts(values, where, field)
    if size is None:  # the picture cannot be read: ingest refuses it, with the others that cannot
        return None
    width, height = size
    box = (pixels(x * width / 100), pixels(y * height / 100), pixels(min(x + w, 100) * width / 100),
           pixels(min(y + h, 100) * height / 100))
    return BoxRecord(label=label, box=box, field=f"{field}.value", meta=meta, author=_annotator(annotation)
                     if annotation.get("completed_by") is not None else "", shape=kind, **fields)


_REDRAW = "draw it as a rectangle in Label Studio (or delete it), then export again"


def _extent(kind: str, value: dict, where: Where, prefix: str) -> list[tuple[float, float]] | None:
    """Points (percent of the picture) a region's bounding box holds: a polygon's points, an ellipse's box
    (turned by its rotation), a key point itself (a box of no size); None for a mask, whose extent is in its
    run-length code."""
    if kind in ("polygonlabels", "polygon"):
        points = require(value, "points", list, where, prefix)
        corners = []
        for j, point in enumerate(points):
            if not isinstance(point, list) or len(point) != 2:
                raise where.error(f"expected a point [x, y] in percent, got {shown(point)}", f"{prefix}points[{j}]")
            corners.append(tuple(_percent({"x": point[0], "y": point[1]}, n, where, f"{prefix}points[{j}].")
                                 for n in ("x", "y")))
        return corners or None
    if kind in ("keypointlabels", "keypoint"):
        x, y = (_percent(value, n, where, prefix) for n in ("x", "y"))
        return [(x, y)]
    if kind in ("ellipselabels", "ellipse"):
        x, y = (_percent(value, n, where, prefix) for n in ("x", "y"))
        rx, ry = (_percent(value, n, where, prefix) for n in ("radiusX", "radiusY"))
        angle = finite(value.get("rotation") or 0)
        if angle is None:
            raise where.error(f"expected a number of degrees, got {shown(value.get('rotation'))}", prefix + "rotation")
        turn = math.radians(angle)
        # half the sides of the box around an ellipse turned by `turn`; percent of width and height mix here as
        # Label Studio draws it (its radii are percent of each side)
        half_w = math.hypot(rx * math.cos(turn), ry * math.sin(turn))
        half_h = math.hypot(rx * math.sin(turn), ry * math.cos(turn))
        return [(x - half_w, y - half_h), (x + half_w, y + half_h)]
    return None


def _percent(value: dict, name: str, where: Where, prefix: str) -> float:
    number = finite(require(value, name, (int, float), where, prefix))
    if number is None:
        raise where.error(f"expected a finite percentage, got {shown(value[name])}", prefix + name)
    if number > 100 + TOLERANCE:
        raise where.error(f"{number:g} is over 100: Label Studio gives percentages of the picture (0-100), and this "
                          "looks like pixels; if a script wrote the file, divide x and width by the picture's "
                          "width (y and height by its height) and multiply by 100", prefix + name)
    if number < -TOLERANCE:
        raise where.error(f"{number:g} is negative: the rectangle starts outside the picture", prefix + name)
    return max(number, 0.0)


def _label(value: dict, others: list[tuple[str, dict]], where: Where, field: str, kind: str) -> str:
    own = kind if kind.endswith("labels") else kind + "labels"  # rectanglelabels, polygonlabels, ...
    labels = optional(value, own, list, where, [], f"{field}.value.")
    named = f"{field}.value.{own}"
    for at, other in others:
        if other["type"] == "labels":
            labels = labels + optional(require(other, "value", dict, where, at + "."), "labels", list, where, [],
                                       at + ".value.")
            named = at + ".value.labels"
    if len(labels) != 1:
        what = "no label" if not labels else f"{len(labels)} labels ({', '.join(map(str, labels))})"
        shape = OTHER.get(kind, "rectangle")
        raise where.error(f"the {shape} has {what}; a ScreenLab box has one: give it one label in Label Studio",
                          named)
    return tool_label(labels[0], where, named)


def _answer(result: dict, where: Where, at: str) -> str | None:
    """A per-region answer (choices, text, number, rating, taxonomy ...) as an attribute's text."""
    value = require(result, "value", dict, where, at + ".")
    name = _VALUE_KEY.get(result["type"], result["type"])
    answer = require(value, name, (str, int, float, bool, list), where, at + ".value.")
    if not isinstance(answer, list):
        return attribute_text(answer, where, f"{at}.value.{name}")
    parts = []
    for item in answer:
        if isinstance(item, list):  # a taxonomy path
            parts.append("/".join(attribute_text(p, where, f"{at}.value.{name}") or "" for p in item))
        else:
            parts.append(attribute_text(item, where, f"{at}.value.{name}") or "")
    return "; ".join(parts)


def _refuse_fractions(rectangles, where: Where) -> None:
    """Every rectangle of a file within 0-1 percent: the file holds fractions of the picture, not percent."""
    big = [r for r in rectangles if r[2] is None or min(r[2]) > 8]
    if big and all(max(values) <= 1 for _, values, _ in big):
        field, values, _ = big[0]
        raise where.error(f"every rectangle of this file lies within the first 1% of its picture (here x, y, width, "
                          f"height = {', '.join(f'{v:g}' for v in values)}): these look like fractions (0-1), but "
                          "Label Studio gives percentages (0-100); multiply them by 100", field)


def write(ctx: ExportContext) -> ExportReport:
    report = ExportReport("label-studio", ctx.out, skipped_why="actions without a box (text-only or out of screen)")
    labels = label_set.export_names(ctx.session.get_bind() if ctx.session is not None else None)
    names = ScreenNames()
    tasks: list[dict] = []
    answers: dict[str, None] = {}
    goals = False
    with atomic_output(ctx.out) as tmp:
        images = ImageWriter(tmp, ctx.image_bytes)
        for bundle in ctx.bundles:
            report.episodes += 1
            for sb in bundle.steps:
                rel = images.add(sb.screen, f"images/{names.name(bundle, sb)}")
                results = []
                for n, box in enumerate(sb.boxes):
                    if not box.has_box:
                        report.skipped += 1
                        continue
                    results += _results(box, f"s{sb.step.index}b{n}", sb.screen, answers)
                    report.annotations += 1
                data = {"image": LOCAL_FILES + quote(rel, safe="/")}
                if bundle.episode.goal:
                    data["goal"], goals = bundle.episode.goal, True
                tasks.append({"id": len(tasks) + 1, "data": data, "predictions": [],
                              "annotations": [{"result": results, "was_cancelled": False, "ground_truth": False}]})
        (tmp / "tasks.json").write_text(json.dumps(tasks, ensure_ascii=False, indent=1), encoding="utf-8")
        (tmp / "label_config.xml").write_text(_config(labels, list(answers), goals), encoding="utf-8")
        (tmp / "README.txt").write_text(README, encoding="utf-8")
        report.images = images.count
    return report


def _results(box, region: str, screen, answers: dict) -> list[dict]:
    width, height = screen.width, screen.height
    value = {"x": box.x1 / width * 100, "y": box.y1 / height * 100, "width": (box.x2 - box.x1) / width * 100,
             "height": (box.y2 - box.y1) / height * 100, "rotation": 0, "rectanglelabels": [label_set.category_of(box.label, box.category)]}
    rectangle = {"id": region, "type": "rectanglelabels", "from_name": "label", "to_name": "image",
                 "original_width": width, "original_height": height, "image_rotation": 0, "value": value}
    out = [rectangle]
    meta = {}
    for name, text in sorted(box_values(box).items()):
        if name == "meta" or name.startswith("meta."):
            meta["text" if name == "meta" else name[len("meta."):]] = [text]
            continue
        answers[name] = None
        out.append({"id": region, "type": "textarea", "from_name": name, "to_name": "image",
                    "value": {"text": [text]}})
    if meta:
        rectangle["meta"] = meta
    return out


def _config(labels, answers: list[str], goals: bool) -> str:
    lines = ["<View>", '  <Image name="image" value="$image"/>']
    if goals:
        lines.append('  <Text name="goal" value="$goal"/>')
    lines.append('  <RectangleLabels name="label" toName="image">')
    lines += [f"    <Label value={quoteattr(label)}/>" for label in labels]
    lines.append("  </RectangleLabels>")
    lines += [f'  <TextArea name={quoteattr(name)} toName="image" perRegion="true" editable="true" maxSubmissions="1"/>'
              for name in answers]
    lines.append("</View>")
    return "\n".join(lines) + "\n"


README = """Exported by ScreenLab for Label Studio.

tasks.json     one task per screen, its rectangles as annotations (percent of the picture)
images/        the pictures the tasks name
label_config.xml   the labelling interface these tasks were written for

To open it in Label Studio:
 1. start Label Studio with local files served from this folder:
      LABEL_STUDIO_LOCAL_FILES_SERVING_ENABLED=true
      LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT=<this folder>
 2. create a project; in Settings > Labeling Interface > Code paste label_config.xml;
 3. in Settings > Cloud Storage add a Local Files source storage whose path is <this folder>/images
    (do not sync it: the tasks already name the pictures);
 4. Import tasks.json.
"""


def layout(path: Path) -> str:
    """The import summary's words on which files were read."""
    return "Label Studio JSON export: " + ", ".join(f.name for f in input_files(Path(path), ".json"))


SPEC = FormatSpec(
    name="label-studio",
    description="Label Studio JSON export (rectangle labels, in percent of the picture)",
    read=read,
    write=write,
    options=("shapes",),
    layout=layout,
)
