"""What the labelling tools' formats share (LabelMe, Label Studio, CVAT for images, YOLO, COCO).

Each of them holds pictures with rectangles on them. ScreenLab reads a picture as a screen (a one-step
episode) and a rectangle as a box, by the same rules in every one of them:
  - a screen's key is its picture's path under the folder imported, as the `images` format keys a screen,
    with a leading images/ folder left out (the folder these tools' exports keep pictures in), so that an
    export imported again gives the same keys;
  - labels are compared without case or surrounding spaces: the tools keep "Cat", ScreenLab's labels are
    lowercase;
  - a box's free key-values become its attributes (store/attributes.py); the names element_text,
    action_type and type_text carry ScreenLab's own fields through formats that have only key-values;
  - a picture's size is read from its header here: a reader needs it to turn fractions into pixels, and a
    size the file declares that is not the picture's means its boxes were drawn on another picture;
  - a box whose four coordinates all lie within 0-1 on a picture larger than that is a normalised box in
    a pixel format: refused, since taken as pixels it would sit in the picture's top-left pixel;
  - a shape that is not a rectangle (a polygon, circle, line, point...) is what ImportOptions.shapes says
    (--shapes): refused by default, naming the option, since real exports mix shape types; "bbox" takes it as
    its bounding box, "skip" leaves it out; the import's summary counts each kind (docs/decisions/0045).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from desktop_app.formats.box_layout import image_size  # noqa: F401  (the tools' readers take it from here)
from desktop_app.formats.images import shown_name
from desktop_app.formats.records import Where, finite, got, shown
from desktop_app.store.attributes import attributes_of, with_attributes
from desktop_app.store.models import ACTION_TYPES, BOX_SOURCES, LABELS

IMAGES_DIR = "images"
TEXT_FIELDS = ("element_text", "type_text")  # ScreenLab's own box fields that travel as key-values
# the attribute carrying a classed box's role (gold, distracted) through a tool's file: its label there is the
# class; "other" is what a class alone reads back as, so it is left out (ADR 0047)
ROLE = "role"
NORMALISED_SIDE = 8  # a picture wider and taller than this cannot hold a real box inside its first pixel
SHAPE_CHOICES = ("refuse", "bbox", "skip")  # ImportOptions.shapes, --shapes
SHAPES_HELP = {"refuse": "refuse the file (default)", "bbox": "take each as its bounding box",
               "skip": "leave them out"}
_PLURALS = {"set of points": "sets of points"}
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d{1,4})?$")  # no nan, inf, 1_000 or hex


def screen_key(path: Path, roots: list[Path | None]) -> str:
    """The key of the screen a picture makes: its path under the first root holding it (images/ left out),
    else its file name."""
    path = Path(os.path.normpath(path))
    for root in roots:
        if root is None:
            continue
        try:
            parts = path.relative_to(os.path.normpath(root)).parts
        except ValueError:
            continue
        if len(parts) > 1 and parts[0] == IMAGES_DIR:
            parts = parts[1:]
        return shown_name("/".join(parts))
    return shown_name(path.name)


def unique_keys(records: list, ident) -> None:
    """Two records of one import naming the same picture (Label Studio lets a picture be two tasks) get
    "#<ident>" after the key, ident(record) being what the file calls them; their keys stay apart."""
    seen: dict[str, int] = {}
    for record in records:
        seen[record.key] = seen.get(record.key, 0) + 1
    for record in records:
        if seen[record.key] > 1:
            record.key = f"{record.key}#{ident(record)}"


def tool_label(value: Any, where: Where, field: str) -> str:
    """A tool's label as the file spells it, without surrounding spaces: a role's name (any case) gives the
    box that role, any other name is its class, case kept (ingest.role_and_class)."""
    if not isinstance(value, str):
        raise where.error(f"expected a label name (text), got {got(value)}", field)
    label = value.strip()
    if not label:
        raise where.error("the label is empty", field)
    return label


def attribute_text(value: Any, where: Where, field: str) -> str | None:
    """A key-value's value as the text an attribute holds; None for null."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    number = finite(value)
    if number is not None:
        return number_text(number)
    raise where.error(f"expected text, a number or true/false, got {shown(value)}", field)


def box_parts(values: Mapping[str, Any], where: Where, field: str) -> tuple[dict[str, str], dict]:
    """A box's key-values as (BoxRecord fields, box meta holding the rest as attributes). A name of
    ScreenLab's own fields fills that field; action_type and source only with a value ScreenLab knows
    (otherwise they stay attributes, as another tool meant them)."""
    fields: dict[str, str] = {}
    attributes: dict[str, str] = {}
    for name, value in values.items():
        text = attribute_text(value, where, f"{field}.{name}" if field else str(name))
        if text is None:
            continue
        if name in TEXT_FIELDS or (name == "action_type" and text in ACTION_TYPES) or \
                (name == "source" and text in BOX_SOURCES) or (name == ROLE and text in LABELS):
            fields[name] = text
        else:
            attributes[str(name)] = text
    try:
        meta = with_attributes({}, attributes)
    except ValueError as exc:
        raise where.error(str(exc), field or None) from None
    return fields, meta


def box_values(box) -> dict[str, str]:
    """What an export writes as a box's key-values: its attributes, and its element text, typed text and
    action when they say something."""
    values = dict(attributes_of(box.meta))
    for name in TEXT_FIELDS:
        if getattr(box, name):
            values[name] = getattr(box, name)
    if box.action_type != "click":
        values["action_type"] = box.action_type
    values.update(role_attribute(box))
    return values


def role_attribute(box) -> dict[str, str]:
    """{"role": gold or distracted} for a box with a class, which its file names by the class; else nothing."""
    return {ROLE: box.label} if box.category and box.label != "other" else {}


def check_size(declared: tuple[Any, Any], actual: tuple[int, int] | None, where: Where, field: str,
               name: str) -> None:
    """Refuse a size the file declares that is not the picture's (either side may be left out: None)."""
    if actual is None:
        return
    width, height = declared
    if (width is not None and width != actual[0]) or (height is not None and height != actual[1]):
        said = f"{width if width is not None else '?'}x{height if height is not None else '?'}"
        raise where.error(f"the picture {name} is {actual[0]}x{actual[1]} pixels, but the file says {said}: its "
                          "boxes were drawn on a picture of another size; give the picture they were drawn on "
                          "(--images names its folder)", field)


def refuse_normalised(box: tuple[float, float, float, float], size: tuple[int, int] | None, where: Where,
                      field: str, fmt: str) -> None:
    """A pixel format's box whose coordinates all lie within 0-1 on a larger picture was normalised."""
    if size is None or min(size) <= NORMALISED_SIDE or not all(0 <= v <= 1 for v in box):
        return
    raise where.error(
        f"box [{', '.join(f'{v:g}' for v in box)}] lies within the first pixel of the {size[0]}x{size[1]} picture: "
        f"its coordinates look normalised (0-1), but {fmt} gives pixels; multiply x by {size[0]} and y by "
        f"{size[1]} (or export pixels from the tool that wrote it)", field)


def pixels(value: float) -> float:
    """A coordinate computed from fractions, without the float noise (616.6000000000001) the product leaves."""
    return round(value, 6) + 0.0


def number_text(value: float, places: int = 6) -> str:
    """A number as a text file writes it: 12, 12.5, 0.481719 (never 1e-07, never -0)."""
    text = f"{value:.{places}f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def text_number(text: str | None, where: Where, field: str) -> float:
    """A number written as text (an XML attribute, a word of a line): finite, in plain decimal notation."""
    value = (text or "").strip()
    if not _NUMBER.match(value):
        raise where.error(f"expected a number, got {shown(text)}", field)
    number = float(value)
    if number != number or number in (float("inf"), float("-inf")):
        raise where.error(f"{shown(text)} is not a finite number", field)
    return number


def safe_relative(name: str) -> bool:
    """Whether a name can be used as it is as a relative path inside an export."""
    parts = name.split("/")
    return (0 < len(name) <= 200 and not name.startswith("/") and all(0 < len(p) <= 100 for p in parts)
            and not any(p in (".", "..") for p in parts) and not re.search(r"[\\:\0*?\"<>|]", name)
            and not any(ord(c) < 32 for c in name))


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class ScreenNames:
    """File names of the pictures an export writes, one per step: the episode's key when it already is a
    picture's path (a screen imported from a folder or a tool), else the key made safe; never two that a
    tool would confuse (the same path without its extension, in any case)."""

    def __init__(self):
        self._stems: set[str] = set()

    def name(self, bundle, step_bundle) -> str:
        key, ext = bundle.episode.key, step_bundle.screen.ext
        suffix = PurePosixPath(key).suffix.lower().lstrip(".")
        if len(bundle.steps) == 1 and safe_relative(key) and (suffix == ext or {suffix, ext} == {"jpg", "jpeg"}):
            stem, ext = key[: -len(suffix) - 1], key[-len(suffix):]
        else:
            stem = _UNSAFE.sub("_", key).strip("._")[:100] or "screen"
            if len(bundle.steps) > 1:
                stem += f"_step{step_bundle.step.index}"
        candidate, n = stem, 1
        while candidate.casefold() in self._stems:
            n += 1
            candidate = f"{stem}_{n}"
        self._stems.add(candidate.casefold())
        return f"{candidate}.{ext}"


def declared_side(obj: Mapping, key: str, where: Where, prefix: str = "") -> int | None:
    """A picture's width or height as a file declares it: a whole number of pixels (12.0 counts), or None."""
    value = obj.get(key)
    if value is None:
        return None
    number = finite(value)
    if number is None or not number.is_integer() or number <= 0:
        raise where.error(f"expected a width or height in pixels (a whole number), got {shown(value)}", prefix + key)
    return int(number)


def shape_words(kind: str, count: int) -> str:
    """"3 polygons", "1 set of points"."""
    return f"{count} {kind if count == 1 else _PLURALS.get(kind, kind + 's')}"


def _article(kind: str) -> str:
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


def other_shape(kind: str, corners: list[tuple[float, float]] | None, shapes: str, where: Where, field: str,
                redraw: str) -> tuple[float, float, float, float] | None:
    """What ImportOptions.shapes makes of a shape that is not an axis-aligned rectangle, `corners` being points
    its bounding box holds (None when the file does not give them): the box (bbox), None (skip: the caller
    counts it in StepRecord.skipped_shapes), or a refusal naming the option. `redraw`: how to fix it in the tool."""
    if shapes == "skip":
        return None
    if shapes == "bbox" and corners:
        xs, ys = [p[0] for p in corners], [p[1] for p in corners]
        return min(xs), min(ys), max(xs), max(ys)
    if shapes == "bbox":
        raise where.error(f"{_article(kind)}: the file does not give where it ends, so it has no bounding box to "
                          "take; import again with --shapes skip to leave such shapes out (Import dialog: "
                          f"'Other shapes'), or {redraw}", field)
    raise where.error(f"{_article(kind)}: ScreenLab's boxes are axis-aligned rectangles; import again with --shapes "
                      "bbox to take each such shape as its bounding box, or --shapes skip to leave them out (Import "
                      f"dialog: 'Other shapes'); or {redraw}", field)
