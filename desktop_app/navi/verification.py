"""Verifying an ambiguous task (docs/decisions/0012-ambiguous-tasks.md): what a reviewer should be warned
about before accepting one, the checklist they tick, and how far reviewers kept the model's step types (a
new variant when one is not worth fixing: synth/ambiguous.regenerate). The window and desktop_app.api call
these."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import select

from desktop_app.navi.model import CHECKLIST, SCENARIO, NaviInfo, navi_of, with_navi
from desktop_app.store import audit, review
from desktop_app.store import models as m
from desktop_app.store.edits import claim_episode
from desktop_app.store.project import Project

# the Navi-plus authors' reviewers kept 90 % of the model's step types (../shared/research digest)
PAPER_STEP_TYPES_KEPT = 0.90
_WORD = re.compile(r"[\w']+")
# words that carry no detail of their own: "to Berlin" is covered by an answer that says "Berlin"
_FILLER = {"a", "an", "the", "to", "on", "in", "at", "for", "of", "from", "with", "by", "and", "or", "my", "me"}


def removed_details(original: str, ambiguous: str) -> list[str]:
    """The runs of words of the original task that the ambiguous one no longer has ("to Berlin",
    "on 12 May"): each is a detail the agent should have to ask about."""
    import difflib  # here: the window imports this module at start, and compares tasks later

    a, b = original.split(), ambiguous.split()
    spans = []
    for op, i1, i2, _j1, _j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op in ("delete", "replace") and i2 > i1:
            spans.append(" ".join(a[i1:i2]))
    return spans


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)} - _FILLER


def unasked_details(info: NaviInfo) -> list[str]:
    """Removed details that no follow-up question brings back: a detail is asked about when its words are
    in the words one pair removed (`overlap`) or in its answer."""
    asked = [_words(p.overlap) | _words(p.answer) for p in info.qa_pairs]
    missing = []
    for detail in removed_details(info.original_task, info.ambiguous_task):
        words = _words(detail)
        if words and not any(words <= known for known in asked):
            missing.append(detail)
    return missing


def problems(info: NaviInfo) -> list[str]:
    """What a reviewer is warned about before accepting (or stopped by, per the setting)."""
    found = []
    if not any(info.checklist.get(key) for key in CHECKLIST):
        found.append("the checklist is empty: tick what you checked")
    for detail in unasked_details(info):
        found.append(f"'{detail}' was removed but no question asks for it")
    return found


def record_checklist(project: Project, episode_id: int, checklist: dict[str, bool], actor: str | None = None,
                     expected_version: int | None = None) -> m.Episode:
    """Write the reviewer's ticks. Like any write of the episode it raises its version (a colleague's stale
    write is refused), but it is the reviewer's record, not an edit of the sample: accepting afterwards
    still records "accepted" (store/review.verification_written)."""
    actor = project.actor(actor)
    unknown = set(checklist) - set(CHECKLIST)
    if unknown:
        raise ValueError(f"not a checklist item: {', '.join(sorted(unknown))}")
    with project.transaction() as s:
        version = claim_episode(s, episode_id, expected_version, actor)
        episode = s.get(m.Episode, episode_id, populate_existing=True)
        info = navi_of(episode)
        if info is None:
            raise ValueError(f"episode {episode.key} is not an ambiguous task")
        before = dict(info.checklist)
        info.checklist = {key: bool(checklist.get(key)) for key in CHECKLIST}
        episode.meta = with_navi(episode.meta, info)
        s.add(episode)
        audit.record(s, "update", "episode", episode_id,
                     {"before": {"checklist": before}, "after": {"checklist": info.checklist}}, actor)
        review.verification_written(s, episode_id, version - 1, version)
    return episode


@dataclass(frozen=True)
class StepTypesKept:
    kept: int  # steps whose type the reviewers left as the model gave it
    total: int  # steps of reviewed (accepted or edited) ambiguous tasks the model gave step types for
    accepted: int = 0  # accepted (or edited) ambiguous tasks, whether or not the model wrote their step types

    def sentence(self) -> str:
        if not self.accepted:
            return "No ambiguous task accepted yet."
        if not self.total:  # written by hand or imported (the demo's): nothing of the model's to compare with
            tasks = "task has" if self.accepted == 1 else "tasks have"
            return (f"Step types kept: none of the {self.accepted} accepted {tasks} the model's step types to "
                    "compare with.")
        return (f"Reviewers kept the model's step type (informative or not) on {self.kept / self.total:.0%} "
                f"of {self.total} steps; the Navi-plus authors' reviewers kept {PAPER_STEP_TYPES_KEPT:.0%}.")


def step_types_kept(project: Project) -> StepTypesKept:
    kept = total = accepted = 0
    with project.reading() as s:
        rows = s.execute(select(m.Episode).where(m.Episode.scenario == SCENARIO,
                                                 m.Episode.review_status.in_(("accepted", "edited")))).scalars()
        for episode in rows:
            navi = navi_of(episode)
            if navi is None or not navi.ambiguous_task:
                continue  # an original task (the source of variants) is not one to verify
            accepted += 1
            original = (navi.llm or {}).get("step_kinds")
            if not original:
                continue
            total += len(original)
            kept += sum(1 for x, y in zip(original, navi.step_kinds, strict=False) if x == y)
    return StepTypesKept(kept, total, accepted)
