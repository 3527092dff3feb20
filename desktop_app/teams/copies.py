"""Private copies for double annotation: an episode of kind "copy" with the sample's goal and steps (the
same screens) and no boxes, labelled by one annotator alone. Copies are never listed, run or exported as
samples (queries.EpisodeFilter selects kind "sample"), so two annotators of one sample do not see each
other's boxes until the lead adjudicates (teams/adjudication.py)."""

from __future__ import annotations

from sqlalchemy import select

from desktop_app.store.models import Episode, Step
from desktop_app.store.orm import Session


def copy_key(key: str, annotator: str) -> str:
    return f"{key}@{annotator}"


def make_copy(s: Session, sample: Episode, annotator: str) -> Episode:
    copy = Episode(key=copy_key(sample.key, annotator), kind="copy", goal=sample.goal, scenario=sample.scenario,
                   split=sample.split, meta={"copy_of": sample.id, "annotator": annotator})
    s.add(copy)
    s.flush()
    for step in s.execute(select(Step).where(Step.episode_id == sample.id).order_by(Step.index)).scalars():
        s.add(Step(episode_id=copy.id, index=step.index, screen_id=step.screen_id, instruction=step.instruction,
                   meta=dict(step.meta or {})))
    s.flush()
    return copy
