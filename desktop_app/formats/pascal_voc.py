"""Pascal VOC detection XML: one Annotations/<id>.xml per picture, the pictures in JPEGImages/.

Definition: the PASCAL VOC development kit's annotation files (host.robots.ox.ac.uk/pascal/VOC, VOC2012 devkit
doc, "Annotation"), as the tools write them today: wkentaro/labelme examples/bbox_detection/labelme2voc.py and
its data_dataset_voc/, and datumaro's voc format (plugins/data_formats/voc/, which CVAT's Pascal VOC import and
export use). A file is <annotation> holding <filename> (the picture, in JPEGImages/), <size> (width, height,
depth) and one <object> per box: <name> (its class), <bndbox> (xmin, ymin, xmax, ymax), and <pose>,
<truncated>, <occluded>, <difficult>; datumaro and CVAT add <attributes><attribute><name/><value/></attribute>
</attributes> for a box's other attributes. ImageSets/Main/<split>.txt lists the ids (file stems) of a split;
labelmap.txt (datumaro, CVAT: "name:color:parts:actions" a line) or class_names.txt (labelme) names the classes
in order.
Surprises: the devkit counted pixels from 1, with xmax the last pixel inside the box, but labelme writes its
own coordinates as they are (0-based, xmax = 500.0 on a 500-pixel-wide picture) and datumaro reads and writes
them as they are unless told "voc-one-based": ScreenLab does as labelme and datumaro (ADR 0049), so a box from
the devkit's own files lands at most one pixel right of and below where its pixels start. Coordinates may be
decimals (labelme: 107.36900369003689). An <object> may hold <part>s (a person's head, hands: boxes of their
own, VOC's "Layout" task).

Rules: each XML file is a screen (see labelling_tools for its key, taken under JPEGImages/); the picture is its
<filename> under --images, JPEGImages/ or the file's folder, else <id> with a picture's suffix. Its split is
the ImageSets/Main list naming its id ("default", datumaro's name for none, is no split). A box's <name> is its
class (or its role: gold, distracted, other); its attributes are its attributes, `role` its role (our export
writes it, for a box with a class); pose, truncated, occluded and difficult other than their defaults stay in
its meta and are written back. A <part> is a shape that is not the object's box: --shapes says (refused by
default, taken as a box of its own, or left out). Refused, naming the file, line and field: a root other than
<annotation>, a missing <name> or coordinate, xmax below xmin, a declared size that is not the picture's, a
box within 0-1 on a larger picture (normalised), a `rotation` attribute other than 0, a DOCTYPE or entities,
and an id ImageSets lists that has no annotation file. Files are read whole within the input budget
(xml_file.py: ADR 0039).
Export: Annotations/<id>.xml, JPEGImages/<original file name> (picture_names; one id per step, since a picture
pairs with one annotation file), ImageSets/Main/<split>.txt ("default" for the episodes without a split) and
labelmap.txt declaring the roles and the project's classes in order, the layout datumaro's and CVAT's Pascal
VOC import take; a classed box's role travels as its attribute `role` in <attributes>.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path, PurePosixPath, PureWindowsPath

from desktop_app.formats.images import path_order
from desktop_app.formats.labelling_tools import (
    box_parts,
    box_values,
    check_size,
    image_size,
    number_text,
    other_shape,
    refuse_normalised,
    screen_key,
    text_number,
    tool_label,
)
from desktop_app.formats.picture_names import OriginalNames, split_folder, split_of_folder, stem_of
from desktop_app.formats.records import (
    BoxRecord,
    EpisodeRecord,
    FormatError,
    StepRecord,
    Where,
    find_inside,
    is_within,
    names_to_try,
    read_text,
    shown,
)
from desktop_app.formats.spec import ExportContext, ExportReport, FormatSpec
from desktop_app.formats.writing import ImageWriter, atomic_output, inside
from desktop_app.formats.xml_file import Element, parse
from desktop_app.images import IMAGE_SUFFIXES
from desktop_app.store import label_set

NAME = "voc"
ANNOTATIONS_DIR = "Annotations"
IMAGES_DIR = "JPEGImages"
SETS_DIR = ("ImageSets", "Main")
LABELMAP = "labelmap.txt"  # datumaro's and CVAT's
CLASS_NAMES = "class_names.txt"  # labelme2voc's
# VOC's own fields of an object, with the value each has when the file says nothing
BUILTIN = {"pose": "Unspecified", "truncated": "0", "occluded": "0", "difficult": "0"}
SIGN_BYTES = 4096
_ROOT = re.compile(r"<annotation[\s>/]")
_REDRAW = "draw it as a box of its own in the tool that wrote it (or delete it), then export again"
_CLASS_LINE = re.compile(r"^\S+\s+(-1|0|1)$")  # a class's list: an id, then whether the class is in it
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def read(path: Path, options) -> list[EpisodeRecord]:
    path = Path(path)
    root, files = _files(path)
    splits = _splits(root)
    ranks = _class_ranks(root)
    annotations = root / ANNOTATIONS_DIR
    ids = {_item_id(file, annotations): file for file in files}
    for item, (_split, where) in splits.items():
        if item not in ids and path.is_dir():  # one file given alone is read without the rest of its dataset
            raise where.error(f"id {shown(item)} has no annotation file {ANNOTATIONS_DIR}/{item}.xml; remove the line "
                              "or add the file")
    records = []
    for item, file in ids.items():
        split = splits[item][0] if item in splits else ""
        records.append(_read_file(file, root, options.images_dir, options.shapes, split, ranks))
    return records


def _files(path: Path) -> tuple[Path, list[Path]]:
    """The dataset's root folder and the annotation files to read."""
    if path.is_file():
        if path.suffix.lower() != ".xml":
            raise FormatError("give the dataset's folder (with Annotations/ and JPEGImages/) or one of its .xml "
                              "files", path)
        root = path.parent.parent if path.parent.name == ANNOTATIONS_DIR else path.parent
        return root, [path]
    if not path.is_dir():
        raise FormatError("no such file or folder", path)
    if (path / ANNOTATIONS_DIR).is_dir():
        root, folder, deep = path, path / ANNOTATIONS_DIR, True
    elif path.name == ANNOTATIONS_DIR:
        root, folder, deep = path.parent, path, True
    else:
        root, folder, deep = path, path, False
    files = sorted((p for p in (folder.rglob("*.xml") if deep else folder.glob("*.xml")) if p.is_file()),
                   key=path_order(folder))
    outside = [f for f in files if not is_within(f, root)]
    if outside:
        raise FormatError(f"{outside[0]} is a link to a file outside this folder, which an import does not read; "
                          "copy the file into it", path)
    if not files:
        raise FormatError(f"no Pascal VOC .xml files here (looked in {ANNOTATIONS_DIR}/ and the folder itself)", path)
    return root, files


def _item_id(file: Path, annotations: Path) -> str:
    """A file's id as ImageSets names it: its path under Annotations/ without .xml (datumaro allows folders)."""
    try:
        return file.relative_to(annotations).with_suffix("").as_posix()
    except ValueError:
        return file.stem


def _splits(root: Path) -> dict[str, tuple[str, Where]]:
    """id -> (its split, where a list names it), from ImageSets/Main/<split>.txt. A class's list
    (aeroplane_train.txt beside train.txt, lines "2008_000008 -1") is not a split's."""
    folder = root.joinpath(*SETS_DIR)
    found: dict[str, tuple[str, Where]] = {}
    if not folder.is_dir():
        return found
    files = sorted(p for p in folder.glob("*.txt") if p.is_file())
    stems = {f.stem for f in files}
    for file in files:
        lines = [(n, line.strip()) for n, line in enumerate(read_text(file).split("\n"), start=1)]
        lines = [(n, line) for n, line in lines if line and not line.startswith("#")]
        if "_" in file.stem and file.stem.rsplit("_", 1)[1] in stems and \
                all(_CLASS_LINE.match(line) for _, line in lines):
            continue
        for number, item in lines:
            found.setdefault(item, (split_of_folder(file.stem), Where(file, number)))
    return found


def _class_ranks(root: Path) -> dict[str, int]:
    """The classes' order the dataset declares (labelmap.txt, else class_names.txt): an import adds the
    classes in it."""
    if (root / LABELMAP).is_file():
        names = [line.split(":")[0].strip() for line in read_text(root / LABELMAP).split("\n")
                 if line.strip() and not line.lstrip().startswith("#")]
    elif (root / CLASS_NAMES).is_file():
        names = [line.strip() for line in read_text(root / CLASS_NAMES).split("\n") if line.strip()]
    else:
        return {}
    ranks: dict[str, int] = {}
    for name in names:
        ranks.setdefault(name, len(ranks))
    return ranks


def _read_file(file: Path, root: Path, images_dir: Path | None, shapes_rule: str, split: str,
               ranks: dict[str, int]) -> EpisodeRecord:
    top = parse(file, "Pascal VOC")
    where = Where(file, top.line)
    if top.tag != "annotation":
        raise where.error(f"the root element is <{top.tag[:60]}>, not <annotation>: not a Pascal VOC annotation")
    named = top.find("filename")
    bases = ([images_dir] if images_dir else []) + [root / IMAGES_DIR, file.parent, file.parent.parent / IMAGES_DIR]
    if named is not None and named.text:
        posix = PureWindowsPath(named.text).as_posix()
        names = names_to_try(posix) + [PurePosixPath(posix).name]
        at = Where(file, named.line)
    else:  # datumaro finds the picture by the file's id when <filename> is left out
        names = [file.stem + suffix for suffix in IMAGE_SUFFIXES] + \
            [file.stem + suffix.upper() for suffix in IMAGE_SUFFIXES]
        at = where
    picture = find_inside(names, bases, at, "filename")
    key, size = screen_key(picture, [root / IMAGES_DIR, root, images_dir]), image_size(picture)
    declared = top.find("size")
    if declared is not None:
        sides = tuple(_side(declared, side, file) for side in ("width", "height"))
        check_size(sides, size, Where(file, declared.line), "size.width", key)
    boxes, skipped = [], []
    for index, element in enumerate(top.findall("object")):
        found, left_out = _object(element, index, file, size, shapes_rule, ranks)
        boxes += found
        skipped += left_out
    return EpisodeRecord(key=key, where=Where(file), split=split,
                         steps=[StepRecord(image=picture, screen_source=key, boxes=boxes, image_field="filename",
                                           skipped_shapes=skipped)])


def _side(size: Element, side: str, file: Path) -> int | None:
    element = size.find(side)
    if element is None or not element.text:
        return None
    value = text_number(element.text, Where(file, element.line), f"size.{side}")
    if not value.is_integer() or value < 0:
        raise Where(file, element.line).error(f"expected a whole number of pixels, got {shown(element.text)}",
                                              f"size.{side}")
    return int(value) or None  # 0: a tool that did not know the size (LabelImg writes 0 then): nothing to compare


def _corners(element: Element, file: Path, field: str) -> tuple[float, float, float, float]:
    box = element.find("bndbox")
    if box is None:
        raise Where(file, element.line).error("missing", f"{field}.bndbox")
    corners = []
    for name in ("xmin", "ymin", "xmax", "ymax"):
        value = box.find(name)
        if value is None:
            raise Where(file, box.line).error("missing", f"{field}.bndbox.{name}")
        corners.append(text_number(value.text, Where(file, value.line), f"{field}.bndbox.{name}"))
    x1, y1, x2, y2 = corners
    if x2 < x1 or y2 < y1:
        axis = ("x", x1, x2) if x2 < x1 else ("y", y1, y2)
        raise Where(file, box.line).error(f"{axis[0]}max {axis[2]:g} is less than {axis[0]}min {axis[1]:g}",
                                          f"{field}.bndbox")
    return x1, y1, x2, y2


def _name(element: Element, file: Path, field: str) -> str:
    name = element.find("name")
    if name is None:
        raise Where(file, element.line).error("missing", f"{field}.name")
    return tool_label(name.text, Where(file, name.line), f"{field}.name")


def _object(element: Element, index: int, file: Path, size, shapes_rule: str,
            ranks: dict[str, int]) -> tuple[list[BoxRecord], list[str]]:
    """The object's box (and its parts' boxes, with --shapes bbox), and the kinds of the shapes left out."""
    field = f"object[{index}]"
    where = Where(file, element.line)
    label = _name(element, file, field)
    box = _corners(element, file, field)
    refuse_normalised(box, size, where, f"{field}.bndbox", "Pascal VOC")
    values: dict[str, str] = {}
    attributes = element.find("attributes")
    for attribute in attributes.findall("attribute") if attributes is not None else []:
        name, value = attribute.find("name"), attribute.find("value")
        if name is None or not name.text:
            raise Where(file, attribute.line).error("an attribute without a name", f"{field}.attributes.attribute")
        values[name.text] = value.raw if value is not None else ""
    rotation = values.pop("rotation", None)
    if rotation is not None:
        angle = text_number(rotation, Where(file, attributes.line), f"{field}.attributes.rotation")
        if abs((angle + 180) % 360 - 180) > 1e-6:
            raise Where(file, attributes.line).error(
                f"a box rotated by {angle:g} degrees: ScreenLab's boxes are axis-aligned, and taking it as unrotated "
                "would move its corners; set its rotation to 0 in the tool that wrote it, then export again",
                f"{field}.attributes.rotation")
    fields, meta = box_parts(values, Where(file, attributes.line if attributes is not None else element.line),
                             f"{field}.attributes")
    kept = {}
    for name, default in BUILTIN.items():
        own = element.find(name)
        if own is not None and own.text and own.text != default:
            kept[name] = own.text
    if kept:
        meta["voc"] = kept
    boxes = [BoxRecord(label=label, box=box, field=f"{field}.bndbox", meta=meta, class_rank=ranks.get(label),
                       **fields)]
    skipped = []
    for n, part in enumerate(element.findall("part")):
        at = f"{field}.part[{n}]"
        part_name = _name(part, file, at)
        corners = None if shapes_rule == "skip" else _corners(part, file, at)
        extent = other_shape(f"part (name {shown(part_name)})", corners and [corners[:2], corners[2:]], shapes_rule,
                             Where(file, part.line), at, _REDRAW)
        if extent is None:
            skipped.append("part")
        else:
            boxes.append(BoxRecord(label=part_name, box=extent, field=f"{at}.bndbox", shape="part",
                                   class_rank=ranks.get(part_name)))
    return boxes, skipped


# --------------------------------------------------------------------------- export


def write(ctx: ExportContext) -> ExportReport:
    report = ExportReport(NAME, ctx.out, skipped_why="actions without a box (text-only or out of screen)")
    classes = list(label_set.export_names(ctx.session.get_bind() if ctx.session is not None else None))
    pictures = OriginalNames(share=False)  # one JPEGImages/ for every split: ids are unique across them
    lists: dict[str, list[str]] = {}
    with atomic_output(ctx.out) as tmp:
        images = ImageWriter(tmp, ctx.image_bytes)
        (tmp / ANNOTATIONS_DIR).mkdir()
        for bundle in ctx.bundles:
            report.episodes += 1
            folder = split_folder(bundle)
            key = bundle.episode.key
            for sb in bundle.steps:
                name = pictures.name("", bundle, sb)
                images.add(sb.screen, f"{IMAGES_DIR}/{name}")
                item = stem_of(name)
                lists.setdefault(folder, []).append(item)
                top = ET.Element("annotation")
                ET.SubElement(top, "folder").text = IMAGES_DIR
                ET.SubElement(top, "filename").text = _checked(name, key)
                ET.SubElement(ET.SubElement(top, "source"), "database").text = "ScreenLab"
                size = ET.SubElement(top, "size")
                for side, value in (("width", sb.screen.width), ("height", sb.screen.height), ("depth", 3)):
                    ET.SubElement(size, side).text = str(value)
                ET.SubElement(top, "segmented").text = "0"
                for box in sb.boxes:
                    if not box.has_box:
                        report.skipped += 1
                        continue
                    category = label_set.category_of(box.label, box.category)
                    if category not in classes:
                        classes.append(category)
                    _object_element(top, box, category, key)
                    report.annotations += 1
                ET.indent(top)
                target = inside(tmp, f"{ANNOTATIONS_DIR}/{item}.xml")
                target.write_text(ET.tostring(top, encoding="unicode") + "\n", encoding="utf-8", newline="\n")
        sets = tmp.joinpath(*SETS_DIR)
        sets.mkdir(parents=True)
        for folder, items in lists.items():
            (sets / f"{folder}.txt").write_text("".join(item + "\n" for item in items), encoding="utf-8",
                                                newline="\n")
        _labelmap(tmp, classes, report)
        report.images = images.count
        report.renamed = pictures.renamed
    return report


def _object_element(top: ET.Element, box, category: str, episode: str) -> None:
    kept = box.meta.get("voc") if isinstance(box.meta.get("voc"), dict) else {}
    element = ET.SubElement(top, "object")
    ET.SubElement(element, "name").text = _checked(category, episode)
    for name, default in BUILTIN.items():
        ET.SubElement(element, name).text = _checked(str(kept.get(name, default)), episode)
    corners = ET.SubElement(element, "bndbox")
    for name, value in (("xmin", box.x1), ("ymin", box.y1), ("xmax", box.x2), ("ymax", box.y2)):
        ET.SubElement(corners, name).text = number_text(value)
    values = box_values(box)
    if values:
        attributes = ET.SubElement(element, "attributes")  # as datumaro and CVAT write a box's attributes
        for name, text in sorted(values.items()):
            attribute = ET.SubElement(attributes, "attribute")
            ET.SubElement(attribute, "name").text = _checked(name, episode)
            ET.SubElement(attribute, "value").text = _checked(text, episode)


def _checked(text: str, episode: str) -> str:
    """Text for the XML, refused when XML 1.0 cannot hold it (control characters)."""
    if _CONTROL.search(text):
        raise FormatError(f"episode {episode}: {text[:60]!r} holds a control character, which an XML file cannot "
                          "hold; fix it in the project first")
    return text


def _labelmap(tmp: Path, classes: list[str], report: ExportReport) -> None:
    """labelmap.txt, datumaro's (and so CVAT's) list of a VOC dataset's labels: without it they read only VOC's
    20 classes. Its fields are separated by ':', so a class holding one cannot be listed."""
    colons = [name for name in classes if ":" in name]
    if colons:
        report.notes.append(f"labelmap.txt not written: the class {colons[0]!r} holds ':', which separates its "
                            "fields; datumaro and CVAT then need the labels declared by hand")
        return
    lines = ["# label:color_rgb:parts:actions", *(f"{name}:::" for name in classes)]
    (tmp / LABELMAP).write_text("\n".join(lines) + "\n", encoding="utf-8", newline="\n")


# --------------------------------------------------------------------------- detection


def sign(path: Path) -> str | None:
    """'voc' for an .xml file whose root element is <annotation> (first bytes only)."""
    if path.suffix.lower() != ".xml":
        return None
    with open(path, "rb") as fh:
        head = fh.read(SIGN_BYTES).decode("utf-8", errors="replace")
    return NAME if _ROOT.search(head) else None


def folder_sign(folder: Path) -> str | None:
    """'voc' for a folder with Annotations/ holding VOC files (or Annotations/ itself, or a folder of them)."""
    for base in (folder / ANNOTATIONS_DIR, folder):
        if not base.is_dir():
            continue
        files = sorted(p for p in base.glob("*.xml") if p.is_file())[:3]
        if files and all(sign(f) for f in files):
            return NAME
    return None


def layout(path: Path) -> str:
    """The import summary's words on which files were read."""
    root, files = _files(Path(path))
    sets = root.joinpath(*SETS_DIR)
    lists = sorted(p.stem for p in sets.glob("*.txt")) if sets.is_dir() else []
    where = f"{ANNOTATIONS_DIR}/" if (root / ANNOTATIONS_DIR).is_dir() else "the folder"
    return (f"Pascal VOC: {len(files)} annotation file{'s' if len(files) != 1 else ''} in {where}"
            + (f"; splits from ImageSets/Main: {', '.join(lists)}" if lists else ""))


SPEC = FormatSpec(
    name=NAME,
    description="Pascal VOC XML (Annotations/*.xml + JPEGImages/; ImageSets/Main splits; boxes with attributes)",
    read=read,
    write=write,
    options=("shapes",),
    layout=layout,
)
