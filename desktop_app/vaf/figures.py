"""The delta heatmap (the paper's Fig. 2) and a variant's click map (its Fig. 3) as PNG, with Pillow:
`screenlab vaf results` and the Python API draw them without Qt. The window draws the same data
itself (ui/vaf/). Colours: a diverging blue-white-red scale for delta (blue = more clicks on the
target than the original page got), grey for a setting a column did not run; click dots green on the
target, orange on another item, grey on no item."""

from __future__ import annotations

import io

from PIL import Image, ImageDraw

from desktop_app.fonts import font

HIT, OTHER, NOTHING = "#1a9850", "#f46d43", "#777777"
NA = "#d9d9d9"


def delta_colour(value: float | None, limit: float = 0.5) -> str:
    """White at 0, blue towards +limit, red towards -limit."""
    if value is None:
        return NA
    t = max(-1.0, min(1.0, value / limit))
    if t >= 0:
        r, g, b = (int(255 - t * (255 - c)) for c in (33, 102, 172))
    else:
        r, g, b = (int(255 + t * (255 - c)) for c in (178, 24, 43))
    return f"#{r:02x}{g:02x}{b:02x}"


def heatmap_png(names: list[str], columns: list[str], cells: list[list], title: str = "TCR variant - original") -> bytes:
    cell_w, cell_h, label_w, head_h = 110, 20, 230, 60
    f, small = font(12), font(11)
    width = label_w + cell_w * max(1, len(columns)) + 20
    height = head_h + cell_h * max(1, len(names)) + 40
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.text((10, 8), title, fill="#202020", font=font(14))
    for j, col in enumerate(columns):
        draw.text((label_w + j * cell_w + 4, head_h - 22), col[:16], fill="#202020", font=small)
    for i, name in enumerate(names):
        y = head_h + i * cell_h
        draw.text((10, y + 3), name[:34], fill="#202020", font=f)
        for j, value in enumerate(cells[i]):
            x = label_w + j * cell_w
            draw.rectangle((x, y, x + cell_w - 2, y + cell_h - 2), fill=delta_colour(value))
            text = "n/a" if value is None else f"{100 * value:+.0f}"
            draw.text((x + 40, y + 3), text, fill="#202020", font=small)
    draw.text((10, height - 24), "cells: points of TCR against the original page; grey: not run", fill="#505050",
              font=small)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def click_map_png(page_png: bytes, points: list[dict], target, scale: float = 0.5) -> bytes:
    """The variant's full page, scaled, with the target outlined and one dot per click."""
    with Image.open(io.BytesIO(page_png)) as page:
        image = page.convert("RGB").resize((max(1, int(page.width * scale)), max(1, int(page.height * scale))))
    draw = ImageDraw.Draw(image)
    if target:
        x1, y1, x2, y2 = (v * scale for v in target)
        draw.rectangle((x1, y1, x2, y2), outline=HIT, width=3)
    for p in points:
        colour = HIT if p["target"] else OTHER if p["item"] is not None else NOTHING
        x, y = p["x"] * scale, p["y"] * scale
        draw.ellipse((x - 5, y - 5, x + 5, y + 5), fill=colour, outline="white", width=2)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()
