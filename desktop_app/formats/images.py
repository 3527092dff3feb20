"""A folder of screenshots (searched recursively): one single-step episode per image."""

from __future__ import annotations

from pathlib import Path

from desktop_app.formats.records import EpisodeRecord, FormatError, StepRecord, Where
from desktop_app.formats.spec import FormatSpec
from desktop_app.images import IMAGE_SUFFIXES


def read(path: Path, options) -> list[EpisodeRecord]:
    path = Path(path)
    if path.is_file():
        files, root = [path], path.parent
    elif path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())
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
