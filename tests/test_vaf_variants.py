"""Page variants (VAF): the table, what each setting does to the page, offline rendering, bad pages."""

from __future__ import annotations

import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from desktop_app.vaf.pages import PageError, spec_for
from desktop_app.vaf.patch import MOVES, patch_for
from desktop_app.vaf.render import inspect_variant, render_variant, render_viewport
from desktop_app.vaf.settings import (
    FAMILIES,
    ORIGINAL_SETTING,
    Setting,
    SettingsError,
    load_table,
    paper_table,
    save_table,
)
from desktop_app.vaf.study import generate_study, scroll_positions, variants

from conftest import snapshot
from vaf_pages import write_shop


def test_the_default_table_is_the_papers_48_settings_under_its_names(tmp_path):
    table = paper_table()
    counts = {f: sum(s.family == f for s in table) for f in FAMILIES}
    assert counts == {"background": 7, "textColor": 5, "fontFamily": 13, "fontSize": 5, "position": 3,
                      "card_size": 3, "clarity": 10, "order": 2}
    names = {s.name for s in table}
    assert {"background_ff9800", "textColor_dc3545", "fontFamily_jetbrains-mono", "fontSize_24px", "position_sidebar",
            "card_size_scale_1.5", "card_clarity_blur_4px", "image_clarity_very_sharp", "order_last"} <= names
    # a user adds one of the settings the paper's result tables name but Table 1 lacks, and drops a family
    edited = [s for s in table if s.family != "fontFamily"] + [Setting("fontSize", "22px")]
    save_table(edited, tmp_path / "t.json")
    assert load_table(tmp_path / "t.json") == edited


@pytest.mark.parametrize("rows, said", [
    ('[{"family": "colour", "value": "#fff"}]', "row 1: unknown family 'colour'"),
    ('[{"family": "fontSize", "value": "big"}]', "row 1: fontSize value 'big' is not a size in px"),
    ('[{"family": "order", "value": "last"}, {"family": "order", "value": "last"}]', "row 2: order_last is in the table twice"),
    ('{"family": "order"}', "expected a JSON list"),
    ('[{"family": "order", "value": 3}]', 'row 1: expected {"family": text, "value": text}'),
])
def test_a_bad_table_is_refused_naming_the_row(tmp_path, rows, said):
    path = tmp_path / "t.json"
    path.write_text(rows)
    with pytest.raises(SettingsError, match=said.replace("(", r"\(").replace("{", r"\{")):
        load_table(path)


def _computed(setting: Setting) -> str:
    """What the target's computed style shows for a setting."""
    value = setting.value
    if value.startswith("#"):
        return "rgb(" + ", ".join(str(int(value[i:i + 2], 16)) for i in (1, 3, 5)) + ")"
    if setting.family == "fontFamily":
        return patch_for(setting).css.split("font-family: ")[1].split(",")[0].strip('"').split(" !")[0]
    if setting.family == "clarity":
        return f"blur({value.split('_blur_')[1]})" if "_blur_" in value else "url("
    return value


def test_every_setting_changes_only_what_it_claims_and_the_box_follows_the_target(renderer, tmp_path):
    spec = spec_for(str(write_shop(tmp_path / "shop")), "#target", target_name="Alpha 14 laptop")
    base, base_dom = inspect_variant(renderer, spec, ORIGINAL_SETTING)
    base_items = {i.index: i.box for i in base.items}
    assert base.target == base_items[0] and len(base.items) == 9
    without_target = base_dom.replace(base_dom[base_dom.index('<li class="card" id="target">'):
                                               base_dom.index("</li>", base_dom.index('id="target"')) + 5], "")
    for setting in paper_table():
        shot, dom = inspect_variant(renderer, spec, setting)
        target = next(i for i in shot.items if i.target)
        assert shot.target == target.box, setting.name  # the gold box is the target's own box in this variant
        if setting.family in MOVES:
            # the page is the same page with the target elsewhere: remove it and nothing else differs
            moved = dom.replace(dom[dom.index('<li class="card" id="target">'):
                                    dom.index("</li>", dom.index('id="target"')) + 5], "")
            assert moved == without_target, setting.name
            assert dom != base_dom, setting.name
            continue
        assert dom == base_dom, f"{setting.name} changed the page's DOM"
        prop = patch_for(setting).property
        assert _computed(setting) in shot.style[prop], f"{setting.name}: {prop} is {shot.style[prop]}"
        if setting.name != "fontSize_18px":  # the card's text is 18px already (as on the paper's Amazon page)
            assert shot.style[prop] != base.style[prop], f"{setting.name}: {prop} unchanged"
        others = {k: v for k, v in shot.style.items() if k != prop}
        assert others == {k: v for k, v in base.style.items() if k != prop} or setting.family in (
            "fontSize", "card_size"), setting.name  # only the family's own property differs
        if setting.family not in ("fontSize", "card_size", "fontFamily"):  # these resize the card: the list moves
            assert {i.index: i.box for i in shot.items} == base_items, f"{setting.name} moved other items"
    by = {s.name: s for s in paper_table()}
    last, _ = inspect_variant(renderer, spec, by["order_last"])
    assert last.target[1] > max(i.box[1] for i in last.items if not i.target)
    middle, _ = inspect_variant(renderer, spec, by["order_middle"])
    above = sum(i.box[1] < middle.target[1] for i in middle.items if not i.target)
    assert above == 4  # 8 other cards: the target sits in the middle
    aside, _ = inspect_variant(renderer, spec, by["position_sidebar"])
    assert aside.target[2] <= 262 and aside.target[1] >= 80  # inside the 260 px sidebar, under the header
    bigger, _ = inspect_variant(renderer, spec, by["card_size_scale_1.5"])
    height = lambda b: b[3] - b[1]  # noqa: E731  (a card as wide as its list keeps its width: zoom grows its content)
    assert height(bigger.target) == pytest.approx(1.5 * height(base.target), rel=0.03)


class _Counting(BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self):
        _Counting.hits.append(self.path)
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.mark.parametrize("scripts", [False, True])
def test_a_page_that_asks_the_network_renders_offline_and_nothing_leaves_the_browser(renderer, tmp_path, project,
                                                                                     scripts):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Counting)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    udp.settimeout(0.5)
    port = server.server_address[1]
    url = f"http://127.0.0.1:{port}"
    _Counting.hits = []
    head = (f'<link rel="stylesheet" href="{url}/site.css"><script src="{url}/track.js"></script>'
            f'<script>fetch("{url}/beacon").catch(() => null); try {{ new WebSocket("ws://127.0.0.1:{port}/ws") }}'
            f' catch (e) {{}}; try {{ const pc = new RTCPeerConnection({{iceServers: [{{urls: '
            f'"stun:127.0.0.1:{udp.getsockname()[1]}"}}]}}); pc.createDataChannel("x"); '
            f'pc.createOffer().then(o => pc.setLocalDescription(o)) }} catch (e) {{}}</script>'
            f'<style>header {{ background-image: url("{url}/bg.png") }}</style>')
    folder = write_shop(tmp_path / "shop", extra_head=head)
    try:
        spec = spec_for(str(folder), "#target", target_name="Alpha 14 laptop", scripts=scripts)
        report = generate_study(project, renderer, spec, [Setting("background", "#ff9800")])
        time.sleep(1.0)  # a WebSocket or STUN packet would have arrived by now
        with pytest.raises(socket.timeout):
            udp.recvfrom(2048)
    finally:
        server.shutdown()
        udp.close()
    assert _Counting.hits == []
    assert report.added == ["original", "background_ff9800"]
    assert f"{url}/site.css" in report.blocked and (f"{url}/track.js" in report.blocked) == scripts
    assert any("outside requests blocked" in line for line in report.lines())
    stored = variants(project, "shop")
    assert [v.setting for v in stored] == ["original", "background_ff9800"]
    assert stored[0].review_status == "accepted" and stored[1].review_status == "pending"
    assert stored[0].target is not None and stored[0].height >= 2700
    assert scroll_positions(stored[0].height)[-1] == stored[0].height - 1200  # the bottom is reachable


def test_a_target_selector_that_matches_nothing_is_said_and_nothing_is_stored(renderer, tmp_path, project):
    folder = write_shop(tmp_path / "shop", target_id="first")  # the page was saved again: the id changed
    spec = spec_for(str(folder), "#target")
    before = snapshot(project)
    with pytest.raises(PageError, match=r"the target selector #target matches nothing on this page"):
        generate_study(project, renderer, spec, paper_table()[:3])
    assert snapshot(project) == before


def test_a_setting_the_page_cannot_take_is_reported_and_the_others_are_made(renderer, tmp_path, project):
    folder = write_shop(tmp_path / "shop")
    html = (folder / "index.html").read_text().replace("<aside>Filters</aside>", "")
    (folder / "index.html").write_text(html)
    report = generate_study(project, renderer, spec_for(str(folder), "#target"),
                            [Setting("position", "sidebar"), Setting("order", "last")])
    assert report.added == ["original", "order_last"]
    assert "no sidebar" in report.failed["position_sidebar"]
    again = generate_study(project, renderer, spec_for(str(folder), "#target"), [Setting("order", "last")])
    assert again.added == [] and again.kept == ["original", "order_last"]  # verdicts already given are kept


def test_scroll_positions_cover_both_ends():
    assert scroll_positions(1000) == [0]
    assert scroll_positions(3000) == [0, 600, 1200, 1800]
    assert scroll_positions(3054) == [0, 54, 600, 654, 1200, 1254, 1800, 1854]


def test_a_page_source_that_is_not_a_page_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(PageError, match="not an HTML page"):
        spec_for(str(tmp_path / "notes.txt"), "#x")
    with pytest.raises(PageError, match="no such file"):
        spec_for(str(tmp_path / "gone.html"), "#x")
    (tmp_path / "two").mkdir()
    (tmp_path / "two" / "a.html").write_text("<p>a")
    (tmp_path / "two" / "b.html").write_text("<p>b")
    with pytest.raises(PageError, match="index.html or exactly one .html file"):
        spec_for(str(tmp_path / "two"), "#x")
    with pytest.raises(PageError, match="give the target's CSS selector"):
        spec_for(str(tmp_path / "two" / "a.html"), "")


def test_our_demo_pages_render_offline_with_their_target_first_in_a_long_list(renderer):
    from desktop_app.vaf.pages import demo_pages

    pages = demo_pages()
    assert {p.name for p in pages} == {"laptops", "headphones", "hotels_city", "hotels_park", "news"}
    for spec in pages:
        shot = render_variant(renderer, spec, ORIGINAL_SETTING)
        assert shot.blocked == [] and shot.warnings == [], spec.name
        assert 12 <= len(shot.items) <= 24 and shot.items[0].target, spec.name
        assert 3000 <= shot.height <= 6000 and shot.target[1] < 1200, spec.name  # the target is in the first view
        assert spec.target_name and spec.target_name.split()[0] in shot.items[0].text, spec.name


def test_a_selector_that_is_not_css_and_a_second_page_under_the_same_name_are_said(renderer, tmp_path, project):
    folder = write_shop(tmp_path / "shop")
    with pytest.raises(PageError, match=r"the target selector li:nth\(1\) is not valid CSS"):
        generate_study(project, renderer, spec_for(str(folder), "li:nth(1)"), [])
    generate_study(project, renderer, spec_for(str(folder), "#target"), [])
    other = write_shop(tmp_path / "elsewhere" / "shop")
    (other / "index.html").write_text((other / "index.html").read_text().replace("Alpha 14", "Omega 9"))
    with pytest.raises(PageError, match="a study named 'shop' already holds variants of another page"):
        generate_study(project, renderer, spec_for(str(other), "#target"), [Setting("order", "last")])
    with pytest.raises(SettingsError, match="row 1: background value"):  # a value is never pasted into the CSS raw
        generate_study(project, renderer, spec_for(str(folder), "#target"),
                       [Setting("background", "red} body{display:none")])
    (folder / "index.html").write_text((folder / "index.html").read_text().replace("Beta 15", "Beta 16"))
    stored = variants(project, "shop")[0]
    with pytest.raises(PageError, match="changed since its variants were made"):
        render_viewport(renderer, stored.page, stored.as_setting, 600)
    assert len(variants(project, "shop")) == 1
