"""Helpers every exporter uses: an all-or-nothing output folder and image copying."""

from __future__ import annotations

import shutil
import tempfile
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path, PureWindowsPath

from desktop_app.formats.records import FormatError, is_within


@contextmanager
def atomic_output(out: Path) -> Iterator[Path]:
    """Yield a scratch folder that becomes `out` only if the export finishes.

    `out` must not exist or be an empty folder: an export never mixes with, or
    overwrites, files that are already there.
    """
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise FormatError("output folder exists and is not empty; choose a new folder", out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.partial-", dir=out.parent))
    try:
        yield tmp
        if out.exists():
            out.rmdir()
        tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def json_number(value: float) -> float | int:
    """816.0 -> 816: pixel coordinates read the same in every export and in the browser's output."""
    return int(value) if float(value).is_integer() else value


def json_box(box) -> list[float | int] | None:
    return [json_number(v) for v in (box.x1, box.y1, box.x2, box.y2)] if box.has_box else None


class ImageWriter:
    """Copies each stored image into the export once, under the name the format wants.

    Under the default name (images/<sha256>.<ext>, formats that do not name their images) an image was
    written when its file is there: the export's folder starts empty, so a million screens need no table
    of what was written, only the last few names (a screen shared by many steps is asked for in a row).
    Names a format chooses are remembered, as two images may want one name (the later is written too)."""

    RECENT = 4096

    def __init__(self, root: Path, image_bytes: Callable[[str, str], bytes]):
        self.root = root
        self._image_bytes = image_bytes
        self._written: dict[str, str] = {}
        self._recent: OrderedDict[str, None] = OrderedDict()
        self._default_files = 0

    @property
    def count(self) -> int:
        return len(set(self._written.values())) + self._default_files

    def add(self, screen, name: str | None = None) -> str:
        """Relative path of the image in the export; `name` defaults to images/<sha256>.<ext>."""
        if not name:
            return self._add_default(screen)
        rel = name
        key = f"{screen.sha256}|{rel}"
        if key not in self._written:
            target = inside(self.root, rel)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(self._image_bytes(screen.sha256, screen.ext))
            self._written[key] = rel
        return rel

    def _add_default(self, screen) -> str:
        rel = f"images/{screen.sha256}.{screen.ext}"
        if rel in self._recent:
            self._recent.move_to_end(rel)
            return rel
        if not (self.root / rel).exists():
            target = inside(self.root, rel)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(self._image_bytes(screen.sha256, screen.ext))
            self._default_files += 1
        self._recent[rel] = None
        if len(self._recent) > self.RECENT:
            self._recent.popitem(last=False)
        return rel


def inside(root: Path, rel: str) -> Path:
    """root / rel, refused when it would lie outside root (an export writes only into its own folder, whatever
    names the data holds)."""
    path = Path(root) / rel
    if Path(rel).is_absolute() or PureWindowsPath(rel).is_absolute() or PureWindowsPath(rel).drive \
            or not is_within(path.parent, Path(root)) or ".." in PureWindowsPath(rel).parts:
        raise FormatError(f"the export would write {rel!r} outside its folder; nothing was written")
    return path


def path_part(value: str, episode: str, field: str) -> str:
    """A value the data holds used as one folder or file name of an export: refused (with the episode and
    field named) when it is empty, '.', '..' or holds a separator, a drive or a NUL."""
    text = str(value)
    if not text or text in (".", "..") or any(c in text for c in ("/", "\\", "\0", ":")):
        raise FormatError(f"episode {episode}, field '{field}': {text!r} cannot be a folder or file name in an export "
                          f"(not empty, not '..', no / \\ or :); fix it in the project first")
    return text
