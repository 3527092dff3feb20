"""uiautomator dumps of rendered pages (desktop_app/render/dom_tree.py), in the session's real Chromium."""

import io
import math

import pytest
from PIL import Image

from desktop_app.a11y.tree import UiTree
from desktop_app.render.dom_tree import SYSTEM_UI, dom_tree_xml, escape
from desktop_app.render.renderer import Viewport

pytestmark = pytest.mark.browser

SMALL = Viewport("small", 640, 400)
PACKAGE = "org.screenlab.test"
QUOTED = 'Say "hi" <now> & go'

PAGE = """<!doctype html><html><head><style>
body { margin: 0; font: 16px sans-serif; }
#buy { position: absolute; left: 20.4px; top: 30px; width: 160px; height: 48px; cursor: pointer; }
#email { position: absolute; left: 20px; top: 100px; width: 200px; height: 30px; }
#more { position: absolute; left: 20px; top: 150px; }
#agree-row { position: absolute; left: 20px; top: 190px; }
#edge { position: absolute; left: 600px; top: 380px; width: 100px; height: 100px; }
#far { position: absolute; left: 10px; top: 5000px; }
#box { position: absolute; left: 300px; top: 30px; width: 200px; height: 60px; overflow: hidden; }
#box div { height: 40px; }
#wrap { position: absolute; left: 300px; top: 120px; }
#bar { position: absolute; left: 0; top: 0; width: 640px; height: 20px; display: flex; }
</style></head><body>
<div id="bar" data-sl-package="com.android.systemui"><span>9:41</span></div>
<button id="buy" aria-label='Say "hi" <now> &amp; go'><span class="label">Buy now</span></button>
<input id="email" type="text" placeholder="Your e-mail">
<a id="more" href="#">More offers</a>
<div id="secret" style="display: none"><button>Hidden button</button></div>
<div style="visibility: hidden">Invisible text</div>
<div style="opacity: 0">Transparent text</div>
<div id="agree-row"><input type="checkbox" id="agree" checked><label for="agree">I agree</label></div>
<div id="edge">Edge</div>
<div id="far">Far away</div>
<div id="box"><div>Seen in the box</div><div>Second line</div><div>Scrolled away</div></div>
<div id="wrap"><div><div><span id="deep">Only child</span></div></div></div>
</body></html>"""


def _rect(page, selector, dpr=1):
    r = page.evaluate("s => { const r = document.querySelector(s).getBoundingClientRect();"
                      " return [r.left, r.top, r.right, r.bottom]; }", selector)
    return tuple(math.floor(v * dpr + 0.5) for v in r)


def _by_text(tree, text):
    found = [n for n in tree.nodes if n.text == text]
    assert len(found) == 1, (text, [n.attrs for n in found])
    return found[0]


@pytest.fixture(scope="module")
def dumped(renderer):
    renderer.render(PAGE, SMALL)
    page = renderer._page  # the page Renderer.render left loaded
    xml = dom_tree_xml(page, PACKAGE, "CheckoutActivity")
    return xml, UiTree.from_xml(xml), page


def test_the_dump_parses_and_keeps_the_dump_layout(dumped):
    xml, tree, _page = dumped
    assert xml.startswith("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n<hierarchy rotation=\"0\">")
    assert UiTree.from_xml(tree.to_xml()).to_xml() == tree.to_xml()
    # The status bar is its own top-level window of the system UI, written before the app.
    first, app = (tree.nodes[i] for i in tree.roots)
    assert first.attrs["package"] == SYSTEM_UI and first.system
    assert first.attrs["resource-id"] == "com.android.systemui:id/bar"
    assert app.attrs["class"] == "android.widget.FrameLayout" and app.bounds == (0, 0, 640, 400)
    body = tree.nodes[app.children[0]]
    assert body.attrs["resource-id"] == f"{PACKAGE}:id/checkout_activity"
    assert all(n.attrs["package"] == PACKAGE for n in tree.app_nodes())
    assert all(n.attrs["index"] == str(n_i) for node in tree.nodes
               for n_i, n in enumerate(tree.nodes[c] for c in node.children))


def test_button_with_a_span_label_has_a_separate_label_node(dumped):
    _xml, tree, page = dumped
    label = _by_text(tree, "Buy now")
    button = tree.nodes[label.parent]
    assert button.attrs["class"] == "android.widget.Button"
    assert button.flag("clickable") and button.text == ""
    assert button.resource_id == f"{PACKAGE}:id/buy"
    assert label.attrs["class"] == "android.widget.TextView"
    assert not label.flag("clickable")  # cursor: pointer inherited from the button does not count
    assert tree.clickable_ancestor(label.id) is button
    assert button.bounds == _rect(page, "#buy")  # 20.4 CSS px rounds to 20
    assert label.bounds == _rect(page, "#buy .label")


def test_quotes_and_angle_brackets_survive(dumped):
    xml, tree, _page = dumped
    button = next(n for n in tree.nodes if n.short_id == "buy")
    assert button.description == QUOTED
    assert "&lt;now&gt;" in xml and "&quot;hi&quot;" in xml


def test_inputs_links_and_checkboxes(dumped):
    _xml, tree, page = dumped
    email = next(n for n in tree.nodes if n.short_id == "email")
    assert email.attrs["class"] == "android.widget.EditText"
    assert email.text == "Your e-mail"  # the hint, as Android shows it while the field is empty
    assert email.flag("clickable") and email.flag("long-clickable") and email.actions() == ("text",)
    assert email.bounds == _rect(page, "#email")
    link = _by_text(tree, "More offers")
    assert link.attrs["class"] == "android.widget.TextView" and link.flag("clickable")
    box = next(n for n in tree.nodes if n.short_id == "agree")
    assert box.attrs["class"] == "android.widget.CheckBox"
    assert box.flag("checkable") and box.flag("checked") and box.flag("clickable")
    assert _by_text(tree, "I agree").flag("clickable")  # <label for=...>


def test_hidden_and_off_screen_elements_are_absent(dumped):
    xml, tree, page = dumped
    for gone in ("Hidden button", "Invisible text", "Transparent text", "Far away", "Scrolled away"):
        assert gone not in xml
    assert not any(n.short_id == "secret" for n in tree.nodes)
    edge = _by_text(tree, "Edge")
    assert edge.bounds == (600, 380, 640, 400)  # clipped to the screen
    assert _by_text(tree, "Seen in the box").bounds == _rect(page, "#box div")
    second = _by_text(tree, "Second line")
    assert second.bounds[3] == _rect(page, "#box")[3]  # clipped by its overflow: hidden parent


def test_empty_wrappers_collapse(dumped):
    _xml, tree, _page = dumped
    deep = next(n for n in tree.nodes if n.short_id == "deep")
    wrap = tree.nodes[deep.parent]
    assert wrap.short_id == "wrap"  # the two anonymous divs in between are gone
    assert deep.text == "Only child" and deep.attrs["class"] == "android.widget.TextView"


def test_bounds_are_screenshot_pixels_at_device_pixel_ratio_2(renderer):
    renderer.render("<html><body></body></html>", SMALL)  # make sure the session's browser is up
    context = renderer._browser.new_context(viewport={"width": SMALL.width, "height": SMALL.height},
                                            device_scale_factor=2)
    try:
        page = context.new_page()
        page.set_content(PAGE)
        tree = UiTree.from_xml(dom_tree_xml(page, PACKAGE))
        shot = Image.open(io.BytesIO(page.screenshot()))
        app = tree.nodes[tree.roots[-1]]
        assert app.bounds == (0, 0, *shot.size) == (0, 0, 1280, 800)
        assert tree.nodes[app.children[0]].resource_id == "android:id/content"
        button = next(n for n in tree.nodes if n.short_id == "buy")
        assert button.bounds == _rect(page, "#buy", dpr=2) == (41, 60, 361, 156)
        assert _by_text(tree, "Edge").bounds == (1200, 760, 1280, 800)
    finally:
        context.close()


def test_untrusted_text_cannot_break_the_xml(renderer):
    evil = '"/><node text="x" bounds="[0,0][1,1]"/>\x01\x1b & \ud800 end'
    html = ("<html><body><p id='p'></p><script>document.getElementById('p').textContent = "
            "'\"/><node text=\"x\" bounds=\"[0,0][1,1]\"/>\\x01\\x1b & \\ud800 end';</script></body></html>")
    renderer.render(html, SMALL)
    tree = UiTree.from_xml(dom_tree_xml(renderer._page, PACKAGE))
    texts = [n.text for n in tree.nodes if n.text]
    assert texts == ['"/><node text="x" bounds="[0,0][1,1]"/> &  end']  # control characters dropped
    assert escape(evil) == '&quot;/&gt;&lt;node text=&quot;x&quot; bounds=&quot;[0,0][1,1]&quot;/&gt; &amp;  end'


def test_a_bad_package_name_is_refused(renderer):
    renderer.render("<html><body>x</body></html>", SMALL)
    with pytest.raises(ValueError):
        dom_tree_xml(renderer._page, 'bad" package')
