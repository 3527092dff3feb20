"""The Sphinx action grammar (Table 2 of Ran et al. 2025), read strictly from an agent's answer.

  element form       click [3]   longclick [3]   text [3] [hello world]   swipe [3] [up|down|left|right]
  coordinate form    click [x,y] longclick [x,y] text [x,y] [hello world] swipe [x1,y1] [x2,y2]
  system (both)      press [back|home|restart|wait|enter|stop]

`input [3] [hello]` (the focused-context prompt's spelling) is the text action too. The agent may reason
first: the action is taken from the LAST line that starts with a verb (click, longclick, text, input,
swipe, press; leading and trailing spaces ignored), and that line must be exactly one action: no markdown
fences or quotes around it, no words after it. Tags and coordinates are whole non-negative numbers.

Stricter than the authors' parser on purpose (theirs looks for the text between the last pair of ```
fences, ignores words after the action, and accepts `press [none]` and `[direction=up]`): a format error
is counted, not guessed away.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from desktop_app.a11y.tree import UiTree
from desktop_app.capability.evaluators import SYSTEM_TYPES, evaluator_type

VERBS = ("click", "longclick", "text", "input", "swipe", "press")
KEYS = ("back", "home", "restart", "wait", "enter", "stop")
DIRECTIONS = ("up", "down", "left", "right")
FORMS = ("element", "coordinate")

_VERB = "|".join(VERBS)
_VERB_LINE = re.compile(rf"^(?:{_VERB})(?=[\s\[]|$)")
_ADORNED = re.compile(rf"[`'\"*](?:{_VERB})[ \t]*\[")  # an action wrapped in markdown or quotes
_GAP = r"[ \t]+"
_TAG = r"\[[ \t]*(\d+)[ \t]*\]"
_POINT = r"\[[ \t]*(\d+)[ \t]*,[ \t]*(\d+)[ \t]*\]"
_TEXT = r"\[(.*)\]"  # greedy: the typed text runs to the last bracket of the line and may hold brackets
_PATTERNS = {
    ("element", "click"): re.compile(rf"^(click|longclick){_GAP}{_TAG}$"),
    ("element", "text"): re.compile(rf"^(text|input){_GAP}{_TAG}{_GAP}{_TEXT}$"),
    ("element", "swipe"): re.compile(rf"^(swipe){_GAP}{_TAG}{_GAP}\[[ \t]*(\w+)[ \t]*\]$"),
    ("coordinate", "click"): re.compile(rf"^(click|longclick){_GAP}{_POINT}$"),
    ("coordinate", "text"): re.compile(rf"^(text|input){_GAP}{_POINT}{_GAP}{_TEXT}$"),
    ("coordinate", "swipe"): re.compile(rf"^(swipe){_GAP}{_POINT}{_GAP}{_POINT}$"),
}
_PRESS = re.compile(rf"^press{_GAP}\[[ \t]*(\w*)[ \t]*\]$")
_EXPECTED = {
    ("element", "click"): "{verb} [i] with an element number, e.g. {verb} [3]",
    ("element", "text"): "{verb} [i] [text], e.g. {verb} [3] [hello world]",
    ("element", "swipe"): "swipe [i] [direction] with up, down, left or right, e.g. swipe [3] [up]",
    ("coordinate", "click"): "{verb} [x,y] with pixel coordinates, e.g. {verb} [540,960]",
    ("coordinate", "text"): "{verb} [x,y] [text], e.g. {verb} [540,960] [hello world]",
    ("coordinate", "swipe"): "swipe [x1,y1] [x2,y2], e.g. swipe [540,1500] [540,500]",
}


class GrammarError(ValueError):
    """An answer that is not one action of the grammar; the message says what was expected."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class ParsedAction:
    kind: str  # click, longclick, text, swipe, or a key: back, home, restart, wait, enter, stop
    element: int | None  # the [i] tag (element form)
    point: tuple[int, int] | None  # coordinate form: the point, the swipe's start
    point2: tuple[int, int] | None  # coordinate swipe: its end
    text: str | None  # text actions
    direction: str | None  # element swipes
    raw: str  # the action line as written


def action_line(answer: str) -> str:
    """The last line of the answer that starts with a verb (stripped); GrammarError when there is none."""
    lines = [line.strip() for line in (answer or "").splitlines()]
    chosen = [line for line in lines if _VERB_LINE.match(line)]
    if chosen:
        return chosen[-1]
    hint = ""
    if any(_ADORNED.search(line) for line in lines):
        hint = (" (an action was found inside quotes, backticks or asterisks: write it bare at the start of "
                "its line)")
    raise GrammarError(f"no line starts with an action ({', '.join(VERBS)}); expected a last line such as "
                       f"`click [3]` or `press [back]`{hint}")


def parse_action(answer: str, form: str = "element") -> ParsedAction:
    """The action of an answer in the given form ("element": [i] tags, "coordinate": [x,y] pixels)."""
    if form not in FORMS:
        raise ValueError(f"form must be 'element' or 'coordinate', not {form!r}")
    line = action_line(answer)
    verb = _VERB_LINE.match(line).group(0)
    if verb == "press":
        found = _PRESS.match(line)
        if not found or found.group(1) not in KEYS:
            raise GrammarError(f"expected press [key] with one of {', '.join(KEYS)}, e.g. press [back]; "
                               f"got {line!r}")
        return ParsedAction(found.group(1), None, None, None, None, None, line)
    family = {"click": "click", "longclick": "click", "text": "text", "input": "text", "swipe": "swipe"}[verb]
    found = _PATTERNS[(form, family)].match(line)
    if found is None:
        other = "coordinate" if form == "element" else "element"
        wrong_form = _PATTERNS[(other, family)].match(line) is not None
        note = f" (this is the {other} form; this observation takes the {form} form)" if wrong_form else ""
        expected = _EXPECTED[(form, family)].format(verb=verb)
        raise GrammarError(f"expected {expected}; got {line!r}{note}")
    groups = found.groups()
    kind = "text" if family == "text" else groups[0]
    if form == "element":
        tag = int(groups[1])
        if family == "swipe":
            if groups[2] not in DIRECTIONS:
                raise GrammarError(f"expected a swipe direction up, down, left or right; got {groups[2]!r} "
                                   f"in {line!r}")
            return ParsedAction(kind, tag, None, None, None, groups[2], line)
        return ParsedAction(kind, tag, None, None, groups[2] if family == "text" else None, None, line)
    point = (int(groups[1]), int(groups[2]))
    if family == "swipe":
        return ParsedAction(kind, None, point, (int(groups[3]), int(groups[4])), None, None, line)
    return ParsedAction(kind, None, point, None, groups[3] if family == "text" else None, None, line)


def to_trace_action(parsed: ParsedAction, tree: UiTree) -> dict:
    """The action in the authors' meta.json shape. An element tag is resolved through the screen's `[i]`
    tags (a11y/observe.py: the interactable nodes in document order); an unknown tag is a GrammarError."""
    element = None
    if parsed.element is not None:
        nodes = tree.interactable()
        if not 0 <= parsed.element < len(nodes):
            known = f"tags 0 to {len(nodes) - 1}" if nodes else "no element can be acted on"
            raise GrammarError(f"no element [{parsed.element}] on this screen ({known})")
        element = dict(nodes[parsed.element].attrs)
    action = {"type": "input" if parsed.kind == "text" else parsed.kind, "element": element,
              "coords": list(parsed.point) if parsed.point is not None else None,
              "message": parsed.text or "", "direction": parsed.direction or ""}
    if parsed.point2 is not None:
        action["coords_to"] = list(parsed.point2)  # a coordinate swipe's end
    return action


def same_action(a: dict, b: dict, keys: tuple[str, ...] = ("bounds",)) -> bool:
    """The authors' repetition test on two trace actions: same type (in the evaluator's names, so home and
    restart are one); system actions are then equal; text actions also need the same text; element actions
    compare the element's attributes in `keys` (their agent, which stops a run after three repeats, compares
    bounds only; their reported repetition rate compares more, see metrics.REPORT_KEYS); coordinate actions
    compare coordinates. An element action never equals a coordinate one. Swipe directions are not
    compared (neither do the authors)."""
    kind = evaluator_type(a)
    if kind != evaluator_type(b):
        return False
    if kind in SYSTEM_TYPES:
        return True
    if kind == "input" and (a.get("message") or "") != (b.get("message") or ""):
        return False
    first, second = a.get("element"), b.get("element")
    if bool(first) != bool(second):
        return False
    if first:
        return all(first.get(key) == second.get(key) for key in keys)
    return _points(a) == _points(b)


def _points(action: dict) -> list:
    coords = action.get("coords") or []
    points = [list(p) for p in coords] if coords and isinstance(coords[0], list | tuple) else [list(coords)]
    if action.get("coords_to"):
        points.append(list(action["coords_to"]))
    return points
