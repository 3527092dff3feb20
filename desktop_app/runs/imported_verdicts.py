"""A judge run holding verdicts made elsewhere (the authors' evaluator output, another tool's verdicts,
the demo's scripted judges), so the agreement view measures them like a judge run of ours.

The run is of protocol "judge" and agent kind "imported": finished when created, one prediction per
trajectory on its last step (where a whole-trajectory judge run stores its verdict), and nothing to
resume: there is no model to ask. The whole file goes in, or nothing does: a verdict for a trajectory
the project does not have refuses the import, naming the line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import func, select

from desktop_app.evaluation.parsed_answers import parse_rows
from desktop_app.judging.verdict_files import read_verdict_file
from desktop_app.runs.selection import RunSelection
from desktop_app.runs.state import RunState
from desktop_app.store import audit
from desktop_app.store import models as m
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter
from desktop_app.store.types import utcnow

IMPORTED = "imported"  # Run.kind of a run whose verdicts were read from a file


@dataclass(frozen=True)
class ImportedVerdicts:
    run_id: int
    name: str
    verdicts: int
    left_out: int  # lines that were no verdict (unsure, emulator error)

    def summary(self) -> str:
        extra = f"; {self.left_out} left out (unsure or emulator error: no verdict)" if self.left_out else ""
        return f"run {self.run_id} {self.name!r}: {self.verdicts} imported verdicts{extra}"


def import_verdicts(project: Project, path: Path, name: str = "", user: str = "") -> ImportedVerdicts:
    """Read a verdict file (judging/verdict_files.py) into a new finished judge run named `name`
    (default: the judge the file names)."""
    read = read_verdict_file(Path(path), user)
    name = name.strip() or read.judge
    if not read.verdicts:
        raise ValueError(f"{path}: no verdicts to import ({read.left_out} lines were unsure or emulator error)")
    with project.transaction() as s:
        if s.execute(select(m.Run.id).where(m.Run.name == name, m.Run.kind == IMPORTED)).first():
            raise ValueError(f"a run named {name!r} already holds imported verdicts; give another name")
        keys = [v.uid for v in read.verdicts]
        episodes = dict(s.execute(select(m.Episode.key, m.Episode.id)
                                  .where(m.Episode.kind == "trajectory", m.Episode.key.in_(keys))).all())
        missing = [v for v in read.verdicts if v.uid not in episodes]
        if missing:
            more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
            raise missing[0].where.error(f"no trajectory {missing[0].uid!r} in this project{more}: import the "
                                         f"trajectories first (screenlab judge import)", missing[0].field)
        last = (select(m.Step.episode_id, func.max(m.Step.index).label("last"))
                .where(m.Step.episode_id.in_(episodes.values())).group_by(m.Step.episode_id).subquery())
        last_steps = dict(s.execute(select(m.Step.episode_id, m.Step.id).join(
            last, (last.c.episode_id == m.Step.episode_id) & (last.c.last == m.Step.index))).all())
        profile = m.AgentProfile(name=name, pattern="", convention="", params={"name": name, "kind": IMPORTED})
        s.add(profile)
        s.flush()
        ids = tuple(sorted(episodes.values()))
        now = utcnow()
        run = m.Run(name=name, profile_id=profile.id, protocol="judge", status=RunState.DONE, agent=name,
                    kind=IMPORTED, model="", pattern="", convention="", samples=len(read.verdicts),
                    selection=RunSelection(EpisodeFilter(ids=ids, kind="trajectory")).to_json(),
                    options={}, started_at=now, finished_at=now)  # no judge options: the file's judge is unknown
        s.add(run)
        s.flush()
        rows = [m.Prediction(run_id=run.id, step_id=last_steps[episodes[v.uid]], raw_text=v.raw, verdict=v.status,
                             parsed={"mode": IMPORTED, "status": v.status, "thoughts": v.thoughts,
                                     "source": Path(path).name}) for v in read.verdicts]
        s.add_all(rows)
        s.flush()
        parse_rows(s, [row.id for row in rows])  # parsed once, as a run's answers are (ADR 0052)
        audit.record(s, "import", "run", run.id, {"verdicts": len(read.verdicts), "from": str(path),
                                                  "layout": read.layout})
        return ImportedVerdicts(run.id, name, len(read.verdicts), read.left_out)
