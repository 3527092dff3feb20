"""One browsing trial's rules: what an answer means, where a scroll goes, where a click lands.

The prompt asks every model for the same action syntax (Thought, then Action: scroll(...) or
click(start_box='(x,y)'), as the paper did), so answers are read with that syntax; the coordinates are
read in the space of the agent's output convention (UI-TARS' 0-1000 grid, a smart-resized image or
plain pixels all become pixels of the 1280 x 1200 screenshot). Of its actions only two count: scroll up or down, and click. Anything else ends the trial as a format error (a miss).
A scroll moves 600 px and stops at the page's ends; a click is moved to page coordinates by adding
the scroll offset and tested against the target's box, edges included (a click on the border of the
box is on the target). The item a click hit is the smallest item box holding it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from desktop_app.agents.conventions import Geometry, get_convention, uitars
from desktop_app.agents.conventions.base import run as read_with
from desktop_app.agents.conventions.textscan import extract_thought
from desktop_app.vaf.render import SCROLL_STEP, VIEWPORT

SCROLL, CLICK, INVALID = "scroll", "click", "invalid"
ENDED_CLICK, ENDED_CAP, ENDED_FORMAT = "click", "step cap", "format error"
ENDED_ERROR = "error"  # a request failed: the trial is unfinished (written so a user sees why; resume asks again)


@dataclass(frozen=True)
class BrowseAction:
    kind: str  # scroll | click | invalid
    direction: str = ""  # up | down (scroll)
    point: tuple[float, float] | None = None  # click: pixels of the screenshot
    thought: str = ""
    error: str = ""  # why an answer is invalid

    def to_json(self) -> dict:
        out = asdict(self)
        out["point"] = list(self.point) if self.point else None
        return out


def read_answer(text: str, convention: str, resize: dict | None = None) -> BrowseAction:
    """The action an answer takes, in screenshot pixels. Never raises on the model's text."""
    conv = get_convention(convention)
    parsed = read_with(uitars.parse, conv.space, conv.resize_defaults, text,
                       Geometry(VIEWPORT.width, VIEWPORT.height, **(resize or {})))
    thought = (parsed.extra or {}).get("thought") or extract_thought(text) or text.split("Action:", 1)[0].strip()
    if parsed.action_type == "scroll":
        direction = str((parsed.extra or {}).get("direction") or "").strip().lower()
        if direction not in ("up", "down"):
            return BrowseAction(INVALID, thought=thought,
                                error=f"scroll direction {direction or '(none)'!r}: only up and down move the page")
        return BrowseAction(SCROLL, direction=direction, thought=thought)
    if parsed.action_type == "click" and parsed.point is not None:
        x, y = float(parsed.point[0]), float(parsed.point[1])
        if not (0 <= x <= VIEWPORT.width and 0 <= y <= VIEWPORT.height):  # the paper: a click within the viewport
            return BrowseAction(INVALID, point=(x, y), thought=thought,
                                error=f"a click at ({x:.0f},{y:.0f}) is outside the {VIEWPORT.width} x "
                                      f"{VIEWPORT.height} screen")
        return BrowseAction(CLICK, point=(x, y), thought=thought)
    what = parsed.action_type or "nothing that parses"
    return BrowseAction(INVALID, thought=thought, error=f"{what}: only scroll(up/down) and click(x,y) are allowed")


def answers_in_pixels(convention: str) -> bool:
    """Whether the convention gives coordinates (a text-answering one names elements: no click to map)."""
    return get_convention(convention).space != "text"


def next_scroll(scroll_y: int, direction: str, page_height: int) -> int:
    bottom = max(0, page_height - VIEWPORT.height)
    moved = scroll_y + (SCROLL_STEP if direction == "down" else -SCROLL_STEP)
    return max(0, min(bottom, moved))


def at_ends(scroll_y: int, page_height: int) -> tuple[bool, bool]:
    """(at the top, at the bottom) of the page."""
    return scroll_y <= 0, scroll_y >= max(0, page_height - VIEWPORT.height)


def to_page(point: tuple[float, float], scroll_y: int) -> tuple[float, float]:
    return point[0], point[1] + scroll_y


def inside(point: tuple[float, float], box) -> bool:
    return box is not None and box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def hit_item(point: tuple[float, float], items) -> int | None:
    """The item a point is in (items: dicts with "index", "box" and "target"): the target when the point
    is in its box (so a click on an edge it shares is the target's, as TCR counts it), else the smallest
    item box holding the point."""
    for i in items:
        if i.get("target") and i.get("box") and inside(point, i["box"]):
            return i["index"]
    holding = [(area(i["box"]), i["index"]) for i in items if i.get("box") and inside(point, i["box"])]
    return min(holding)[1] if holding else None


def coordinate_words(convention: str, resize: dict | None = None) -> tuple[str, tuple]:
    """How the prompt tells the agent its coordinate space, and the scroll point (the screen's centre)
    in that space."""
    conv = get_convention(convention)
    geometry = Geometry(VIEWPORT.width, VIEWPORT.height, **(resize or {})).with_defaults(conv.resize_defaults)
    centre = geometry.from_original(VIEWPORT.width / 2, VIEWPORT.height / 2, conv.space)
    if conv.space == "rel_1":
        return ("Coordinates are fractions of the screenshot's width and height, from (0,0) at the top left "
                "to (1,1) at the bottom right, with two decimals.", tuple(round(v, 2) for v in centre))
    if conv.space in ("rel_1000", "rel_999"):
        top = 1000 if conv.space == "rel_1000" else 999
        return (f"Coordinates are on a grid from (0,0) at the top left of the screenshot to ({top},{top}) at its "
                f"bottom right, as whole numbers.", tuple(round(v) for v in centre))
    if conv.space == "abs_px_resized":
        w, h = geometry.resized()
        return (f"Coordinates are pixels of the screenshot as you receive it ({w} x {h}), as whole numbers.",
                tuple(round(v) for v in centre))
    return (f"Coordinates are pixels of the {VIEWPORT.width} x {VIEWPORT.height} screenshot, as whole numbers.",
            tuple(round(v) for v in centre))


def area(box) -> float:
    return max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])


def describe(action: dict, scroll_y: int) -> str:
    """One line of history for the prompt."""
    if action["kind"] == SCROLL:
        return f"at {scroll_y} px: scrolled {action['direction']}"
    if action["kind"] == CLICK:
        x, y = action["point"]
        return f"at {scroll_y} px: clicked ({round(x)},{round(y)})"
    return f"at {scroll_y} px: an answer that was not an action"
