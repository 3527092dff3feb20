"""A folder of screenshots (searched recursively): one single-step episode per image.

The files come in natural path order (shot2.png before shot10.png), so when two are the same picture,
the one the import keeps is the first a person would see in a file browser.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from desktop_app.formats.records import EpisodeRecord, FormatError, StepRecord, Where
from desktop_app.formats.spec import FormatSpec
from desktop_app.images import IMAGE_SUFFIXES

_DIGITS = re.compile(r"([0-9]+)")


def natural_key(name: str) -> tuple:
    """Digit runs compare as numbers, the rest without case; the name itself breaks ties ("07" vs "7")."""
    parts = _DIGITS.split(name)  # text, digits, text, ...: positions hold the same kind in every name
    return tuple(int(part) if i % 2 else part.casefold() for i, part in enumerate(parts)), name


def path_order(root: Path) -> Callable[[Path], list]:
    """Sort key: a file's path below root, folder by folder, in natural order."""
    return lambda file: [natural_key(part) for part in file.relative_to(root).parts]


def read(path: Path, options) -> list[EpisodeRecord]:
    path = Path(path)
    if path.is_file():
        files, root = [path], path.parent
    elif path.is_dir():
        files = sorted((p for p in path.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()),
                       key=path_order(path))
        root = path
    else:
        raise FormatError("no such file or folder", path)
    if not files:
        raise FormatError("no PNG, JPEG or WebP images found (searched sub-folders too)", path)
    records = []
    for file in files:
        rel = file.relative_to(root).as_posix()
        records.append(EpisodeRecord(
            key=rel,
            where=Where(file),
            steps=[StepRecord(image=file, screen_source=rel)],
        ))
    return records


SPEC = FormatSpec(
    name="images",
    description="a folder of PNG/JPEG/WebP screenshots (recursive), one episode each",
    read=read,
    dedupe_images=True,
)
