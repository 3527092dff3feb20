"""Rendering in a real Chromium: boxes and labels come straight from the DOM."""

import io

import pytest
from PIL import Image

from desktop_app.render.renderer import DESKTOP, MOBILE, Viewport

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><html><head><style>
body { margin: 0; font-family: sans-serif; }
#ok { position: absolute; left: 100px; top: 50px; width: 120px; height: 40px; background: rgb(0, 128, 0); }
#no { position: absolute; left: 300px; top: 50px; width: 80px; height: 30px; }
#gone { display: none; }
#far { position: absolute; left: 10px; top: 5000px; width: 50px; height: 20px; }
#edge { position: absolute; left: 600px; top: 380px; width: 100px; height: 100px; }
</style></head><body>
<button id="ok" data-sl-label="gold" data-sl-role="reject">No  thanks</button>
<button id="no" data-sl-label="distracted" data-sl-text="Close (x)" data-sl-action="click">x</button>
<input id="gone" data-sl-label="other">
<a id="far" data-sl-label="other">Footer</a>
<input id="edge" data-sl-label="distracted" data-sl-action="type" placeholder="Your e-mail">
<img src="https://example.com/tracker.png">
</body></html>"""


def test_marked_elements_come_back_with_exact_boxes(renderer):
    small = Viewport("small", 640, 400)
    result = renderer.render(PAGE, small)
    by_text = {e.text: e for e in result.elements}
    assert set(by_text) == {"No thanks", "Close (x)", "Footer", "Your e-mail"}  # hidden one skipped
    ok = by_text["No thanks"]
    assert (ok.label, ok.role, ok.action, ok.box) == ("gold", "reject", "click", (100, 50, 220, 90))
    assert by_text["Close (x)"].label == "distracted"
    assert by_text["Footer"].box is None  # out of screen
    edge = by_text["Your e-mail"]
    assert (edge.action, edge.box) == ("type", (600, 380, 640, 400))  # clipped to the screenshot

    image = Image.open(io.BytesIO(result.png))
    assert image.size == (640, 400)
    assert image.getpixel((104, 54))[:3] == (0, 128, 0)  # the screenshot shows the box where the DOM says


def test_viewports_have_the_sizes_of_the_paper(renderer):
    for viewport, size in ((DESKTOP, (1280, 800)), (MOBILE, (412, 915))):
        png = renderer.render("<html><body>hi</body></html>", viewport).png
        assert Image.open(io.BytesIO(png)).size == size


def test_bundled_fonts_are_served_from_resources(renderer):
    html = """<html><head><style>@font-face { font-family: T; src: url(/fonts/DejaVuSans.woff2); }
    body { font-family: T, monospace; }</style></head>
    <body><span id=s data-sl-label="other">Wide text sample</span>
    <script>document.fonts.load('16px T').then(f => document.getElementById('s').dataset.slText =
      f.length ? 'font loaded' : 'font missing');</script></body></html>"""
    result = renderer.render(html, Viewport("t", 400, 100))
    assert result.elements[0].text == "font loaded"
