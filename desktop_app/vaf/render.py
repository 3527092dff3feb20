"""A variant in the browser: the page patched, measured, and shot.

One render loads the page, applies the setting (resources/vaf/variant.js: the target marked, the CSS
added, the node moved), waits for fonts and layout and reads the target's and the items' boxes in page
coordinates. A study shoots the full page and its first viewport; a browsing trial shoots the viewport
at its scroll position, from the same patched page (so sticky headers are where a user would see them).
"""

from __future__ import annotations

import json
import weakref
from dataclasses import dataclass, field
from functools import cache

from desktop_app.paths import resources_dir
from desktop_app.render.renderer import Renderer, Viewport
from desktop_app.vaf.pages import PageError, PageSpec, load_page, page_file
from desktop_app.vaf.patch import FONT_PATH, patch_for
from desktop_app.vaf.settings import Setting

VIEWPORT = Viewport("vaf", 1280, 1200)  # the paper's browsing window
SCROLL_STEP = 600
MAX_PAGE_HEIGHT = 30000  # a page taller than this is refused (an endless feed would never end)


@cache
def _script() -> str:
    return (resources_dir() / "vaf" / "variant.js").read_text(encoding="utf-8")


@cache
def _fonts() -> dict[str, bytes]:
    folder = resources_dir() / "vaf" / "fonts"
    return {FONT_PATH + f.name: f.read_bytes() for f in folder.glob("*.woff2")} if folder.is_dir() else {}


@dataclass
class Item:
    index: int  # in the page's original order
    box: tuple[float, float, float, float] | None
    text: str
    target: bool = False


@dataclass
class VariantShot:
    width: int
    height: int  # the page's full height
    target: tuple[float, float, float, float] | None  # page coordinates
    items: list[Item]
    style: dict  # the target's computed style (background-color, color, font-family, font-size, zoom, filter)
    full_jpeg: bytes = b""  # the whole page (JPEG: see render_variant)
    first_png: bytes = b""  # the first viewport (scroll 0), PNG
    warnings: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)  # outside requests the page made (aborted)


_loaded: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # renderer -> (load number, page key)


def _page_key(spec: PageSpec) -> str:
    return json.dumps([spec.source, spec.target, spec.items, spec.slots, spec.scripts, spec.sha256], sort_keys=True)


def _open(renderer: Renderer, spec: PageSpec, setting: Setting):
    """The renderer's page showing this variant. The page is loaded once and re-patched for each setting
    (variant.js undoes the previous one first): loading it again, with its assets answered one request
    at a time, cost most of a render. Loaded afresh when something else used the renderer since."""
    patch = patch_for(setting)
    loaded = load_page(spec.source)  # read every time (a small file): a page edited since is caught at once
    if spec.sha256 and loaded.sha256 != spec.sha256:
        raise PageError(f"{spec.name}: {page_file(spec.source)} changed since its variants were made; "
                        f"make a new study of it (its variants would not match what the trials show)")
    if _loaded.get(renderer) != (renderer.loads, _page_key(spec)):
        renderer.open(loaded.html, VIEWPORT, files=_fonts(), assets=loaded.assets, scripts=spec.scripts)
        _loaded[renderer] = (renderer.loads, _page_key(spec))
    page = renderer.page
    try:
        result = page.evaluate(_script(), {"op": "apply", "target": spec.target, "items": spec.items,
                                           "slots": spec.slots, "family": setting.family,
                                           "checkFont": setting.family == "fontFamily", **patch.spec()})
    except BaseException:
        _loaded.pop(renderer, None)
        renderer.drop()
        raise
    if result.get("error"):
        raise PageError(f"{spec.name} ({setting.name}): {result['error']}")
    if result["height"] > MAX_PAGE_HEIGHT:
        raise PageError(f"{spec.name}: the page is {result['height']} px tall (at most {MAX_PAGE_HEIGHT})")
    return page, result


def _shot(result: dict, blocked: list[str]) -> VariantShot:
    return VariantShot(
        width=VIEWPORT.width, height=int(result["height"]),
        target=tuple(result["target"]) if result["target"] else None,
        items=[Item(i["index"], tuple(i["box"]) if i["box"] else None, i["text"], i["target"]) for i in result["items"]],
        style=result["style"] or {}, warnings=list(result.get("warnings", [])), blocked=sorted(set(blocked)))


def render_variant(renderer: Renderer, spec: PageSpec, setting: Setting) -> VariantShot:
    """The variant measured and shot: full page (1280 wide) and first viewport."""
    page, result = _open(renderer, spec, setting)
    try:
        # the full page is for people (review, click map): JPEG encodes in half the time of a PNG this tall;
        # what agents see (the viewports) stays PNG
        full = renderer.capture(full_height=int(result["height"]), jpeg_quality=90)
        first = renderer.capture()  # faster than a crop of `full`
    except BaseException:
        _loaded.pop(renderer, None)
        renderer.drop()
        raise
    shot = _shot(result, renderer.blocked)
    shot.full_jpeg, shot.first_png = full, first
    if shot.target is None:
        shot.warnings.append("the target is not visible in this variant")
    return shot


def render_viewport(renderer: Renderer, spec: PageSpec, setting: Setting, scroll_y: int) -> tuple[bytes, VariantShot]:
    """The viewport at a scroll position (a browsing trial's screen) and the boxes measured there."""
    page, result = _open(renderer, spec, setting)
    try:
        result = page.evaluate(_script(), {"op": "measure", "scroll": scroll_y})
        if abs(result["scroll"] - scroll_y) > 1:  # the clicks of this screen would be mapped wrongly
            raise PageError(f"{spec.name} ({setting.name}): the window scrolls to {result['scroll']:.0f} px, not "
                            f"{scroll_y} px (the page scrolls inside an element, or its height changed)")
        png = renderer.capture()
        page.evaluate("window.scrollTo(0, 0)")
    except BaseException:
        _loaded.pop(renderer, None)
        renderer.drop()
        raise
    return png, _shot(result, renderer.blocked)


def pick_target(renderer: Renderer, source: str, x: float, y: float, scripts: bool = False) -> dict | None:
    """The card under a point of the full-page shot: {"selector", "text", "box", "items"} or None."""
    loaded = load_page(source)
    page = renderer.open(loaded.html, VIEWPORT, files=_fonts(), assets=loaded.assets,  # a fresh page: not patched
                         scripts=scripts)
    try:
        return page.evaluate(_script(), {"op": "pick", "x": x, "y": y})
    except BaseException:
        renderer.drop()
        raise


def inspect_variant(renderer: Renderer, spec: PageSpec, setting: Setting) -> tuple[VariantShot, str]:
    """The variant measured (no pictures) and its DOM without our marks: what a test compares with the
    original's to see that a setting changed only what it claims."""
    page, result = _open(renderer, spec, setting)
    try:
        dom = page.evaluate(_script(), {"op": "dom"})
    except BaseException:
        _loaded.pop(renderer, None)
        renderer.drop()
        raise
    return _shot(result, renderer.blocked), dom
