"""Human verification of generated samples: accept, reject with a reason, edited."""

from __future__ import annotations

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


def set_review(project: Project, episode_id: int, status: str, reviewer: str | None = None,
               reason: str = "") -> None:
    """Record a verdict on the episode's latest review item (creating one if it has none)."""
    if status not in m.REVIEW_STATUSES:
        raise ValueError(f"unknown review status '{status}'")
    reviewer = reviewer or audit.current_actor()
    with project.transaction() as s:
        episode = s.get(m.Episode, episode_id)
        item = s.execute(select(m.ReviewItem).where(m.ReviewItem.episode_id == episode_id)
                         .order_by(m.ReviewItem.id.desc())).scalars().first()
        if item is None:
            item = m.ReviewItem(episode_id=episode_id, kind="manual")
        before = item.status
        item.status, item.reviewer, item.reason, item.updated_at = status, reviewer, reason, utcnow()
        episode.review_status = status
        episode.updated_at = utcnow()
        s.add_all([item, episode])
        s.flush()
        audit.record(s, "review", "episode", episode_id,
                     {"before": before, "after": status, "reason": reason}, reviewer)


def review_counts(project: Project, kind: str | None = None) -> dict[str, int]:
    """Episodes per review status, for the progress line of the verification view."""
    with project.reading() as s:
        stmt = select(m.Episode.review_status, func.count()).group_by(m.Episode.review_status)
        if kind:
            stmt = stmt.where(m.Episode.id.in_(select(m.ReviewItem.episode_id).where(m.ReviewItem.kind == kind)))
        return {status: n for status, n in s.execute(stmt)}
