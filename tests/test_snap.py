"""Snapping a sloppy box onto the element under it, checked against DOM boxes."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from desktop_app.ocr.cache import analyse_image
from desktop_app.ocr.elements import box_iou, propose
from desktop_app.ocr.registry import get_engine
from desktop_app.ocr.snap import snap, snap_box
from desktop_app.render.renderer import VIEWPORTS, Viewport
from desktop_app.synth.templates import render_html

pytestmark = pytest.mark.browser

SPEC = Path(__file__).resolve().parents[1] / "datasets" / "demo_spec.json"
# an annotator's hurried drags: every edge off by up to 7 px, inwards or outwards
JITTERS = ((-6, -6, 6, 6), (5, 4, -5, -4), (7, -3, -2, 6), (-4, 6, 7, -5), (3, -7, -6, 2))


def _rgb(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def _rough(box, d):
    return tuple(v + e for v, e in zip(box, d, strict=True))


@pytest.mark.parametrize(("key", "roles"), [
    ("demo-popup-01", ("close", "input", "submit")),
    ("demo-popup-04", ("close", "accept", "reject")),
    ("demo-popup-08", ("close", "option", "submit")),  # its "reject" is a bare text link
])
def test_sloppy_boxes_snap_onto_buttons_inputs_and_close_icons(renderer, key, roles):
    entry = next(e for e in json.loads(SPEC.read_text(encoding="utf-8")) if e["id"] == key)
    viewport = VIEWPORTS[entry["viewport"]]
    out = renderer.render(render_html(entry["scenario"], entry["content"], viewport), viewport)
    image = _rgb(out.png)
    proposals = propose(image, [])  # outlined elements need no OCR
    checked = 0
    for el in out.elements:
        if el.role not in roles:
            continue
        for d in JITTERS:
            snapped, rule = snap(image, _rough(el.box, d), [], proposals)
            assert rule == "element" and box_iou(snapped, el.box) >= 0.9, (el.role, el.box, d, snapped)
        checked += 1
    assert checked >= 3
    # without precomputed proposals snap finds the outlines itself
    close = next(e for e in out.elements if e.role == "close")
    assert box_iou(snap_box(image, _rough(close.box, JITTERS[0])), close.box) >= 0.9


PAGE = """<!doctype html><html><head><style>
body { margin: 0; background: #fff; font: 16px 'DejaVu Sans', sans-serif; color: #1f2937; }
a { position: absolute; left: 60px; top: 80px; color: #1d4ed8; text-decoration: none; }
svg { position: absolute; left: 400px; top: 200px; }
</style></head><body>
<a href="#" data-sl-label="other">See all offers</a>
<svg data-sl-label="other" data-sl-text="gear" width="24" height="24" viewBox="0 0 24 24">
  <circle cx="12" cy="12" r="11" fill="none" stroke="#374151" stroke-width="2"/>
  <circle cx="12" cy="12" r="3" fill="#374151"/></svg>
</body></html>"""


def test_boxes_without_outline_snap_to_text_or_content_else_stay(renderer):
    out = renderer.render(PAGE, Viewport("small", 640, 400))
    image = _rgb(out.png)
    words, proposals = analyse_image(image, get_engine("rapidocr", "en"))
    link = next(e for e in out.elements if e.text == "See all offers")
    icon = next(e for e in out.elements if e.text == "gear")

    for d in JITTERS:
        snapped, rule = snap(image, _rough(link.box, d), words, proposals)
        if d == (-6, -6, 6, 6):
            # drawn with a margin on every side: read as padding, centred on the text and kept
            assert rule == "centred" and box_iou(snapped, link.box) >= box_iou(_rough(link.box, d), link.box)
        else:
            assert rule == "text" and box_iou(snapped, link.box) >= 0.75, (d, snapped, link.box)
        snapped, rule = snap(image, _rough(icon.box, d), words, proposals)
        # the ring is an outline, so it may be proposed as an element; either way it fits
        assert rule in ("element", "content") and box_iou(snapped, icon.box) >= 0.85, (d, snapped, icon.box)

    empty = (200.0, 300.0, 260.0, 340.0)  # blank page: nothing plausible, the box stays
    assert snap(image, empty, words, proposals) == (empty, "none")
    off = snap_box(image, (600.0, 350.0, 700.0, 450.0), words, proposals)  # hangs over the edge
    assert off[2] <= 640 and off[3] <= 400 and off[0] >= 0 and off[1] >= 0


PADDED = """<!doctype html><html><head><style>
body { margin: 0; background: #fff; font: 16px 'DejaVu Sans', sans-serif; color: #1f2937; }
a { position: absolute; left: 80px; top: 60px; padding: 12px 28px; color: #1d4ed8; text-decoration: none; }
div { position: absolute; left: 40px; top: 200px; width: 420px; padding: 14px 12px; }
</style></head><body>
<a href="#" data-sl-label="other">Skip</a>
<div data-sl-label="other">Settings</div>
</body></html>"""


def test_invisible_padding_is_shared_evenly_and_off_centre_content_is_left_as_drawn(renderer):
    out = renderer.render(PADDED, Viewport("small", 640, 400))
    image = _rgb(out.png)
    words, proposals = analyse_image(image, get_engine("rapidocr", "en"))
    link = next(e for e in out.elements if e.text == "Skip")
    row = next(e for e in out.elements if e.text == "Settings")

    for d in ((6, 5, 6, 5), (-7, -4, -7, -4), (5, -3, 5, -3)):  # the hand slipped one way
        rough = _rough(link.box, d)
        snapped, rule = snap(image, rough, words, proposals)
        assert rule == "centred", (d, snapped)
        assert box_iou(snapped, link.box) > box_iou(rough, link.box) + 0.05, (d, snapped, link.box)
    # a label at the left of a wide row: its x axis stays where it was drawn
    rough = _rough(row.box, (3, 4, -5, 4))
    snapped, _rule = snap(image, rough, words, proposals)
    assert (snapped[0], snapped[2]) == (rough[0], rough[2])


LAYOUT = """<!doctype html><html><head><style>
body { margin: 0; background: #fff; font: 15px 'DejaVu Sans', sans-serif; color: #1f2937; }
nav { position: absolute; left: 30px; top: 30px; display: flex; gap: 4px; }
nav a { padding: 11px 14px; color: #374151; text-decoration: none; }
ul { position: absolute; left: 30px; top: 140px; width: 300px; margin: 0; padding: 0; list-style: none; }
li { padding: 13px 16px; }
</style></head><body>
<nav><a href="#" data-sl-label="other">Home</a><a href="#" data-sl-label="other">Laptops</a>
<a href="#" data-sl-label="other">Phones</a><a href="#" data-sl-label="other">Support</a></nav>
<ul><li data-sl-label="other">Inbox</li><li data-sl-label="other">Drafts and templates</li>
<li data-sl-label="other">Archive</li></ul>
</body></html>"""


def test_invisible_edges_come_from_siblings_already_boxed_and_from_abutting_rows(renderer):
    out = renderer.render(LAYOUT, Viewport("small", 640, 400))
    image = _rgb(out.png)
    words, proposals = analyse_image(image, get_engine("rapidocr", "en"))
    dom = {e.text: e.box for e in out.elements}

    # the annotator boxed "Home"; a sloppy box on "Phones" copies its padding and its row
    for d in JITTERS:
        rough = _rough(dom["Phones"], d)
        alone, _ = snap(image, rough, words, proposals)
        snapped, rule = snap(image, rough, words, proposals, [dom["Home"]])
        assert rule == "sibling" and box_iou(snapped, dom["Phones"]) >= 0.95, (d, snapped, dom["Phones"])
        assert box_iou(snapped, dom["Phones"]) > box_iou(alone, dom["Phones"]), (d, alone)
    # the box around the element is no sibling of it: a nav box around all links lends nothing
    bar = (dom["Home"][0], dom["Home"][1], dom["Support"][2], dom["Home"][3])
    snapped, rule = snap(image, _rough(dom["Laptops"], JITTERS[1]), words, proposals, [bar])
    assert rule != "sibling" and snapped[2] < dom["Phones"][0]

    # the middle row of a list: nothing drawn marks its top or bottom, but its neighbours do
    middle = dom["Drafts and templates"]
    for d in JITTERS:
        snapped, rule = snap(image, _rough(middle, d), words, proposals)
        assert rule == "stacked" and abs(snapped[1] - middle[1]) <= 1.5 and abs(snapped[3] - middle[3]) <= 1.5, (
            d, snapped, middle)


def test_a_box_drawn_with_a_margin_around_a_label_keeps_the_padding(renderer):
    out = renderer.render(LAYOUT, Viewport("small", 640, 400))
    image = _rgb(out.png)
    words, proposals = analyse_image(image, get_engine("rapidocr", "en"))
    link = next(e for e in out.elements if e.text == "Laptops").box
    # 11/14 px padding, drawn 5 px inside it on every side: every edge is within the snap tolerance
    # of the text, but a box drawn 5-10 px around a label means padding: it must not shrink onto the text
    rough = (link[0] + 5, link[1] + 5, link[2] - 5, link[3] - 5)
    snapped, rule = snap(image, rough, words, proposals)
    assert rule != "text" and box_iou(snapped, link) >= box_iou(rough, link), (snapped, rule, link)
