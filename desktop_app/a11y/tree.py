"""An accessibility tree of one screen, read from an Android uiautomator dump (`N.xml`).

The tree keeps every attribute of every node as the dump wrote it (strings, so export writes the same
values back and the evaluators of the Sphinx benchmark match on the raw text). Nodes are numbered in
document order (pre-order); `search_order` is the order in which the authors' evaluator looks for a
node matching a rule (breadth-first under each top-level node, the system UI left out), kept so our
evaluators pick the same node when several match.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field

BOUNDS = re.compile(r"^\s*\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]\s*$")
SYSTEM_UI = "com.android.systemui"  # status bar and navigation bar: not part of the app's screen
EDIT_TEXT = "android.widget.EditText"
# The attributes a uiautomator dump writes for each node, in its order (export writes them in this order).
ATTRIBUTES = ("index", "text", "resource-id", "class", "package", "content-desc", "checkable", "checked",
              "clickable", "enabled", "focusable", "focused", "scrollable", "long-clickable", "password",
              "selected", "visible-to-user", "bounds")


class TreeError(ValueError):
    """A dump that cannot be read; line and field say where (the caller adds the file)."""

    def __init__(self, message: str, line: int | None = None, field: str | None = None):
        super().__init__(message)
        self.message, self.line, self.field = message, line, field


def parse_bounds(text: str) -> tuple[int, int, int, int]:
    """Android bounds "[x1,y1][x2,y2]" as pixel coordinates; ValueError says what was wrong."""
    match = BOUNDS.match(text or "")
    if not match:
        raise ValueError(f"bounds {text!r} is not of the form [x1,y1][x2,y2]")
    # Bounds that end before they start occur in real dumps (views scrolled far off screen); they are
    # kept as written and simply contain no point.
    x1, y1, x2, y2 = (int(v) for v in match.groups())
    return x1, y1, x2, y2


def format_bounds(box) -> str:
    x1, y1, x2, y2 = (int(round(v)) for v in box)
    return f"[{x1},{y1}][{x2},{y2}]"


@dataclass(slots=True)
class Node:
    id: int  # position in document order
    parent: int  # -1 for a top-level node
    depth: int  # 0 for a top-level node
    attrs: dict[str, str]
    bounds: tuple[int, int, int, int]
    children: list[int] = field(default_factory=list)

    def flag(self, name: str) -> bool:
        return self.attrs.get(name, "false") == "true"

    @property
    def text(self) -> str:
        return self.attrs.get("text", "").strip()

    @property
    def description(self) -> str:
        return self.attrs.get("content-desc", "").strip()

    @property
    def resource_id(self) -> str:
        return self.attrs.get("resource-id", "").strip()

    @property
    def short_id(self) -> str:
        return self.resource_id.split("/")[-1]

    @property
    def cls(self) -> str:
        return self.attrs.get("class", "").strip()

    @property
    def visible(self) -> bool:
        return self.attrs.get("visible-to-user", "true") == "true"

    @property
    def system(self) -> bool:
        return self.attrs.get("package", "") == SYSTEM_UI

    def actions(self) -> tuple[str, ...]:
        """What an agent can do with the node: a text field takes text; otherwise clickable or checkable
        nodes take clicks, long-clickable ones long clicks; scrollable ones take swipes (the benchmark's rule)."""
        found = []
        if self.cls == EDIT_TEXT:
            found.append("text")
        else:
            if self.flag("clickable") or self.flag("checkable"):
                found.append("click")
            if self.flag("long-clickable"):
                found.append("longclick")
        if self.flag("scrollable"):
            found.append("swipe")
        return tuple(found)

    @property
    def interactable(self) -> bool:
        return self.visible and bool(self.actions())

    @property
    def centre(self) -> tuple[int, int]:
        x1, y1, x2, y2 = self.bounds
        return (x1 + x2) // 2, (y1 + y2) // 2

    @property
    def area(self) -> int:
        x1, y1, x2, y2 = self.bounds
        return max(0, x2 - x1) * max(0, y2 - y1)

    def contains(self, x: float, y: float) -> bool:
        x1, y1, x2, y2 = self.bounds
        return x1 <= x <= x2 and y1 <= y <= y2

    def label(self) -> str:
        """A short human name: its text, else its description, else its id, else its class."""
        return self.text or self.description or self.short_id or self.cls.rsplit(".", 1)[-1] or "node"


@dataclass
class UiTree:
    nodes: list[Node]
    roots: list[int]
    rotation: str = "0"

    # -- reading ---------------------------------------------------------------------------------
    @classmethod
    def from_xml(cls, text: str | bytes, max_text: int | None = None) -> UiTree:
        """Parse a uiautomator dump. TreeError names the line and the attribute that is wrong, and one longer
        than `max_text` characters (an importer passes the input budget's; ADR 0039)."""
        import xml.etree.ElementTree as ET  # here: the window imports this module at start, and reads trees later

        parser = ET.XMLPullParser(events=("start", "end"))
        nodes: list[Node] = []
        stack: list[int] = []
        roots: list[int] = []
        rotation = "0"
        seen_root = False
        data = text.encode("utf-8") if isinstance(text, str) else text
        try:
            # Feed line by line so an error's line number is known even for attribute problems.
            for number, line in enumerate(data.splitlines(keepends=True), start=1):
                parser.feed(line)
                for event, elem in parser.read_events():
                    if event == "start" and elem.tag == "hierarchy" and not seen_root:
                        seen_root = True
                        rotation = elem.get("rotation", "0")
                        continue
                    if elem.tag != "node":
                        if event == "start":
                            raise TreeError(f"unexpected element <{elem.tag}>; a uiautomator dump holds "
                                            "<node> elements under <hierarchy>", number)
                        continue
                    if event == "end":
                        stack.pop()
                        elem.clear()
                        continue
                    if not seen_root:
                        raise TreeError("no <hierarchy> element: not a uiautomator dump", number)
                    attrs = dict(elem.attrib)
                    if max_text is not None:
                        for name, value in attrs.items():
                            if len(value) > max_text:
                                raise TreeError(f"node {len(nodes)}'s {name} is {len(value):,} characters; the "
                                                f"limit is {max_text:,}", number, name)
                    try:
                        bounds = parse_bounds(attrs.get("bounds", ""))
                    except ValueError as exc:
                        raise TreeError(str(exc) if "bounds" in attrs else "node has no bounds", number,
                                        "bounds") from None
                    parent = stack[-1] if stack else -1
                    node = Node(len(nodes), parent, len(stack), attrs, bounds)
                    if parent >= 0:
                        nodes[parent].children.append(node.id)
                    else:
                        roots.append(node.id)
                    nodes.append(node)
                    stack.append(node.id)
            parser.close()
        except ET.ParseError as exc:
            line, column = exc.position
            reason = str(exc).split(":")[0]  # expat's words without its own "line N, column M"
            raise TreeError(f"not well-formed XML: {reason} at column {column + 1}", line) from None
        if not seen_root:
            raise TreeError("no <hierarchy> element: not a uiautomator dump", 1)
        return cls(nodes, roots, rotation)

    # -- writing ---------------------------------------------------------------------------------
    def to_xml(self) -> str:
        """A uiautomator dump of this tree (attributes in the dump's order, unknown ones after)."""
        out = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>",
               f'<hierarchy rotation="{_escape(self.rotation)}">']

        def write(node_id: int, indent: int) -> None:
            node = self.nodes[node_id]
            keys = [k for k in ATTRIBUTES if k in node.attrs] + [k for k in node.attrs if k not in ATTRIBUTES]
            attrs = " ".join(f'{k}="{_escape(node.attrs[k])}"' for k in keys)
            pad = "  " * indent
            if node.children:
                out.append(f"{pad}<node {attrs}>")
                for child in node.children:
                    write(child, indent + 1)
                out.append(f"{pad}</node>")
            else:
                out.append(f"{pad}<node {attrs} />")

        for root in self.roots:
            write(root, 1)
        out.append("</hierarchy>")
        return "\n".join(out) + "\n"

    # -- finding ---------------------------------------------------------------------------------
    def app_nodes(self) -> list[Node]:
        """Nodes of the app in document order (the system UI's top-level nodes and their subtrees left out)."""
        keep = []
        for root in self.roots:
            if self.nodes[root].system:
                continue
            keep.extend(self.subtree(root))
        return [self.nodes[i] for i in keep]

    def subtree(self, node_id: int) -> list[int]:
        out, stack = [], [node_id]
        while stack:
            current = stack.pop()
            out.append(current)
            stack.extend(reversed(self.nodes[current].children))
        return out

    def search_order(self) -> list[Node]:
        """The app's nodes breadth-first under each top-level node: the order in which a rule is matched."""
        out = []
        for root in self.roots:
            if self.nodes[root].system:
                continue
            queue = deque([root])
            while queue:
                current = queue.popleft()
                out.append(self.nodes[current])
                queue.extend(self.nodes[current].children)
        return out

    def find(self, rules: dict[str, str], match: str = "equal",
             point: tuple[float, float] | None = None) -> Node | None:
        """The first node (in search order) whose attributes equal (or include) every rule, and, when a
        point is given, whose bounds contain it (edges included)."""
        if match not in ("equal", "include"):
            raise ValueError(f"match type must be 'equal' or 'include', not {match!r}")
        for node in self.search_order():
            if not matches(node.attrs, rules, match):
                continue
            if point is not None and not node.contains(*point):
                continue
            return node
        return None

    def interactable(self) -> list[Node]:
        """The nodes an agent may act on, in document order; their position is the `[i]` tag."""
        return [n for n in self.app_nodes() if n.interactable]

    def node_at(self, x: float, y: float, interactable_only: bool = False) -> Node | None:
        """The smallest visible node under a point (the deepest one when sizes tie)."""
        best = None
        for node in self.app_nodes():
            if not node.visible or not node.contains(x, y):
                continue
            if interactable_only and not node.interactable:
                continue
            if best is None or node.area < best.area or (node.area == best.area and node.depth > best.depth):
                best = node
        return best

    def ancestors(self, node_id: int) -> list[Node]:
        out, current = [], self.nodes[node_id].parent
        while current >= 0:
            out.append(self.nodes[current])
            current = self.nodes[current].parent
        return out

    def clickable_ancestor(self, node_id: int) -> Node | None:
        """The node itself when it takes a click, else the nearest ancestor that does (a label's button)."""
        node = self.nodes[node_id]
        if {"click", "longclick", "text"} & set(node.actions()):
            return node
        for parent in self.ancestors(node_id):
            if {"click", "longclick", "text"} & set(parent.actions()):
                return parent
        return None

    def best_match(self, box, min_iou: float = 0.0) -> Node | None:
        """The visible app node whose bounds overlap the box most (IoU); ties go to the smaller node."""
        best, best_iou = None, min_iou
        for node in self.app_nodes():
            if not node.visible or node.area == 0:
                continue
            value = iou(node.bounds, box)
            if value > best_iou or (best is not None and value == best_iou and value > 0
                                    and node.area < best.area):
                best, best_iou = node, value
        return best


def matches(attrs: dict[str, str], rules: dict[str, str], match: str) -> bool:
    """Every rule's key is an attribute whose value equals (or, for include, contains) the rule's value."""
    if match == "equal":
        return all(k in attrs and attrs[k] == v for k, v in rules.items())
    return all(k in attrs and v in attrs[k] for k, v in rules.items())


def iou(a, b) -> float:
    ax1, ay1, ax2, ay2 = a
    bx1, by1, bx2, by2 = b
    w = min(ax2, bx2) - max(ax1, bx1)
    h = min(ay2, by2) - max(ay1, by1)
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    union = (ax2 - ax1) * (ay2 - ay1) + (bx2 - bx1) * (by2 - by1) - inter
    return inter / union if union > 0 else 0.0


def _escape(value: str) -> str:
    return (value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
            .replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;"))
