"""Reading screenshots safely: format check, pixel limit, full decode, hash."""

from __future__ import annotations

import hashlib
import io
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, UnidentifiedImageError

# 100 megapixels: larger than any real screenshot (8K is 33 MP), small enough
# that a decompression bomb cannot exhaust memory.
DEFAULT_MAX_PIXELS = 100_000_000
_FORMATS = {"PNG": "png", "JPEG": "jpg", "WEBP": "webp"}
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp")


# Pillow names the stream it read in some messages ("cannot identify image file <_io.BytesIO object at
# 0x7f...>"): an address means nothing to a user, the file's name does.
_OBJECT_REPR = re.compile(r"<[\w.]+ object at 0x[0-9a-fA-F]+>")


class ImageProblem(ValueError):
    """The file is not an image we can store. `reason` says why; the message adds the file when known."""

    def __init__(self, reason: str, path: Path | str | None = None):
        self.reason = reason
        self.path = str(path) if path is not None else None
        super().__init__(f"{self.path}: {reason}" if self.path else reason)


@dataclass(frozen=True)
class ImageInfo:
    sha256: str
    ext: str
    width: int
    height: int
    data: bytes


def inspect_bytes(data: bytes, max_pixels: int = DEFAULT_MAX_PIXELS, name: Path | str | None = None) -> ImageInfo:
    """Check a picture fully; `name` (its file, when it has one) is what messages call it."""
    return decode_checked(data, read_header(data, max_pixels, name), name)


@dataclass(frozen=True)
class Header:
    """What a picture's header says, once read_header has accepted it."""

    ext: str
    width: int
    height: int


def read_header(data: bytes, max_pixels: int = DEFAULT_MAX_PIXELS, name: Path | str | None = None) -> Header:
    """The first half of inspect_bytes: the format and the pixel limit, from the header alone (no pixel decoded).
    Pillow's decompression-bomb warning is made an error here, so a picture this accepts opens again without one:
    decode_checked may then run on another thread (warnings filters are process-wide, not per thread)."""
    if not data:
        raise ImageProblem("the file is empty (0 bytes)", name)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as im:
                fmt = im.format
                width, height = im.size
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        # Pillow refuses before we can read the size; its message carries the pixel count
        raise ImageProblem(f"image is over the limit of {max_pixels:,} pixels, "
                           f"possibly a decompression bomb ({exc})", name) from None
    except UnidentifiedImageError:
        raise ImageProblem("not a PNG, JPEG or WebP image (Pillow cannot identify its content); "
                           "the file is corrupt or not an image", name) from None
    except (OSError, SyntaxError, ValueError) as exc:
        raise _undecodable(exc, name) from None
    if fmt not in _FORMATS:
        raise ImageProblem(f"unsupported image format {fmt or 'unknown'} (use PNG, JPEG or WebP)", name)
    if width * height > max_pixels:
        raise ImageProblem(f"image is {width}x{height} = {width * height:,} pixels, over the limit of {max_pixels:,}",
                           name)
    if width <= 0 or height <= 0:
        raise ImageProblem("image has no pixels", name)
    return Header(_FORMATS[fmt], width, height)


def decode_checked(data: bytes, header: Header, name: Path | str | None = None) -> ImageInfo:
    """The second half of inspect_bytes, for a picture read_header accepted: every pixel decoded (the only
    reliable check for a truncated file) and the hash. Safe on any thread: Pillow's decoder and hashlib let go
    of the GIL while they work, so an import checks its pictures on every core (formats/image_lookahead.py)."""
    try:
        with Image.open(io.BytesIO(data)) as im:
            im.load()
    except (OSError, SyntaxError, ValueError) as exc:
        raise _undecodable(exc, name) from None
    return ImageInfo(hashlib.sha256(data).hexdigest(), header.ext, header.width, header.height, data)


def _undecodable(exc: Exception, name: Path | str | None) -> ImageProblem:
    detail = _OBJECT_REPR.sub(str(name or "the image"), str(exc))
    return ImageProblem(f"cannot decode image ({detail}); the file is corrupt or truncated", name)


METADATA_BYTES = 16 * 1024 * 1024  # colour profiles, text chunks, thumbnails: generous for any screenshot


def max_file_bytes(max_pixels: int) -> int:
    """The most a picture of max_pixels can take on disk: 8 bytes a pixel (16-bit RGBA stored uncompressed)
    and room for metadata. Anything larger is not a screenshot, and is refused before it is read."""
    return 8 * max_pixels + METADATA_BYTES


def inspect_file(path: Path, max_pixels: int = DEFAULT_MAX_PIXELS) -> ImageInfo:
    return inspect_bytes(read_file(path, max_pixels), max_pixels, path)


def read_file(path: Path, max_pixels: int = DEFAULT_MAX_PIXELS) -> bytes:
    """A picture file's bytes, refused (ImageProblem) when it cannot be one: not a regular file, missing,
    unreadable, or larger than a picture of max_pixels can be."""
    if path.exists() and not path.is_file():  # a pipe or a device: reading it would wait forever
        raise ImageProblem("not a regular file (a pipe or a device?)", path)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise ImageProblem("image not found", path) from None
    except OSError as exc:
        raise ImageProblem(f"cannot read the file: {exc.strerror or exc}", path) from None
    if size > max_file_bytes(max_pixels):  # a huge (or sparse) file would be read whole into memory first
        raise ImageProblem(f"the file is {size:,} bytes, more than a picture of at most {max_pixels:,} pixels "
                           f"takes ({max_file_bytes(max_pixels):,}); it is not a screenshot", path)
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise ImageProblem("image not found", path) from None
    except OSError as exc:
        raise ImageProblem(f"cannot read the file: {exc.strerror or exc}", path) from None
