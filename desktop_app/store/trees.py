"""Screens' accessibility trees: reading one, and the annotators' corrections to its nodes.

The dump itself never changes after import (export and the agent's text observations are made from it);
a correction is a flag on a node (e.g. clickable is really "true"), stored beside it, audited and undoable.
"""

from __future__ import annotations

from desktop_app.store import audit
from desktop_app.store.models import Screen, ScreenTree, Step
from desktop_app.store.orm import select
from desktop_app.store.project import Project

FLAG_KEYS = ("clickable", "note")  # what an annotator may correct on a node


def tree_for(session, screen_id: int | None, sha256: str | None) -> ScreenTree | None:
    """The tree a step names (its screen and the hash in step.meta["tree"]); a step that names none gets
    its screen's first tree (a screen imported with one dump, then reused by a step of another format)."""
    if screen_id is None:
        return None
    query = select(ScreenTree).where(ScreenTree.screen_id == screen_id)
    if sha256:
        query = query.where(ScreenTree.sha256 == sha256)
    return session.execute(query.order_by(ScreenTree.id).limit(1)).scalar_one_or_none()


def tree_of_step(project: Project, step_id: int) -> ScreenTree | None:
    with project.reading() as session:
        step = session.get(Step, step_id)
        if step is None:
            raise KeyError(f"no step {step_id}")
        return tree_for(session, step.screen_id, (step.meta or {}).get("tree"))


def trees_named(session, keys) -> dict[tuple, ScreenTree]:
    """(screen id, tree hash or None) -> the tree, as tree_for finds it, in one query for all the keys."""
    keys = set(keys)
    screens = {screen_id for screen_id, _ in keys if screen_id is not None}
    if not screens:
        return {}
    by_screen: dict[int, list[ScreenTree]] = {}
    for row in session.execute(select(ScreenTree).where(ScreenTree.screen_id.in_(screens))
                               .order_by(ScreenTree.id)).scalars():
        by_screen.setdefault(row.screen_id, []).append(row)
    out = {}
    for screen_id, sha in keys:
        rows = by_screen.get(screen_id, [])
        found = next((r for r in rows if r.sha256 == sha), None) if sha else (rows[0] if rows else None)
        if found is not None:
            out[(screen_id, sha)] = found
    return out


def trees_of_steps(session, steps) -> dict[int, ScreenTree]:
    """Step id -> its tree, for the steps that have one (one query)."""
    keys = {step.id: (step.screen_id, (step.meta or {}).get("tree")) for step in steps}
    found = trees_named(session, keys.values())
    return {step_id: found[key] for step_id, key in keys.items() if key in found}


def step_screen(project: Project, step_id: int) -> Screen | None:
    """The step's screen (None for a knowledge probe's question, which has none)."""
    with project.reading() as session:
        step = session.get(Step, step_id)
        if step is None:
            raise KeyError(f"no step {step_id}")
        return session.get(Screen, step.screen_id) if step.screen_id is not None else None


def set_node_flags(project: Project, tree_id: int, node_id: int, fixes: dict[str, str] | None,
                   actor: str | None = None) -> dict[str, str] | None:
    """Set (or, with None, clear) a node's corrections; returns what was there before (for undo)."""
    if fixes is not None:
        unknown = set(fixes) - set(FLAG_KEYS)
        if unknown:
            raise ValueError(f"cannot correct {', '.join(sorted(unknown))} (only {', '.join(FLAG_KEYS)})")
        if "clickable" in fixes and fixes["clickable"] not in ("true", "false"):
            raise ValueError("clickable is 'true' or 'false'")
    with project.transaction() as session:
        row = session.get(ScreenTree, tree_id)
        if row is None:
            raise KeyError(f"no accessibility tree {tree_id}")
        if not 0 <= node_id < row.nodes:
            raise KeyError(f"tree {tree_id} has no node {node_id}")
        flags = dict(row.flags or {})
        before = flags.get(str(node_id))
        if fixes:
            flags[str(node_id)] = dict(fixes)
        else:
            flags.pop(str(node_id), None)
        row.flags = flags
        session.add(row)
        audit.record(session, "flag_node", "screen_tree", row.id,
                     {"node": node_id, "before": before, "after": fixes}, project.actor(actor))
    return before
