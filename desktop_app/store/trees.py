"""Screens' accessibility trees: reading one, and the annotators' corrections to its nodes.

The dump itself never changes after import (export and the agent's text observations are made from it);
a correction is a flag on a node (e.g. clickable is really "true"), stored beside it, audited and undoable.
"""

from __future__ import annotations

from sqlmodel import select

from desktop_app.store import audit
from desktop_app.store.models import Screen, ScreenTree, Step
from desktop_app.store.project import Project

FLAG_KEYS = ("clickable", "note")  # what an annotator may correct on a node


def tree_of_screen(session, screen_id: int) -> ScreenTree | None:
    return session.execute(select(ScreenTree).where(ScreenTree.screen_id == screen_id)).scalar_one_or_none()


def tree_of_step(project: Project, step_id: int) -> ScreenTree | None:
    with project.reading() as session:
        step = session.get(Step, step_id)
        if step is None:
            raise KeyError(f"no step {step_id}")
        return tree_of_screen(session, step.screen_id)


def step_screen(project: Project, step_id: int) -> Screen:
    with project.reading() as session:
        step = session.get(Step, step_id)
        if step is None:
            raise KeyError(f"no step {step_id}")
        return session.get(Screen, step.screen_id)


def screens_with_trees(session, screen_ids) -> set[int]:
    ids = list(screen_ids)
    if not ids:
        return set()
    return set(session.execute(select(ScreenTree.screen_id).where(ScreenTree.screen_id.in_(ids))).scalars())


def set_node_flags(project: Project, screen_id: int, node_id: int, fixes: dict[str, str] | None,
                   actor: str | None = None) -> dict[str, str] | None:
    """Set (or, with None, clear) a node's corrections; returns what was there before (for undo)."""
    if fixes is not None:
        unknown = set(fixes) - set(FLAG_KEYS)
        if unknown:
            raise ValueError(f"cannot correct {', '.join(sorted(unknown))} (only {', '.join(FLAG_KEYS)})")
        if "clickable" in fixes and fixes["clickable"] not in ("true", "false"):
            raise ValueError("clickable is 'true' or 'false'")
    with project.transaction() as session:
        row = tree_of_screen(session, screen_id)
        if row is None:
            raise KeyError(f"screen {screen_id} has no accessibility tree")
        if not 0 <= node_id < row.nodes:
            raise KeyError(f"screen {screen_id}'s tree has no node {node_id}")
        flags = dict(row.flags or {})
        before = flags.get(str(node_id))
        if fixes:
            flags[str(node_id)] = dict(fixes)
        else:
            flags.pop(str(node_id), None)
        row.flags = flags
        session.add(row)
        audit.record(session, "flag_node", "screen_tree", row.id,
                     {"node": node_id, "before": before, "after": fixes}, actor or audit.current_actor())
    return before
