"""The file names an export gives its pictures when a tool reads them by name: their original names (ADR 0049).

COCO, YOLO and Pascal VOC keep the pictures in a folder per split (images/<split>/, or VOC's one JPEGImages/)
and name them in the annotations by file name alone, so the name a picture had where it came from is the name
it gets: a user finds their `login.png` again, and a tool's viewer shows it. The original name is the last part
of the screen's source (Screen.source: the path or key an import read it from); a screen whose source names no
picture (a Parquet row, a renderer) is named after its episode as labelling_tools.ScreenNames does.

Two different pictures wanting one name in one folder cannot both have it: the later becomes `name~2.png`
(`~3`...), and the export's report lists every renamed picture, so nothing is renamed unseen. Names are compared
as the tools' loaders and case-insensitive file systems see them: by stem, without case (YOLO's label file and
VOC's annotation file are <stem>.txt / <stem>.xml, so `a.png` and `a.jpg` would share one).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath, PureWindowsPath

from desktop_app.formats.writing import path_part
from desktop_app.images import IMAGE_SUFFIXES

# the folder of episodes without a split: datumaro's name for it (its COCO, YOLO and VOC exports write
# instances_default.json, images/default/, ImageSets/Main/default.txt), which our readers take back as no split
DEFAULT_SPLIT = "default"
MAX_STEM = 100  # characters of a stem kept (a file name stays well within every file system's 255)
_UNSAFE = re.compile(r'[\\/:*?"<>|\x00-\x1f\x7f]')  # not in a file name on Windows, or not at all
_KEY_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_SAME_KIND = {"jpg": {"jpg", "jpeg"}, "jpeg": {"jpg", "jpeg"}}


def original_name(source: str, ext: str) -> str | None:
    """The picture's own file name from the screen's source ("shots/login.png", "C:\\a\\b.JPG",
    "unified:img/3.png"), when that names a picture of the stored kind; None otherwise."""
    if not source:
        return None
    tail = re.split(r"[/:]", PureWindowsPath(source).as_posix())[-1]
    stem, dot, suffix = tail.rpartition(".")
    if not dot or f".{suffix.lower()}" not in IMAGE_SUFFIXES or suffix.lower() not in _SAME_KIND.get(ext, {ext}):
        return None
    stem = _clean(stem)
    return f"{stem}.{suffix}" if stem else None


def _clean(stem: str) -> str:
    """A stem as a file name: characters no file system takes replaced, no leading or trailing spaces or dots."""
    return _UNSAFE.sub("_", stem).strip(" .")[:MAX_STEM].strip(" .")


def fallback_name(episode_key: str, step_index: int, steps: int, ext: str) -> str:
    """The name of a picture whose source names none: its episode's key made safe (and its step's index)."""
    stem = _KEY_UNSAFE.sub("_", episode_key).strip("._")[:MAX_STEM] or "screen"
    if steps > 1:
        stem += f"_step{step_index}"
    return f"{stem}.{ext}"


class OriginalNames:
    """Hands out the file name of each step's picture, per folder (a split), and notes each one renamed.

    share: the same picture (by SHA-256) named again in one folder gets the name it has (COCO: two images may
    name one file); without it every step has a file of its own (YOLO and VOC pair a picture with one label
    file, and the same screenshot under two goals has two sets of boxes)."""

    def __init__(self, share: bool):
        self.share = share
        self._stems: dict[str, set[str]] = {}  # folder -> stems taken (case folded)
        self._given: dict[tuple[str, str], str] = {}  # (folder, sha256) -> its name, with share
        self.renamed: list[str] = []  # "<folder>/<wanted> -> <folder>/<given> (episode ..., step ...)"

    def name(self, folder: str, bundle, step_bundle) -> str:
        screen = step_bundle.screen
        if self.share and (folder, screen.sha256) in self._given:
            return self._given[(folder, screen.sha256)]
        wanted = original_name(screen.source, screen.ext) or \
            fallback_name(bundle.episode.key, step_bundle.step.index, len(bundle.steps), screen.ext)
        stem, suffix = wanted.rsplit(".", 1)
        taken = self._stems.setdefault(folder, set())
        candidate, n = stem, 1
        while candidate.casefold() in taken:
            n += 1
            candidate = f"{stem}~{n}"
        taken.add(candidate.casefold())
        given = f"{candidate}.{suffix}"
        if given != wanted:
            at = f"{folder}/" if folder else ""
            step = f", step {step_bundle.step.index}" if len(bundle.steps) > 1 else ""
            self.renamed.append(f"{at}{wanted} -> {at}{given} (episode {bundle.episode.key}{step})")
        if self.share:
            self._given[(folder, screen.sha256)] = given
        return given


def stem_of(name: str) -> str:
    return PurePosixPath(name).stem


def split_folder(bundle) -> str:
    """The folder an episode's pictures go to: its split, or DEFAULT_SPLIT (a split that cannot be a folder
    name is refused, naming the episode)."""
    return path_part(bundle.episode.split or DEFAULT_SPLIT, bundle.episode.key, "split")


def split_of_folder(folder: str) -> str:
    """The split a folder of an export stands for (DEFAULT_SPLIT: none)."""
    return "" if folder == DEFAULT_SPLIT else folder
