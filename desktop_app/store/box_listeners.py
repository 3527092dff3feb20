"""What has to follow a change of boxes, wherever the change was made (the window, the CLI, the API, a
script): packages above the store register a listener here, and the store calls it with the ids of the
steps whose boxes changed once the transaction that changed them has committed (ADR 0024).

The store cannot call those packages itself: evaluation re-scores the agents' answers against the boxes
(evaluation/rescore.py) and reads the store to do it, so the store importing evaluation would be a
package cycle. Evaluation registers itself when it is imported, and desktop_app.api imports it, so the
CLI, scripts and the window (its undo commands go through the API's module) all get the same rules.

Edits note the steps they touch on their session (`note`); Project.transaction calls `notify` after its
commit, so a rolled-back edit calls nothing and an edit made of several writes (adjudication) calls the
listeners once. A listener that fails is logged and does not fail the edit: the edit is saved, and
reporting it as not saved would be wrong. One that failed because the server could not be reached is kept on
the project and called again once the connection is back (the next transaction or ping that succeeds), so
a dropped connection does not leave verdicts judged against labels that changed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop_app.store.project import Project

log = logging.getLogger(__name__)

Listener = Callable[["Project", list[int]], object]
_listeners: list[Listener] = []
_CHANGED = "screenlab.steps_with_changed_boxes"  # the key in a session's .info


def after_boxes_changed(listener: Listener) -> Listener:
    """Call `listener(project, step_ids)` after every committed change of boxes (once per listener)."""
    if listener not in _listeners:
        _listeners.append(listener)
    return listener


def forget(listener: Listener) -> None:
    if listener in _listeners:
        _listeners.remove(listener)


def listeners() -> tuple[Listener, ...]:
    return tuple(_listeners)


def note(session, step_ids: Iterable[int | None]) -> None:
    """Within a transaction: these steps' boxes (or what judging them reads) changed."""
    session.info.setdefault(_CHANGED, set()).update(i for i in step_ids if i is not None)


def take(session) -> list[int]:
    """The steps noted in this session so far, forgotten by it."""
    return sorted(session.info.pop(_CHANGED, ()))


def notify(project: Project, step_ids: list[int]) -> None:
    for listener in list(_listeners):
        _call(project, listener, step_ids)


def _call(project: Project, listener: Listener, step_ids: list[int]) -> None:
    from desktop_app.store.db_errors import is_connection_lost

    try:
        listener(project, step_ids)
    except Exception as exc:  # the edit is committed: a listener's failure is not the edit's
        if is_connection_lost(exc):
            log.warning("after a change of boxes on steps %s: the server was lost; %r is called again when it "
                        "is back", step_ids[:20], listener)
            project.pending_after_edit.append((listener, list(step_ids)))
        else:
            log.exception("after a change of boxes on steps %s: %r failed", step_ids[:20], listener)


def retry_pending(project: Project) -> int:
    """Call again what failed on a lost connection (in order); returns how many were retried."""
    pending, project.pending_after_edit = project.pending_after_edit, []
    for listener, step_ids in pending:
        _call(project, listener, step_ids)
    return len(pending)
