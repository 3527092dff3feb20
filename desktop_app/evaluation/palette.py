"""The colours of results, in one place for every painter: the dashboard's bars and swatches
(ui/eval, through ui/eval/colours.py) and the report's PNG files (evaluation/chart_png.py). Plain
hex strings, no Qt, so `screenlab report` draws the same colours as the window without a display.

Metric colours come in two schemes, the names `screenlab report --palette` accepts. Both painters
default to SHARED_SCHEME, so a plot exported from the dashboard and one written by the report look
alike. It is the colour-blind-safe one (Okabe-Ito blue / orange / sky blue / grey): a paper figure
is read by people we never meet.
"""

from __future__ import annotations

METRIC_SCHEMES: dict[str, dict[str, str]] = {
    "colorblind": {"acc_gold": "#0072B2", "acc_dist": "#E69F00", "acc_other": "#56B4E9", "acc_inv": "#999999"},
    "default": {"acc_gold": "#1f9e3a", "acc_dist": "#e0302a", "acc_other": "#6f8fb0", "acc_inv": "#9a9a9a"},
}
SHARED_SCHEME = "colorblind"

# One colour per run (markers on the canvas, swatches in the runs list): Paul Tol's colour-blind-safe
# "vibrant" and "muted" schemes without their greens and reds, which are the box label colours.
RUN_COLOURS = ("#0077BB", "#EE3377", "#33BBEE", "#AA3377", "#EE7733", "#332288", "#CCBB44", "#555555",
               "#88CCEE", "#882255")

INK = {"light": "#303030", "dark": "#e6e6e6"}  # axes, ticks and text
GRID = "#e4e4e4"


def metric_colours(scheme: str = SHARED_SCHEME) -> dict[str, str]:
    """metric -> colour; an unknown scheme name gets the shared scheme."""
    return METRIC_SCHEMES.get(scheme, METRIC_SCHEMES[SHARED_SCHEME])


def run_colour_hex(run_id: int) -> str:
    """A run keeps its colour whichever other runs are shown: the colour follows the id."""
    return RUN_COLOURS[(max(run_id, 1) - 1) % len(RUN_COLOURS)]
