"""Per-annotator progress: what each person was given, how far they are, how long it took."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from desktop_app.store.models import Adjudication, Assignment
from desktop_app.store.project import Project


@dataclass
class AnnotatorProgress:
    annotator: str
    assigned: int
    todo: int
    in_progress: int
    done: int
    skipped: int
    double: int  # of `assigned`, labelled blind on a copy
    seconds: float  # time spent, all samples
    median_s_per_done: float | None

    @property
    def finished_share(self) -> float:
        return (self.done + self.skipped) / self.assigned if self.assigned else 0.0


def progress(project: Project) -> list[AnnotatorProgress]:
    with project.reading() as s:
        rows = s.execute(select(Assignment.annotator, Assignment.state, Assignment.copy_id,
                                Assignment.seconds)).all()
    people: dict[str, list] = {}
    for row in rows:
        people.setdefault(row.annotator, []).append(row)
    import statistics  # here: the window imports this module at start, and reads progress later

    out = []
    for name in sorted(people):
        mine = people[name]
        count = {state: sum(1 for r in mine if r.state == state) for state in ("todo", "in_progress", "done",
                                                                              "skipped")}
        done_times = [r.seconds for r in mine if r.state == "done" and r.seconds > 0]
        out.append(AnnotatorProgress(name, len(mine), count["todo"], count["in_progress"], count["done"],
                                     count["skipped"], sum(1 for r in mine if r.copy_id is not None),
                                     sum(r.seconds for r in mine),
                                     statistics.median(done_times) if done_times else None))
    return out


def awaiting_adjudication(project: Project) -> list[int]:
    """Samples labelled twice whose copies are all done (or skipped), not yet adjudicated."""
    with project.reading() as s:
        rows = s.execute(select(Assignment.episode_id, Assignment.state)
                         .where(Assignment.copy_id.is_not(None))).all()
        decided = set(s.execute(select(Adjudication.episode_id)).scalars())
    states: dict[int, list[str]] = {}
    for episode_id, state in rows:
        states.setdefault(episode_id, []).append(state)
    return sorted(e for e, st in states.items() if e not in decided and len(st) >= 2
                  and all(x in ("done", "skipped") for x in st) and "done" in st)
