"""Labels and verdicts out: the authors' evals/<log>.jsonl lines, a CSV, the trajectories a judge passed, and
the steps whose per-step reward reaches a threshold.

evals lines are what their annotation app appends ({dataset_path, task_idx, task_uid, user_uid,
annotation, comment}): human labels as their annotators, a judge run's verdicts with the run's name
as the annotator and its reasoning as the comment, so their loaders read either. The passed set is a
UnifiedTrajectory folder of the trajectories a judge called successful: the data for filtered
behaviour cloning. The paper's iOS experiment filtered finer: it kept the state-action pairs whose
per-step reward is at least p. export_steps does that, from a per-step judge run or one annotator's
step labels, with the labels' rewards configurable (vocabulary.STEP_LABELS holds the defaults; the
paper does not say its mapping, so the default threshold 0.5 keeps "completes the task" and "makes
progress").
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
from desktop_app.formats.writing import atomic_output
from desktop_app.judging.labels import labels_of, references
from desktop_app.judging.trajectories import list_trajectories, load_trajectory
from desktop_app.judging.verdicts import verdicts_of
from desktop_app.judging.vocabulary import STEP_LABELS
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


def step_rewards(changes: dict[str, float] | None = None) -> dict[str, float]:
    """The reward of each step label: the defaults, with `changes` applied (an unknown label is refused)."""
    rewards = {label: reward for label, (_, reward) in STEP_LABELS.items()}
    for label, value in (changes or {}).items():
        if label not in rewards:
            raise ValueError(f"unknown step label {label!r} (one of {', '.join(rewards)})")
        rewards[label] = float(value)
    return rewards


def _step_labels(project: Project, run_id: int | None, annotator: str) -> dict[int, tuple[str, ...]]:
    """Per trajectory, the label of each step: a per-step judge run's, or one annotator's."""
    if (run_id is None) == (not annotator):
        raise ValueError("say whose step labels filter the steps: a per-step judge run, or an annotator")
    if run_id is not None:
        _run(project, run_id)
        out = {eid: v.step_labels for eid, v in verdicts_of(project, run_id).items() if v.step_labels}
        if not out:
            raise ValueError(f"judge run {run_id} has no step labels: only a per_step judge run labels steps")
        return out
    out = {eid: by[annotator].step_labels for eid, by in labels_of(project).items()
           if annotator in by and any(by[annotator].step_labels)}
    if not out:
        raise ValueError(f"{annotator!r} has labelled no steps")
    return out


def export_steps(project: Project, out: Path, run_id: int | None = None, annotator: str = "",
                 min_reward: float = 0.5, rewards: dict[str, float] | None = None) -> tuple[int, int]:
    """A folder of the state-action pairs whose step reward is >= min_reward: steps.jsonl (one line per
    kept step: trajectory uid, step index, intent, image, action, label, reward) and images/.
    Returns (steps kept, steps labelled). Nothing kept refuses, and nothing is written."""
    rewards = step_rewards(rewards)
    labelled = _step_labels(project, run_id, annotator)
    kept, total = [], 0
    for episode_id, labels in labelled.items():
        trajectory = load_trajectory(project, episode_id)
        for step, label in zip(trajectory.steps, labels, strict=False):
            if not label:
                continue
            total += 1
            if rewards.get(label, float("-inf")) >= min_reward:
                kept.append((trajectory, step, label))
    if not kept:
        raise FormatError(f"no step of the {total} labelled has a reward of at least {min_reward}: nothing to export",
                          Path(out))
    with atomic_output(Path(out)) as root:
        (root / "images").mkdir()
        lines = []
        for trajectory, step, label in kept:
            name = f"{step.sha256}.{step.ext}"
            if not (root / "images" / name).exists():
                (root / "images" / name).write_bytes(project.media.read(step.sha256, step.ext))
            lines.append({"uid": trajectory.key, "step": step.index, "intent": trajectory.intent,
                          "policy": trajectory.policy, "img": f"images/{name}", "action": step.action.text,
                          "raw_action": step.action.raw, "points": [list(p) for p in step.action.points],
                          "label": label, "reward": rewards[label]})
        (root / "steps.jsonl").write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines),
                                          encoding="utf-8")
    return len(kept), total
