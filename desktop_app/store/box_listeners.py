"""What has to follow a change of boxes, wherever the change was made (the window, the CLI, the API, a
script): a project holds its own list of listeners, and the store calls them with the ids of the steps whose
boxes changed once the transaction that changed them has committed (ADR 0024).

The store cannot name those listeners itself: evaluation re-scores the agents' answers against the boxes
(evaluation/rescore.py) and reads the store to do it, so the store importing evaluation would be a package
cycle. So whoever opens a project says what follows its edits, explicitly and once per opening: every door
opens through `desktop_app.api.open_project` / `init_project`, which adds the re-scoring (no registration
by importing a module, which a script that edits through `store.edits` alone never did).

Edits note the steps they touch on their session (`note`); Project.transaction calls `notify` after its
commit, so a rolled-back edit calls nothing and an edit made of several writes (adjudication) calls the
listeners once. Where they run is the project's `run_after_edit`: at once, on the caller's thread, for the
CLI and scripts (the verdicts are current when the call returns); the window hands them to its one
background-work path, so an undo command's redo() never waits for a second transaction. A listener that
fails is logged and does not fail the edit: the edit is saved, and reporting it as not saved would be wrong.
One that failed because the server could not be reached is kept on the project and called again once the
connection is back (the next transaction or ping that succeeds), so a dropped connection does not leave
verdicts judged against labels that changed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop_app.store.project import Project

log = logging.getLogger(__name__)

Listener = Callable[["Project", list[int]], object]
_CHANGED = "screenlab.steps_with_changed_boxes"  # the key in a session's .info


def call_now(work: Callable[[], object]) -> None:
    """The default `run_after_edit`: on the caller's thread, before the edit's call returns."""
    work()


def note(session, step_ids: Iterable[int | None]) -> None:
    """Within a transaction: these steps' boxes (or what judging them reads) changed."""
    session.info.setdefault(_CHANGED, set()).update(i for i in step_ids if i is not None)


def take(session) -> list[int]:
    """The steps noted in this session so far, forgotten by it."""
    return sorted(session.info.pop(_CHANGED, ()))


def notify(project: Project, step_ids: list[int]) -> None:
    """The project's listeners for these steps, run where the project says (`run_after_edit`)."""
    listeners = tuple(project.after_edit)
    if listeners:
        project.run_after_edit(lambda: [_call(project, listener, step_ids) for listener in listeners])


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
    if pending:
        project.run_after_edit(lambda: [_call(project, listener, step_ids) for listener, step_ids in pending])
    return len(pending)
