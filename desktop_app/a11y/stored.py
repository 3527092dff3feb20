"""A step's screen tree as the window and the runs use it: parsed, with the annotators' corrections."""

from __future__ import annotations

from dataclasses import dataclass

from desktop_app.a11y.tree import UiTree
from desktop_app.store.project import Project
from desktop_app.store.trees import set_node_flags, tree_of_step


@dataclass
class StoredTree:
    tree_id: int  # the stored dump (a screen may have several: one per distinct dump)
    screen_id: int
    tree: UiTree  # the dump as imported, corrections applied to the nodes' attributes
    flags: dict[int, dict[str, str]]  # node id -> corrections (what the dump said is in `original`)
    original: dict[int, dict[str, str]]  # node id -> the dump's values of the corrected attributes

    def flagged(self, node_id: int) -> bool:
        return node_id in self.flags


def parse_stored(row) -> StoredTree:
    tree = UiTree.from_xml(row.xml)
    # a correction naming a node the dump does not have is ignored, never a crash
    flags = {int(k): dict(v) for k, v in (row.flags or {}).items() if 0 <= int(k) < len(tree.nodes)}
    original = {}
    for node_id, fixes in flags.items():
        node = tree.nodes[node_id]
        original[node_id] = {k: node.attrs.get(k, "") for k in fixes if k != "note"}
        node.attrs.update({k: v for k, v in fixes.items() if k != "note"})
    return StoredTree(row.id, row.screen_id, tree, flags, original)


def load_tree(project: Project, step_id: int) -> StoredTree | None:
    """The tree of the step's screen, or None when the screen has none (most imported screens)."""
    row = tree_of_step(project, step_id)
    return parse_stored(row) if row is not None else None


def flag_node(project: Project, tree_id: int, node_id: int, fixes: dict[str, str] | None,
              actor: str | None = None) -> dict[str, str] | None:
    """Correct a node (e.g. {"clickable": "true"}) or clear its corrections (None); returns the previous
    corrections, for undo."""
    return set_node_flags(project, tree_id, node_id, fixes, actor)
