"""An agent acting in a live page: what it is shown of the page, and its parsed answer performed there.

The page is opened as a recording's is (record/browser.py: our offline routing, the page scripts, the
desktop viewport at scale 1, so screenshot pixels are the page's CSS pixels), and a snapshot is taken as the
recorder takes one (sensitive fields painted over, the tree, the actionable elements). An answer, parsed in
the agent's convention (agents/conventions: points in screenshot pixels), is done with the mouse and keyboard
a person would use: a click at its point, typing into the field at the point (or the focused one), a wheel
scroll, a key, Back. An element named by text (a text convention) is the visible actionable element with
that text. Whatever cannot be done (nothing named so on the page, an app to open) is said, not raised: the
agent sees the unchanged page next and may recover. Every call here runs in the one thread that owns the
browser (Playwright's sync API).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from desktop_app.agents.actions import ParsedAction
from desktop_app.record.browser import VIEWPORT, new_context
from desktop_app.record.final_state import Verdict, check
from desktop_app.record.page_script import HELPERS
from desktop_app.record.recorder import Snapshot, take_snapshot
from desktop_app.record.site import Site

SCROLL_PX = 600  # one wheel scroll: half a viewport and a bit, as VAF's browsing trials scroll
SETTLE_MS = 250  # after an action, time for the navigation it started to begin before waiting for its load
POINTER = ("click", "double_click", "right_click", "long_press", "hover")
KEYS = {"enter": "Enter", "return": "Enter", "tab": "Tab", "esc": "Escape", "escape": "Escape",
        "backspace": "Backspace", "delete": "Delete", "space": " ", "up": "ArrowUp", "down": "ArrowDown",
        "left": "ArrowLeft", "right": "ArrowRight", "pageup": "PageUp", "pagedown": "PageDown", "home": "Home",
        "end": "End", "ctrl": "Control", "control": "Control", "alt": "Alt", "shift": "Shift", "cmd": "Meta",
        "meta": "Meta"}

# what both lookups below say of the element found (marked data-sl-live, for the actions that follow)
_DESCRIBED = """
  if (!el || el === document.body || el === document.documentElement) return null;
  el.setAttribute('data-sl-live', '');
  const d = window.__sl.describe(el);
  d.editable = el.isContentEditable || el.localName === 'textarea' || (el.localName === 'input' &&
    !['checkbox', 'radio', 'button', 'submit', 'reset', 'file', 'range', 'color', 'image'].includes(d.type));
  d.options = el.localName === 'select' ? Array.from(el.options, o => [o.value, window.__sl.squash(o.textContent)]) : [];
  return d;
}"""
_UNMARK = "document.querySelectorAll('[data-sl-live]').forEach(e => e.removeAttribute('data-sl-live'));"
_AT = """([x, y]) => {
  """ + _UNMARK + """
  const hit = document.elementFromPoint(x, y);
  if (!hit) return null;
  const el = window.__sl.actionable(hit);""" + _DESCRIBED
_FOCUSED = """() => {
  """ + _UNMARK + """
  const el = document.activeElement;""" + _DESCRIBED


@dataclass(frozen=True)
class Performed:
    """What an answer did in the page, in words (the history the agent reads, the trajectory's action)."""

    kind: str  # the trajectory's kind: click | type | scroll | key | back | stop | other
    text: str  # "clicked 'Sign in' at (640, 412)"
    element: str = ""  # the acted element's text ("" when none)
    done: bool = True  # False: nothing could be done; text says why


def _quote(text: str) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= 60 else text[:57] + "...")


def _where(point) -> str:
    return f"({point[0]:.0f}, {point[1]:.0f})"


def key_name(key: str) -> str:
    """An agent's key ("enter", "ctrl+a", "Page Down") as Playwright names it ("Enter", "Control+a", "PageDown")."""
    parts = [p.strip() for p in key.replace(" ", "").split("+") if p.strip()] if key.strip() != "+" else ["+"]
    return "+".join(KEYS.get(p.lower(), p if len(p) == 1 else p[:1].upper() + p[1:]) for p in parts)


class LivePage:
    """One task's page: its own context (cookies, history) on the execution's browser."""

    def __init__(self, browser, site: Site, viewport: tuple[int, int] = VIEWPORT):
        self.site = site
        self.viewport = viewport
        self.sensitive_names: set[str] = set()
        self.context = new_context(browser, site, [HELPERS], viewport)
        self.page = self.context.new_page()
        self.context.on("page", self._opened)

    def _opened(self, page) -> None:
        self.page = page  # a link that opens a new tab: the agent goes on in the tab it opened

    def open(self) -> None:
        self.page.goto(self.site.start_url, wait_until="load")

    def close(self) -> None:
        with contextlib.suppress(Exception):  # the browser is already gone (the execution is closing)
            self.context.close()

    # -- what the agent sees ---------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        for _ in range(3):  # the page may be between two documents: again once it has loaded
            try:
                self.page.wait_for_load_state("load")
                self.page.evaluate("document.fonts.ready.then(() => null)")
                return take_snapshot(self.page, self.sensitive_names)
            except Exception:
                if self.page.is_closed():
                    raise
                self.page.wait_for_timeout(100)
        return take_snapshot(self.page, self.sensitive_names)

    def check(self, evaluator: dict, tree_xml: str) -> Verdict:
        return check(evaluator, self.page, tree_xml)

    # -- what the agent does ---------------------------------------------------------------------------
    def perform(self, action: ParsedAction, elements: list[dict]) -> Performed:
        """Do the answer; elements: the actionable elements of the snapshot the agent answered on."""
        try:
            done = self._perform(action, elements)
        except Exception as exc:  # a navigation that cut a call short, a key Playwright does not know
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            done = Performed("other", f"{action.action_type} could not be done in the page: {first[:200]}", done=False)
        self._settle()
        return done

    def _settle(self) -> None:
        try:
            self.page.wait_for_timeout(SETTLE_MS)
            self.page.wait_for_load_state("load")
        except Exception:
            if self.page.is_closed() and self.context.pages:
                self.page = self.context.pages[-1]

    def _perform(self, action: ParsedAction, elements: list[dict]) -> Performed:
        kind = action.action_type or "other"
        page = self.page
        point = action.point
        if point is None and action.element and kind in (*POINTER, "type", "select", "drag", "scroll"):
            found = element_named(action.element, elements)
            if found is None:
                return Performed("other", f"{kind}: nothing named {_quote(action.element)} on the page", done=False)
            x1, y1, x2, y2 = found["box"]
            point = ((x1 + x2) / 2, (y1 + y2) / 2)
        if kind in POINTER:
            target = page.evaluate(_AT, list(point)) or {}
            name = target.get("text", "")
            x, y = point
            if kind == "double_click":
                page.mouse.dblclick(x, y)
            elif kind == "right_click":
                page.mouse.click(x, y, button="right")
            elif kind == "hover":
                page.mouse.move(x, y)
            else:  # a long press is a click in a browser
                page.mouse.click(x, y)
            verb = {"double_click": "double-clicked", "right_click": "right-clicked", "hover": "hovered over"}.get(
                kind, "clicked")
            what = _quote(name) if name else "nothing actionable"
            return Performed("click", f"{verb} {what} at {_where(point)}", name)
        if kind in ("type", "select"):
            return self._type(kind, action.text or "", point)
        if kind == "scroll":
            direction = (action.extra.get("direction") or "down").lower()
            dx, dy = {"up": (0, -SCROLL_PX), "down": (0, SCROLL_PX), "left": (-SCROLL_PX, 0),
                      "right": (SCROLL_PX, 0)}.get(direction, (0, SCROLL_PX))
            x, y = point or (self.viewport[0] / 2, self.viewport[1] / 2)
            page.mouse.move(x, y)
            page.mouse.wheel(dx, dy)
            return Performed("scroll", f"scrolled {direction if direction in ('up', 'left', 'right') else 'down'}")
        if kind == "drag":
            end = action.extra.get("end_point")
            if point is None or not end:
                return Performed("other", "drag: no start and end point", done=False)
            page.mouse.move(*point)
            page.mouse.down()
            page.mouse.move(*end, steps=8)
            page.mouse.up()
            return Performed("other", f"dragged from {_where(point)} to {_where(end)}")
        if kind == "key":
            key = key_name(str(action.extra.get("key") or action.text or "Enter"))
            page.keyboard.press(key)
            return Performed("key", f"pressed {key}")
        if kind == "press_back":
            if page.go_back(wait_until="load") is None:
                return Performed("back", "went back: there was no earlier page", done=False)
            return Performed("back", "went back")
        if kind == "wait":
            page.wait_for_timeout(1000)
            return Performed("other", "waited a second")
        return Performed("other", f"{kind}: not something a web page can do", done=False)

    def _type(self, kind: str, text: str, point) -> Performed:
        page = self.page
        if point is not None:
            target = page.evaluate(_AT, list(point))
            if target is not None and not target["options"]:
                page.mouse.click(*point)  # focus it as a person would, then type
        else:
            target = page.evaluate(_FOCUSED)
        if target is None:
            if point is not None:
                page.mouse.click(*point)
            page.keyboard.type(text)
            return Performed("type", f"typed {_quote(text)} with nothing to type into"
                             + (f" at {_where(point)}" if point else ""), done=False)
        name = target.get("text", "")
        field = _quote(name) if name else "a field"
        if target["options"]:
            wanted = text.strip().casefold()
            choice = next((v for v, label in target["options"] if label.casefold() == wanted or v.casefold() == wanted),
                          None)
            if choice is None:
                choice = next((v for v, label in target["options"] if wanted and wanted in label.casefold()), None)
            if choice is None:
                return Performed("type", f"chose {_quote(text)} in {field}: no such option", name, done=False)
            page.locator("[data-sl-live]").first.select_option(choice)
            return Performed("type", f"chose {_quote(text)} in {field}", name)
        shown = "(hidden)" if target.get("sensitive") else _quote(text)
        if target["editable"]:
            page.locator("[data-sl-live]").first.fill(text)
            return Performed("type", f"typed {shown} into {field}", name)
        page.keyboard.type(text)
        return Performed("type", f"typed {shown} at {field}, which is not a field", name, done=False)


def element_named(name: str, elements: list[dict]) -> dict | None:
    """The actionable element a text answer names: the same text (case and spaces aside), else the shortest
    text that holds the name, else the first whose text the name holds ("Input Email" names the Email field)."""
    wanted = " ".join(name.split()).casefold()
    if not wanted:
        return None
    texts = [(" ".join(e.get("text", "").split()).casefold(), e) for e in elements if e.get("box")]
    exact = [e for t, e in texts if t == wanted]
    if exact:
        return exact[0]
    holding = sorted((len(t), i) for i, (t, _) in enumerate(texts) if t and wanted in t)
    if holding:
        return texts[holding[0][1]][1]
    return next((e for t, e in texts if t and t in wanted), None)
