"""CVAT for images 1.1: the XML a CVAT task (or project, or job) exports, with its pictures in images/.

Definition: github.com/cvat-ai/cvat, site/content/en/docs/manual/advanced/xml_format.md ("Version 1.1",
"Annotation") and cvat/apps/dataset_manager/formats/cvat.py. The file is <annotations> holding <version>1.1,
<meta> (the task, its labels and their attributes) and one <image id name width height [subset]> per picture,
whose children are shapes: <box label xtl ytl xbr ybr occluded z_order [source] [group_id] [rotation]>
with <attribute name="...">value</attribute> children, <tag label> (a label of the whole picture), and
polygons, polylines, points, cuboids, ellipses, masks and skeletons. Surprises: coordinates are pixels as
attribute TEXT (CVAT writes two decimals, "797.33"); `name` is the picture's path inside the task, which the
export puts under images/; boxes may carry `rotation` (degrees, about the centre; CVAT 2.x); "CVAT for video
1.1" is the same root with <track>s instead of <image>s.

Rules: an <image> is a screen (see labelling_tools for its key), looked up by its name under --images, the
file's images/ folder and the file's folder. A <box> is a box; one with a rotation other than 0 is refused
(taking it as unrotated would move its corners). Every other shape is what --shapes says
(labelling_tools.other_shape): refused by default, at its line (ScreenLab's boxes are axis-aligned rectangles),
taken as its bounding box (a mask's is the rectangle its run-length code covers, a skeleton's that of its
points), or left out. A box's <attribute>s are its
attributes; occluded, z_order, group_id and source stay in its meta and are written back on export. <tag>s
(labels of the whole picture) are kept in the step's meta. An image's `subset` is the episode's split. The
declared width and height must be the picture's. A file with entities or a DOCTYPE is refused: CVAT never
writes one, and an entity can expand to gigabytes. The file is parsed as it is read, 1 MB at a time: a text or
attribute longer than budget.MAX_TEXT characters is refused as soon as that many have come (ADR 0039), so a
200 MB attribute costs about 1 MB of memory, not the 1.3 GB that reading the whole file first did.
Export: annotations.xml (version 1.1, with <meta> declaring the project's labels and the attributes in use)
and images/, the layout CVAT's "Upload annotations" / "Import dataset" takes for this format.
"""

from __future__ import annotations

import codecs
import math
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath, PureWindowsPath
from xml.parsers import expat
from xml.sax.saxutils import escape, quoteattr

from desktop_app.formats.budget import MAX_TEXT, text_too_long
from desktop_app.formats.labelling_tools import (
    ScreenNames,
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
from desktop_app.formats.records import (
    BoxRecord,
    EpisodeRecord,
    FormatError,
    StepRecord,
    Where,
    find_inside,
    input_files,
    names_to_try,
    open_binary,
    shown,
)
from desktop_app.formats.spec import ExportContext, ExportReport, FormatSpec
from desktop_app.formats.writing import ImageWriter, atomic_output
from desktop_app.store import label_set

FILE_NAME = "annotations.xml"
MAX_DEPTH = 20  # CVAT nests 7 deep (meta/task/labels/label/attributes/attribute/name)
# shapes other than <box>, by what a user calls them: --shapes decides (labelling_tools.other_shape)
OTHER = {"polygon": "polygon", "polyline": "polyline", "points": "set of points", "cuboid": "cuboid",
         "ellipse": "ellipse", "mask": "mask", "skeleton": "skeleton"}
_REDRAW = "in CVAT, draw it as a box (or delete it), then export again"
_CUBOID = re.compile(r"^([xy])(tl|bl|tr|br)[12]$")  # a cuboid's eight corners: xtl1, ybr2, ...
KEPT = ("occluded", "z_order", "group_id", "source")  # box attributes kept in meta, written back on export
_DEFAULTS = {"occluded": "0", "z_order": "0", "source": "manual"}
SIGN_BYTES = 4096  # <version> comes right after <annotations>
READ_BYTES = 1 << 20  # fed to the parser at a time
_VERSION_1 = re.compile(r"<version>\s*1\.\d+\s*</version>")


class _Element:
    """What the reader needs of an element as expat reports it: its tag, attributes and text (kept only where
    it is read, and never past MAX_TEXT)."""

    __slots__ = ("tag", "attrib", "parts", "size")

    def __init__(self, tag: str, attrib: dict[str, str]):
        self.tag, self.attrib, self.parts, self.size = tag, attrib, [], 0

    def get(self, name: str, default=None):
        return self.attrib.get(name, default)

    @property
    def text(self) -> str:
        return "".join(self.parts)


class _Refused(Exception):
    """A FormatError raised inside an expat handler, carried out of the parser unchanged."""

    def __init__(self, error: FormatError):
        self.error = error


@dataclass
class _Shape:
    kind: str
    attrib: dict[str, str]
    line: int
    attributes: list[tuple[str | None, str, int]] = field(default_factory=list)
    parts: list[dict[str, str]] = field(default_factory=list)  # a skeleton's <points>, as their attributes


@dataclass
class _Image:
    attrib: dict[str, str]
    line: int
    shapes: list[_Shape] = field(default_factory=list)


def read(path: Path, options) -> list[EpisodeRecord]:
    path = Path(path)
    root = path if path.is_dir() else path.parent
    files = [path / FILE_NAME] if path.is_dir() and (path / FILE_NAME).is_file() else input_files(path, ".xml")
    records = []
    for file in files:
        records += _Reader(file, root, options.images_dir, options.shapes).read()
    if not records:
        raise FormatError("no <image> elements found: nothing to import", path)
    return records


class _Reader:
    """Walks one file's elements as they are parsed, line by line, so every message names its line."""

    def __init__(self, file: Path, root: Path, images_dir: Path | None, shapes_rule: str = "refuse"):
        self.file, self.root, self.images_dir, self.shapes_rule = file, root, images_dir, shapes_rule
        self.depth = 0
        self.image: _Image | None = None
        self.shape: _Shape | None = None
        self.records: list[EpisodeRecord] = []
        # the labels <meta> declares, in its order: an import adds the classes in the file's order
        self.label_order: dict[str, int] = {}

    def read(self) -> list[EpisodeRecord]:
        parser = expat.ParserCreate()
        self.parser, self.open = parser, []
        parser.StartElementHandler = self._on_start
        parser.EndElementHandler = self._on_end
        parser.CharacterDataHandler = self._on_text
        parser.StartDoctypeDeclHandler = self._on_doctype
        parser.EntityDeclHandler = self._on_doctype
        parser.CommentHandler = parser.ProcessingInstructionHandler = self._on_other
        parser.buffer_text = True  # text comes in pieces of at most parser.buffer_size characters
        self.events = quiet = 0
        try:
            # fed as text (decoded as UTF-8 here), so an encoding the declaration names is not looked up
            for text in self._texts():
                self.events = 0
                parser.Parse(text, False)
                # expat holds a tag, a comment or an attribute's value whole until it ends: one going on for
                # more than MAX_TEXT characters with no event is refused before it is held any longer
                quiet = quiet + len(text) if self.events == 0 else 0
                if quiet > MAX_TEXT:
                    raise FormatError(f"a tag or comment goes on for more than {MAX_TEXT:,} characters; the limit "
                                      f"for a text or attribute is {MAX_TEXT:,}", self.file,
                                      parser.CurrentLineNumber)
            parser.Parse("", True)
        except _Refused as refused:
            raise refused.error from None
        except expat.ExpatError as exc:
            reason = expat.ErrorString(exc.code)
            raise FormatError(f"not well-formed XML: {reason} at column {exc.offset + 1}", self.file,
                              exc.lineno) from None
        return self.records

    def _texts(self):
        """The file as text, READ_BYTES at a time; invalid UTF-8 named by line and byte as read_text does."""
        utf8 = codecs.getincrementaldecoder("utf-8")()
        done = lines = 0
        line_start = 0  # where the current line starts in the file, in bytes
        with open_binary(self.file) as fh:
            first = True
            while True:
                try:
                    data = fh.read(READ_BYTES)
                except OSError as exc:
                    raise FormatError(f"cannot read the file ({exc.strerror or exc})", self.file) from None
                pending = len(utf8.getstate()[0])
                try:
                    text = utf8.decode(data, not data)
                except UnicodeDecodeError as exc:
                    at = max(exc.start - pending, 0)
                    before = data[:at]
                    newline = before.rfind(b"\n")
                    start = done + newline + 1 if newline >= 0 else line_start
                    column, line = done + at - start + 1, lines + before.count(b"\n") + 1
                    raise FormatError(f"not valid UTF-8 (byte {column} of the line); save the file as UTF-8",
                                      self.file, line) from None
                newline = data.rfind(b"\n")
                if newline >= 0:
                    lines += data.count(b"\n")
                    line_start = done + newline + 1
                done += len(data)
                if first:
                    text, first = text.removeprefix("\ufeff"), False
                if text:
                    yield text
                if not data:
                    return

    # ---- expat's handlers: each element checked as it starts and ends, its text as it comes
    def _refuse(self, message: str, field: str | None = None):
        raise _Refused(FormatError(message, self.file, self.parser.CurrentLineNumber, field))

    def _on_other(self, *_args) -> None:
        self.events += 1

    def _on_doctype(self, *_args) -> None:
        raise _Refused(FormatError("the file declares a DOCTYPE or entities, which CVAT never writes (an entity "
                                   "can expand to gigabytes); export the annotations from CVAT again", self.file))

    def _on_start(self, tag: str, attrib: dict[str, str]) -> None:
        self.events += 1
        for name, value in attrib.items():
            problem = text_too_long(len(value), f"attribute {shown(name)} of <{shown(tag)}>")
            if problem:
                self._refuse(problem, f"{tag}.{name}")
        elem = _Element(tag, attrib)
        self.open.append(elem)
        self.depth += 1
        try:
            self._start(elem, self.parser.CurrentLineNumber)
        except FormatError as exc:
            raise _Refused(exc) from None

    def _on_text(self, text: str) -> None:
        self.events += 1
        # the texts read: <version>'s, an <attribute>'s, a declared label's <name> (meta/task/labels/label/name)
        if self.depth not in (2, 4, 6) or not self.open:
            return  # (the white space between elements elsewhere adds up in a large file, and is not kept)
        if self.depth == 6 and (self.open[-1].tag != "name" or len(self.open) < 3 or self.open[-2].tag != "label"):
            return
        elem = self.open[-1]
        elem.size += len(text)
        if elem.size > MAX_TEXT:
            self._refuse(self._too_long(elem), self._field(elem))
        elem.parts.append(text)

    def _too_long(self, elem: _Element) -> str:
        what = f"the text of <{shown(elem.tag)}>"
        if elem.tag == "attribute" and self.shape is not None:
            owner = f"image {shown(self.image.attrib.get('name'))}" if self.image is not None else "an image"
            what = f"attribute {shown(elem.get('name'))} of a {self.shape.kind} of {owner}"
        return f"{what} is more than {MAX_TEXT:,} characters; the limit is {MAX_TEXT:,}"

    def _field(self, elem: _Element) -> str:
        if elem.tag == "attribute" and self.shape is not None:
            return f"{self.shape.kind}.attribute"
        return elem.tag

    def _on_end(self, _tag: str) -> None:
        self.events += 1
        elem = self.open.pop()
        try:
            self._end(elem, self.parser.CurrentLineNumber)
        except FormatError as exc:
            raise _Refused(exc) from None
        self.depth -= 1

    def _where(self, line: int) -> Where:
        return Where(self.file, line)

    def _start(self, elem, line: int) -> None:
        tag, where = elem.tag, self._where(line)
        if self.depth > MAX_DEPTH:
            raise where.error(f"elements nested more than {MAX_DEPTH} deep; CVAT nests 7")
        if self.depth == 1:
            if tag != "annotations":
                raise where.error(f"the root element is <{shown(tag)}>, not <annotations>: not a CVAT XML file")
        elif self.depth == 2:
            if tag == "track":
                raise where.error("a <track>: this is CVAT for video 1.1; export the task as 'CVAT for images "
                                  "1.1' (every frame an <image>), then import again", "track")
            if tag == "image":
                self.image = _Image(dict(elem.attrib), line)
        elif self.depth == 3 and self.image is not None:
            if tag in ("box", "tag"):
                self.shape = _Shape(tag, dict(elem.attrib), line)
            elif tag in OTHER:
                if self.shapes_rule == "refuse":  # said at once, at its line, naming its label
                    other_shape(f"{OTHER[tag]} (label {shown(elem.get('label'))})", None, "refuse", where, tag,
                                _REDRAW)
                self.shape = _Shape(tag, dict(elem.attrib), line)
            else:
                raise where.error(f"unexpected <{shown(tag)}> in an <image>; CVAT for images 1.1 holds boxes, "
                                  "tags and other shapes there", tag)
        elif self.depth == 4 and self.shape is not None and tag != "attribute" and \
                not (self.shape.kind == "skeleton" and tag == "points"):
            raise where.error(f"unexpected <{shown(tag)}> in a <{self.shape.kind}>; it holds <attribute>s",
                              f"{self.shape.kind}.{tag}")

    def _end(self, elem, line: int) -> None:
        tag = elem.tag
        if self.depth == 2 and tag == "version":
            version = (elem.text or "").strip()
            if version.split(".")[0] != "1":
                raise self._where(line).error(f"version {shown(version)}; this reads CVAT for images 1.1",
                                              "version")
        elif self.depth == 4 and self.shape is not None and tag == "points":  # a skeleton's
            self.shape.parts.append(dict(elem.attrib))
        elif self.depth == 4 and self.shape is not None:
            self.shape.attributes.append((elem.get("name"), elem.text or "", line))
        elif self.depth == 3 and self.shape is not None:
            self.image.shapes.append(self.shape)
            self.shape = None
        elif self.depth == 2 and tag == "image":
            self.records.append(self._record(self.image))
            self.image = None
        elif self.depth == 6 and tag == "name" and self.open[-1].tag == "label" and self.open[-2].tag == "labels":
            self.label_order.setdefault(elem.text.strip(), len(self.label_order))

    def _record(self, image: _Image) -> EpisodeRecord:
        where, attrib = self._where(image.line), image.attrib
        name = attrib.get("name")
        if not name or not name.strip():
            raise where.error("missing: the picture's path", "image.name")
        declared = tuple(self._side(attrib, side, where) for side in ("width", "height"))
        posix = PureWindowsPath(name).as_posix()
        bases = ([self.images_dir] if self.images_dir else []) + [self.file.parent / "images", self.file.parent]
        picture = find_inside(names_to_try(posix) + [PurePosixPath(posix).name], bases, where, "image.name")
        key, size = screen_key(picture, [self.root, self.images_dir]), image_size(picture)
        check_size(declared, size, where, "image.width", key)
        boxes, tags, skipped = [], [], []
        for shape in image.shapes:
            if shape.kind == "box":
                boxes.append(self._box(shape, len(boxes), size))
            elif shape.kind == "tag":
                tags.append(self._tag(shape))
            else:
                box = self._other(shape, len(boxes), size)
                if box is None:
                    skipped.append(OTHER[shape.kind])
                else:
                    boxes.append(box)
        return EpisodeRecord(
            key=key, where=where, split=attrib.get("subset", ""),
            steps=[StepRecord(image=picture, screen_source=key, boxes=boxes, image_field="image.name",
                              meta={"cvat": {"tags": tags}} if tags else {}, skipped_shapes=skipped)],
        )

    @staticmethod
    def _side(attrib: dict, side: str, where: Where) -> int | None:
        if side not in attrib:
            return None
        value = text_number(attrib[side], where, f"image.{side}")
        if not value.is_integer() or value <= 0:
            raise where.error(f"expected a whole number of pixels, got {shown(attrib[side])}", f"image.{side}")
        return int(value)

    def _values(self, shape: _Shape) -> dict[str, str]:
        values = {}
        for name, text, line in shape.attributes:
            if name is None:
                raise self._where(line).error("an <attribute> without a name", f"{shape.kind}.attribute")
            values[name] = text
        return values

    def _box(self, shape: _Shape, index: int, size) -> BoxRecord:
        where, attrib = self._where(shape.line), shape.attrib
        if "label" not in attrib:
            raise where.error("missing", "box.label")
        label = tool_label(attrib["label"], where, "box.label")
        corners = []
        for name in ("xtl", "ytl", "xbr", "ybr"):
            if name not in attrib:
                raise where.error("missing", f"box.{name}")
            corners.append(text_number(attrib[name], where, f"box.{name}"))
        box = tuple(corners)
        if "rotation" in attrib:
            angle = text_number(attrib["rotation"], where, "box.rotation")
            if abs((angle + 180) % 360 - 180) > 1e-6:
                raise where.error(f"a box rotated by {angle:g} degrees: ScreenLab's boxes are axis-aligned, and taking "
                                  "it as unrotated would move its corners; in CVAT, set its rotation to 0 (or draw "
                                  "it again), then export again", "box.rotation")
        refuse_normalised(box, size, where, "box", "CVAT")
        fields, meta = box_parts(self._values(shape), where, "box.attribute")
        kept = {k: attrib[k] for k in KEPT if k in attrib and attrib[k] != _DEFAULTS.get(k)}
        if kept:
            meta["cvat"] = kept
        return BoxRecord(label=label, box=box, field=f"box[{index}]", meta=meta, class_rank=self.label_order.get(label),
                         **fields)

    def _other(self, shape: _Shape, index: int, size) -> BoxRecord | None:
        """A shape other than a box as --shapes says: its bounding box, or None (left out)."""
        where, attrib, kind = self._where(shape.line), shape.attrib, shape.kind
        corners = None if self.shapes_rule == "skip" else self._extent(shape, where)
        box = other_shape(OTHER[kind], corners, self.shapes_rule, where, kind, _REDRAW)
        if box is None:
            return None
        if "label" not in attrib:
            raise where.error("missing", f"{kind}.label")
        label = tool_label(attrib["label"], where, f"{kind}.label")
        refuse_normalised(box, size, where, kind, "CVAT")
        fields, meta = box_parts(self._values(shape), where, f"{kind}.attribute")
        kept = {k: attrib[k] for k in KEPT if k in attrib and attrib[k] != _DEFAULTS.get(k)}
        if kept:
            meta["cvat"] = kept
        return BoxRecord(label=label, box=box, field=f"{kind}[{index}]", meta=meta, shape=OTHER[kind],
                         class_rank=self.label_order.get(label), **fields)

    def _extent(self, shape: _Shape, where: Where) -> list[tuple[float, float]]:
        """Points a shape's bounding box holds, from the attributes CVAT writes for it (xml_format.md): a
        polygon's, polyline's or points' `points` "x,y;x,y"; an ellipse's centre and radii (turned by its
        rotation); a mask's left, top, width and height (the pixels its run-length code covers); a cuboid's
        eight corners; a skeleton's points that are not marked outside."""
        kind, attrib = shape.kind, shape.attrib

        def number(name: str, holder: dict = attrib) -> float:
            if name not in holder:
                raise where.error("missing", f"{kind}.{name}")
            return text_number(holder[name], where, f"{kind}.{name}")

        def points(holder: dict) -> list[tuple[float, float]]:
            if "points" not in holder:
                raise where.error("missing", f"{kind}.points")
            pairs = []
            for pair in holder["points"].split(";"):
                xy = pair.split(",")
                if len(xy) != 2:
                    raise where.error(f"expected points as x,y;x,y..., got {shown(holder['points'])}",
                                      f"{kind}.points")
                pairs.append((text_number(xy[0], where, f"{kind}.points"), text_number(xy[1], where,
                                                                                      f"{kind}.points")))
            return pairs

        if kind in ("polygon", "polyline", "points"):
            return points(attrib)
        if kind == "ellipse":
            cx, cy, rx, ry = (number(n) for n in ("cx", "cy", "rx", "ry"))
            turn = math.radians(number("rotation") if "rotation" in attrib else 0.0)
            half_w, half_h = math.hypot(rx * math.cos(turn), ry * math.sin(turn)), \
                math.hypot(rx * math.sin(turn), ry * math.cos(turn))
            return [(cx - half_w, cy - half_h), (cx + half_w, cy + half_h)]
        if kind == "mask":
            left, top, width, height = (number(n) for n in ("left", "top", "width", "height"))
            return [(left, top), (left + width, top + height)]
        if kind == "cuboid":
            xs = [number(n) for n in attrib if (m := _CUBOID.match(n)) and m.group(1) == "x"]
            ys = [number(n) for n in attrib if (m := _CUBOID.match(n)) and m.group(1) == "y"]
            return list(zip(xs, ys, strict=False)) if xs and len(xs) == len(ys) else []
        inside = [part for part in shape.parts if part.get("outside", "0") != "1" and "points" in part]
        return [p for part in inside for p in points(part)]  # a skeleton

    def _tag(self, shape: _Shape) -> dict:
        if "label" not in shape.attrib:
            raise self._where(shape.line).error("missing", "tag.label")
        tag = {"label": shape.attrib["label"], "attributes": self._values(shape)}
        tag.update({k: shape.attrib[k] for k in ("source", "group_id") if k in shape.attrib})
        return tag


def write(ctx: ExportContext) -> ExportReport:
    report = ExportReport("cvat-images", ctx.out, skipped_why="actions without a box (text-only or out of screen)")
    labels = label_set.export_names(ctx.session.get_bind() if ctx.session is not None else None)
    attributes: dict[str, dict[str, None]] = {label: {} for label in labels}
    names = ScreenNames()
    body: list[str] = []
    count = 0
    with atomic_output(ctx.out) as tmp:
        images = ImageWriter(tmp, ctx.image_bytes)
        for bundle in ctx.bundles:
            report.episodes += 1
            key = bundle.episode.key
            for sb in bundle.steps:
                name = names.name(bundle, sb)
                images.add(sb.screen, f"images/{name}")
                subset = f" subset={quoteattr(_text(bundle.episode.split, key))}" if bundle.episode.split else ""
                body.append(f'  <image id="{count}" name={quoteattr(_text(name, key))} width="{sb.screen.width}" '
                            f'height="{sb.screen.height}"{subset}>')
                count += 1
                for box in sb.boxes:
                    if not box.has_box:
                        report.skipped += 1
                        continue
                    body += _box_lines(box, attributes.setdefault(label_set.category_of(box.label, box.category), {}), key)
                    report.annotations += 1
                kept = sb.step.meta.get("cvat")
                body += _tag_lines(kept.get("tags", []) if isinstance(kept, dict) else [], key)
                body.append("  </image>")
        (tmp / FILE_NAME).write_text(_document(body, attributes, count), encoding="utf-8")
        report.images = images.count
    return report


def _text(value: str, episode: str) -> str:
    """Text for the XML, refused when XML 1.0 cannot hold it (control characters)."""
    if any(ord(c) < 32 and c not in "\t\n\r" for c in value) or "\ufffe" in value or "\uffff" in value:
        raise FormatError(f"episode {episode}: {value[:60]!r} holds a control character, which an XML file cannot "
                          "hold; fix it in the project first")
    return value


def _box_lines(box, declared: dict[str, None], episode: str) -> list[str]:
    kept = box.meta.get("cvat") if isinstance(box.meta.get("cvat"), dict) else {}
    attrib = {"label": label_set.category_of(box.label, box.category), "source": kept.get("source", "manual"), "occluded": kept.get("occluded", "0"),
              "xtl": number_text(box.x1), "ytl": number_text(box.y1), "xbr": number_text(box.x2),
              "ybr": number_text(box.y2), "z_order": kept.get("z_order", "0")}
    if "group_id" in kept:
        attrib["group_id"] = kept["group_id"]
    head = " ".join(f"{k}={quoteattr(_text(str(v), episode))}" for k, v in attrib.items())
    lines = [f"    <box {head}>"]
    for name, text in sorted(box_values(box).items()):
        declared[name] = None
        lines.append(f"      <attribute name={quoteattr(_text(name, episode))}>{escape(_text(text, episode))}</attribute>")
    lines.append("    </box>")
    return lines


def _tag_lines(tags: list, episode: str) -> list[str]:
    lines = []
    for tag in tags:
        if not isinstance(tag, dict) or not isinstance(tag.get("label"), str):
            continue
        extra = "".join(f" {k}={quoteattr(_text(str(tag[k]), episode))}" for k in ("source", "group_id") if k in tag)
        lines.append(f"    <tag label={quoteattr(_text(tag['label'], episode))}{extra}>")
        for name, text in (tag.get("attributes") or {}).items():
            lines.append(f"      <attribute name={quoteattr(_text(str(name), episode))}>"
                         f"{escape(_text(str(text), episode))}</attribute>")
        lines.append("    </tag>")
    return lines


def _document(body: list[str], attributes: dict[str, dict[str, None]], count: int) -> str:
    now = datetime.now(UTC).isoformat(sep=" ")
    labels = []
    for label, names in attributes.items():
        labels += ["        <label>", f"          <name>{escape(label)}</name>", "          <type>any</type>",
                   "          <attributes>"]
        for name in names:
            labels += ["            <attribute>", f"              <name>{escape(name)}</name>",
                       "              <mutable>False</mutable>", "              <input_type>text</input_type>",
                       "              <default_value></default_value>", "              <values></values>",
                       "            </attribute>"]
        labels += ["          </attributes>", "        </label>"]
    head = ['<?xml version="1.0" encoding="utf-8"?>', "<annotations>", "  <version>1.1</version>", "  <meta>",
            "    <task>", "      <name>ScreenLab export</name>", f"      <size>{count}</size>",
            "      <mode>annotation</mode>", "      <overlap>0</overlap>", "      <bugtracker></bugtracker>",
            "      <flipped>False</flipped>", f"      <created>{now}</created>", f"      <updated>{now}</updated>",
            "      <labels>", *labels, "      </labels>", "    </task>", f"    <dumped>{now}</dumped>", "  </meta>"]
    return "\n".join([*head, *body, "</annotations>"]) + "\n"


def sign(path: Path) -> str | None:
    """'cvat-images' for an .xml file that opens with <annotations> and a 1.x <version> (first bytes only)."""
    if path.suffix.lower() != ".xml":
        return None
    with open(path, "rb") as fh:
        head = fh.read(SIGN_BYTES).decode("utf-8", errors="replace")
    return SPEC.name if "<annotations" in head and _VERSION_1.search(head) else None


def folder_sign(folder: Path) -> str | None:
    """'cvat-images' for a folder holding annotations.xml, or .xml files of any name (a task exported as
    train.xml) that are CVAT's by their content."""
    if (folder / FILE_NAME).is_file():
        return sign(folder / FILE_NAME)
    files = sorted(p for p in folder.glob("*.xml") if p.is_file())[:3]
    return SPEC.name if files and all(sign(f) for f in files) else None


def layout(path: Path) -> str:
    """The import summary's words on which files were read."""
    path = Path(path)
    files = [path / FILE_NAME] if path.is_dir() and (path / FILE_NAME).is_file() else input_files(path, ".xml")
    return "CVAT for images 1.1: " + ", ".join(f.name for f in files)


SPEC = FormatSpec(
    name="cvat-images",
    description="CVAT for images 1.1 XML (boxes with attributes; pictures in images/)",
    read=read,
    write=write,
    options=("shapes",),
    layout=layout,
)
