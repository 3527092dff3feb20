"""Model action names -> our ACTION_TYPES.

One shared table, because families reuse the same words (click, type, scroll...). A family passes
overrides only where its word means something else (UI-TARS `select` is a drag-select, not a
drop-down choice). Unknown names become "other": the answer still parsed, we just have no category.
"""

from __future__ import annotations

import re

from desktop_app.agents.actions import ACTION_TYPES

_GROUPS = {
    "click": ("click", "tap", "left_click", "left_single", "single_click", "click_element"),
    "double_click": ("double_click", "left_double", "double_tap", "doubleclick", "dblclick"),
    "right_click": ("right_click", "right_single", "context_click", "rightclick"),
    "long_press": ("long_press", "longpress", "long_click", "long_tap"),
    "hover": ("hover", "mouse_move", "move", "move_to", "moveto"),
    "type": ("type", "type_text", "input", "input_text", "typing", "write", "enter_text"),
    "select": ("select", "select_option"),
    "scroll": ("scroll", "scroll_up", "scroll_down", "scroll_left", "scroll_right", "hscroll", "vscroll"),
    # A swipe has a start and an end point, so it is kept as a drag (the end goes to extra["end_point"]).
    "drag": ("drag", "left_click_drag", "drag_and_drop", "swipe", "select_text"),
    "key": ("key", "hotkey", "press", "keydown", "key_press", "keypress", "press_key", "enter", "press_enter"),
    "press_back": ("press_back", "back", "navigate_back", "go_back"),
    "press_home": ("press_home", "home", "navigate_home", "go_home"),
    "open_app": ("open_app", "open", "launch", "launch_app", "open_application"),
    "wait": ("wait", "sleep"),
    "finished": ("finished", "finish", "done", "complete", "completed", "terminate", "end", "status_task_complete"),
    "ask": ("ask", "call_user", "ask_user"),
}
COMMON: dict[str, str] = {alias: kind for kind, aliases in _GROUPS.items() for alias in aliases}
assert set(COMMON.values()) <= set(ACTION_TYPES)

# Action types that are meaningless without a place on the screen.
POINTING = frozenset({"click", "double_click", "right_click", "long_press", "hover", "drag"})
ASK_NAMES = frozenset(_GROUPS["ask"])
_ENTER_NAMES = frozenset({"enter", "press_enter"})


def normalize(name: str) -> str:
    """'Left Click', 'LEFT-CLICK', 'left_click' -> 'left_click'."""
    return re.sub(r"[\s\-]+", "_", str(name).strip()).lower()


def action_type_for(name: str, overrides: dict[str, str] | None = None) -> str:
    key = normalize(name)
    if overrides and key in overrides:
        return overrides[key]
    return COMMON.get(key, "other")


def known(name: str) -> bool:
    return normalize(name) in COMMON


def direction_from_name(name: str) -> str | None:
    """scroll_down / SCROLL_UP -> 'down' / 'up'."""
    m = re.fullmatch(r"scroll_(up|down|left|right)", normalize(name))
    return m.group(1) if m else None


def implied_key(name: str) -> str | None:
    """ENTER / press_enter carry their key in the name."""
    return "enter" if normalize(name) in _ENTER_NAMES else None
