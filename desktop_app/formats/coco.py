"""COCO detection: import, and export with categories gold / distracted / other, then the project's classes.

Definition: the COCO data format (cocodataset.org/#format-data; github.com/cocodataset/cocoapi,
PythonAPI/pycocotools/coco.py reads it): an object with `images` [{id, file_name, width, height}], `categories`
[{id, name}] and `annotations` [{id, image_id, category_id, bbox, area, iscrowd, segmentation}]. Surprises:
bbox is [x, y, WIDTH, HEIGHT] of the top-left corner, in pixels (not x1 y1 x2 y2, not fractions); ids are
any numbers (labelme2coco starts categories at 0 with "_background_"); every annotation has a bbox even when
it is a polygon or a mask (segmentation), and CVAT's COCO export adds `attributes` with `rotation` (degrees).

Files: the file given, a folder's .json files, or a folder in COCO's own layout (annotations/instances_<split>.json,
pictures in images/<split>/ or <split>/ such as val2017/): annotation_files and picture_folders say where; a
file named instances_<split>.json in annotations/ gives its episodes that split ("default": none, as datumaro
names the unsplit part).
Import: each image is a screen, its annotations' bboxes its boxes (labelled by their category's name); a
segmentation is not kept (the box is COCO's own box of the object). Images carrying ScreenLab's `episode`
and `step` (our export writes them) come back as the steps of that episode, with its goal and scenario; other
images are one-step episodes keyed as labelling_tools says. A box's `attributes` are its attributes (our
export's action_type, element_text, type_text and source fill those fields); an `iscrowd` region keeps
iscrowd=1 as an attribute. Refused: a rotation other than 0, an image_id or category_id that names nothing,
a declared width / height that is not the picture's, a bbox within 0-1 on a larger picture (normalised).
Export: COCO's own layout, which pycocotools and datumaro's coco_instances importer read as it is (ADR 0049):
annotations/instances_<split>.json per split of the episodes ("default" for those without one) and the pictures
in images/<split>/ under their original file names (picture_names: two pictures of one split with one name are
told apart as name~2.png and listed in the report). One COCO image per step (the same screenshot under two goals
is two images, naming one file, because its labels differ); a box's category is its class, else its role, and a
classed box's role (gold, distracted) is its attribute `role`; actions without coordinates cannot be expressed
in COCO and are counted as left out.
"""

from __future__ import annotations

import json
import re
from pathlib import Path, PurePosixPath, PureWindowsPath

from desktop_app.formats.labelling_tools import (
    box_parts,
    check_size,
    declared_side,
    image_size,
    refuse_normalised,
    role_attribute,
    screen_key,
    tool_label,
)
from desktop_app.formats.picture_names import DEFAULT_SPLIT, OriginalNames, split_folder, split_of_folder
from desktop_app.formats.records import (
    BoxRecord,
    EpisodeRecord,
    FormatError,
    StepRecord,
    Where,
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
from desktop_app.formats.writing import ImageWriter, atomic_output, json_number
from desktop_app.store import label_set
from desktop_app.store.attributes import attributes_of
from desktop_app.store.models import LABELS

SIGN_BYTES = 64 * 1024
ANNOTATIONS = "annotations"  # COCO's own layout: annotations/instances_<split>.json
INSTANCES = "instances_"
IMAGES = "images"  # ... and images/<split>/<file_name>
_IMAGES = re.compile(r'"images"\s*:\s*\[\s*\{')


def categories(names: tuple[str, ...] = LABELS) -> list[dict]:
    """COCO categories, ids from 1 in the project's label order (gold, distracted, other first)."""
    return [{"id": i + 1, "name": name, "supercategory": "action"} for i, name in enumerate(names)]


def write(ctx: ExportContext) -> ExportReport:
    names = label_set.export_names(ctx.session.get_bind() if ctx.session is not None else None)
    cats = categories(names)
    category_id = {c["name"]: c["id"] for c in cats}
    report = ExportReport("coco", ctx.out, skipped_why="actions without a box (text-only or out of screen)")
    splits: dict[str, tuple[list, list]] = {}  # folder -> (images, annotations) of its instances file
    pictures = OriginalNames(share=True)
    with atomic_output(ctx.out) as tmp:
        images = ImageWriter(tmp, ctx.image_bytes)
        for bundle in ctx.bundles:
            report.episodes += 1
            folder = split_folder(bundle)
            images_json, annotations = splits.setdefault(folder, ([], []))
            for sb in bundle.steps:
                image_id = len(images_json) + 1
                file_name = pictures.name(folder, bundle, sb)
                images.add(sb.screen, f"{IMAGES}/{folder}/{file_name}")
                images_json.append({
                    "id": image_id, "file_name": file_name, "width": sb.screen.width,
                    "height": sb.screen.height, "episode": bundle.episode.key, "step": sb.step.index,
                    "goal": bundle.episode.goal, "scenario": bundle.episode.scenario,
                })
                for box in sb.boxes:
                    if not box.has_box:
                        report.skipped += 1
                        continue
                    w, h = box.x2 - box.x1, box.y2 - box.y1
                    annotations.append({
                        "id": len(annotations) + 1, "image_id": image_id,
                        "category_id": category_id[label_set.category_of(box.label, box.category)],
                        "bbox": [json_number(v) for v in (box.x1, box.y1, w, h)],
                        "area": w * h, "iscrowd": 0,
                        # the box's own attributes (store/attributes.py) beside ours, as CVAT's COCO does
                        "attributes": {**attributes_of(box.meta), "action_type": box.action_type,
                                       "element_text": box.element_text, "type_text": box.type_text,
                                       "source": box.source, **role_attribute(box)},
                    })
                    report.annotations += 1
        (tmp / ANNOTATIONS).mkdir()
        for folder, (images_json, annotations) in (splits or {DEFAULT_SPLIT: ([], [])}).items():
            doc = {"info": {"description": "exported by ScreenLab"}, "images": images_json,
                   "annotations": annotations, "categories": cats}
            (tmp / ANNOTATIONS / f"{INSTANCES}{folder}.json").write_text(json.dumps(doc, ensure_ascii=False),
                                                                       encoding="utf-8")
        report.images = images.count
        report.renamed = pictures.renamed
    return report


def read(path: Path, options) -> list[EpisodeRecord]:
    path = Path(path)
    root = path if path.is_dir() else path.parent
    records = []
    for file in annotation_files(path):
        # a file of the official layout keys its pictures from the dataset's folder (images/val/a.jpg: val/a.jpg)
        top = [file.parent.parent] if file.parent.name == ANNOTATIONS else []
        records += _read_file(file, [root, *top, options.images_dir], options.images_dir)
    if not records:
        raise FormatError("no images found (the files' images lists are empty)", path)
    return records


def annotation_files(path: Path) -> list[Path]:
    """The COCO files an import reads: the file given; a folder's .json files; else, for a folder in COCO's own
    layout (annotations/instances_<split>.json beside images/<split>/ or <split>/), its annotations/ folder's
    instances_*.json files (or its COCO files, when none is named so: captions_* and person_keypoints_* are
    other tasks' files)."""
    path = Path(path)
    if not path.is_dir() or any(p.is_file() for p in path.glob("*.json")):
        return input_files(path, ".json")
    folder = path / ANNOTATIONS
    if folder.is_dir():
        files = sorted(p for p in folder.glob(f"{INSTANCES}*.json") if p.is_file())
        files = files or sorted(p for p in folder.glob("*.json") if p.is_file() and sign(p))
        if files:
            return files
    raise FormatError(f"no .json files in this folder, nor COCO files in an {ANNOTATIONS}/ folder in it (COCO's "
                      f"own layout: {ANNOTATIONS}/{INSTANCES}<split>.json)", path)


def split_of(file: Path) -> str:
    """The split COCO's own file name gives (instances_val2017.json: val2017); "" for another name."""
    return file.stem[len(INSTANCES):] if file.stem.startswith(INSTANCES) and len(file.stem) > len(INSTANCES) else ""


def picture_folders(file: Path, images_dir: Path | None) -> list[Path]:
    """Where a file's pictures are looked for, in order: --images, beside it, its images/ folder, and for
    COCO's own layout ../images/<split>/, ../<split>/ (val2017/) and ../images/."""
    folders = ([images_dir] if images_dir else []) + [file.parent, file.parent / "images"]
    split = split_of(file)
    if split:
        folders += [file.parent.parent / "images" / split, file.parent.parent / split]
    folders.append(file.parent.parent / "images")
    return list(dict.fromkeys(folders))


def layout(path: Path) -> str:
    """The import summary's words on which files were read, and where the pictures were looked for."""
    path = Path(path)
    base = path if path.is_dir() else path.parent
    parts = []
    for file in annotation_files(path):
        found = [f for f in picture_folders(file, None)[1:] if f.is_dir()]
        where = ", ".join(_relative(f, base) + "/" for f in found)
        parts.append(f"{_relative(file, base)}" + (f" (pictures looked for in {where} too)" if where else ""))
    own = any(file.parent.name == ANNOTATIONS and split_of(file) for file in annotation_files(path))
    return ("COCO's own layout: " if own else "COCO: ") + "; ".join(parts)


def _relative(target: Path, base: Path) -> str:
    try:
        return target.relative_to(base).as_posix() or "."
    except ValueError:
        return target.as_posix()


def folder_sign(folder: Path) -> str | None:
    """'coco' for a folder in COCO's own layout: no .json files of its own, COCO files in annotations/."""
    if any(folder.glob("*.json")) or not (folder / ANNOTATIONS).is_dir():
        return None
    try:
        files = annotation_files(folder)
    except FormatError:
        return None
    return SPEC.name if files and all(sign(f) for f in files[:3]) else None


def _id(obj: dict, key: str, where: Where, prefix: str) -> int | str:
    value = require(obj, key, (int, str), where, prefix)
    return value


def _read_file(file: Path, roots: list, images_dir: Path | None) -> list[EpisodeRecord]:
    where = Where(file)
    data = read_json(file)
    if not isinstance(data, dict):
        raise where.error(f"expected a COCO object (images, annotations, categories), got {got(data)}")
    images = require(data, "images", list, where)
    annotations = require(data, "annotations", list, where)
    names = {}
    for j, category in enumerate(require(data, "categories", list, where)):
        at = f"categories[{j}]."
        if not isinstance(category, dict):
            raise where.error(f"expected a category (an object with id and name), got {got(category)}", at[:-1])
        category_id = _id(category, "id", where, at)
        if category_id in names:
            raise where.error(f"category id {category_id!r} repeats", at + "id")
        names[category_id] = (require(category, "name", str, where, at), at + "name", len(names))
    by_image: dict = {}
    for i, image in enumerate(images):
        if not isinstance(image, dict):
            raise where.error(f"expected an image (an object with id and file_name), got {got(image)}", f"images[{i}]")
        image_id = _id(image, "id", where, f"images[{i}].")
        if image_id in by_image:
            raise where.error(f"image id {image_id!r} repeats", f"images[{i}].id")
        by_image[image_id] = []
    for k, annotation in enumerate(annotations):
        at = f"annotations[{k}]."
        if not isinstance(annotation, dict):
            raise where.error(f"expected an annotation (an object with image_id, category_id and bbox), got "
                              f"{got(annotation)}", at[:-1])
        image_id = _id(annotation, "image_id", where, at)
        if image_id not in by_image:
            raise where.error(f"no image has id {image_id!r}", at + "image_id")
        category_id = _id(annotation, "category_id", where, at)
        if category_id not in names:
            raise where.error(f"no category has id {category_id!r}", at + "category_id")
        by_image[image_id].append((at, annotation, names[category_id]))

    bases = picture_folders(file, images_dir)
    split = split_of_folder(split_of(file)) if file.parent.name == ANNOTATIONS else ""
    episodes: dict[str, EpisodeRecord] = {}
    order: dict[str, list] = {}
    for i, image in enumerate(images):
        at = f"images[{i}]."
        name = require(image, "file_name", str, where, at)
        posix = PureWindowsPath(name).as_posix()
        picture = find_inside(names_to_try(posix) + [PurePosixPath(posix).name], bases, where, at + "file_name")
        key, size = screen_key(picture, roots), image_size(picture)
        check_size((declared_side(image, "width", where, at), declared_side(image, "height", where, at)), size,
                   where, at + "width", key)
        boxes = [_box(annotation, ann_at, label, where, size) for ann_at, annotation, label in by_image[image["id"]]]
        step = StepRecord(image=picture, screen_source=key, boxes=boxes, field=at, image_field=at + "file_name")
        episode = optional(image, "episode", str, where, None, at)  # ScreenLab's export: the step of an episode
        index = optional(image, "step", int, where, len(order.get(episode, [])), at) if episode else 0
        record_key = episode or key
        if record_key not in episodes:
            episodes[record_key] = EpisodeRecord(
                key=record_key, where=where, split=split, goal=optional(image, "goal", str, where, "", at) if episode else "",
                scenario=optional(image, "scenario", str, where, "", at) if episode else "")
            order[record_key] = []
        if episode and any(index == n for n, _ in order[record_key]):
            raise where.error(f"episode {episode!r} has two images for step {index}", at + "step")
        order[record_key].append((index, step))
    for record_key, record in episodes.items():
        record.steps = [step for _, step in sorted(order[record_key], key=lambda pair: pair[0])]
    return list(episodes.values())


def _box(annotation: dict, at: str, category: tuple[str, str, int], where: Where, size) -> BoxRecord:
    label = tool_label(category[0], where, category[1])
    bbox = require(annotation, "bbox", list, where, at)
    numbers = [finite(v) for v in bbox]
    if len(bbox) != 4 or None in numbers:
        raise where.error(f"expected [x, y, width, height] (four numbers of pixels), got {shown(bbox)}", at + "bbox")
    x, y, w, h = numbers
    if w < 0 or h < 0:
        raise where.error(f"negative width or height in [x, y, width, height] = {shown(bbox)}", at + "bbox")
    box = (x, y, x + w, y + h)
    refuse_normalised(box, size, where, at + "bbox", "COCO")
    values = dict(optional(annotation, "attributes", dict, where, {}, at))
    rotation = values.pop("rotation", 0)
    angle = finite(rotation) if rotation is not None else 0.0
    if angle is None or abs((angle + 180) % 360 - 180) > 1e-6:
        raise where.error(f"a box rotated by {shown(rotation)} degrees: ScreenLab's boxes are axis-aligned, and "
                          "taking it as unrotated would move its corners; set its rotation to 0 in the tool that "
                          "wrote it, then export again", at + "attributes.rotation")
    if annotation.get("iscrowd") in (1, True):
        values["iscrowd"] = "1"
    fields, meta = box_parts(values, where, at + "attributes")
    return BoxRecord(label=label, box=box, field=at + "bbox", meta=meta, class_rank=category[2], **fields)


def sign(path: Path) -> str | None:
    """'coco' for a .json object whose first bytes open an `images` list of objects with a file_name."""
    if path.suffix.lower() != ".json":
        return None
    with open(path, "rb") as fh:
        head = fh.read(SIGN_BYTES).decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    return SPEC.name if head.startswith("{") and _IMAGES.search(head) and '"file_name"' in head else None


SPEC = FormatSpec(name="coco", description="COCO detection JSON (bbox = x, y, width, height in pixels)", read=read,
                  write=write, layout=layout)
