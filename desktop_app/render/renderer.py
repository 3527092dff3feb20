"""Render our HTML templates in a real browser and read the action boxes from the DOM.

Every action candidate in a template carries `data-sl-label` (gold, distracted,
other) and optionally `data-sl-action`, `data-sl-text` and `data-sl-role`. One
`evaluate` call reads all of them, so the boxes and labels come straight from
the page, with no OCR guesswork. Pages are served from a fake origin through
request routing: the browser never touches the network or the file system.
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import threading
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

from desktop_app.paths import resources_dir
from desktop_app.render.browser import check_browser_before_driver, find_browser, launch_args

ORIGIN = "http://screenlab.invalid"
# A fixed map: mimetypes reads the Windows registry, which can hold wrong types.
_TYPES = {".css": "text/css", ".js": "text/javascript", ".woff2": "font/woff2", ".woff": "font/woff",
          ".ttf": "font/ttf", ".svg": "image/svg+xml", ".png": "image/png", ".jpg": "image/jpeg",
          ".jpeg": "image/jpeg", ".webp": "image/webp", ".json": "application/json", ".html": "text/html"}


@dataclass(frozen=True)
class Viewport:
    name: str
    width: int
    height: int


DESKTOP = Viewport("desktop", 1280, 800)
MOBILE = Viewport("mobile", 412, 915)
VIEWPORTS = {v.name: v for v in (DESKTOP, MOBILE)}


@dataclass
class MarkedElement:
    label: str
    action: str
    text: str
    role: str
    box: tuple[float, float, float, float] | None  # None: outside the visible screen
    covered: bool = False  # another element lies on top of its centre


@dataclass
class Rendered:
    png: bytes
    width: int
    height: int
    elements: list[MarkedElement] = field(default_factory=list)


# Boxes are page coordinates clipped to the screenshot; an element scrolled out of
# view has no box (the EnvDistraction files call that "<oos>").
_READ_MARKED = """
async () => {
  // fonts.ready only covers fonts already requested: load every declared face first,
  // so boxes are measured with the same font the screenshot shows
  await Promise.all(Array.from(document.fonts, f => f.load().catch(() => null)));
  await document.fonts.ready;
  document.body.getBoundingClientRect();  // force layout
  const W = window.innerWidth, H = window.innerHeight;
  const out = [];
  for (const el of document.querySelectorAll('[data-sl-label]')) {
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility === 'hidden' || parseFloat(style.opacity) === 0) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    const x1 = Math.max(0, r.left), y1 = Math.max(0, r.top);
    const x2 = Math.min(W, r.right), y2 = Math.min(H, r.bottom);
    const inside = x2 - x1 >= 1 && y2 - y1 >= 1;  // a sliver at the edge is not a visible element
    let covered = false;
    if (inside) {
      const top = document.elementFromPoint((x1 + x2) / 2, (y1 + y2) / 2);
      covered = !(top && (el === top || el.contains(top) || top.contains(el)));
    }
    const text = (el.dataset.slText || el.innerText || el.value || el.placeholder
                  || el.getAttribute('aria-label') || '').replace(/\\s+/g, ' ').trim();
    out.push({
      label: el.dataset.slLabel, action: el.dataset.slAction || 'click', role: el.dataset.slRole || '',
      text: text, covered: covered,
      box: inside ? [x1 + window.scrollX, y1 + window.scrollY, x2 + window.scrollX, y2 + window.scrollY] : null,
    });
  }
  return out;
}
"""


# WebRTC sends STUN over UDP, which neither request routing nor the dead proxy of launch_args() stops
# (Chromium's UDP policy flag did not, here): a page's scripts get no peer connections at all.
_NO_PEER_CONNECTIONS = """
for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCDataChannel', 'RTCIceCandidate']) {
  try { Object.defineProperty(window, name, {value: undefined, writable: false, configurable: false}); } catch (e) {}
}
"""

_drivers = threading.local()


def _playwright():
    """One Playwright driver per thread, shared by every Renderer in it: the sync API allows
    only one per thread (a second start fails with "Sync API inside the asyncio loop")."""
    pw = getattr(_drivers, "pw", None)
    if pw is None:
        from playwright.sync_api import sync_playwright

        from desktop_app.render.node_runtime import ensure_node

        ensure_node()  # an installer's Node.js ships compressed
        pw = sync_playwright().start()
        _drivers.pw = pw
        atexit.register(_stop, pw)
    return pw


def _stop(pw) -> None:
    with contextlib.suppress(Exception):  # at interpreter exit the driver may already be gone
        pw.stop()


def stop_driver() -> None:
    """Stop this thread's Playwright driver (a Node.js process), for a thread that renders no more
    (a run's browser thread); the next render in the thread starts a new one."""
    pw = getattr(_drivers, "pw", None)
    if pw is not None:
        _drivers.pw = None
        _stop(pw)


class Renderer:
    """One browser, reused for many renders (starting Chromium costs ~0.5 s)."""

    def __init__(self, assets: Path | None = None, browser_path: str = ""):
        self.assets = Path(assets or resources_dir())
        self.browser_path = browser_path
        self._browser = None
        self._context = None
        self._page = None
        self._job: tuple = ("", None, None)  # html, per-render files, asset folder (None: self.assets)
        self.blocked: list[str] = []  # outside requests the current page made (all aborted)
        self._cdp = None  # (page, DevTools session) for capture()
        self._scripts = True  # whether the open page's own scripts run
        self.loads = 0  # pages loaded so far: a caller keeping a loaded page sees when another replaced it

    def __enter__(self) -> Renderer:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def start(self) -> None:
        check_browser_before_driver(self.browser_path)  # no browser: said before the driver is unpacked
        pw = _playwright()
        self._browser = pw.chromium.launch(
            executable_path=find_browser(pw, self.browser_path), args=launch_args(), headless=True)

    def close(self) -> None:
        self._drop_page()
        if self._browser is not None:
            self._browser.close()
            self._browser = None

    def _serve(self, route, html: str, files: dict[str, bytes] | None = None, assets: Path | None = None) -> None:
        url = route.request.url
        if not url.startswith(ORIGIN + "/"):
            if not url.startswith("data:"):
                self.blocked.append(url)
            route.abort()  # offline by construction
            return
        path = unquote(url[len(ORIGIN) + 1:].split("?", 1)[0].split("#", 1)[0])
        if path == "page.html":
            route.fulfill(status=200, content_type="text/html; charset=utf-8", body=html)
            return
        if files and path in files:  # per-render bytes, e.g. a screenshot to draw a pop-up over
            kind = _TYPES.get("." + path.rsplit(".", 1)[-1].lower(), "application/octet-stream")
            route.fulfill(status=200, content_type=kind, body=files[path])
            return
        root = Path(assets or self.assets).resolve()
        file = (root / path).resolve()
        if root not in file.parents or not file.is_file():
            route.fulfill(status=404, body="not found")
            return
        kind = _TYPES.get(file.suffix.lower(), "application/octet-stream")
        route.fulfill(status=200, content_type=kind, body=file.read_bytes())

    def _ready_page(self, scripts: bool = True):
        """One context and page, reused: a new context per render cost ~150 ms. Every render
        navigates afresh, so no page state carries over; the routes read the current job.
        scripts False: the page's own scripts do not run (a saved page is a snapshot: its scripts could
        only change it, loop or call out); our evaluate() calls still do."""
        if self._browser is None:
            self.start()
        if self._page is not None and self._scripts != scripts:
            self._drop_page()
        if self._page is None or self._page.is_closed():
            self._scripts = scripts
            self._context = self._browser.new_context(
                viewport={"width": DESKTOP.width, "height": DESKTOP.height}, device_scale_factor=1,
                locale="en-US", timezone_id="UTC", color_scheme="light", java_script_enabled=scripts)
            self._context.add_init_script(_NO_PEER_CONNECTIONS)
            self._page = self._context.new_page()
            self._page.route("**/*", lambda route: self._serve(route, *self._job))
        return self._page

    def open(self, html: str, viewport: Viewport = DESKTOP, files: dict[str, bytes] | None = None,
             assets: Path | None = None, scripts: bool = True):
        """Load a page and hand back the live Playwright page (the caller evaluates and shoots;
        on an exception it calls drop()). `assets`: the folder its relative URLs are served from;
        `scripts`: whether the page's own scripts run."""
        page = self._ready_page(scripts)
        self._job = (html, files, assets)
        self.blocked = []
        self.loads += 1
        try:
            page.set_viewport_size({"width": viewport.width, "height": viewport.height})
            page.goto(f"{ORIGIN}/page.html", wait_until="load")
        except BaseException:
            self._drop_page()
            raise
        return page

    def capture(self, full_height: int | None = None, jpeg_quality: int | None = None) -> bytes:
        """A screenshot of the open page through the DevTools protocol: the viewport, or the whole page down to
        `full_height`; PNG encoded for speed (half the time of Playwright's screenshot here, same pixels), or
        JPEG at `jpeg_quality`. Chromium-family browsers only, which is all ScreenLab drives."""
        if self._cdp is None or self._cdp[0] is not self._page:
            self._cdp = (self._page, self._page.context.new_cdp_session(self._page))
        params: dict = {"format": "jpeg", "quality": jpeg_quality} if jpeg_quality else {"format": "png",
                                                                                         "optimizeForSpeed": True}
        if full_height:
            width = self._page.viewport_size["width"]
            params.update(captureBeyondViewport=True, clip={"x": 0, "y": 0, "width": width, "height": full_height,
                                                            "scale": 1})
        return base64.b64decode(self._cdp[1].send("Page.captureScreenshot", params)["data"])

    @property
    def page(self):
        """The page open() loaded last (None after drop())."""
        return self._page

    def drop(self) -> None:
        """Forget the page (after a failure: a page in an unknown state is not reused)."""
        self._drop_page()

    def render(self, html: str, viewport: Viewport = DESKTOP, files: dict[str, bytes] | None = None) -> Rendered:
        page = self.open(html, viewport, files)
        try:
            marked = page.evaluate(_READ_MARKED)
            png = page.screenshot(type="png", animations="disabled", caret="hide")
        except BaseException:
            self._drop_page()  # a page in an unknown state is not reused
            raise
        elements = [MarkedElement(m["label"], m["action"], m["text"], m["role"],
                                  tuple(m["box"]) if m["box"] else None, m["covered"]) for m in marked]
        return Rendered(png, viewport.width, viewport.height, elements)

    def _drop_page(self) -> None:
        if self._context is not None:
            with contextlib.suppress(Exception):  # the browser may be gone already
                self._context.close()
        self._context = self._page = None
