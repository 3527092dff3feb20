"""Knowledge probes written and verified by people (Sphinx: hand-written MCQs with answer keys, tagged goal
or app level). A probe is an episode of kind "probe" (formats/sphinx_probes.py); these functions add,
edit, list and verify them, each in one transaction with its audit entry.

A probe accepted after an edit is recorded as "edited" (read from the audit trail, not from a window's
memory), so the verified set's provenance can be counted like the grounding tasks'.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path

from desktop_app.formats.ingest import ingest
from desktop_app.formats.records import Where
from desktop_app.formats.sphinx_probes import OPTIONS, probe_record
from desktop_app.store import edits
from desktop_app.store import models as m
from desktop_app.store.orm import select
from desktop_app.store.project import Project
from desktop_app.store.review import set_review

LEVELS = ("goal", "app")


@dataclass
class Probe:
    episode_id: int
    key: str
    question: str
    options: dict[str, str]
    answer: str
    level: str
    apps: list[str]
    category: str
    author: str
    status: str


def _check(question: str, options: dict[str, str], answer: str, level: str) -> None:
    if not question.strip():
        raise ValueError("the question is empty")
    if sorted(options) != list(OPTIONS) or not all(v.strip() for v in options.values()):
        raise ValueError("a probe has the four options A, B, C and D, none empty")
    if answer not in OPTIONS:
        raise ValueError(f"the answer key must be one of {', '.join(OPTIONS)}, not {answer!r}")
    if level not in LEVELS:
        raise ValueError(f"the level is goal (what the user wants) or app (knowledge of the app), not {level!r}")


def add_probe(project: Project, question: str, options: dict[str, str], answer: str, level: str,
              apps: list[str] = (), category: str = "", author: str = "") -> int:
    """A new probe, to verify; returns its episode id (a question already there is refused)."""
    _check(question, options, answer, level)
    record = probe_record(Where(Path("new probe")), " ".join(question.split()), options, answer, level, list(apps),
                          category, author)
    record.review_status = "pending"
    report = ingest(project, [record], "probe", "written by hand")
    if not report.episodes:
        raise ValueError("this question is already a probe of the project")
    with project.reading() as s:
        return s.execute(select(m.Episode.id).where(m.Episode.key == record.key)).scalar_one()


def probes(project: Project) -> list[Probe]:
    with project.reading() as s:
        rows = s.execute(select(m.Episode).where(m.Episode.kind == "probe").order_by(m.Episode.id)).scalars().all()
    return [_probe(e) for e in rows]


def _probe(episode: m.Episode) -> Probe:
    info = ((episode.meta or {}).get("capability") or {}).get("probe") or {}
    return Probe(episode.id, episode.key, episode.goal, dict(info.get("options") or {}), info.get("answer", ""),
                 info.get("level", ""), list(info.get("apps") or []), info.get("category") or "",
                 info.get("author") or "", episode.review_status)


def probe_changes(project: Project, episode_id: int, question: str, options: dict[str, str], answer: str,
                  level: str, apps: list[str], category: str) -> dict:
    """The episode fields an edit sets (checked), for edits.update_episode or an undoable command."""
    _check(question, options, answer, level)
    with project.reading() as s:
        episode = s.get(m.Episode, episode_id)
    meta = copy.deepcopy(episode.meta or {})
    probe = meta.setdefault("capability", {}).setdefault("probe", {})
    probe.update({"options": dict(options), "answer": answer, "level": level, "apps": list(apps),
                  "category": category})
    return {"goal": " ".join(question.split()), "meta": meta}


def edit_probe(project: Project, episode_id: int, question: str, options: dict[str, str], answer: str,
               level: str, apps: list[str], category: str, actor: str | None = None) -> None:
    edits.update_episode(project, episode_id,
                         probe_changes(project, episode_id, question, options, answer, level, apps, category), actor)


def verify_probe(project: Project, episode_id: int, decision: str, reason: str = "",
                 reviewer: str | None = None) -> str:
    """accept (recorded as edited when the probe was changed after it was added) or reject with a reason."""
    if decision not in ("accept", "reject"):
        raise ValueError("decision is accept or reject")
    if decision == "reject" and not reason.strip():
        raise ValueError("a rejected probe needs a reason (e.g. ambiguous question, wrong key)")
    with project.reading() as s:
        edited = s.execute(select(m.AuditEntry.id).where(m.AuditEntry.entity == "episode",
                                                         m.AuditEntry.entity_id == episode_id,
                                                         m.AuditEntry.action == "update").limit(1)).first()
    status = "rejected" if decision == "reject" else ("edited" if edited else "accepted")
    set_review(project, episode_id, status, reviewer, reason)
    return status


def probe_id(project: Project, probe: int | str) -> int:
    """A probe's episode id from its id or key; KeyError names what was asked for."""
    with project.reading() as s:
        column = m.Episode.id if isinstance(probe, int) else m.Episode.key
        found = s.execute(select(m.Episode.id).where(column == probe, m.Episode.kind == "probe")).scalar()
    if found is None:
        raise KeyError(f"no probe {probe!r} in this project")
    return found
