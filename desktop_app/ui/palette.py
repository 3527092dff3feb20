"""Role colours (gold, distracted, other). The colour-blind palette pairs blue and orange, which stay apart
for every common colour-vision deficiency (Okabe-Ito)."""

from __future__ import annotations

from PySide6.QtGui import QColor

PALETTES: dict[str, dict[str, str]] = {
    "default": {"gold": "#1f9e3a", "distracted": "#e0302a", "other": "#8a8a8a"},
    "colorblind": {"gold": "#0072B2", "distracted": "#E69F00", "other": "#999999"},
}
PALETTE_NAMES = {"default": "Green / red / grey", "colorblind": "Colour-blind safe (blue / orange / grey)"}


def label_color(label: str, palette: str = "default") -> QColor:
    """A role's colour (gold, distracted, other). A box is coloured by its role, what scoring reads, never by
    its class (ADR 0047): with 80 classes no palette keeps them apart, and the caption names the class."""
    colors = PALETTES.get(palette, PALETTES["default"])
    return QColor(colors.get(label, colors["other"]))
