"""The bundled fonts (DejaVu Sans) for pictures drawn with Pillow: charts, Set-of-Mark labels."""

from __future__ import annotations

from PIL import ImageFont

from desktop_app.paths import resources_dir


def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    name = "DejaVuSans-Bold.woff2" if bold else "DejaVuSans.woff2"
    try:
        return ImageFont.truetype(str(resources_dir() / "fonts" / name), size)
    except OSError:  # a build without the fonts: still readable
        return ImageFont.load_default(size)
