"""Reading screenshots safely: format check, pixel limit, full decode, hash."""

from __future__ import annotations

import hashlib
import io
import warnings
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

# 100 megapixels: larger than any real screenshot (8K is 33 MP), small enough
# that a decompression bomb cannot exhaust memory.
DEFAULT_MAX_PIXELS = 100_000_000
_FORMATS = {"PNG": "png", "JPEG": "jpg", "WEBP": "webp"}
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp")


class ImageProblem(ValueError):
    """The file is not an image we can store; the message says why."""


@dataclass(frozen=True)
class ImageInfo:
    sha256: str
    ext: str
    width: int
    height: int
    data: bytes


def inspect_bytes(data: bytes, max_pixels: int = DEFAULT_MAX_PIXELS) -> ImageInfo:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as im:
                fmt = im.format
                width, height = im.size
                if fmt not in _FORMATS:
                    raise ImageProblem(f"unsupported image format {fmt or 'unknown'} (use PNG, JPEG or WebP)")
                if width * height > max_pixels:
                    raise ImageProblem(
                        f"image is {width}x{height} = {width * height:,} pixels, over the limit of {max_pixels:,}"
                    )
                im.load()  # a full decode is the only reliable check for truncated files
    except ImageProblem:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        # Pillow refuses before we can read the size; its message carries the pixel count
        raise ImageProblem(f"image is over the limit of {max_pixels:,} pixels, "
                           f"possibly a decompression bomb ({exc})") from None
    except (OSError, SyntaxError, ValueError) as exc:
        raise ImageProblem(f"cannot decode image ({exc}); the file is corrupt or truncated") from None
    if width <= 0 or height <= 0:
        raise ImageProblem("image has no pixels")
    return ImageInfo(hashlib.sha256(data).hexdigest(), _FORMATS[fmt], width, height, data)


def inspect_file(path: Path, max_pixels: int = DEFAULT_MAX_PIXELS) -> ImageInfo:
    if path.exists() and not path.is_file():  # a pipe or a device: reading it would wait forever
        raise ImageProblem(f"{path} is not a regular file (a pipe or a device?)")
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ImageProblem(f"image not found: {path}") from None
    except OSError as exc:
        raise ImageProblem(f"cannot read image {path}: {exc.strerror or exc}") from None
    return inspect_bytes(data, max_pixels)
