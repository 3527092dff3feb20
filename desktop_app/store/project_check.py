"""`screenlab check`, api.check_project and File > Check project…: is a project whole?

Three things, each cheap next to what it guards: the database's own check (SQLite's `PRAGMA integrity_check`
reads every page; a PostgreSQL server keeps its pages itself, so one query that reads every table's count
is enough to show it answers), the counts `screenlab info` shows, and the images no screen names (what a
killed import leaves: store/media_sweep.py). `repair=True` removes those images, under the media lock, as the
next import would; the database itself is never "repaired" here: a damaged SQLite file is restored from a
copy, and that is said.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import text
from sqlalchemy.exc import DatabaseError

from desktop_app.store.counts import project_counts
from desktop_app.store.media_sweep import GRACE_S, SweepReport, sweep_orphans
from desktop_app.store.project import Project

MAX_PROBLEMS = 20  # integrity_check lists every damaged page; the first ones say enough


@dataclass
class ProjectCheck:
    where: str
    database: str  # "sqlite" or the server's dialect
    problems: list[str] = field(default_factory=list)  # from the database's own check; empty: whole
    counts: dict = field(default_factory=dict)
    orphans: SweepReport = field(default_factory=SweepReport)
    repaired: bool = False

    @property
    def orphans_left(self) -> int:
        return 0 if self.repaired else self.orphans.removed

    @property
    def ok(self) -> bool:
        return not self.problems and not self.orphans_left

    def lines(self) -> list[str]:
        c = self.counts
        out = [f"project   {self.where}",
               f"database  {self.database}: " + ("ok" if not self.problems else
                                                 f"{len(self.problems)} problem(s): " + "; ".join(self.problems[:3])),
               f"counts    {c.get('screens', 0)} screens, {c.get('episodes', 0)} episodes, {c.get('steps', 0)} "
               f"steps, {c.get('actions', 0)} actions"]
        o = self.orphans
        if self.repaired:
            media = f"removed {o.media_files} orphan image files, {o.temp_files} temporary files" + (
                f", {o.blobs} orphan images in the database" if o.blobs else "") + f" ({o.bytes_freed / 1e6:.1f} MB)"
        elif o.removed:
            media = (f"{o.media_files} orphan image files, {o.temp_files} temporary files" + (
                f", {o.blobs} orphan images in the database" if o.blobs else "")
                + f" no screen names ({o.bytes_freed / 1e6:.1f} MB); repairing removes them")
        else:
            media = "no orphan images"
        if o.kept:
            media += f"; {o.kept} kept: another process writing here may still name them"
        out.append(f"media     {media}")
        if self.problems:
            out.append("the database is damaged: restore the project from a copy (ScreenLab does not mend pages)")
        return out

    def as_dict(self) -> dict:
        o = self.orphans
        return {"project": self.where, "database": self.database, "problems": self.problems, "counts": self.counts,
                "orphans": {"image_files": o.media_files, "temp_files": o.temp_files, "blobs": o.blobs,
                            "bytes": o.bytes_freed, "kept": o.kept, "removed": self.repaired},
                "ok": self.ok}


def check_project(project: Project, repair: bool = False, grace_s: float = GRACE_S) -> ProjectCheck:
    """The database's own check, the counts, and the images no screen names (removed when `repair`). The
    image scan holds the media lock, so it waits for an import that is committing and never takes an image
    a commit is about to name."""
    dialect = project.engine.dialect.name
    report = ProjectCheck(where=str(project.folder or project.url), database=dialect)
    with project.engine.connect() as conn:
        if dialect == "sqlite":
            try:
                rows = [r[0] for r in conn.execute(text(f"PRAGMA integrity_check({MAX_PROBLEMS})"))]
            except DatabaseError as exc:  # pages so damaged the check itself stops: that is its answer
                rows = [str(exc.orig or exc).splitlines()[0]]
            report.problems = [] if rows == ["ok"] else [str(r) for r in rows]
        try:
            report.counts = project_counts(conn)  # reads every table: a server that answers this is whole enough
        except Exception:
            if not report.problems:  # a whole database that cannot be counted: not this check's to explain
                raise
    if report.problems:
        return report  # its rows cannot be trusted to say which images are named
    report.orphans = sweep_orphans(project, full=True, grace_s=grace_s, dry_run=not repair)
    report.repaired = repair
    return report
