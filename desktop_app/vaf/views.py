"""What the page-variants window shows, read from the project (no Qt): a variant's full-page picture, a
step's screenshot, a variant's measured style and verdict.

The window (ui/vaf/) calls these instead of reading the database itself; the CLI and notebooks may
use them too.
"""

from __future__ import annotations

from sqlalchemy import select

from desktop_app.store import models as m
from desktop_app.store.project import Project
from desktop_app.vaf.study import step_of


def screen_png(project: Project, screen_id: int) -> bytes | None:
    """The picture of a screen (None when the row or its file is gone)."""
    with project.reading() as s:
        row = s.execute(select(m.Screen.sha256, m.Screen.ext).where(m.Screen.id == screen_id)).first()
    if row is None:
        return None
    try:
        return project.media.read(*row)
    except OSError:
        return None


def page_png(project: Project, episode_id: int) -> bytes | None:
    """A variant's full page as rendered when the study was made (its "page" step)."""
    found = step_of(project, episode_id, "page")
    return screen_png(project, found[1]) if found else None


def step_png(project: Project, step_id: int) -> bytes | None:
    """The screenshot of one step (a trial's viewport: trial["steps"][i]["step_id"])."""
    with project.reading() as s:
        screen_id = s.execute(select(m.Step.screen_id).where(m.Step.id == step_id)).scalar_one_or_none()
    return screen_png(project, screen_id) if screen_id else None


def variant_detail(project: Project, episode_id: int) -> dict:
    """What the verifier reads beside the pictures: the target's computed style, the render's warnings, the
    outside requests blocked, and the latest verdict (status, reason, reviewer)."""
    with project.reading() as s:
        episode = s.get(m.Episode, episode_id)
        if episode is None:
            return {}
        review = s.execute(select(m.ReviewItem.reason, m.ReviewItem.reviewer)
                           .where(m.ReviewItem.episode_id == episode_id)
                           .order_by(m.ReviewItem.id.desc())).first()
        info = (episode.meta or {}).get("vaf") or {}
        return {"style": dict(info.get("style") or {}), "warnings": list(info.get("warnings") or []),
                "blocked": list(info.get("blocked") or []), "status": episode.review_status,
                "reason": review[0] if review else "", "reviewer": review[1] if review else ""}
