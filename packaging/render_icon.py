"""Render resources/icons/screenlab.svg to the PNG sizes the installers use.

    .venv/bin/python packaging/render_icon.py          # writes resources/icons/screenlab.png (256 px)

Uses Qt's SVG renderer (PySide6-Essentials ships QtSvg), so no extra tool is needed.
The Windows .ico and macOS .icns are made from this PNG by the platform build scripts.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ICONS = ROOT / "resources" / "icons"


def render(size: int = 256, out: Path | None = None) -> Path:
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 (keeps Qt alive)
    out = out or ICONS / ("screenlab.png" if size == 256 else f"screenlab-{size}.png")
    image = QImage(size, size, QImage.Format_ARGB32)
    image.fill(Qt.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.Antialiasing)
    QSvgRenderer(str(ICONS / "screenlab.svg")).render(painter)
    painter.end()
    if not image.save(str(out), "PNG"):
        raise SystemExit(f"could not write {out}")
    return out


if __name__ == "__main__":
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sizes = [int(a) for a in sys.argv[1:]] or [256]
    for s in sizes:
        print(render(s))
