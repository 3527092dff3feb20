"""All-or-nothing import of EpisodeRecords into a project, shared by every format.

Two passes: take the records as the reader gives them (a list, or one at a time
from a file of any size), checking each, its images and boxes, and copying new
images into the media store; then write all rows in one transaction. What passed
the checks waits in a spool (memory, then a temporary file) until then, so a
bad record half-way leaves the project as one at the start does. Any error
undoes the copies and leaves the database as it was. Images that cannot be read
are all named at once; with ImportOptions.skip_bad_images the others are
imported and the report names the skipped ones.
"""

from __future__ import annotations

import hashlib
import math
import os
import pickle
import shlex
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sized
from dataclasses import dataclass, field
from itertools import chain, islice
from pathlib import Path

from sqlalchemy import insert, select, update

from desktop_app.a11y.tree import UiTree
from desktop_app.formats.budget import MAX_DOCUMENT, MAX_TEXT, longest_text
from desktop_app.formats.image_lookahead import ImageLookahead
from desktop_app.formats.labelling_tools import shape_words
from desktop_app.formats.records import BoxRecord, EpisodeRecord, FormatError, Where, unstorable
from desktop_app.gc_pause import gc_paused
from desktop_app.images import DEFAULT_MAX_PIXELS, ImageInfo, ImageProblem, inspect_bytes, inspect_file
from desktop_app.store import audit, label_set
from desktop_app.store.media_sweep import sweep_orphans
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
BAD_LISTED = 50  # bad images named in a message; the rest are counted, so a broken folder stays readable
DUPLICATES_LISTED = 10  # duplicate pairs named in a summary
REPORT_LIST_CAP = 1000  # entries of a list kept in the report's dict (it goes into the audit log)
CHECK_BATCH = 1000  # steps (of whole records) checked together: their ids are looked up in the project at once
KNOWN_NAMES = 20_000  # image files remembered as checked (a file named again later is read again)
WRITE_BATCH = 2000  # steps (of whole records) per round of INSERTs
SPOOL_IN_MEMORY = 2000  # steps of checked records held in memory; past this they wait in a temporary file


@dataclass
class ImportOptions:
    images_dir: Path | None = None
    max_pixels: int = DEFAULT_MAX_PIXELS
    bbox_format: str | None = None  # a key of box_layout.LAYOUTS, for formats whose spec.options name it; None = detect
    split: str | None = None  # overrides the split the source gives
    dedupe_images: bool = False  # skip an episode whose image is already stored
    skip_bad_images: bool = False  # import the rest when images cannot be read; the report names the skipped
    # a box reaching past its picture's edge is cut at the edge, one wholly outside it left out (its action kept
    # without a box), each listed in the report: releases hold a few (SeeClick's Mind2Web test file: x -63 to -8)
    clip_boxes: bool = False
    # a shape that is not a rectangle (LabelMe, Label Studio, CVAT): "refuse" the file, take it as its bounding
    # "bbox", or "skip" it (labelling_tools.SHAPE_CHOICES); the report counts each kind
    shapes: str = "refuse"
    # classes the records name that the project does not have are added to it once every record passed its
    # checks; without it they are all named in one refusal
    add_labels: bool = False


@dataclass(frozen=True)
class BadImage:
    """An image that cannot be imported: its file, why, and (when a record of another file names it)
    where, as "data.jsonl, line 2, field 'image': <file>: <reason>"."""

    path: str
    reason: str
    located: str = ""

    def __str__(self) -> str:
        return self.located or f"{self.path}: {self.reason}"


def bad_image_lines(bad: list[BadImage], indent: str = "  ") -> list[str]:
    lines = [f"{indent}{b}" for b in bad[:BAD_LISTED]]
    if len(bad) > BAD_LISTED:
        lines.append(f"{indent}and {len(bad) - BAD_LISTED} more")
    return lines


class BadImagesError(FormatError):
    """Every image of an import that cannot be read; nothing was imported. `importable`: how many
    episodes an import skipping them would bring in."""

    def __init__(self, bad: list[BadImage], importable: int):
        self.bad = bad
        self.importable = importable
        files = f"{len(bad)} image file{'s' if len(bad) != 1 else ''}"
        lines = [f"{files} cannot be imported:", *bad_image_lines(bad)]
        if importable:
            lines.append(f"the other {importable} episode{'s' if importable != 1 else ''} can be imported "
                         "by skipping the bad images")
        super().__init__("\n".join(lines))


class UnknownLabels:
    """The classes an import's records name that the project does not have: how many boxes each, and where
    the first is, so that one refusal names them all (not one per attempt), or ImportOptions.add_labels adds
    them (all or none) before the rows are written."""

    def __init__(self, classes: tuple[str, ...]):
        self.classes = classes
        self.counts: Counter = Counter()
        self.first: tuple[Where, str] | None = None
        self.rank: dict[str, int] = {}  # class -> its place in the file's own list, where the file has one

    def __bool__(self) -> bool:
        return bool(self.counts)

    def add(self, label: str, where: Where, field_name: str, rank: int | None = None) -> None:
        if self.first is None:
            self.first = (where, field_name)
        self.counts[label] += 1
        if rank is not None:
            self.rank.setdefault(label, rank)

    def _listed(self) -> str:
        return ", ".join(f"'{k}' ({n} box{'es' if n != 1 else ''})" for k, n in self.counts.items())

    def refusal(self) -> FormatError:
        names = list(self.counts)
        adds = " ".join(f"--add {shlex.quote(name)}" for name in names)
        what = f"unknown class {self._listed()}" if len(names) == 1 else \
            f"{len(names)} unknown classes: {self._listed()}"
        where, field_name = self.first
        have = ", ".join(self.classes) if len(self.classes) <= 12 else \
            f"{', '.join(self.classes[:12])} and {len(self.classes) - 12} more"
        return where.error(
            f"{what} (this project's classes: {have or 'none yet'}; this is the first box naming one); import "
            "again with --add-labels (Import dialog: 'Add the classes the file names'), or add "
            f"{'it' if len(names) == 1 else 'them'} first with: screenlab labels PROJECT {adds} (in the window: "
            "Edit > Classes of this project...)", field_name)

    def add_to(self, engine) -> list[str]:
        """Adds the classes to the project, all or none; a FormatError says why when they cannot be."""
        if not self.counts:
            return []
        # the file's order where it declares one (then the others as they came)
        names = sorted(self.counts, key=lambda name: self.rank.get(name, len(self.rank) + len(self.counts)))
        where, field_name = self.first
        try:
            label_set.add_classes(engine, names)
        except label_set.LabelError as exc:
            raise where.error(f"cannot add the file's classes: {exc}; nothing was added or imported",
                              field_name) from None
        return names

    @staticmethod
    def take_back(engine, added: list[str]) -> None:
        """Removes classes this import added, when it failed after adding them (no box has them then)."""
        for name in reversed(added):
            label_set.remove_class(engine, name)


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
    duplicates: list[tuple[str, str]] = field(default_factory=list)  # (image skipped, image kept for it)
    bad_images_skipped: list[BadImage] = field(default_factory=list)  # with ImportOptions.skip_bad_images
    orphans_swept: int = 0  # images and temporary files a killed earlier import left, removed first
    boxes_clipped: list[str] = field(default_factory=list)  # with ImportOptions.clip_boxes: where, before -> after
    shapes_as_boxes: Counter = field(default_factory=Counter)  # kind -> how many taken as their bounding box
    shapes_skipped: Counter = field(default_factory=Counter)  # kind -> how many left out (ImportOptions.shapes)
    labels_added: list[str] = field(default_factory=list)  # classes, with ImportOptions.add_labels
    classes: Counter = field(default_factory=Counter)  # class -> boxes (their roles are counted in `boxes`)
    layout: str = ""  # which files the reader read, when the format has several layouts (FormatSpec.layout)

    def summary(self) -> str:
        labels = ", ".join(f"{self.boxes[k]} {k}" for k in LABELS if self.boxes[k]) or "none"
        if self.classes:
            top = self.classes.most_common(12)
            labels += "; classes: " + ", ".join(f"{n} {k}" for k, n in top)
            if len(self.classes) > len(top):
                labels += f" and {len(self.classes) - len(top)} more"
        what = "trajectories" if self.trajectories and self.trajectories == self.episodes else "episodes"
        lines = [f"imported {self.episodes} {what} ({self.steps} steps) from {self.source} [{self.format}]"]
        if self.layout:
            lines.append(f"  read: {self.layout}")
        lines.append(f"  screens: {self.screens_new} new, {self.screens_reused} already stored")
        if what == "episodes":  # a trajectory's actions are the agent's, not labelled boxes
            lines.append(f"  actions: {sum(self.boxes.values())} ({labels})")
        shapes = [f"{shape_words(k, n)} taken as {'its bounding box' if n == 1 else 'their bounding boxes'}"
                  for k, n in sorted(self.shapes_as_boxes.items())]
        shapes += [f"{shape_words(k, n)} skipped" for k, n in sorted(self.shapes_skipped.items())]
        if shapes:
            lines.append(f"  other shapes: {', '.join(shapes)}")
        if self.labels_added:
            lines.append(f"  classes added to the project: {', '.join(self.labels_added)}")
        if self.trajectories:
            lines.append(f"  trajectory labels: {self.trajectory_labels}; screen captions: {self.captions}")
        if self.trees:
            lines.append(f"  accessibility trees: {self.trees}")
        if self.duplicate_images_skipped:
            lines.append(f"  skipped {self.duplicate_images_skipped} duplicate images (same SHA-256; "
                         "the first by path is kept):")
            lines += [f"    {dropped} (same as {kept})" for dropped, kept in self.duplicates[:DUPLICATES_LISTED]]
            if len(self.duplicates) > DUPLICATES_LISTED:
                lines.append(f"    and {len(self.duplicates) - DUPLICATES_LISTED} more")
        if self.bad_images_skipped:
            lines.append(f"  skipped {len(self.bad_images_skipped)} images that cannot be read:")
            lines += bad_image_lines(self.bad_images_skipped, "    ")
        if self.existing_episodes_skipped:
            lines.append(f"  skipped {self.existing_episodes_skipped} episodes whose id is already in the project")
        if self.orphans_swept:
            lines.append(f"  removed {self.orphans_swept} image files an interrupted import had left unnamed")
        if self.boxes_clipped:
            lines.append(f"  clipped {len(self.boxes_clipped)} boxes at the edge of their picture (or left out):")
            lines += [f"    {where}" for where in self.boxes_clipped[:DUPLICATES_LISTED]]
            if len(self.boxes_clipped) > DUPLICATES_LISTED:
                lines.append(f"    and {len(self.boxes_clipped) - DUPLICATES_LISTED} more")
        return "\n".join(lines)

    def as_dict(self) -> dict:
        return {
            "format": self.format, "source": self.source, "episodes": self.episodes, "steps": self.steps,
            "screens_new": self.screens_new, "screens_reused": self.screens_reused,
            "boxes": dict(self.boxes), "duplicate_images_skipped": self.duplicate_images_skipped,
            "existing_episodes_skipped": self.existing_episodes_skipped, "orphans_swept": self.orphans_swept,
            "boxes_clipped": len(self.boxes_clipped),
            "trajectories": self.trajectories, "trajectory_labels": self.trajectory_labels, "captions": self.captions,
            "trees": self.trees, "shapes_as_boxes": dict(self.shapes_as_boxes),
            "shapes_skipped": dict(self.shapes_skipped), "labels_added": list(self.labels_added),
            "classes": dict(self.classes),
            "layout": self.layout,
            "duplicates": [{"skipped": d, "kept": k} for d, k in self.duplicates[:REPORT_LIST_CAP]],
            "bad_images_skipped": [{"path": b.path, "reason": b.reason}
                                   for b in self.bad_images_skipped[:REPORT_LIST_CAP]],
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


def _check_text(record: EpisodeRecord) -> None:
    where = record.where
    parts = [("id", record.key), ("goal", record.goal), ("scenario", record.scenario), ("split", record.split),
             ("meta", record.meta), ("labels", record.labels), ("reviews", record.reviews)]
    for step in record.steps:
        parts += [(step.field + "instruction", step.instruction), (step.field + "meta", step.meta),
                  (step.field + "captions", step.captions), (step.field + "screen_meta", step.screen_meta),
                  (step.image_named_by, step.screen_source)]
        for box in step.boxes:
            name = box.field or step.field + "actions"
            parts += [(name, {"element text": box.element_text, "typed text": box.type_text, "author": box.author}),
                      (name, {"meta": box.meta})]
    for name, value in parts:  # the readers checked what came from JSON; this covers the rest (file names...)
        # every text stored, from every reader, within the budget's length (ADR 0039)
        problem = unstorable(value) or longest_text(value, "", MAX_TEXT)
        if problem:
            raise where.error(problem, name)
    for step in record.steps:
        if len(step.tree_xml) > MAX_DOCUMENT:
            raise where.error(f"the accessibility tree is {len(step.tree_xml):,} characters; the limit is "
                              f"{MAX_DOCUMENT:,}", step.field + "tree")


def role_and_class(box: BoxRecord) -> tuple[str, str]:
    """A file's box as (role, class): a name that is a role ("gold", "Other") is that role; any other name is
    the box's class, as the file spells it, with the role the file gave (our exports' "role" attribute) or
    other (ADR 0047)."""
    role = label_set.role_of(box.label)
    if role:
        return role, ""
    return (box.role or "other"), box.label.strip()


def _check_record(record: EpisodeRecord, classes: tuple[str, ...], unknown: UnknownLabels) -> None:
    """Refuses the record at its first problem; a class the project does not have is noted in `unknown`."""
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
                              "step has no screenshot", step.image_named_by)
        if step.platform not in PLATFORMS:
            raise where.error(f"unknown platform '{step.platform}' (one of {', '.join(PLATFORMS)})",
                              step.field + "platform")
        for box in step.boxes:
            role, name = role_and_class(box)
            if role not in LABELS:
                raise where.error(f"unknown role '{role}' (gold, distracted or other)", box.field)
            if name and name not in classes:
                try:
                    label_set.clean_name(name)
                except label_set.LabelError as exc:
                    raise where.error(str(exc), box.field) from None
                unknown.add(name, where, box.field, box.class_rank)
            if box.action_type not in ACTION_TYPES:
                raise where.error(f"unknown action type '{box.action_type}' (one of {', '.join(ACTION_TYPES)})",
                                  box.field)
            if box.source not in BOX_SOURCES:
                raise where.error(f"unknown source '{box.source}'", box.field)


def _check_boxes(record: EpisodeRecord, step_index: int, info: ImageInfo, clip: bool = False) -> list[str]:
    """Refuses a box that cannot be right for its picture; with `clip`, one reaching past the picture's edge is
    cut at the edge instead, one wholly outside left out. The clipped boxes' places (record, field, before -> after)."""
    clipped = []
    step = record.steps[step_index]
    for box in step.boxes:
        if box.box is None:
            continue
        if box.grid is not None:
            _grid_to_pixels(record, box, info)
        x1, y1, x2, y2 = box.box
        shown = "[" + ", ".join(f"{v:g}" for v in box.box) + "]"
        if not all(math.isfinite(v) for v in box.box):
            raise record.where.error(f"box {shown} has a non-finite coordinate", box.field)
        if x2 < x1 or y2 < y1:
            raise record.where.error(f"box {shown} has x2 < x1 or y2 < y1 (expected [x1, y1, x2, y2])",
                                     box.field)
        if x1 < 0 or y1 < 0 or x2 > info.width or y2 > info.height:
            if not clip:
                raise record.where.error(
                    f"box {shown} lies outside the {info.width}x{info.height} image {step.image.name}; to cut such "
                    "boxes at the picture's edge (and leave out the box of an action wholly outside it), import again "
                    "with --clip-boxes (Import dialog: 'Clip boxes at the picture's edge')", box.field)
            inside = (max(x1, 0.0), max(y1, 0.0), min(x2, float(info.width)), min(y2, float(info.height)))
            if inside[0] < inside[2] and inside[1] < inside[3]:
                box.box = inside
                cut = "[" + ", ".join(f"{v:g}" for v in inside) + "]"
            else:  # nothing of it on the picture: the action is kept, without a place
                box.box, cut = None, "left out (wholly outside the picture; the action kept without a box)"
            clipped.append(str(record.where.error(f"{shown} -> {cut}", box.field)))
    return clipped


def _grid_to_pixels(record: EpisodeRecord, box, info: ImageInfo) -> None:
    """A box given on a grid over the image (BoxRecord.grid: 0-1 fractions, 0-1000, percent) in pixels of this
    image; numbers off the grid are refused as they are written, before any scaling hides them."""
    grid_w, grid_h = box.grid
    values = box.box
    shown = "[" + ", ".join(f"{v:g}" for v in values) + "]"
    if not all(math.isfinite(v) for v in values) or not (grid_w > 0 and grid_h > 0):
        raise record.where.error(f"box {shown} has a non-finite coordinate", box.field)
    x1, y1, x2, y2 = values
    if min(x1, x2, y1, y2) < 0 or max(x1, x2) > grid_w or max(y1, y2) > grid_h:
        raise record.where.error(f"box {shown} lies outside the 0-{grid_w:g} x 0-{grid_h:g} grid its "
                                 "coordinates are given on (relative to the image, not pixels)", box.field)
    sx, sy = info.width / grid_w, info.height / grid_h
    box.box = (x1 * sx, y1 * sy, x2 * sx, y2 * sy)
    box.grid = None  # in pixels now: a second look (the same record checked again) must not scale it twice


def ingest(project: Project, records: Iterable[EpisodeRecord], fmt: str, source: str,
           options: ImportOptions | None = None, progress: Progress = no_progress) -> ImportReport:
    """`records`: a list, or any iterable, taken once as it comes (a reader streaming a big file; one with a
    read_fraction() method tells how far it got). A bad record, or a reader's error, anywhere in it leaves
    the project as it was."""
    options = options or ImportOptions()
    report = ImportReport(format=fmt, source=source)
    stream = iter(records)
    head = list(islice(stream, FSYNC_EACH_BELOW))
    durable = len(head) < FSYNC_EACH_BELOW
    tick = _Ticks(progress, len(records) if isinstance(records, Sized) else None,
                  getattr(records, "read_fraction", None))
    created: list[tuple[str, str]] = []  # media files this import added, removed again on failure
    try:
        # records and rows by the million, no cycles among them: the collector walking them took a quarter of
        # the import's time (more as the heap grows) and freed next to nothing (benchmarks/project_1m.py)
        with gc_paused(), _Spool(spill=not isinstance(records, Sized)) as spool:
            unknown = _check_and_copy(project, chain(head, stream), options, report, created, durable, spool, tick)
            report.labels_added = unknown.add_to(project.engine)
            try:
                with project.media.locked():  # a failed import elsewhere cannot remove a file between check and commit
                    _write(project, spool, fmt, source, options, report, progress, durable)
            except BaseException:
                unknown.take_back(project.engine, report.labels_added)
                raise
    except BaseException:
        _remove_unreferenced(project, created)
        raise
    if report.bad_images_skipped:  # a skipped episode's good images were copied, and nothing names them
        _remove_unreferenced(project, created)
    return report


class _Ticks:
    """The checking stage's progress: records done of the list's length, or the percentage of the input a
    streaming reader has read (held below 100 until the end: it reads ahead of the records it gives)."""

    def __init__(self, progress: Progress, total: int | None, fraction: Callable[[], float] | None):
        self.progress, self.total, self.fraction = progress, total, fraction

    def __call__(self, done: int) -> None:
        if self.total is not None:
            self.progress("checking images", done, self.total)
        elif self.fraction is not None:
            self.progress("checking images", min(int(self.fraction() * 100), 99), 100)

    def end(self, done: int) -> None:
        if self.total is None:
            self.progress("checking images", 100, 100)


class _Spool:
    """The records that passed the checks, with their images' infos, in order until they are written. Those
    of a reader that streams (`spill`) stay in memory while few, then are pickled to an unnamed temporary file
    (gone with the process, however it ends) and read back one at a time, so an import of any size holds a
    bounded amount; a list's are in memory anyway."""

    def __init__(self, spill: bool):
        self.spill = spill
        self.count = self.steps = 0
        self.held: list[tuple[EpisodeRecord, list]] = []
        self.file = None

    def __enter__(self) -> _Spool:
        return self

    def __exit__(self, *exc) -> None:
        if self.file is not None:
            self.file.close()

    def add(self, record: EpisodeRecord, infos: list) -> None:
        self.count += 1
        self.steps += len(record.steps)
        if self.file is not None:
            pickle.dump((record, infos), self.file, pickle.HIGHEST_PROTOCOL)
            return
        self.held.append((record, infos))
        if self.spill and self.steps > SPOOL_IN_MEMORY:
            self.file = tempfile.TemporaryFile(prefix="screenlab-import-")  # noqa: SIM115 (closed by __exit__)
            for item in self.held:
                pickle.dump(item, self.file, pickle.HIGHEST_PROTOCOL)
            self.held = []

    def __iter__(self) -> Iterator[tuple[EpisodeRecord, list]]:
        if self.file is None:
            yield from self.held
            return
        self.file.flush()
        self.file.seek(0)
        for _ in range(self.count):
            yield pickle.load(self.file)  # what add() wrote, in this process, to a file no one else can open


def _batches(items: Iterable, size: int, weight: Callable[[object], int] = lambda _: 1) -> Iterator[list]:
    """Lists of items weighing about `size` together (at least one item each)."""
    batch, held = [], 0
    for item in items:
        batch.append(item)
        held += weight(item)
        if held >= size:
            yield batch
            batch, held = [], 0
    if batch:
        yield batch


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
                                         step.image_named_by)
            project.media.put(info.sha256, info.ext, data)


class _ImageChecker:
    """Checks each image once (a file named twice is read once: the last KNOWN_NAMES files named are
    remembered, so an import of any size holds a bounded number) and copies the good ones into the media
    store. Once an import is sure to be refused it copies nothing more, but checks on, to name every
    bad file."""

    def __init__(self, project, options: ImportOptions, created: list[tuple[str, str]], durable: bool,
                 ahead: ImageLookahead):
        self.project, self.options, self.created, self.durable = project, options, created, durable
        self.ahead = ahead  # the files the batch will ask for, decoded ahead on the other cores
        self.known: dict[str, ImageInfo | ImageProblem] = {}
        self.copying = True
        self.clipped: list[str] = []  # boxes cut at their picture's edge (ImportOptions.clip_boxes)

    def _remember(self, name: str, what: ImageInfo | ImageProblem) -> None:
        self.known[name] = what
        if len(self.known) > KNOWN_NAMES:
            del self.known[next(iter(self.known))]

    def check(self, step) -> ImageInfo:
        """The image's metadata, not its pixels (a big dataset must not sit in memory); ImageProblem if bad."""
        from_file = step.image_bytes is None
        name = str(step.image) if from_file else ""
        known = self.known.get(name) if from_file else None
        if isinstance(known, ImageProblem):
            raise known
        if known is not None:
            return known
        try:
            info = self.ahead.take(step)
            if info is None:
                info = (inspect_file(step.image, self.options.max_pixels) if from_file
                        else inspect_bytes(step.image_bytes, self.options.max_pixels, step.image))
        except ImageProblem as problem:
            if from_file:
                self._remember(name, problem)
            self.copying = self.options.skip_bad_images
            raise
        if self.copying and self.project.media.put(info.sha256, info.ext, info.data, durable=self.durable):
            self.created.append((info.sha256, info.ext))
        slim = ImageInfo(info.sha256, info.ext, info.width, info.height, b"")
        if from_file:
            self._remember(name, slim)
        return slim


def _bad_image(record: EpisodeRecord, step, problem: ImageProblem) -> BadImage:
    path = str(step.image)
    if step.image == record.where.file:  # a folder of images: the record is the file itself
        return BadImage(path, problem.reason)
    located = record.where.error(f"{path}: {problem.reason}", step.image_named_by)
    return BadImage(path, problem.reason, str(located))


def _check_images(record: EpisodeRecord, images: _ImageChecker) -> tuple[list[ImageInfo | None], list[BadImage]]:
    """Each step's image (None for a probe's question), and the record's images that cannot be read."""
    record_infos, bad = [], []
    for index, step in enumerate(record.steps):
        if step.image is None and step.image_bytes is None:  # a probe's question (checked in _check_record)
            record_infos.append(None)
            continue
        try:
            info = images.check(step)
        except ImageProblem as problem:
            bad.append(_bad_image(record, step, problem))
            record_infos.append(None)
            continue
        if step.expected_sha256 and step.expected_sha256 != info.sha256:
            raise record.where.error(
                f"image {step.image.name} has SHA-256 {info.sha256[:12]}..., the record says "
                f"{step.expected_sha256[:12]}... (file changed or wrong file)", step.field + "sha256")
        if step.expected_size is not None and tuple(step.expected_size) != (info.width, info.height):
            width, height = step.expected_size
            raise record.where.error(
                f"the record gives this screenshot as {width}x{height} pixels, but the image {step.image.name} is "
                f"{info.width}x{info.height} (another picture, or a resized copy: the record's pixel coordinates "
                "would not fit it)", step.size_field or step.field + "size")
        images.clipped += _check_boxes(record, index, info, images.options.clip_boxes)
        record_infos.append(info)
    return record_infos, bad


def _image_name(step) -> str:
    return step.screen_source or str(step.image)


def _is_duplicate(record: EpisodeRecord, record_infos, kept_as: dict[str, str], report: ImportReport) -> bool:
    """Whether a picture of this record is already in this import. Records come in path order (the images
    reader sorts them), so the first by path is kept; `kept_as` maps a hash to the image kept for it."""
    for step, info in zip(record.steps, record_infos, strict=True):
        if info is not None and info.sha256 in kept_as:
            report.duplicates.append((_image_name(step), kept_as[info.sha256]))
            report.duplicate_images_skipped += 1
            return True
    for step, info in zip(record.steps, record_infos, strict=True):
        if info is not None:
            kept_as.setdefault(info.sha256, _image_name(step))
    return False


def _stored_sources(session, hashes: Iterable[str]) -> dict[str, str]:
    """sha256 -> where the stored screen came from, for the hashes already in the project."""
    hashes = list(hashes)
    found: dict[str, str] = {}
    for start in range(0, len(hashes), _CHUNK):
        chunk = hashes[start:start + _CHUNK]
        found.update(session.execute(select(Screen.sha256, Screen.source).where(Screen.sha256.in_(chunk))).all())
    return found


def _drop_stored_duplicates(project, kept, infos, report) -> list[EpisodeRecord]:
    with project.reading() as session:
        stored = _stored_sources(session, {i.sha256 for r in kept for i in infos[id(r)] if i is not None})
    if not stored:
        return kept
    remaining = []
    for record in kept:
        same = [(step, info) for step, info in zip(record.steps, infos[id(record)], strict=True)
                if info is not None and info.sha256 in stored]
        if not same:
            remaining.append(record)
            continue
        step, info = same[0]
        report.duplicates.append((_image_name(step), f"{stored[info.sha256]}, already in the project"))
        report.duplicate_images_skipped += 1
    return remaining


def _check_and_copy(project, records, options, report, created, durable, spool, tick) -> UnknownLabels:
    """Each record as it comes: its fields and id, then (unless the project has its id) its images, copied
    into the media store; those to import go to the spool. Raises at the first bad record, and at the end
    when images cannot be read (every one of them named) or, without ImportOptions.add_labels, when records
    name labels the project does not have (every one of them named). Returns those labels."""
    with ImageLookahead(options.max_pixels) as ahead:
        return _check_batches(project, records, options, report, created, durable, spool, tick, ahead)


def _check_batches(project, records, options, report, created, durable, spool, tick, ahead) -> UnknownLabels:
    images = _ImageChecker(project, options, created, durable, ahead)
    classes = label_set.classes(project.engine)
    seen_keys: dict[str, Where] = {}
    kept_as: dict[str, str] = {}
    bad: dict[str, BadImage] = {}  # by file: a bad image named by two records is listed once
    unknown = UnknownLabels(classes)
    swept, done, importable = False, 0, 0
    for batch in _batches(records, CHECK_BATCH, lambda record: len(record.steps)):
        for record in batch:
            _check_record(record, classes, unknown)
            if record.key in seen_keys:
                first = seen_keys[record.key]
                raise record.where.error(f"episode id '{record.key}' repeats line {first.line} of {first.file.name}")
            seen_keys[record.key] = record.where
        with project.reading() as session:
            existing = _existing(session, Episode.key, [r.key for r in batch])
        if not swept:  # what a killed import left (images no row names) goes first; cheap unless a writer died
            report.orphans_swept = sweep_orphans(project).removed
            swept = True
        kept: list[EpisodeRecord] = []
        infos: dict[int, list[ImageInfo | None]] = {}
        if not unknown or options.add_labels:  # the files the loop below will check, in its order
            ahead.expect([step for record in batch if record.key not in existing for step in record.steps])
        for record in batch:
            done += 1
            if unknown and not options.add_labels:  # sure to be refused: only the rest of the labels are looked at
                tick(done)
                continue
            if record.key in existing:
                report.existing_episodes_skipped += 1
                tick(done)
                continue
            record_infos, record_bad = _check_images(record, images)
            tick(done)
            for problem in record_bad:
                bad.setdefault(problem.path, problem)
            if record_bad or (options.dedupe_images and _is_duplicate(record, record_infos, kept_as, report)):
                continue
            infos[id(record)] = record_infos
            kept.append(record)
        if options.dedupe_images and kept:
            kept = _drop_stored_duplicates(project, kept, infos, report)
        importable += len(kept)
        if not bad or options.skip_bad_images:  # an import sure to be refused keeps nothing more
            for record in kept:
                spool.add(record, infos[id(record)])
    if not swept:
        report.orphans_swept = sweep_orphans(project).removed
    report.boxes_clipped = images.clipped
    tick.end(done)
    if unknown and not options.add_labels:
        raise unknown.refusal()
    if bad:
        if not (options.skip_bad_images and importable):  # all or nothing, unless asked (and something is left)
            raise BadImagesError(list(bad.values()), importable)
        report.bad_images_skipped = list(bad.values())
    return unknown


def _write(project, spool, fmt, source, options, report, progress, durable) -> None:
    if not durable and spool.count and hasattr(os, "sync"):
        os.sync()  # one flush for all copied images instead of an fsync per file
    now = utcnow()
    screen_ids: dict[str, int] = {}  # sha256 -> id of every screen this import names
    captioned: set[tuple[int, str]] = set()  # (screen id, captioner) of the captions this import wrote
    written = 0
    with project.transaction() as session:
        for batch in _batches(spool, WRITE_BATCH, lambda item: len(item[0].steps)):
            records = [record for record, _ in batch]
            infos = {id(record): record_infos for record, record_infos in batch}
            _restore_missing(project, records, infos)
            _write_batch(session, records, infos, screen_ids, captioned, now, options, report)
            written += len(records)
            progress("writing", written, spool.count)
        audit.record(session, "import", "project", None, report.as_dict())
    if not spool.count:
        progress("writing", 1, 1)


def _write_batch(session, records, infos, screen_ids, captioned, now, options, report) -> None:
    """The rows of some of the import's records, in the import's one transaction."""
    conn = session.connection()
    batch_infos = {i.sha256: i for r in records for i in infos[id(r)] if i is not None}
    found = _existing(session, Screen.sha256, [sha for sha in batch_infos if sha not in screen_ids])
    report.screens_reused += len(found)
    screen_ids.update(found)
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
    report.screens_new += len(new_screens)

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

    box_rows, review_rows = [], []
    step_iter = iter(step_ids)
    for record, episode_id in zip(records, episode_ids, strict=True):
        for step in record.steps:
            step_id = next(step_iter)
            for b in step.boxes:
                x1, y1, x2, y2 = b.box if b.box is not None else (None,) * 4
                role, name = role_and_class(b)
                box_rows.append({
                    "step_id": step_id, "x1": x1, "y1": y1, "x2": x2, "y2": y2, "label": role, "category": name,
                    "action_type": b.action_type, "element_text": b.element_text, "type_text": b.type_text,
                    "source": b.source, "author": b.author, "meta": b.meta,
                    "created_at": b.created_at or now, "updated_at": b.updated_at or now, "version": b.version,
                })
                report.boxes[role] += 1
                if name:
                    report.classes[name] += 1
                if b.shape:
                    report.shapes_as_boxes[b.shape] += 1
            report.shapes_skipped.update(step.skipped_shapes)
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
    labels, captions = _write_trajectory_parts(session, records, episode_ids, infos, screen_ids, captioned, now)
    report.trajectory_labels += labels
    report.captions += captions
    report.trees += _write_trees(conn, records, infos, screen_ids, now)
    report.trajectories += sum(1 for r in records if r.kind == "trajectory")
    report.episodes += len(records)
    report.steps += len(step_rows)


def _write_trajectory_parts(session, records, episode_ids, infos, screen_ids, captioned, now) -> tuple[int, int]:
    """Human labels of trajectories and screen captions (a caption already stored is kept, one this import
    wrote is replaced by a later one); how many of each were added."""
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
    for (sid, name), text in captions.items():
        if (sid, name) in captioned:  # written by an earlier batch of this import: the last one wins
            conn.execute(update(ScreenCaption).where(ScreenCaption.screen_id == sid, ScreenCaption.captioner == name)
                         .values(text=text))
    captions = {k: v for k, v in captions.items() if k not in captioned}
    if captions:
        have = set(session.execute(select(ScreenCaption.screen_id, ScreenCaption.captioner)
                                   .where(ScreenCaption.screen_id.in_({k[0] for k in captions}))).all())
        rows = [{"screen_id": sid, "captioner": name, "text": text, "source": "imported", "created_at": now}
                for (sid, name), text in captions.items() if (sid, name) not in have]
        if rows:
            conn.execute(insert(ScreenCaption), rows)
            captioned.update((row["screen_id"], row["captioner"]) for row in rows)
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
