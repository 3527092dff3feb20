"""YOLO detection labels (Ultralytics): a .txt file per picture, one `class x_center y_center width height` a line.

Definition: github.com/ultralytics/ultralytics, docs/en/datasets/detect/index.md ("Ultralytics YOLO format")
and ultralytics/cfg/datasets/coco8.yaml (the dataset file: `names` as a mapping of index to name, or a list;
`train` / `val` / `test` folders relative to `path`, or to the YAML's folder when there is no `path`). A
picture images/<sub>/x.png has its labels at labels/<sub>/x.txt (the last images/ folder of its path replaced
by labels/); a picture without a label file has no objects. Surprises: the four numbers are FRACTIONS of the
picture (0-1), the first two the box's CENTRE (not its corner); the class is a 0-based index into `names`,
which live in another file: data.yaml (Ultralytics, Roboflow), classes.txt (one name a line: LabelImg, Label
Studio's YOLO export) or obj.names (darknet, CVAT's YOLO 1.1, whose labels sit beside the pictures).

Rules: every picture under the folder is a screen (see labelling_tools for its key; a train / val / valid /
test folder on its path, or one data.yaml names as images/<folder>, is the episode's split); its boxes are its
label file's lines, turned into pixels of the picture itself. Refused: a class index with no name, values over 1 (pixels given as fractions), a box
reaching past the picture's edge, a line with more numbers than a box has (segmentation polygons, pose key
points, rotated OBB boxes: ScreenLab's boxes are axis-aligned rectangles), a label file under labels/ whose
picture is missing, and names files that disagree. A sixth number (a model's confidence) is kept as the box's
attribute `confidence`. YAML is read with yaml.safe_load, which builds only plain values.
Export: the layout Ultralytics' loader and datumaro's yolo_ultralytics importer both take (ADR 0049):
images/<split>/ and labels/<split>/ (one .txt per step's picture, six decimals: a box comes back within the
picture's width divided by 2,000,000 pixels, under 0.002 px on a 4K screen), pictures under their original file
names, flat in their split's folder (datumaro looks two folders deep), "default" for the episodes without a split;
data.yaml with train / val (/ test) naming those folders (val is train's when there is no val or test split),
nc and names (0: gold, 1: distracted, 2: other, then the project's classes), and classes.txt. A box's name is
its class, else its role; YOLO has no field for a role. Read back, the folder "default" is no split, and the
folders data.yaml names are the episodes' splits.
"""

from __future__ import annotations

import json
import re
from pathlib import Path, PurePosixPath

import yaml

from desktop_app.formats.images import path_order
from desktop_app.formats.labelling_tools import (
    IMAGES_DIR,
    image_size,
    number_text,
    pixels,
    screen_key,
    text_number,
    tool_label,
)
from desktop_app.formats.picture_names import (
    DEFAULT_SPLIT,
    OriginalNames,
    split_folder,
    split_of_folder,
    stem_of,
)
from desktop_app.formats.records import (
    BoxRecord,
    EpisodeRecord,
    FormatError,
    StepRecord,
    Where,
    got,
    is_within,
    read_text,
    short_path,
    shown,
)
from desktop_app.formats.spec import ExportContext, ExportReport, FormatSpec
from desktop_app.formats.writing import ImageWriter, atomic_output, inside
from desktop_app.images import IMAGE_SUFFIXES
from desktop_app.store import label_set

LABELS_DIR = "labels"
NAME_FILES = ("classes.txt", "obj.names")
SPLITS = {"train", "val", "valid", "validation", "test"}
TOLERANCE = 1e-6  # a fraction may pass the edge by this much (six-decimal rounding), then is clamped
FIELDS = ("x_center", "y_center", "width", "height")
_CLASS = re.compile(r"^\d{1,9}$")
SIGN_BYTES = 64 * 1024
_NAMES_KEY = re.compile(r"^names\s*:", re.MULTILINE)


def read(path: Path, options) -> list[EpisodeRecord]:
    path = Path(path)
    if path.is_file():
        if path.suffix.lower() not in (".yaml", ".yml"):
            raise FormatError("give the dataset's folder (with images/ and labels/) or its data.yaml", path)
        root, dataset_file = path.parent, path
    elif path.is_dir():
        root, dataset_file = path, None
    else:
        raise FormatError("no such file or folder", path)
    names, names_file = _class_names(root, dataset_file)
    split_names = SPLITS | _yaml_split_folders(root, dataset_file)
    pictures = _pictures(root)
    claimed: set[Path] = set()
    records = []
    for picture in pictures:
        labels = _label_file(picture, root)
        claimed.add(labels)
        folders = picture.relative_to(root).parts[:-1]
        split = next((part for part in folders if part.lower() in split_names or part == DEFAULT_SPLIT), "")
        key = screen_key(picture, [root])
        if split == DEFAULT_SPLIT and key.startswith(f"{DEFAULT_SPLIT}/"):  # our export's folder of no split
            key = key[len(DEFAULT_SPLIT) + 1:]
        size = image_size(picture)
        if labels.exists() and not is_within(labels, root):
            raise FormatError("a link to a file outside the folder imported, which an import does not read; copy "
                              "the file into it", labels)
        boxes = _boxes(labels, names, names_file, size) if labels.exists() else []
        records.append(EpisodeRecord(
            key=key, where=Where(labels if labels.exists() else picture), split=split_of_folder(split),
            steps=[StepRecord(image=picture, screen_source=key, boxes=boxes)],
        ))
    orphans = [f for f in _label_files(root) if f not in claimed]
    if orphans:
        raise FormatError(f"labels without a picture: {', '.join(short_path(f.relative_to(root)) for f in orphans[:5])}"
                          f"{f' and {len(orphans) - 5} more' if len(orphans) > 5 else ''}; each needs its picture at the "
                          "same path under images/ (labels/a/b.txt is the labels of images/a/b.png)", orphans[0])
    if not records:
        raise FormatError("no PNG, JPEG or WebP pictures in this folder (searched sub-folders too)", root)
    return records


def _pictures(root: Path) -> list[Path]:
    files = sorted((p for p in root.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()),
                   key=path_order(root))
    outside = [f for f in files if not is_within(f, root)]
    if outside:
        raise FormatError(f"{outside[0]} is a link to a picture outside this folder, which an import does not read; "
                          "copy the picture into it", root)
    return files


def _label_file(picture: Path, root: Path) -> Path:
    """labels/<sub>/x.txt for images/<sub>/x.png (the last images/ folder of its path), else x.txt beside it."""
    parts = picture.relative_to(root).parts
    folders = [i for i, part in enumerate(parts[:-1]) if part == IMAGES_DIR]
    if folders:
        i = folders[-1]
        return root.joinpath(*parts[:i], LABELS_DIR, *parts[i + 1:]).with_suffix(".txt")
    return picture.with_suffix(".txt")


def _label_files(root: Path) -> list[Path]:
    """The .txt files under a labels/ folder: each is some picture's labels."""
    return [p for p in sorted(root.rglob("*.txt"))
            if LABELS_DIR in p.relative_to(root).parts[:-1] and p.name not in NAME_FILES]


def _boxes(file: Path, names: dict[int, str], names_file: str, size) -> list[BoxRecord]:
    boxes = []
    for number, line in enumerate(read_text(file).split("\n"), start=1):
        words = line.split()
        if not words:
            continue
        where = Where(file, number)
        if len(words) < 5 or len(words) > 6:
            problem = (f"{len(words) - 1} numbers after the class: a polygon (YOLO segmentation), key points (pose) "
                       "or a rotated box (OBB), not a box; ScreenLab's boxes are axis-aligned rectangles, read from "
                       "detection labels" if len(words) > 6 else f"{len(words)} word{'s' if len(words) != 1 else ''}")
            raise where.error(f"{problem} (expected: class x_center y_center width height)")
        if not _CLASS.match(words[0]):
            raise where.error(f"expected a class index (0, 1, 2 ...), got {shown(words[0])}", "class")
        index = int(words[0])
        if index not in names:
            known = f"0-{max(names)}" if names else "none"
            raise where.error(f"class {index} has no name ({names_file} names {len(names)}: {known}); add its name "
                              f"there", "class")
        label = tool_label(names[index], where, "class")
        cx, cy, w, h = (_fraction(words[i + 1], where, FIELDS[i]) for i in range(4))
        x1, y1, x2, y2 = cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2
        if x1 < -TOLERANCE or y1 < -TOLERANCE or x2 > 1 + TOLERANCE or y2 > 1 + TOLERANCE:
            raise where.error(f"the box spans x {x1:g} to {x2:g}, y {y1:g} to {y2:g} (fractions of the picture): it "
                              "reaches outside the picture")
        meta = {}
        if len(words) == 6:
            meta = {"attributes": {"confidence": number_text(text_number(words[5], where, "confidence"))}}
        if size is None:  # the picture cannot be read: ingest refuses it, with the others that cannot
            continue
        width, height = size
        box = tuple(pixels(min(max(v, 0.0), 1.0) * side) for v, side in
                    ((x1, width), (y1, height), (x2, width), (y2, height)))
        boxes.append(BoxRecord(label=label, box=box, field=f"line {number}", meta=meta, class_rank=index))
    return boxes


def _fraction(word: str, where: Where, field: str) -> float:
    value = text_number(word, where, field)
    if value > 1 + TOLERANCE:
        raise where.error(f"{value:g} is over 1: YOLO gives fractions of the picture (0-1), and this looks like "
                          "pixels; divide x_center and width by the picture's width (y_center and height by its "
                          "height)", field)
    if value < 0:
        raise where.error(f"{value:g} is negative; YOLO gives fractions of the picture (0-1)", field)
    return value


def _class_names(root: Path, dataset_file: Path | None) -> tuple[dict[int, str], str]:
    """The class names and the file they came from: the data.yaml given, else the names files of the folder
    (its YAML files that have `names`, classes.txt, obj.names), which must agree."""
    if dataset_file is not None:
        names = _yaml_names(dataset_file)
        if names is None:
            raise FormatError("no `names` (the class names) in this file", dataset_file, None, "names")
        return names, dataset_file.name
    found: list[tuple[str, dict[int, str]]] = []
    for file in sorted([*root.glob("*.yaml"), *root.glob("*.yml")]):
        names = _yaml_names(file) if file.is_file() else None
        if names is not None:
            found.append((file.name, names))
    for name in NAME_FILES:
        if (root / name).is_file():
            found.append((name, _listed_names(root / name)))
    if not found:
        raise FormatError("no class names: put the dataset's data.yaml (with names), or a classes.txt with one name "
                          "a line (class 0 first), in this folder", root)
    first_file, first = found[0]
    for other_file, other in found[1:]:
        if other != first:
            raise FormatError(f"{first_file} and {other_file} name the classes differently; keep the one that is "
                              "right", root / other_file)
    return first, first_file


def _yaml_split_folders(root: Path, dataset_file: Path | None) -> set[str]:
    """The folders the dataset file names as its train / val / test pictures ("images/holdout": holdout), so that
    a split of any name comes back as that split."""
    files = [dataset_file] if dataset_file is not None else \
        sorted(f for f in [*root.glob("*.yaml"), *root.glob("*.yml")] if f.is_file())
    folders: set[str] = set()
    for file in files:
        try:
            data = yaml.safe_load(read_text(file))
        except (yaml.YAMLError, RecursionError, ValueError):
            continue  # _class_names has said what is wrong with a file it reads
        if not isinstance(data, dict) or "names" not in data:
            continue
        for key in ("train", "val", "validation", "test"):
            value = data.get(key)
            for entry in value if isinstance(value, list) else [value]:
                parts = PurePosixPath(str(entry).replace("\\", "/")).parts if isinstance(entry, str) else ()
                if len(parts) >= 2 and parts[-2] == IMAGES_DIR:
                    folders.add(parts[-1].lower())
    return folders


def _listed_names(file: Path) -> dict[int, str]:
    lines = [line.strip() for line in read_text(file).split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return dict(enumerate(lines))


def _yaml_names(file: Path) -> dict[int, str] | None:
    text = read_text(file)
    try:
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else None
        raise FormatError(f"not valid YAML: {exc.problem or exc.context}", file, line) from None
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        raise FormatError(f"not valid YAML ({type(exc).__name__})", file) from None
    if not isinstance(data, dict) or "names" not in data:
        return None
    where = Where(file)
    raw = data["names"]
    if isinstance(raw, list):
        pairs = list(enumerate(raw))
    elif isinstance(raw, dict):
        pairs = []
        for k, v in raw.items():
            if isinstance(k, bool) or not (isinstance(k, int) or (isinstance(k, str) and _CLASS.match(k))):
                raise where.error(f"expected class indexes (0, 1, 2 ...) as keys, got {shown(k)}", "names")
            pairs.append((int(k), v))
    else:
        raise where.error(f"expected a list of names or a mapping of index to name, got {got(raw)}", "names")
    names = {}
    for index, name in pairs:
        if not isinstance(name, (str, int, float)) or isinstance(name, bool):
            hint = "; YAML reads yes / no / on / off as true or false: quote the name" if isinstance(name, bool) else ""
            raise where.error(f"class {index}: expected a name, got {shown(name)}{hint}", f"names[{index}]")
        names[index] = str(name)
    return names


def write(ctx: ExportContext) -> ExportReport:
    report = ExportReport("yolo", ctx.out, skipped_why="actions without a box (text-only or out of screen)")
    classes = list(label_set.export_names(ctx.session.get_bind() if ctx.session is not None else None))
    pictures = OriginalNames(share=False)  # a picture's label file is its own: one file per step
    folders: dict[str, None] = {}
    with atomic_output(ctx.out) as tmp:
        images = ImageWriter(tmp, ctx.image_bytes)
        for bundle in ctx.bundles:
            report.episodes += 1
            folder = split_folder(bundle)
            folders[folder] = None
            for sb in bundle.steps:
                name = pictures.name(folder, bundle, sb)
                images.add(sb.screen, f"{IMAGES_DIR}/{folder}/{name}")
                width, height = sb.screen.width, sb.screen.height
                lines = []
                for box in sb.boxes:
                    if not box.has_box:
                        report.skipped += 1
                        continue
                    category = label_set.category_of(box.label, box.category)  # YOLO has no field for a role
                    if category not in classes:
                        classes.append(category)
                    numbers = ((box.x1 + box.x2) / 2 / width, (box.y1 + box.y2) / 2 / height,
                               (box.x2 - box.x1) / width, (box.y2 - box.y1) / height)
                    lines.append(" ".join([str(classes.index(category)), *(number_text(v) for v in numbers)]))
                target = inside(tmp, f"{LABELS_DIR}/{folder}/{stem_of(name)}.txt")
                target.parent.mkdir(parents=True, exist_ok=True)
                # "\n" on every system: datumaro splits a line at spaces after taking off "\n" only
                target.write_text("".join(line + "\n" for line in lines), encoding="utf-8", newline="\n")
                report.annotations += len(lines)
        (tmp / "classes.txt").write_text("".join(c + "\n" for c in classes), encoding="utf-8", newline="\n")
        (tmp / "data.yaml").write_text(_dataset_yaml(classes, list(folders or [DEFAULT_SPLIT])), encoding="utf-8",
                                       newline="\n")
        report.images = images.count
        report.renamed = pictures.renamed
    return report


# what a YAML reader would drop (PyYAML refuses them, Ultralytics strips them first) or fold into a space (line
# breaks inside a quoted text): written as \\uXXXX escapes
_YAML_ESCAPED = re.compile("[\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]")


def yaml_text(text: str) -> str:
    """A text as a double-quoted YAML scalar that reads back as the same text, whatever it holds (quotes, colons,
    "no", "1e3", a non-Latin script): a JSON string is one, with the characters above escaped."""
    quoted = json.dumps(text, ensure_ascii=False)
    return _YAML_ESCAPED.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted)


VAL_SPLITS = ("val", "valid", "validation")
TEST_SPLITS = ("test",)


def dataset_splits(folders: list[str]) -> tuple[list[str], list[str], list[str]]:
    """Which split folders Ultralytics trains on, validates on and tests on: val / valid / validation are val,
    test is test, every other is train. A project without a train split trains on all it has; one without a
    val split validates on its test split, else on what it trains on (Ultralytics requires both keys, and a
    folder each that exists)."""
    val = [f for f in folders if f.lower() in VAL_SPLITS]
    test = [f for f in folders if f.lower() in TEST_SPLITS]
    train = [f for f in folders if f not in val and f not in test] or list(folders)
    return train, val or test or train, test


def _dataset_yaml(classes: list[str], folders: list[str]) -> str:
    train, val, test = dataset_splits(folders)

    def entry(key: str, names: list[str]) -> list[str]:
        paths = [f"{IMAGES_DIR}/{name}" for name in names]
        if len(paths) == 1:
            return [f"{key}: {yaml_text(paths[0])}"]
        return [f"{key}:", *(f"  - {yaml_text(path)}" for path in paths)]

    lines = ["# written by ScreenLab: the Ultralytics YOLO detection layout, images/<split>/ and labels/<split>/.",
             "# No `path`: Ultralytics then takes this file's folder as the dataset's root, so the folder can be",
             "# moved (a relative `path` would be read from the working directory, an absolute one breaks on a move)."]
    if val == train:
        lines.append("# this export has no val split: val names the pictures train does")
    lines += [*entry("train", train), *entry("val", val)]
    if test:
        lines += entry("test", test)
    lines += [f"nc: {len(classes)}", "names:", *(f"  {i}: {yaml_text(name)}" for i, name in enumerate(classes))]
    return "\n".join(lines) + "\n"


def sign(path: Path) -> str | None:
    """'yolo' for a YAML file with a top-level `names:` (a dataset file; first bytes only)."""
    if path.suffix.lower() not in (".yaml", ".yml"):
        return None
    with open(path, "rb") as fh:
        head = fh.read(SIGN_BYTES).decode("utf-8", errors="replace")
    return SPEC.name if _NAMES_KEY.search(head) else None


def folder_sign(folder: Path) -> str | None:
    """'yolo' for a folder with labels/ beside images/ (in it or in a train / val / test folder of it), or with
    the class names' file of darknet's or LabelImg's layout."""
    if any((folder / name).is_file() for name in NAME_FILES):
        return SPEC.name
    for base in (folder, *(folder / split for split in sorted(SPLITS))):
        if (base / LABELS_DIR).is_dir() and (base / IMAGES_DIR).is_dir():
            return SPEC.name
    return None


SPEC = FormatSpec(
    name="yolo",
    description="YOLO detection txt (Ultralytics: images/ + labels/, names in data.yaml or classes.txt)",
    read=read,
    write=write,
)
