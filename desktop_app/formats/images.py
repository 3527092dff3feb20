"""A folder of screenshots (searched recursively): one single-step episode per image.

The files come in natural path order (shot2.png before shot10.png), so when two are the same picture,
the one the import keeps is the first a person would see in a file browser.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from desktop_app.formats.records import EpisodeRecord, FormatError, StepRecord, Where, is_within
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


def shown_name(name: str) -> str:
    """A file name as text that can be stored: a name that is not UTF-8 on disk (b"caf\\xe9.png", from a
    Latin-1 zip or an old Windows tool) shows its odd bytes as \\xe9, as `ls -b` does, instead of the lone
    surrogates Python reads them as, which no file or database can hold."""
    return os.fsencode(name).decode("utf-8", "backslashreplace")


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
    # a link to a picture elsewhere is not read: the import reads only the folder the user named
    outside = [file for file in files if path.is_dir() and not is_within(file, root)]
    if outside:
        lines = [f"  {file} -> {os.path.realpath(file)}" for file in outside[:10]]
        if len(outside) > 10:
            lines.append(f"  and {len(outside) - 10} more")
        raise FormatError("these image files are links to pictures outside this folder, which an import does "
                          "not read; copy the pictures into it, or import the folder they are in:\n"
                          + "\n".join(lines), path)
    records = []
    for file in files:
        rel = shown_name(file.relative_to(root).as_posix())
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
