"""One colour per run, for its markers on the canvas, its swatch in the runs list and the legend.

Paul Tol's colour-blind-safe "vibrant" and "muted" schemes, without their greens and reds: those
are the box label colours (gold green, distracted red), and a run must not look like a label.
Markers also get a white halo, so they read on light and dark screenshots; the verdict is always
written in the badge, never told by colour alone. Colours follow the run id, so a run keeps its
colour whichever other runs are shown.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QIcon, QPixmap

RUN_COLOURS = ("#0077BB", "#EE3377", "#33BBEE", "#AA3377", "#EE7733", "#332288", "#CCBB44", "#555555",
               "#88CCEE", "#882255")


def run_colour(run_id: int) -> QColor:
    return QColor(RUN_COLOURS[(max(run_id, 1) - 1) % len(RUN_COLOURS)])


def swatch(colour: QColor | str, size: int = 12) -> QIcon:
    pixmap = QPixmap(size, size)
    pixmap.fill(QColor(colour))
    return QIcon(pixmap)


def text_on(colour: QColor) -> QColor:
    """Black or white, whichever reads better on `colour` (relative luminance)."""
    r, g, b = colour.redF(), colour.greenF(), colour.blueF()
    return QColor("black") if 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.55 else QColor("white")
