"""All-or-nothing import of EpisodeRecords into a project, shared by every format.

Three passes: parse everything (the reader), check every image and box and copy
new images into the media store, then write all rows in one transaction. Any
error undoes the copies and leaves the database as it was.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import insert, select

from desktop_app.a11y.tree import UiTree
from desktop_app.formats.records import EpisodeRecord, FormatError, Where
from desktop_app.images import DEFAULT_MAX_PIXELS, ImageInfo, ImageProblem, inspect_bytes, inspect_file
from desktop_app.store import audit
from desktop_app.store.models import (
    ACTION_TYPES,
    BOX_SOURCES,
    EPISODE_KINDS,
    EPISODE_REVIEW_STATUSES,
    LABELS,
    OUTCOMES,
    PLATFORMS,
    REVIEW_STATUSES,
    ActionBox,
    Episode,
    ReviewItem,
    Screen,
    ScreenCaption,
    ScreenTree,
    Step,
    TrajectoryLabel,
)
from desktop_app.store.project import Project
from desktop_app.store.types import utcnow

_CHUNK = 500  # rows per IN (...) lookup; well under SQLite's variable limit
FSYNC_EACH_BELOW = 64  # small imports (a generated sample) fsync each image; big ones sync once


@dataclass
class ImportOptions:
    images_dir: Path | None = None
    max_pixels: int = DEFAULT_MAX_PIXELS
    bbox_format: str | None = None  # screenspot only: "xywh" or "xyxy"; None = detect
    split: str | None = None  # overrides the split the source gives
    dedupe_images: bool = False  # skip an episode whose image is already stored


@dataclass
class ImportReport:
    format: str
    source: str
    episodes: int = 0
    steps: int = 0
    screens_new: int = 0
    screens_reused: int = 0
    boxes: Counter = field(default_factory=Counter)
    duplicate_images_skipped: int = 0
    existing_episodes_skipped: int = 0
    trajectories: int = 0  # of the episodes, those of kind trajectory (docs/decisions/0017)
    trajectory_labels: int = 0  # people's verdicts on them
    captions: int = 0  # screen captions stored (one already there is kept)
    trees: int = 0  # accessibility trees stored (a screen that has one keeps it)

    def summary(self) -> str:
        labels = ", ".join(f"{self.boxes[k]} {k}" for k in LABELS if self.boxes[k]) or "none"
        what = "trajectories" if self.trajectories and self.trajectories == self.episodes else "episodes"
        lines = [
            f"imported {self.episodes} {what} ({self.steps} steps) from {self.source} [{self.format}]",
            f"  screens: {self.screens_new} new, {self.screens_reused} already stored",
        ]
        if what == "episodes":  # a trajectory's actions are the agent's, not labelled boxes
            lines.append(f"  actions: {sum(self.boxes.values())} ({labels})")
        if self.trajectories:
            lines.append(f"  trajectory labels: {self.trajectory_labels}; screen captions: {self.captions}")
        if self.trees:
            lines.append(f"  accessibility trees: {self.trees}")
        if self.duplicate_images_skipped:
            lines.append(f"  skipped {self.duplicate_images_skipped} duplicate images (same SHA-256)")
        if self.existing_episodes_skipped:
            lines.append(f"  skipped {self.existing_episodes_skipped} episodes whose id is already in the project")
        return "\n".join(lines)

    def as_dict(self) -> dict:
        return {
            "format": self.format, "source": self.source, "episodes": self.episodes, "steps": self.steps,
            "screens_new": self.screens_new, "screens_reused": self.screens_reused,
            "boxes": dict(self.boxes), "duplicate_images_skipped": self.duplicate_images_skipped,
            "existing_episodes_skipped": self.existing_episodes_skipped,
            "trajectories": self.trajectories, "trajectory_labels": self.trajectory_labels, "captions": self.captions,
            "trees": self.trees,
        }


Progress = Callable[[str, int, int], None]


def no_progress(_stage: str, _done: int, _total: int) -> None:
    pass


def _existing(session, column, values: Iterable[str]) -> dict[str, int]:
    """Map value -> id for the rows already present (chunked IN lookups)."""
    values = list(dict.fromkeys(values))
    table = column.class_
    found: dict[str, int] = {}
    for start in range(0, len(values), _CHUNK):
        chunk = values[start:start + _CHUNK]
        for value, row_id in session.execute(select(column, table.id).where(column.in_(chunk))):
            found[value] = row_id
    return found


def _unstorable(value, path: str) -> str | None:
    """Where in a value a text holds what UTF-8 cannot store (a lone surrogate from a JSON \\ud800 escape),
    or a number that is not finite; None when all is well. Such a value would break every later export."""
    if isinstance(value, str):
        for ch in value:
            if "\ud800" <= ch <= "\udfff":
                return f"{path or 'a text'} holds a lone surrogate (U+{ord(ch):04X}), which no file can store"
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return f"{path or 'a number'} is {value}, not a finite number"
    if isinstance(value, dict):
        for k, v in value.items():
            found = _unstorable(k, path) or _unstorable(v, f"{path}.{k}" if path else str(k))
            if found:
                return found
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            found = _unstorable(v, f"{path}[{i}]")
            if found:
                return found
    return None


def _check_text(record: EpisodeRecord) -> None:
    where = record.where
    parts = [("id", record.key), ("goal", record.goal), ("scenario", record.scenario), ("split", record.split),
             ("meta", record.meta), ("labels", record.labels), ("reviews", record.reviews)]
    for step in record.steps:
        parts += [(step.field + "instruction", step.instruction), (step.field + "meta", step.meta),
                  (step.field + "captions", step.captions), (step.field + "screen_meta", step.screen_meta)]
        parts += [(box.field or step.field + "actions", [box.element_text, box.type_text, box.meta, box.box])
                  for box in step.boxes]
    for name, value in parts:
        problem = _unstorable(value, "")
        if problem:
            raise where.error(problem, name)


def _check_record(record: EpisodeRecord) -> None:
    where = record.where
    if not record.key:
        raise where.error("episode id is empty")
    _check_text(record)
    if record.review_status not in EPISODE_REVIEW_STATUSES:
        raise where.error(f"unknown review status '{record.review_status}'", "review_status")
    if not record.steps:
        raise where.error("episode has no steps (no screenshot)")
    if record.kind not in EPISODE_KINDS:
        raise where.error(f"unknown episode kind '{record.kind}'", "kind")
    for label in record.labels:
        if label.get("outcome") not in OUTCOMES:
            raise where.error(f"unknown outcome '{label.get('outcome')}' (one of {', '.join(OUTCOMES)})", "labels")
    for review in record.reviews:
        if review.get("status", "pending") not in REVIEW_STATUSES:
            raise where.error(f"unknown review status '{review.get('status')}'", "reviews")
    for step in record.steps:
        # a knowledge probe's steps are questions without a screen; every other step has its screenshot
        screenless = step.image is None and step.image_bytes is None
        if screenless != (record.kind == "probe"):
            raise where.error("a probe's steps have no screenshot" if record.kind == "probe" else
                              "step has no screenshot", step.field + "image")
        if step.platform not in PLATFORMS:
            raise where.error(f"unknown platform '{step.platform}' (one of {', '.join(PLATFORMS)})",
                              step.field + "platform")
        for box in step.boxes:
            if box.label not in LABELS:
                raise where.error(f"unknown label '{box.label}' (one of {', '.join(LABELS)})", box.field)
            if box.action_type not in ACTION_TYPES:
                raise where.error(f"unknown action type '{box.action_type}' (one of {', '.join(ACTION_TYPES)})",
                                  box.field)
            if box.source not in BOX_SOURCES:
                raise where.error(f"unknown source '{box.source}'", box.field)


def _check_boxes(record: EpisodeRecord, step_index: int, info: ImageInfo) -> None:
    step = record.steps[step_index]
    for box in step.boxes:
        if box.box is None:
            continue
        x1, y1, x2, y2 = box.box
        shown = "[" + ", ".join(f"{v:g}" for v in box.box) + "]"
        if not all(math.isfinite(v) for v in box.box):
            raise record.where.error(f"box {shown} has a non-finite coordinate", box.field)
        if x2 < x1 or y2 < y1:
            raise record.where.error(f"box {shown} has x2 < x1 or y2 < y1 (expected [x1, y1, x2, y2])",
                                     box.field)
        if x1 < 0 or y1 < 0 or x2 > info.width or y2 > info.height:
            raise record.where.error(
                f"box {shown} lies outside the {info.width}x{info.height} image {step.image.name}", box.field)


def ingest(project: Project, records: list[EpisodeRecord], fmt: str, source: str,
           options: ImportOptions | None = None, progress: Progress = no_progress) -> ImportReport:
    options = options or ImportOptions()
    report = ImportReport(format=fmt, source=source)

    seen_keys: dict[str, Where] = {}
    for record in records:
        _check_record(record)
        if record.key in seen_keys:
            first = seen_keys[record.key]
            raise record.where.error(f"episode id '{record.key}' repeats line {first.line} of {first.file.name}")
        seen_keys[record.key] = record.where

    with project.reading() as session:
        existing_keys = _existing(session, Episode.key, seen_keys)
    records = [r for r in records if r.key not in existing_keys]
    report.existing_episodes_skipped = len(seen_keys) - len(records)

    created: list[tuple[str, str]] = []  # media files this import added, removed again on failure
    try:
        kept, infos = _check_and_copy(project, records, options, report, created, progress)
        with project.media.locked():  # a failed import elsewhere cannot remove a file between check and commit
            _restore_missing(project, kept, infos)
            _write(project, kept, infos, fmt, source, options, report, progress)
        return report
    except BaseException:
        _remove_unreferenced(project, created)
        raise


def _remove_unreferenced(project, created: list[tuple[str, str]]) -> None:
    """A failed import takes back the files it added, except those another import committed meanwhile
    (the same image imported twice at once: the file is theirs now)."""
    if not created:
        return
    with project.media.locked():
        with project.reading() as session:
            kept = set(_existing(session, Screen.sha256, {sha for sha, _ in created}))
        for sha, ext in created:
            if sha not in kept:
                project.media.remove(sha, ext)


def _restore_missing(project, records, infos) -> None:
    """Put back a file this import found already there when it checked it, and that a failed import
    removed since (it had added it first): the rows about to be committed name it."""
    for record in records:
        for step, info in zip(record.steps, infos[id(record)], strict=True):
            if info is None or project.media.has(info.sha256, info.ext):
                continue
            data = step.image_bytes if step.image_bytes is not None else Path(step.image).read_bytes()
            if hashlib.sha256(data).hexdigest() != info.sha256:
                raise record.where.error(f"image {step.image} changed during the import; import it again",
                                         step.field + "image")
            project.media.put(info.sha256, info.ext, data)


def _check_and_copy(project, records, options, report, created, progress):
    cache: dict[Path, ImageInfo] = {}
    batch_hashes: set[str] = set()
    kept: list[EpisodeRecord] = []
    infos: dict[int, list[ImageInfo]] = {}
    total = len(records)
    for done, record in enumerate(records, start=1):
        record_infos = []
        for index, step in enumerate(record.steps):
            path = step.image
            if path is None and step.image_bytes is None:  # a probe's question (checked in _check_record)
                record_infos.append(None)
                continue
            info = cache.get(path) if step.image_bytes is None else None
            if info is None:
                try:
                    info = (inspect_file(path, options.max_pixels) if step.image_bytes is None
                            else inspect_bytes(step.image_bytes, options.max_pixels))
                except ImageProblem as exc:
                    raise record.where.error(str(exc), step.field + "image") from None
                # keep the metadata, not the pixels: a big dataset must not sit in memory
                cache[path] = ImageInfo(info.sha256, info.ext, info.width, info.height, b"")
                if project.media.put(info.sha256, info.ext, info.data, durable=total < FSYNC_EACH_BELOW):
                    created.append((info.sha256, info.ext))
                info = cache[path]
            if step.expected_sha256 and step.expected_sha256 != info.sha256:
                raise record.where.error(
                    f"image {path.name} has SHA-256 {info.sha256[:12]}..., the record says "
                    f"{step.expected_sha256[:12]}... (file changed or wrong file)", step.field + "sha256")
            _check_boxes(record, index, info)
            record_infos.append(info)
        progress("checking images", done, total)
        if options.dedupe_images:
            hashes = {i.sha256 for i in record_infos if i is not None}
            if hashes & batch_hashes:
                report.duplicate_images_skipped += 1
                continue
            batch_hashes |= hashes
        infos[id(record)] = record_infos
        kept.append(record)
    if options.dedupe_images and kept:
        with project.reading() as session:
            already = set(_existing(session, Screen.sha256, batch_hashes))
        if already:
            before = len(kept)
            kept = [r for r in kept if not {i.sha256 for i in infos[id(r)] if i is not None} & already]
            report.duplicate_images_skipped += before - len(kept)
    return kept, infos


def _write(project, records, infos, fmt, source, options, report, progress) -> None:
    if len(records) >= FSYNC_EACH_BELOW and hasattr(os, "sync"):
        os.sync()  # one flush for all copied images instead of an fsync per file
    now = utcnow()
    with project.transaction() as session:
        conn = session.connection()
        all_infos = {i.sha256: i for r in records for i in infos[id(r)] if i is not None}
        screen_ids = _existing(session, Screen.sha256, all_infos)
        report.screens_reused = len(screen_ids)
        new_screens = []
        for record in records:
            for step, info in zip(record.steps, infos[id(record)], strict=True):
                if info is None or info.sha256 in screen_ids:
                    continue
                screen_ids[info.sha256] = -1  # placeholder so a repeat within the batch is stored once
                new_screens.append({
                    "sha256": info.sha256, "ext": info.ext, "width": info.width, "height": info.height,
                    "platform": step.platform, "source": step.screen_source or str(step.image),
                    "meta": step.screen_meta, "created_at": now,
                })
        if new_screens:
            rows = conn.execute(insert(Screen).returning(Screen.id, Screen.sha256, sort_by_parameter_order=True),
                                new_screens)
            screen_ids.update({sha: sid for sid, sha in rows})
        report.screens_new = len(new_screens)
        progress("writing", 1, 3)

        episode_rows = [{
            "key": r.key, "goal": r.goal, "scenario": r.scenario,
            "split": options.split if options.split is not None else r.split,
            "review_status": r.review_status, "meta": r.meta, "created_at": now, "updated_at": now, "version": 1,
            "kind": r.kind,
        } for r in records]
        episode_ids = [row.id for row in conn.execute(
            insert(Episode).returning(Episode.id, sort_by_parameter_order=True), episode_rows)] if records else []

        step_rows = []
        for record, episode_id in zip(records, episode_ids, strict=True):
            for index, (step, info) in enumerate(zip(record.steps, infos[id(record)], strict=True)):
                meta = {**step.meta, "tree": tree_hash(step.tree_xml)} if step.tree_xml else step.meta
                step_rows.append({"episode_id": episode_id, "index": index,
                                  "screen_id": screen_ids[info.sha256] if info is not None else None,
                                  "instruction": step.instruction, "meta": meta})
        step_ids = [row.id for row in conn.execute(
            insert(Step).returning(Step.id, sort_by_parameter_order=True), step_rows)] if step_rows else []
        progress("writing", 2, 3)

        box_rows, review_rows = [], []
        step_iter = iter(step_ids)
        for record, episode_id in zip(records, episode_ids, strict=True):
            for step in record.steps:
                step_id = next(step_iter)
                for b in step.boxes:
                    x1, y1, x2, y2 = b.box if b.box is not None else (None,) * 4
                    box_rows.append({
                        "step_id": step_id, "x1": x1, "y1": y1, "x2": x2, "y2": y2, "label": b.label,
                        "action_type": b.action_type, "element_text": b.element_text, "type_text": b.type_text,
                        "source": b.source, "author": b.author, "meta": b.meta,
                        "created_at": b.created_at or now, "updated_at": b.updated_at or now, "version": b.version,
                    })
                    report.boxes[b.label] += 1
            for review in record.reviews:
                review_rows.append({
                    "episode_id": episode_id, "kind": review.get("kind", ""),
                    "generator": review.get("generator", ""), "prompt": review.get("prompt", ""),
                    "payload": review.get("payload", {}), "status": review.get("status", "pending"),
                    "reviewer": review.get("reviewer", ""), "reason": review.get("reason", ""),
                    "created_at": review.get("created_at") or now, "updated_at": review.get("updated_at") or now,
                })
        for start in range(0, len(box_rows), 20_000):
            conn.execute(insert(ActionBox), box_rows[start:start + 20_000])
        if review_rows:
            conn.execute(insert(ReviewItem), review_rows)
        report.trajectory_labels, report.captions = _write_trajectory_parts(session, records, episode_ids, infos,
                                                                            screen_ids, now)
        report.trees = _write_trees(conn, records, infos, screen_ids, now)
        report.trajectories = sum(1 for r in records if r.kind == "trajectory")
        report.episodes = len(records)
        report.steps = len(step_rows)
        audit.record(session, "import", "project", None, report.as_dict())
        progress("writing", 3, 3)


def _write_trajectory_parts(session, records, episode_ids, infos, screen_ids, now) -> tuple[int, int]:
    """Human labels of trajectories and screen captions (a caption already stored is kept); how many of each."""
    conn = session.connection()
    labels = [{"episode_id": eid, "annotator": lab["annotator"], "outcome": lab["outcome"],
               "step_labels": list(lab.get("step_labels") or []), "comment": lab.get("comment", ""),
               "created_at": now, "updated_at": now, "version": 1}
              for record, eid in zip(records, episode_ids, strict=True) for lab in record.labels]
    if labels:
        conn.execute(insert(TrajectoryLabel), labels)
    captions = {}
    for record in records:
        for step, info in zip(record.steps, infos[id(record)], strict=True):
            if info is None:
                continue
            for captioner, text in step.captions.items():
                captions[(screen_ids[info.sha256], captioner)] = text
    if captions:
        have = set(session.execute(select(ScreenCaption.screen_id, ScreenCaption.captioner)
                                   .where(ScreenCaption.screen_id.in_({k[0] for k in captions}))).all())
        rows = [{"screen_id": sid, "captioner": name, "text": text, "source": "imported", "created_at": now}
                for (sid, name), text in captions.items() if (sid, name) not in have]
        if rows:
            conn.execute(insert(ScreenCaption), rows)
        return len(labels), len(rows)
    return len(labels), 0


def tree_hash(xml: str) -> str:
    return hashlib.sha256(xml.encode("utf-8")).hexdigest()


def _write_trees(conn, records, infos, screen_ids, now) -> int:
    """Accessibility trees of the imported steps, one row per screen and dump (a step names its own in
    step.meta["tree"]); a dump already stored for that screen is kept, with its corrections."""
    trees = {}
    for record in records:
        for step, info in zip(record.steps, infos[id(record)], strict=True):
            if step.tree_xml and info is not None:
                trees.setdefault((screen_ids[info.sha256], tree_hash(step.tree_xml)), step.tree_xml)
    if not trees:
        return 0
    have = set(conn.execute(select(ScreenTree.screen_id, ScreenTree.sha256)
                            .where(ScreenTree.screen_id.in_({sid for sid, _ in trees}))).all())
    rows = [{"screen_id": sid, "sha256": sha, "kind": "uiautomator", "xml": xml,
             "nodes": len(UiTree.from_xml(xml).nodes), "flags": {}, "created_at": now}
            for (sid, sha), xml in trees.items() if (sid, sha) not in have]
    if rows:
        conn.execute(insert(ScreenTree), rows)
    return len(rows)


def raise_if_empty(records: list[EpisodeRecord], path: Path, what: str) -> None:
    if not records:
        raise FormatError(f"no {what} found", path)
