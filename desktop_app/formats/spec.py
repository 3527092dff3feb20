"""What a format module declares about itself; formats/__init__.py collects them."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from desktop_app.formats.records import EpisodeRecord
from desktop_app.store.queries import EpisodeBundle


@dataclass
class ExportContext:
    """What a writer gets: the episodes to write, where, and how to fetch images."""

    out: Path
    bundles: Iterable[EpisodeBundle]
    image_bytes: Callable[[str, str], bytes]  # (sha256, ext) -> file content
    session: object = None  # the reading session, for formats that write more than episodes (labels, captions)


@dataclass
class ExportReport:
    format: str
    out: Path
    episodes: int = 0
    images: int = 0
    annotations: int = 0
    skipped: int = 0  # things the format cannot express (e.g. boxes without coordinates in COCO)
    skipped_why: str = ""
    # pictures written under another name than their own, as "<wanted> -> <given> (episode ...)": two pictures
    # of one split had the same name (picture_names.OriginalNames)
    renamed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what else a user of the files should know, one line each

    SHOWN = 20  # renamed pictures listed in the summary; the rest counted

    def summary(self) -> str:
        line = (f"exported {self.episodes} episodes, {self.images} images, {self.annotations} annotations "
                f"to {self.out} [{self.format}]")
        if self.skipped:
            line += f"\n  left out {self.skipped} {self.skipped_why}"
        if self.renamed:
            n = len(self.renamed)
            line += (f"\n  renamed {n} picture{'s' if n != 1 else ''}: another picture of the same split had "
                     f"{'its' if n == 1 else 'their'} name")
            line += "".join(f"\n    {entry}" for entry in self.renamed[:self.SHOWN])
            if n > self.SHOWN:
                line += f"\n    and {n - self.SHOWN} more"
        line += "".join(f"\n  {note}" for note in self.notes)
        return line


@dataclass(frozen=True)
class FormatSpec:
    name: str
    description: str
    read: Callable[..., list[EpisodeRecord]] | None = None  # (path, ImportOptions) -> records
    write: Callable[[ExportContext], ExportReport] | None = None
    dedupe_images: bool = False  # importing the same picture twice is a duplicate, not a new sample
    episode_kind: str = "sample"  # which episodes it exports (store.models.EPISODE_KINDS)
    # ImportOptions fields its reader reads beyond images_dir (e.g. "bbox_format"): the Import dialog shows
    # a field's widget only for the formats that read it
    options: tuple[str, ...] = ()
    # (path) -> which of the format's layouts the reader reads there, in words for the import's summary
    # ("COCO's own layout: annotations/instances_val.json, pictures in images/val/"); None: one layout only
    layout: Callable[[Path], str] | None = None
