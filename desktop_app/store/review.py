"""Human verification of generated samples: accept, reject with a reason, edited."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select

from desktop_app.store import audit
from desktop_app.store import models as m
from desktop_app.store.project import Project
from desktop_app.store.types import utcnow

REJECT_REASONS = (
    "boxes wrong or missing",
    "distraction not distracting",
    "goal and distraction overlap",
    "text unreadable or cut off",
    "implausible or offensive content",
    "duplicate of another sample",
    "other",
)


# the episode version a review item's verdict compares with (ReviewItem.payload): a generated sample is
# created at version 1, and every edit of it raises the version (store/edits.py claim_episode)
BASE_VERSION = "episode_version"


@dataclass(frozen=True)
class Verdict:
    """A review item's state, as undo puts it back."""

    status: str
    reason: str
    reviewer: str


def set_review(project: Project, episode_id: int, status: str, reviewer: str | None = None,
               reason: str = "") -> Verdict:
    """Record a verdict on the episode's latest review item (creating one if it has none); returns the one
    it replaced."""
    if status not in m.REVIEW_STATUSES:
        raise ValueError(f"unknown review status '{status}'")
    reviewer = project.actor(reviewer)
    with project.transaction() as s:
        return _set(s, episode_id, status, reviewer, reason)


def decide(project: Project, episode_id: int, decision: str, reviewer: str | None = None,
           reason: str = "") -> tuple[str, Verdict]:
    """A reviewer's accept or reject. An accepted sample is recorded as "edited" when anyone changed it since
    it was generated (read from the store: a restart between the edit and the verdict changes nothing).
    Returns the status recorded and the verdict it replaced (for undo)."""
    if decision not in ("accept", "reject"):
        raise ValueError(f"decision is accept or reject, not '{decision}'")
    reviewer = project.actor(reviewer)
    with project.transaction() as s:
        status = "rejected"
        if decision == "accept":
            status = "edited" if changed_since_generated(s, episode_id) else "accepted"
        return status, _set(s, episode_id, status, reviewer, reason)


def current_verdict(project: Project, episode_id: int) -> Verdict:
    """The episode's review state now (pending with no reviewer when it has no review item)."""
    with project.reading() as s:
        item = _latest_item(s, episode_id)
    return Verdict(item.status, item.reason, item.reviewer) if item is not None else Verdict("pending", "", "")


def restore_review(project: Project, episode_id: int, verdict: Verdict) -> None:
    """Put a review item back as it was (undo of a verdict); the audit log keeps both steps."""
    with project.transaction() as s:
        _set(s, episode_id, verdict.status, verdict.reviewer, verdict.reason)


def changed_since_generated(s, episode_id: int) -> bool:
    version = s.execute(select(m.Episode.version).where(m.Episode.id == episode_id)).scalar_one()
    return version > _base_version(_latest_item(s, episode_id))


def verification_written(s, episode_id: int, version_before: int, version_after: int) -> None:
    """A write of the reviewer's own record (an ambiguous task's checklist) raised the version: it is not an
    edit of the sample, so the base moves with it, unless the sample had already been changed."""
    item = _latest_item(s, episode_id)
    if item is not None and _base_version(item) == version_before:
        item.payload = {**(item.payload or {}), BASE_VERSION: version_after}
        s.add(item)


def _base_version(item) -> int:
    return int((item.payload or {}).get(BASE_VERSION, 1)) if item is not None else 1


def _latest_item(s, episode_id: int):
    return s.execute(select(m.ReviewItem).where(m.ReviewItem.episode_id == episode_id)
                     .order_by(m.ReviewItem.id.desc())).scalars().first()


def _set(s, episode_id: int, status: str, reviewer: str, reason: str) -> Verdict:
    episode = s.get(m.Episode, episode_id)
    if episode is None:
        raise ValueError(f"episode {episode_id} does not exist")
    item = _latest_item(s, episode_id)
    if item is None:  # a sample nobody generated: its review starts from the version it has now
        item = m.ReviewItem(episode_id=episode_id, kind="manual", payload={BASE_VERSION: episode.version})
    before = Verdict(item.status, item.reason, item.reviewer)
    item.status, item.reviewer, item.reason, item.updated_at = status, reviewer, reason, utcnow()
    episode.review_status = status
    episode.updated_at = utcnow()
    s.add_all([item, episode])
    s.flush()
    audit.record(s, "review", "episode", episode_id,
                 {"before": before.status, "after": status, "reason": reason}, reviewer)
    return before


def review_counts(project: Project, kind: str | None = None) -> dict[str, int]:
    """Episodes per review status, for the progress line of the verification view."""
    with project.reading() as s:
        stmt = select(m.Episode.review_status, func.count()).group_by(m.Episode.review_status)
        if kind:
            stmt = stmt.where(m.Episode.id.in_(select(m.ReviewItem.episode_id).where(m.ReviewItem.kind == kind)))
        return {status: n for status, n in s.execute(stmt)}
