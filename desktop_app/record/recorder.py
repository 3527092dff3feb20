"""Record a task in a real browser: each action with the screen just before it, its element and the tree.

How the capture goes (one path for a person in a headed window and for a test driving Playwright's own
input headless): the page scripts (page_script.py) report each action through an exposed binding, which
only queues it. Between actions the recorder takes a snapshot of the settled page: its screenshot (fields
that are sensitive painted over), its accessibility tree (render/dom_tree.py) and its actionable elements.
An action becomes a step on the snapshot taken before it; typing into one field stays one step, with the
final text; a click that only put the caret in the field it then types into (or opened the select it then
sets) is that same step. The element's box is the one the page measured when the action happened.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from desktop_app.record.browser import open_session
from desktop_app.record.final_state import write_evaluator
from desktop_app.record.page_script import BAR, HELPERS, HIDE_BAR, LISTENERS
from desktop_app.record.site import Site, open_site
from desktop_app.render.dom_tree import dom_tree_xml

MASK = (156, 163, 175)  # the grey painted over a sensitive field


@dataclass
class Snapshot:
    png: bytes
    tree_xml: str
    info: dict  # page_script snapshot(): url, title, elements, sensitive boxes, heading, scroll


@dataclass
class Action:
    kind: str  # click | type | select | key | scroll | navigate_back | navigate
    before: Snapshot
    element: dict | None
    t: float  # seconds since the recording started
    url: str
    text: str = ""  # the typed text, the chosen option's label, the key
    value: str = ""  # a select's value
    scroll: tuple[int, int] | None = None
    masked: bool = False


@dataclass
class Recording:
    location: str
    start_url: str
    goal: str
    actions: list[Action] = field(default_factory=list)
    final: Snapshot | None = None
    blocked: list[str] = field(default_factory=list)
    viewport: tuple[int, int] = (0, 0)


def masked_png(png: bytes, boxes: Sequence[Sequence[float]]) -> bytes:
    """The screenshot with every sensitive field's box painted over (done before it is kept anywhere)."""
    if not boxes:
        return png
    from PIL import Image, ImageDraw

    image = Image.open(io.BytesIO(png)).convert("RGB")
    draw = ImageDraw.Draw(image)
    for x1, y1, x2, y2 in boxes:
        draw.rectangle([int(x1), int(y1), int(x2 + 0.999) - 1, int(y2 + 0.999) - 1], fill=MASK)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def scrub_url(url: str, names: Sequence[str]) -> str:
    """A URL without the query fields named like a sensitive field (a GET form would put a password there)."""
    if not names:
        return url
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in names]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), parts.fragment))


def _package(url: str) -> str:
    """The tree's package: the host reversed (screenlab.invalid -> invalid.screenlab), as apps are named."""
    host = urlsplit(url).hostname or ""
    parts = [p for p in reversed(host.split(".")) if p]
    name = ".".join("".join(c if c.isalnum() else "_" for c in p) for p in parts)
    return name if name and name[0].isalpha() else "web"


def take_snapshot(page, sensitive_names: set[str]) -> Snapshot:
    """The settled page as it is kept: its screenshot with sensitive fields painted over, its tree and what the
    page script saw (url without sensitive query fields, elements, heading). sensitive_names: the names of the
    sensitive fields seen so far in this session, grown here (a later URL may carry an earlier page's field)."""
    info = page.evaluate("window.__sl.snapshot()")
    png = page.screenshot(type="png", animations="disabled", caret="hide")
    tree = dom_tree_xml(page, _package(page.url))
    sensitive_names.update(info["sensitive_names"])
    info["url"] = scrub_url(info["url"], sorted(sensitive_names))
    return Snapshot(masked_png(png, info["sensitive"]), tree, info)


class Recorder:
    def __init__(self, site: Site, goal: str, headed: bool = False, browser_path: str = ""):
        self.site, self.goal, self.headed = site, goal, headed
        scripts = [HELPERS, LISTENERS] + ([f"({BAR})({_js_string(goal)})"] if headed else [])
        self.session = open_session(site, scripts, headed=headed, browser_path=browser_path)
        self.page = self.session.page
        self.events: list[dict] = []
        self.recording = Recording(site.location, site.start_url, goal, blocked=site.blocked)
        self.stopped = False
        self.started = time.monotonic()
        self.sensitive_names: set[str] = set()
        self._loads = 0
        self._acted_since_load = False
        self.before: Snapshot | None = None
        self.session.context.expose_binding("__slRecord", self._queue)

    def _queue(self, source, event) -> None:
        # called while Python waits in a Playwright call: nothing but queueing here
        if isinstance(event, dict) and source.get("frame") == self.page.main_frame:
            self.events.append(event)

    # -- snapshots ------------------------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        page = self.page
        page.wait_for_load_state("load")
        page.evaluate("document.fonts.ready.then(() => null)")
        if self.headed:
            page.evaluate(HIDE_BAR, "hidden")
        try:
            shot = take_snapshot(page, self.sensitive_names)
        finally:
            if self.headed:
                page.evaluate(HIDE_BAR, "visible")
        self.recording.viewport = tuple(shot.info["viewport"])
        return shot

    def _refresh(self) -> None:
        for _ in range(3):  # the page may be between two documents: try again once it has loaded
            try:
                self.before = self.snapshot()
                return
            except Exception:
                if self.page.is_closed():
                    raise
                self.page.wait_for_timeout(100)
        self.before = self.snapshot()

    # -- events ---------------------------------------------------------------------------------------------
    def pump(self) -> None:
        """Turn the queued events into steps, then snapshot the page they left (the next step's screen)."""
        if not self.events:
            return
        events, self.events = self.events, []
        for event in events:
            self._apply(event)
        if not self.stopped:
            self._refresh()

    def _apply(self, ev: dict) -> None:
        kind = ev.get("kind")
        actions = self.recording.actions
        last = actions[-1] if actions else None
        same = (last is not None and last.element is not None and ev.get("element") is not None
                and last.element["selector"] == ev["element"]["selector"])
        if kind == "stop":
            self.stopped = True
            return
        if kind == "undo":
            if actions:
                self.before = actions.pop().before  # the page is not undone, only the step
            return
        if kind == "load":
            self._loads += 1
            if self._loads > 1:
                if ev.get("nav") == "back_forward":
                    self._add("navigate_back", None, ev)
                elif not self._acted_since_load:  # a page the person opened, not one an action led to
                    self._add("navigate", None, ev, text=ev.get("url", ""))
            self._acted_since_load = False
            return
        self._acted_since_load = True
        element = ev.get("element")
        if kind == "type":
            masked = bool(element and element["sensitive"])
            if same and last.kind in ("type", "click"):
                last.kind, last.text, last.masked = "type", "" if masked else ev.get("value", ""), masked
                return
            self._add("type", element, ev, text="" if masked else ev.get("value", ""), masked=masked)
        elif kind == "select":
            if same and last.kind in ("select", "click"):
                last.kind, last.text, last.value = "select", ev.get("label", ""), ev.get("value", "")
                return
            self._add("select", element, ev, text=ev.get("label", ""), value=ev.get("value", ""))
        elif kind == "scroll":
            to = tuple(int(v) for v in ev["scroll"])
            if last is not None and last.kind == "scroll":
                last.scroll = to
                return
            self._add("scroll", None, ev, scroll=to)
        elif kind == "key":
            self._add("key", element, ev, text=ev.get("key", ""))
        elif kind == "click":
            self._add("click", element, ev)

    def _add(self, kind: str, element: dict | None, ev: dict, **more) -> None:
        if self.before is None:
            self._refresh()
        t = round(time.monotonic() - self.started, 3)
        url = scrub_url(ev.get("url", self.page.url), sorted(self.sensitive_names))
        self.recording.actions.append(Action(kind, self.before, element, t, url, **more))

    # -- driving --------------------------------------------------------------------------------------------
    def open(self) -> None:
        self.page.goto(self.site.start_url, wait_until="load")
        self.page.evaluate("1")  # let the load event reach us
        self.pump()
        if self.before is None:
            self._refresh()

    def settle(self) -> None:
        """Wait for what the last action started (a navigation, a scroll's debounce) and take its events in."""
        self.page.wait_for_load_state("load")
        self.page.wait_for_timeout(200)
        self.pump()

    def run_actions(self, actions: Sequence[Callable]) -> None:
        for act in actions:
            act(self.page)
            self.settle()

    def run_headed(self, should_stop: Callable[[], bool] = lambda: False) -> None:
        """Until the person presses Stop in the bar, closes the window, or should_stop() says so."""
        while not self.stopped and not should_stop():
            try:
                self.page.wait_for_timeout(150)
                self.pump()
            except Exception:
                if self.page.is_closed():
                    return
                raise

    def finish(self) -> Recording:
        try:
            if not self.page.is_closed():
                self.pump()
                self.recording.final = self.before if self.before is not None else self.snapshot()
        finally:
            self.session.close()
        if self.recording.final is None and self.recording.actions:
            self.recording.final = self.before
        return self.recording


def _js_string(text: str) -> str:
    import json

    return json.dumps(text)


def record(location: str, goal: str, actions: Sequence[Callable] | None = None, headed: bool = False,
           browser_path: str = "", should_stop: Callable[[], bool] = lambda: False) -> Recording:
    """A task recorded on `location` (site.open_site): driven by `actions` (callables given the Playwright page,
    e.g. lambda p: p.click("#save")) or, headed, by a person until Stop or the window closes."""
    site = open_site(location)
    recorder = Recorder(site, goal, headed=headed, browser_path=browser_path)
    try:
        recorder.open()
        if actions is not None:
            recorder.run_actions(actions)
        else:
            recorder.run_headed(should_stop)
    except BaseException:
        recorder.session.close()
        raise
    recording = recorder.finish()
    if recording.final is not None:
        recording.final.info["evaluator"] = write_evaluator(recording.final.info)
    return recording
