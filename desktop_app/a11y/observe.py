"""What an agent is shown of a screen, in the four observation modes of the Sphinx benchmark.

  image        the screenshot
  tree         the whole accessibility tree as indented text; each node an agent can act on carries an
               `[i]` tag, the number it names in element actions (`click [3]`)
  list         the same tags, only the nodes an agent can act on, one line each (no hierarchy)
  marks        the screenshot with a numbered dot at the centre of each such node (Set-of-Mark)

The wording is ours; the numbering (document order of the interactable nodes) is shared by all modes, so
an answer given in one mode can be read against the tree of the screen.
"""

from __future__ import annotations

import io

from desktop_app.a11y.tree import Node, UiTree

MODES = ("image", "tree", "list", "marks")
TEXT_MODES = ("tree", "list")  # the agent answers with element tags
IMAGE_MODES = ("image", "marks")  # the agent answers with coordinates (or, in marks, tags)
MARK = (214, 32, 32)


def describe(node: Node) -> str:
    """One node in words: its kind, then what it says, its description and its id."""
    kind = node.cls.rsplit(".", 1)[-1] or "View"
    parts = []
    if node.text:
        parts.append(f'"{_one_line(node.text)}"')
    if node.description:
        parts.append(f"described as \"{_one_line(node.description)}\"")
    if node.short_id:
        parts.append(f"id {node.short_id}")
    return kind + (" " + ", ".join(parts) if parts else "")


def tags(tree: UiTree) -> dict[int, int]:
    """Node id -> the `[i]` tag of each node an agent can act on."""
    return {node.id: i for i, node in enumerate(tree.interactable())}


def tree_text(tree: UiTree) -> str:
    numbered = tags(tree)
    lines = []
    top = min((n.depth for n in tree.app_nodes()), default=0)
    for node in tree.app_nodes():
        if not node.visible:
            continue
        pad = "  " * (node.depth - top)
        if node.id in numbered:
            lines.append(f"{pad}[{numbered[node.id]}] {describe(node)}; can {'/'.join(node.actions())}")
        elif node.text or node.description or node.children:
            lines.append(f"{pad}{describe(node)}")
    return "\n".join(lines)


def list_text(tree: UiTree) -> str:
    lines = []
    for i, node in enumerate(tree.interactable()):
        words = _inner_words(tree, node)
        said = f" containing {words}" if words and words not in describe(node) else ""
        lines.append(f"[{i}] {describe(node)}{said}; can {'/'.join(node.actions())}")
    return "\n".join(lines)


def marks_png(image_bytes: bytes, tree: UiTree) -> bytes:
    """The screenshot with a numbered dot at the centre of each interactable node (Pillow; PNG out)."""
    from PIL import Image, ImageDraw

    from desktop_app.fonts import font  # Pillow's fonts with Pillow: the window imports this module at start

    with Image.open(io.BytesIO(image_bytes)) as source:
        picture = source.convert("RGB")
    draw = ImageDraw.Draw(picture)
    size = max(12, min(picture.size) // 40)  # readable on a phone screen and on a 4K one
    label_font = font(size, bold=True)
    radius = max(4, size // 3)
    for i, node in enumerate(tree.interactable()):
        x, y = node.centre
        draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=MARK, outline=(255, 255, 255))
        # the number on a red badge beside the dot, so it never hides the element's own words
        left, top, right, bottom = draw.textbbox((0, 0), str(i), font=label_font)
        bx, by = x + radius + 2, y - (bottom - top) // 2 - 2
        draw.rectangle((bx, by, bx + right - left + 6, by + bottom - top + 4), fill=MARK)
        draw.text((bx + 3 - left, by + 2 - top), str(i), fill=(255, 255, 255), font=label_font)
    out = io.BytesIO()
    picture.save(out, "PNG")
    return out.getvalue()


def observation_text(tree: UiTree, mode: str) -> str:
    if mode == "tree":
        return tree_text(tree)
    if mode == "list":
        return list_text(tree)
    return ""


def _inner_words(tree: UiTree, node: Node, limit: int = 60) -> str:
    """The text of a node's descendants (a button's label sits on a child), shortened."""
    words = []
    for child_id in tree.subtree(node.id)[1:]:
        child = tree.nodes[child_id]
        said = child.text or child.description
        if said:
            words.append(_one_line(said))
    text = " ".join(words)
    return (f'"{text[:limit]}…"' if len(text) > limit else f'"{text}"') if text else ""


def _one_line(text: str) -> str:
    return " ".join(text.split())
