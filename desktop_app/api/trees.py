"""A screen's accessibility tree as stored with the project, and annotators' corrections to its nodes.

Its own module (not whole.py) because the window reads the tree of every screen it shows, the first one
included: `api.screen_tree` loads this, not the whole API (ADR 0057).
"""

from __future__ import annotations

from desktop_app.a11y.stored import StoredTree, flag_node, load_tree
from desktop_app.store.project import Project

__all__ = ["flag_tree_node", "screen_tree"]


def screen_tree(project: Project, step_id: int) -> StoredTree | None:
    """The step's screen tree with annotators' corrections (a11y.stored.StoredTree), or None."""
    return load_tree(project, step_id)


def flag_tree_node(project: Project, tree_id: int, node_id: int, fixes: dict[str, str] | None,
                   actor: str | None = None) -> dict[str, str] | None:
    """Correct a node of a stored tree (api.screen_tree(...).tree_id), e.g. {"clickable": "true"}; None clears.
    Returns the previous value."""
    return flag_node(project, tree_id, node_id, fixes, actor)
