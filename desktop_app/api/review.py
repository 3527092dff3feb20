"""Verifying generated samples in the Python API, as the window's verification views do: accept, or reject
with a reason; a sample changed since it was generated is recorded as "edited" when accepted (the store
reads that from the episode's version, so a restart in between changes nothing). `verify_sample` (the
command line's `verify`) adds the checks a person is warned about; these are the bare verdicts, with what
undoing one needs (`current_verdict`, `restore_verdict`).
"""

from __future__ import annotations

from desktop_app.store import review as _review
from desktop_app.store.models import ReviewItem
from desktop_app.store.project import Project
from desktop_app.store.queries import review_items_of
from desktop_app.store.review import REJECT_REASONS, Verdict

__all__ = ["REJECT_REASONS", "ReviewItem", "Verdict", "current_verdict", "decide_review", "restore_verdict",
           "review_counts", "review_items"]


def decide_review(project: Project, episode_id: int, decision: str, reviewer: str | None = None,
                  reason: str = "") -> str:
    """accept or reject a sample by id; returns the status recorded (accepted, edited or rejected)."""
    return _review.decide(project, episode_id, decision, reviewer, reason)[0]


def current_verdict(project: Project, episode_id: int) -> Verdict:
    """The sample's review state now (pending with no reviewer when it has none)."""
    return _review.current_verdict(project, episode_id)


def restore_verdict(project: Project, episode_id: int, verdict: Verdict) -> None:
    """Put a sample's verdict back as it was (undo); the audit log keeps both steps."""
    _review.restore_review(project, episode_id, verdict)


def review_counts(project: Project, kind: str | None = None) -> dict[str, int]:
    """Episodes per review status; `kind`: only those a review item of this kind is about."""
    return _review.review_counts(project, kind)


def review_items(project: Project, episode_id: int) -> list[ReviewItem]:
    """What generated a sample and what its reviewers said, oldest first."""
    with project.reading() as s:
        return review_items_of(s, episode_id)
