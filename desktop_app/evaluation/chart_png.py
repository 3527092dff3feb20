"""The report's plots as PNG files, drawn with Pillow from chart.layout(): no Qt, no display, so
`screenlab report` and the Python API work on a server. The bundled DejaVu font keeps the output the
same on every machine."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw

from desktop_app.evaluation.chart import PLOTS_PER_LINE, Y_LABEL, layout, legend, plot_size
from desktop_app.evaluation.tables import Table
from desktop_app.fonts import font

Y_MIN, Y_MAX = -0.03, 1.06  # a little below 0: a 0 % bar's interval and the 0 % tick stay visible
LEGEND_H = 34
MARGIN = {"left": 58, "right": 12, "top": 26, "bottom": 46}
FOREGROUND, GRID = "#303030", "#e4e4e4"


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
    draw.text(((f.left + f.right) / 2, f.top - 18), plot.title, fill=FOREGROUND, font=bold, anchor="ma")
    for percent in range(0, 101, 20):
        y = f.y(percent / 100)
        draw.line((f.left, y, f.right, y), fill=GRID)
        draw.text((f.left - 6, y), f"{percent}%", fill=FOREGROUND, font=small, anchor="rm")
    draw.line((f.left, f.top, f.left, f.bottom), fill=FOREGROUND)
    draw.line((f.left, f.bottom, f.right, f.bottom), fill=FOREGROUND)
    for bar in plot.bars:
        x0, x1 = f.x(bar.x0), f.x(bar.x1)
        draw.rectangle((x0, f.y(max(bar.value, 0)), x1, f.y(0)), fill=bar.colour)
        cx, cap = (x0 + x1) / 2, (x1 - x0) * 0.3
        draw.line((cx, f.y(bar.high), cx, f.y(bar.low)), fill=FOREGROUND, width=1)
        for v in (bar.low, bar.high):
            draw.line((cx - cap, f.y(v), cx + cap, f.y(v)), fill=FOREGROUND, width=1)
    for x_value, label in plot.ticks:
        draw.multiline_text((f.x(x_value), f.bottom + 5), label, fill=FOREGROUND, font=small, anchor="ma",
                            align="center")
    if y_label:
        label = Image.new("RGBA", (int(draw.textlength(Y_LABEL, font=small)) + 4, 16), (255, 255, 255, 0))
        ImageDraw.Draw(label).text((2, 1), Y_LABEL, fill=FOREGROUND, font=small)
        rotated = label.rotate(90, expand=True)
        image.paste(rotated, (4, int((f.top + f.bottom) / 2 - rotated.height / 2)), rotated)


def render_png(table: Table, path: Path | str, palette: str = "colorblind",
               size: tuple[int, int] | None = None) -> Path:
    """Draw the table's bars (one subplot per column) and save a PNG."""
    width, height = size or plot_size(table)
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    small, normal, bold = _font(11), _font(12), _font(12, bold=True)

    x = MARGIN["left"]  # legend row
    for title, colour in legend(palette):
        draw.rectangle((x, 12, x + 14, 26), fill=colour)
        draw.text((x + 20, 11), title, fill=FOREGROUND, font=normal)
        x += 30 + int(draw.textlength(title, font=normal))

    plots = layout(table, palette)
    lines = max(1, (len(plots) + PLOTS_PER_LINE - 1) // PLOTS_PER_LINE)
    per_line = min(max(len(plots), 1), PLOTS_PER_LINE)
    cell_w, cell_h = width // per_line, (height - LEGEND_H) // lines
    n_groups = max(len(table.rows), 1)
    for index, plot in enumerate(plots):
        column, line = index % PLOTS_PER_LINE, index // PLOTS_PER_LINE
        frame = _Frame(column * cell_w + MARGIN["left"], LEGEND_H + line * cell_h + MARGIN["top"],
                       (column + 1) * cell_w - MARGIN["right"], LEGEND_H + (line + 1) * cell_h - MARGIN["bottom"],
                       n_groups)
        _draw_subplot(image, draw, plot, frame, y_label=column == 0, fonts=(small, bold))
    path = Path(path)
    image.save(path, format="PNG")
    return path
