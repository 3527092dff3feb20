"""Labels and verdicts out: the authors' evals/<log>.jsonl lines, a CSV, and the trajectories a judge passed.

evals lines are what their annotation app appends ({dataset_path, task_idx, task_uid, user_uid,
annotation, comment}): human labels as their annotators, a judge run's verdicts with the run's name
as the annotator and its reasoning as the comment, so their loaders read either. The passed set is a
UnifiedTrajectory folder of the trajectories a judge called successful: the data for filtered
behaviour cloning (the paper's iOS experiment).
"""

from __future__ import annotations

import csv
import json
import os
import tempfile
from pathlib import Path

from desktop_app.formats.records import FormatError
from desktop_app.formats.spec import ExportReport
from desktop_app.formats.transfer import export_path
from desktop_app.formats.unified_trajectory import WRITTEN
from desktop_app.judging.labels import labels_of, references
from desktop_app.judging.trajectories import list_trajectories
from desktop_app.judging.verdicts import verdicts_of
from desktop_app.store import models as m
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter


def _write_atomic(out: Path, text: str) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    os.replace(tmp, out)


def _run(project: Project, run_id: int) -> m.Run:
    with project.reading() as s:
        run = s.get(m.Run, run_id)
    if run is None or run.protocol != "judge":
        raise ValueError(f"run {run_id} is not a judge run of this project")
    return run


def evals_lines(project: Project, run_id: int | None = None) -> list[dict]:
    """Human labels (run_id None) or one judge run's verdicts as evals lines, in trajectory order."""
    rows = list_trajectories(project)
    lines = []
    if run_id is None:
        labels = labels_of(project)
        for task_idx, row in enumerate(rows):
            for label in labels.get(row.episode_id, {}).values():
                lines.append(_line(row.source, task_idx, row.key, label.annotator, WRITTEN[label.outcome], label.comment))
        return lines
    run = _run(project, run_id)
    verdicts = verdicts_of(project, run_id)
    for task_idx, row in enumerate(rows):
        verdict = verdicts.get(row.episode_id)
        if verdict is None or verdict.status not in WRITTEN:
            continue  # no verdict (parse failure, failed request): nothing to claim
        lines.append(_line(row.source, task_idx, row.key, run.name or f"run {run_id}", WRITTEN[verdict.status],
                           verdict.thoughts))
    return lines


def _line(source: dict, task_idx: int, uid: str, user: str, annotation: str, comment: str) -> dict:
    return {"dataset_path": source.get("dataset_path", ""), "task_idx": source.get("task_idx", task_idx),
            "task_uid": uid, "user_uid": user, "annotation": annotation, "comment": comment}


def export_evals(project: Project, out: Path, run_id: int | None = None) -> int:
    lines = evals_lines(project, run_id)
    _write_atomic(Path(out), "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    return len(lines)


def export_csv(project: Project, out: Path, run_ids: list[int]) -> int:
    """One row per trajectory: its key, policy, steps, intent, the reference, each annotator's label and
    each judge run's verdict ("" when it gave none)."""
    runs = [_run(project, r) for r in run_ids]
    rows = list_trajectories(project)
    labels, refs = labels_of(project), references(project)
    annotators = sorted({a for by in labels.values() for a in by})
    verdicts = {r.id: verdicts_of(project, r.id) for r in runs}
    header = (["key", "policy", "steps", "intent", "reference"] + [f"label:{a}" for a in annotators]
              + [f"judge:{r.name or r.id}" for r in runs])
    with tempfile.NamedTemporaryFile("w", delete=False, dir=Path(out).parent, suffix=".csv", newline="",
                                     encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        for row in rows:
            ref = refs.get(row.episode_id)
            reference = "" if ref is None or ref.success is None else ("success" if ref.success else "failure")
            writer.writerow([row.key, row.policy, row.steps, row.intent, reference]
                            + [getattr(labels.get(row.episode_id, {}).get(a), "outcome", "") for a in annotators]
                            + [getattr(verdicts[r.id].get(row.episode_id), "status", "") for r in runs])
    os.replace(f.name, out)
    return len(rows)


def export_passed(project: Project, out: Path, run_id: int) -> ExportReport:
    """A UnifiedTrajectory folder of the trajectories the judge run called successful."""
    _run(project, run_id)
    passed = tuple(eid for eid, v in verdicts_of(project, run_id).items() if v.status == "success")
    if not passed:
        raise FormatError(f"judge run {run_id} passed no trajectory: nothing to export", out)
    return export_path(project, Path(out), "unified-trajectory", EpisodeFilter(ids=passed, kind="trajectory"))
