"""A reviewer's verdict on a generated sample (a distracting screen or an ambiguous task) from the command
line or a script, with the rules the verification queue applies: accepted or edited is the store's call
(store/review.decide), and an ambiguous task with problems is accepted only when the reviewer says so."""

from __future__ import annotations

from sqlalchemy import select

from desktop_app.navi.model import navi_of
from desktop_app.navi.verification import problems
from desktop_app.store import models as m
from desktop_app.store.project import Project
from desktop_app.store.review import decide


class ProblemsFound(ValueError):
    """An ambiguous task was to be accepted with problems the reviewer did not accept."""


def sample_id(project: Project, sample: int | str) -> int:
    """An episode's id from its id or its key; KeyError names what was asked for."""
    with project.reading() as s:
        column = m.Episode.id if isinstance(sample, int) else m.Episode.key
        found = s.execute(select(m.Episode.id).where(column == sample)).scalar()
    if found is None:
        raise KeyError(f"no sample {sample!r} in this project")
    return found


def sample_problems(project: Project, sample: int | str) -> list[str]:
    """What the queue warns about before accepting this sample (only ambiguous tasks have any)."""
    with project.reading() as s:
        episode = s.get(m.Episode, sample_id(project, sample))
        info = navi_of(episode)
    return problems(info) if info is not None else []


def verify_sample(project: Project, sample: int | str, decision: str, reason: str = "",
                  reviewer: str | None = None, anyway: bool = False) -> str:
    """accept or reject (with a reason); returns the status stored. Accepting an ambiguous task with problems
    raises ProblemsFound naming them, unless `anyway`."""
    episode_id = sample_id(project, sample)
    if decision == "reject" and not reason.strip():
        raise ValueError("a rejected sample needs a reason (e.g. boxes wrong or missing)")
    if decision == "accept" and not anyway:
        found = sample_problems(project, episode_id)
        if found:
            raise ProblemsFound("not accepted: " + "; ".join(found) + " (accept anyway to record it regardless)")
    return decide(project, episode_id, decision, reviewer, reason)[0]
