"""The report's plots as PNG files, drawn with Pillow from chart.layout(): no Qt, no display, so
`screenlab report` and the Python API work on a server. The bundled DejaVu font keeps the output the
same on every machine."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw

from desktop_app.evaluation.chart import (
    PLOTS_PER_LINE,
    REPORT_LEGEND_HEIGHT,
    Y_LABEL,
    layout,
    legend,
    plot_size,
)
from desktop_app.evaluation.palette import GRID, INK, SHARED_SCHEME
from desktop_app.evaluation.tables import Table
from desktop_app.fonts import font

Y_MIN, Y_MAX = -0.03, 1.06  # a little below 0: a 0 % bar's interval and the 0 % tick stay visible
# Font sizes in pixels: legible at 100 % and still about 8 pt when a 960 px plot fills a paper's column
TICK_PX, LEGEND_PX, TITLE_PX = 16, 17, 18
SWATCH = 18  # legend square, pixels
MARGIN = {"left": 84, "right": 16, "top": 36, "bottom": 66}  # around each subplot's axes: ticks, title, labels
FOREGROUND = INK["light"]


_font = font


@dataclass(frozen=True)
class _Frame:
    """A subplot's axes rectangle in pixels, and the mapping of data into it."""

    left: float
    top: float
    right: float
    bottom: float
    groups: int

    def x(self, v: float) -> float:  # groups sit at 0..n-1, padded by 0.6 on both sides
        return self.left + (v + 0.6) / (self.groups + 0.2) * (self.right - self.left)

    def y(self, v: float) -> float:
        return self.bottom - (v - Y_MIN) / (Y_MAX - Y_MIN) * (self.bottom - self.top)


def _draw_subplot(image: Image.Image, draw: ImageDraw.ImageDraw, plot, f: _Frame, y_label: bool, fonts) -> None:
    small, bold = fonts
    draw.text(((f.left + f.right) / 2, f.top - 10), plot.title, fill=FOREGROUND, font=bold, anchor="md")
    for percent in range(0, 101, 20):
        y = f.y(percent / 100)
        draw.line((f.left, y, f.right, y), fill=GRID)
        draw.text((f.left - 8, y), f"{percent}%", fill=FOREGROUND, font=small, anchor="rm")
    draw.line((f.left, f.top, f.left, f.bottom), fill=FOREGROUND)
    draw.line((f.left, f.bottom, f.right, f.bottom), fill=FOREGROUND)
    for bar in plot.bars:
        x0, x1 = f.x(bar.x0), f.x(bar.x1)
        draw.rectangle((x0, f.y(max(bar.value, 0)), x1, f.y(0)), fill=bar.colour)
        cx, cap = (x0 + x1) / 2, (x1 - x0) * 0.3
        draw.line((cx, f.y(bar.high), cx, f.y(bar.low)), fill=FOREGROUND, width=2)
        for v in (bar.low, bar.high):
            draw.line((cx - cap, f.y(v), cx + cap, f.y(v)), fill=FOREGROUND, width=2)
    for x_value, label in plot.ticks:
        draw.multiline_text((f.x(x_value), f.bottom + 6), label, fill=FOREGROUND, font=small, anchor="ma",
                            align="center")
    if y_label:
        _draw_y_label(image, small, f)


def _draw_y_label(image: Image.Image, small, f: _Frame) -> None:
    """Y_LABEL turned a quarter, left of the axis and centred on it (Pillow draws no rotated text)."""
    _, _, right, bottom = small.getbbox(Y_LABEL)
    label = Image.new("RGBA", (right + 4, bottom + 4), (255, 255, 255, 0))
    ImageDraw.Draw(label).text((2, 2), Y_LABEL, fill=FOREGROUND, font=small)
    rotated = label.rotate(90, expand=True)
    image.paste(rotated, (int(f.left - MARGIN["left"] + 4), int((f.top + f.bottom) / 2 - rotated.height / 2)), rotated)


def _draw_legend(draw: ImageDraw.ImageDraw, palette: str, normal) -> None:
    """A swatch and its metric's name, side by side, in a row above the plots."""
    x, middle = MARGIN["left"], REPORT_LEGEND_HEIGHT // 2
    for title, colour in legend(palette):
        draw.rectangle((x, middle - SWATCH // 2, x + SWATCH, middle + SWATCH // 2), fill=colour)
        draw.text((x + SWATCH + 8, middle), title, fill=FOREGROUND, font=normal, anchor="lm")
        x += SWATCH + 32 + int(draw.textlength(title, font=normal))


def render_png(table: Table, path: Path | str, palette: str = SHARED_SCHEME,
               size: tuple[int, int] | None = None) -> Path:
    """Draw the table's bars (one subplot per column) and save a PNG, in the dashboard's colours."""
    width, height = size or plot_size(table)
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    small, normal, bold = _font(TICK_PX), _font(LEGEND_PX), _font(TITLE_PX, bold=True)
    _draw_legend(draw, palette, normal)

    plots = layout(table, palette)
    lines = max(1, (len(plots) + PLOTS_PER_LINE - 1) // PLOTS_PER_LINE)
    per_line = min(max(len(plots), 1), PLOTS_PER_LINE)
    cell_w, cell_h = width // per_line, (height - REPORT_LEGEND_HEIGHT) // lines
    n_groups = max(len(table.rows), 1)
    for index, plot in enumerate(plots):
        column, line = index % PLOTS_PER_LINE, index // PLOTS_PER_LINE
        top = REPORT_LEGEND_HEIGHT + line * cell_h
        frame = _Frame(column * cell_w + MARGIN["left"], top + MARGIN["top"],
                       (column + 1) * cell_w - MARGIN["right"], top + cell_h - MARGIN["bottom"], n_groups)
        _draw_subplot(image, draw, plot, frame, y_label=column == 0, fonts=(small, bold))
    path = Path(path)
    image.save(path, format="PNG")
    return path
