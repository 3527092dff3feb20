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
    if not data:
        raise ImageProblem("the file is empty (0 bytes)", name)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as im:
                fmt = im.format
                width, height = im.size
                if fmt not in _FORMATS:
                    raise ImageProblem(f"unsupported image format {fmt or 'unknown'} (use PNG, JPEG or WebP)", name)
                if width * height > max_pixels:
                    raise ImageProblem(
                        f"image is {width}x{height} = {width * height:,} pixels, over the limit of {max_pixels:,}",
                        name)
                im.load()  # a full decode is the only reliable check for truncated files
    except ImageProblem:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        # Pillow refuses before we can read the size; its message carries the pixel count
        raise ImageProblem(f"image is over the limit of {max_pixels:,} pixels, "
                           f"possibly a decompression bomb ({exc})", name) from None
    except UnidentifiedImageError:
        raise ImageProblem("not a PNG, JPEG or WebP image (Pillow cannot identify its content); "
                           "the file is corrupt or not an image", name) from None
    except (OSError, SyntaxError, ValueError) as exc:
        detail = _OBJECT_REPR.sub(str(name or "the image"), str(exc))
        raise ImageProblem(f"cannot decode image ({detail}); the file is corrupt or truncated", name) from None
    if width <= 0 or height <= 0:
        raise ImageProblem("image has no pixels", name)
    return ImageInfo(hashlib.sha256(data).hexdigest(), _FORMATS[fmt], width, height, data)


METADATA_BYTES = 16 * 1024 * 1024  # colour profiles, text chunks, thumbnails: generous for any screenshot


def max_file_bytes(max_pixels: int) -> int:
    """The most a picture of max_pixels can take on disk: 8 bytes a pixel (16-bit RGBA stored uncompressed)
    and room for metadata. Anything larger is not a screenshot, and is refused before it is read."""
    return 8 * max_pixels + METADATA_BYTES


def inspect_file(path: Path, max_pixels: int = DEFAULT_MAX_PIXELS) -> ImageInfo:
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
        data = path.read_bytes()
    except FileNotFoundError:
        raise ImageProblem("image not found", path) from None
    except OSError as exc:
        raise ImageProblem(f"cannot read the file: {exc.strerror or exc}", path) from None
    return inspect_bytes(data, max_pixels, path)
