"""One colour per run, as Qt objects: its markers on the canvas, its swatch in the runs list and the
legend. The colours themselves live in the core, desktop_app/evaluation/palette.py, with the metric
colours the dashboard's bars and the report's PNGs (drawn without Qt) share.

Run colours avoid the greens and reds of the box labels (gold green, distracted red): a run must not
look like a label. Markers also get a white halo, so they read on light and dark screenshots; the
verdict is always written in the badge, never told by colour alone.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QIcon, QPixmap

from desktop_app.evaluation.palette import RUN_COLOURS, run_colour_hex

__all__ = ["RUN_COLOURS", "run_colour", "swatch", "text_on"]


def run_colour(run_id: int) -> QColor:
    return QColor(run_colour_hex(run_id))


def swatch(colour: QColor | str, size: int = 12) -> QIcon:
    pixmap = QPixmap(size, size)
    pixmap.fill(QColor(colour))
    return QIcon(pixmap)


def text_on(colour: QColor) -> QColor:
    """Black or white, whichever reads better on `colour` (relative luminance)."""
    r, g, b = colour.redF(), colour.greenF(), colour.blueF()
    return QColor("black") if 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.55 else QColor("white")
