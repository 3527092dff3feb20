"""Label colours. The colour-blind palette pairs blue and orange, which stay apart
for every common colour-vision deficiency (Okabe-Ito)."""

from __future__ import annotations

from PySide6.QtGui import QColor

PALETTES: dict[str, dict[str, str]] = {
    "default": {"gold": "#1f9e3a", "distracted": "#e0302a", "other": "#8a8a8a"},
    "colorblind": {"gold": "#0072B2", "distracted": "#E69F00", "other": "#999999"},
}
PALETTE_NAMES = {"default": "Green / red / grey", "colorblind": "Colour-blind safe (blue / orange / grey)"}


# a project's own labels (store/label_set.py), in the order it added them: hues apart from the three above
# and from each other in both palettes (Okabe-Ito's remaining colours, then two more)
EXTRA_COLOURS = ("#CC79A7", "#56B4E9", "#009E73", "#D55E00", "#7B3294", "#8C6D31")


def label_color(label: str, palette: str = "default", extra: tuple[str, ...] = ()) -> QColor:
    """`extra`: the project's own labels, in order; a label unknown to both is drawn as "other"."""
    colors = PALETTES.get(palette, PALETTES["default"])
    if label in colors:
        return QColor(colors[label])
    if label in extra:
        return QColor(EXTRA_COLOURS[extra.index(label) % len(EXTRA_COLOURS)])
    return QColor(colors["other"])
