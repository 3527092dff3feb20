"""Which format a file or folder holds, from cheap signs, so the Import dialog can propose it.

The signs are what the readers themselves look for: the file names they open (episodes.jsonl,
trajectory_log.json, ...), the keys they require in a record (read from the first record only),
and, for a folder of screenshots, that it holds images and no data files. None when unsure (no sign,
or signs of two formats): the user then picks, and the importer's errors say what is wrong.
Everything here reads little: a few directory entries and the first bytes of a few files.
"""

from __future__ import annotations

import json
import os
from itertools import islice
from pathlib import Path

from desktop_app.formats import (
    FORMATS,
    aitw,
    androidcontrol_tfrecord,
    coco,
    cvat_images,
    labelme,
    mind2web,
    mind2web_actions,
    mind2web_parquet,
    naviplus,
    omniact,
    pascal_voc,
    screenlab_jsonl,
    screenspot,
    screenspot_parquet,
    sphinx,
    sphinx_probes,
    unified_trajectory,
    vlmevalkit_tsv,
    yolo,
)
from desktop_app.images import IMAGE_SUFFIXES

HEAD_BYTES = 256 * 1024  # holds the first record of every dataset we know; a larger one leaves us unsure
FOLDER_ENTRIES = 2000  # entries looked at in a folder tree; a bigger tree is judged on what was seen
DATA_FILES_PEEKED = 3  # data files of a folder whose first record is read

# The file a format's reader opens by name: given itself, or in the folder given.
_NAMED_FILES = {
    screenlab_jsonl.FILE_NAME: "screenlab",
    naviplus.FILE_NAME: "naviplus",
    unified_trajectory.LOG: "unified-trajectory",
    sphinx.GROUNDING_FILE: "sphinx",
}

# Keys every record of a format has (its reader requires them) and few others have, and what the reader
# reads: "json" files (a list of records, or one), "jsonl" files (one record a line), or either.
_RECORD_KEYS = (
    ("screenlab", "jsonl", {"id", "steps"}),
    ("naviplus", "jsonl", {"episode", "original_task", "ambiguous_task", "steps", "qa_pairs"}),
    ("envdistraction", "jsonl", {"goal", "modified_file", "label"}),
    ("screenspot", "json", {"img_filename", "bbox", "instruction"}),
    ("mind2web", "json", {"annotation_id", "confirmed_task", "actions"}),
    ("mind2web-seeclick", "json", {"annotation_id", "confirmed_task", "actions"}),  # told apart by layout_of
    ("androidcontrol", "json or jsonl", {"episode_id", "step_instructions", "actions"}),
    ("gui-odyssey", "json", {"episode_id", "device_info", "task_info", "steps"}),
    ("label-studio", "json", {"data", "annotations"}),  # a task of its JSON export
    ("coco", "json", {"images", "annotations", "categories"}),  # a file too big to parse whole: coco.sign
)
_PROBE_KEYS = {"question", "options", "ground_truth"}
# Readers that tell themselves whether a file or folder is theirs, reading as little: files that are not JSON
# records (a Parquet footer, a TSV header line), JSON whose records are not at the top (OmniACT's numbered tasks).
_FILE_SIGNS = (screenspot_parquet.sign, vlmevalkit_tsv.sign, omniact.sign, androidcontrol_tfrecord.sign, aitw.sign,
               mind2web_parquet.sign, mind2web.sign, labelme.sign, coco.sign, cvat_images.sign, yolo.sign,
               pascal_voc.sign)
_FOLDER_SIGNS = (screenspot_parquet.folder_sign, omniact.folder_sign, androidcontrol_tfrecord.folder_sign,
                 aitw.folder_sign, mind2web_parquet.folder_sign, mind2web.folder_sign, labelme.folder_sign,
                 cvat_images.folder_sign, yolo.folder_sign, coco.folder_sign, pascal_voc.folder_sign)
# a Label Studio task: its data, and the people's annotations (older exports: completions)
_LABEL_STUDIO_TASK = ({"data", "annotations"}, {"data", "completions"})
_READS = {"json": ("list", "object"), "jsonl": ("lines", "object"),  # a one-line JSONL is also one object
          "json or jsonl": ("list", "object", "lines")}
_DATA_SUFFIXES = {"json": (".json",), "jsonl": (".jsonl",), "json or jsonl": (".json", ".jsonl")}  # from a folder
_ANY_DATA_SUFFIX = {suffix for suffixes in _DATA_SUFFIXES.values() for suffix in suffixes}

# Files a folder of screenshots may hold beside them without being anything else.
_HARMLESS_SUFFIXES = (".txt", ".md")
_HARMLESS_NAMES = {"thumbs.db", "desktop.ini"}


def detect_format(path: Path | str) -> str | None:
    """The name of the format (a key of FORMATS that can import) `path` holds, or None when unsure."""
    path = Path(path)
    try:
        if path.is_dir():
            found = _detect_folder(path)
        elif path.is_file():
            found = _detect_file(path)
        else:
            return None
    except OSError:  # unreadable: the import itself will say why
        return None
    return found if found in FORMATS and FORMATS[found].read else None


def _detect_file(path: Path) -> str | None:
    if path.name in _NAMED_FILES:
        return _NAMED_FILES[path.name]
    if path.suffix.lower() in IMAGE_SUFFIXES:
        return "images"  # the images reader takes a single screenshot too
    signed = {fmt for sign in _FILE_SIGNS if (fmt := sign(path))}
    if signed:
        return signed.pop() if len(signed) == 1 else None
    first = _first_record(path)
    if first is None:
        return None
    if path.name == sphinx_probes.FILE and first[1].keys() >= _PROBE_KEYS:
        return "sphinx"
    return _by_keys(*first)


def _detect_folder(folder: Path) -> str | None:
    named = {fmt for name, fmt in _NAMED_FILES.items() if (folder / name).is_file()}
    if _looks_like_sphinx(folder):
        named.add("sphinx")
    named.update(fmt for sign in _FOLDER_SIGNS if (fmt := sign(folder)))
    if _label_studio_folder(folder):
        named.add("label-studio")
    if (folder / screenspot.ANNOTATIONS_DIR).is_dir() and not any(folder.glob("*.json")):  # ScreenSpot-Pro's release
        annotations = sorted((folder / screenspot.ANNOTATIONS_DIR).glob("*.json"))
        if annotations and _agreed_format(annotations) == "screenspot":
            named.add("screenspot")
    if named:
        return named.pop() if len(named) == 1 else None
    files = [e for e in _entries(folder) if e.is_file() and not _harmless(e.name)]
    data = [Path(e.path) for e in files if Path(e.name).suffix.lower() in _ANY_DATA_SUFFIX]
    images = [e for e in files if Path(e.name).suffix.lower() in IMAGE_SUFFIXES]
    if data:
        # screenshots beside a data file: an images import and the data file's format are both likely
        return _agreed_format(data) if not images else None
    return "images" if _only_images(folder) else None


def _label_studio_folder(folder: Path) -> bool:
    """A folder whose .json files are Label Studio exports (its data.json, say), pictures beside them or not:
    the tasks name their pictures, so the folder is not a folder of screenshots."""
    files = sorted(p for p in folder.glob("*.json") if p.is_file())[:DATA_FILES_PEEKED]
    if not files:
        return False
    for file in files:
        first = _first_record(file)
        if first is None or first[0] not in ("list", "object") or \
                not any(keys <= first[1].keys() for keys in _LABEL_STUDIO_TASK):
            return False
    return True


def _entries(folder: Path) -> list[os.DirEntry]:
    with os.scandir(folder) as it:
        return sorted(islice(it, FOLDER_ENTRIES), key=lambda e: e.name)


def _looks_like_sphinx(folder: Path) -> bool:
    """What sphinx.read takes as a folder: one with groundtruth/, groundtruth/ itself, or one task folder."""
    if (folder / "groundtruth").is_dir() or folder.name == "groundtruth":
        return True
    return all((folder / name).is_file() for name in ("meta.json", "0.png", "0.xml"))


def _agreed_format(data_files: list[Path]) -> str | None:
    """The format of a folder's data files, when the first few all say the same and its reader takes
    their kind of file from a folder (*.json or *.jsonl)."""
    found = set()
    for file in sorted(data_files)[:DATA_FILES_PEEKED]:
        first = _first_record(file)
        fmt = _by_keys(*first) if first else None
        if fmt is None or file.suffix.lower() not in _DATA_SUFFIXES[_reads(fmt)]:
            return None
        found.add(fmt)
    return found.pop() if len(found) == 1 else None


def _only_images(folder: Path) -> bool:
    """Screenshots, and nothing but harmless notes, in the folder and its sub-folders (as far as we look)."""
    seen_image, budget, queue = False, FOLDER_ENTRIES, [folder]
    while queue and budget > 0:
        with os.scandir(queue.pop(0)) as it:
            for entry in it:
                budget -= 1
                if budget <= 0:
                    break
                if entry.name.startswith("."):
                    continue
                if entry.is_dir():
                    queue.append(Path(entry.path))
                elif Path(entry.name).suffix.lower() in IMAGE_SUFFIXES:
                    seen_image = True
                elif not _harmless(entry.name):
                    return False
    return seen_image


def _harmless(name: str) -> bool:
    return name.startswith(".") or name.lower() in _HARMLESS_NAMES or name.lower().endswith(_HARMLESS_SUFFIXES)


def _first_record(path: Path) -> tuple[str, dict] | None:
    """How the file holds its records ("list", "lines" or "object") and the first record, read from the
    file's first HEAD_BYTES; None when that is not a JSON object."""
    with open(path, "rb") as fh:
        text = fh.read(HEAD_BYTES).decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    decoder = json.JSONDecoder()
    if text.startswith("["):
        start, holder = len(text) - len(text[1:].lstrip()), "list"
    elif text.startswith("{"):
        start, holder = 0, ""
    else:
        return None
    try:
        record, end = decoder.raw_decode(text, start)
    except ValueError:
        return None
    if not isinstance(record, dict):
        return None
    return holder or ("lines" if text[end:].strip() else "object"), record


def _by_keys(holder: str, record: dict) -> str | None:
    matches = [fmt for fmt, reads, keys in _RECORD_KEYS if keys <= record.keys() and holder in _READS[reads]]
    if len(matches) > 1 and set(matches) == set(mind2web_actions.LAYOUTS):  # the same task keys: look at its actions
        return mind2web_actions.layout_of(record)
    return matches[0] if len(matches) == 1 else None


def _reads(fmt: str) -> str:
    return next(reads for name, reads, _ in _RECORD_KEYS if name == fmt)
