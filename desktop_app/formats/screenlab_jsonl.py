"""ScreenLab's own lossless JSONL: one episode per line, images beside it.

Layout of a dataset folder: `episodes.jsonl` plus `images/<sha256>.<ext>`, and
`trees/<sha256>.xml` for the steps whose screen has an accessibility tree (a recorded
task's, a trajectory's). Every field the project stores for an episode, step, action and
review is written, so export -> import reproduces the project exactly; an episode that is
not a sample (a trajectory) says its kind. Node corrections on a tree are not carried.
"""

from __future__ import annotations

import json
from pathlib import Path

from desktop_app.formats.records import (
    BoxRecord,
    EpisodeRecord,
    FormatError,
    JsonLinesRecords,
    StepRecord,
    Where,
    check_storable,
    find_inside,
    image_bases,
    optional,
    parse_box,
    parse_time,
    require,
    resolve_image,
    shown,
)
from desktop_app.formats.spec import ExportContext, ExportReport, FormatSpec
from desktop_app.formats.sphinx import read_tree_file
from desktop_app.formats.writing import ImageWriter, atomic_output, json_box
from desktop_app.store.models import LABELS

FILE_NAME = "episodes.jsonl"
VERSION = 1
MAX_VERSION = 2**31 - 1  # an action's version is an INTEGER column: 32 bits on PostgreSQL
REVIEW_TEXTS = ("kind", "generator", "prompt", "status", "reviewer", "reason")


def _source_file(path: Path) -> Path:
    if path.is_dir():
        path = path / FILE_NAME
    if path.exists() and not path.is_file():
        raise FormatError("not a regular file (a pipe, a device or a folder?)", path)
    if not path.is_file():
        raise FormatError(f"no {FILE_NAME} here", path)
    return path


def _read_action(obj, where: Where, name: str) -> BoxRecord:
    if not isinstance(obj, dict):
        raise where.error("expected an object", name)
    box = obj.get("box")
    label = require(obj, "label", str, where, name + ".")
    # "label" is the role; "category" (written when the box has one) its class: the record's label is then the
    # class and its role the role (ingest.role_and_class)
    category = optional(obj, "category", str, where, "", name + ".").strip()
    if category and label not in LABELS:
        raise where.error(f"a box with a class has a role as its label (gold, distracted, other), not {label!r}",
                          name + ".label")
    return BoxRecord(
        label=category or label,
        role=label if category else "",
        box=None if box is None else parse_box(box, where, name + ".box"),
        element_text=optional(obj, "element_text", str, where, "", name + "."),
        action_type=optional(obj, "action_type", str, where, "click", name + "."),
        type_text=optional(obj, "type_text", str, where, "", name + "."),
        source=optional(obj, "source", str, where, "import", name + "."),
        author=optional(obj, "author", str, where, "", name + "."),
        meta=optional(obj, "meta", dict, where, {}, name + "."),
        created_at=parse_time(obj.get("created_at"), where, name + ".created_at"),
        updated_at=parse_time(obj.get("updated_at"), where, name + ".updated_at"),
        version=_version(obj, where, name),
        field=name,
    )


def _version(obj: dict, where: Where, name: str) -> int:
    version = optional(obj, "version", int, where, 1, name + ".")
    if not 1 <= version <= MAX_VERSION:
        raise where.error(f"expected a version from 1 to {MAX_VERSION:,}, got {shown(version)}", name + ".version")
    return version


def _read_step(obj, where: Where, name: str, bases: list[Path]) -> StepRecord:
    if not isinstance(obj, dict):
        raise where.error("expected an object", name)
    image = resolve_image(require(obj, "image", str, where, name + "."), bases, where, name + ".image")
    tree = optional(obj, "tree", str, where, "", name + ".")
    tree_xml = read_tree_file(find_inside([tree], bases, where, name + ".tree", "tree")) if tree else ""
    actions = optional(obj, "actions", list, where, [], name + ".")
    return StepRecord(
        image=image,
        boxes=[_read_action(a, where, f"{name}.actions[{i}]") for i, a in enumerate(actions)],
        expected_sha256=optional(obj, "sha256", str, where, None, name + "."),
        platform=optional(obj, "platform", str, where, "web", name + "."),
        screen_source=check_storable(optional(obj, "screen_source", str, where, "", name + "."), where,
                                     name + ".screen_source"),
        screen_meta=optional(obj, "screen_meta", dict, where, {}, name + "."),
        instruction=optional(obj, "instruction", str, where, "", name + "."),
        meta=optional(obj, "meta", dict, where, {}, name + "."),
        tree_xml=tree_xml,
        field=name + ".",
    )


def read(path: Path, options) -> JsonLinesRecords:
    """The episodes of the file one line at a time (records.JsonLines): a million never held at once."""
    source = _source_file(path)
    bases = image_bases(source, options.images_dir)
    return JsonLinesRecords(source, lambda where, obj: _episode(where, obj, bases))


def _episode(where: Where, obj, bases) -> EpisodeRecord:
    if not isinstance(obj, dict):
        raise where.error("expected a JSON object per line")
    version = optional(obj, "v", int, where, VERSION)
    if version > VERSION:
        raise where.error(f"written by a newer ScreenLab (format v{version}; this one reads v{VERSION})", "v")
    steps = require(obj, "steps", list, where)
    reviews = optional(obj, "reviews", list, where, [])
    for i, review in enumerate(reviews):
        if not isinstance(review, dict):
            raise where.error("expected an object", f"reviews[{i}]")
        # stored in text columns as they are: a number or null there would break the review queue
        for key in REVIEW_TEXTS:
            if key in review:
                review[key] = optional(review, key, str, where, "pending" if key == "status" else "",
                                       f"reviews[{i}].")
        if "payload" in review:
            review["payload"] = optional(review, "payload", dict, where, {}, f"reviews[{i}].")
        for key in ("created_at", "updated_at"):
            review[key] = parse_time(review.get(key), where, f"reviews[{i}].{key}")
    return EpisodeRecord(
        key=require(obj, "id", str, where),
        where=where,
        goal=optional(obj, "goal", str, where, ""),
        scenario=optional(obj, "scenario", str, where, ""),
        split=optional(obj, "split", str, where, ""),
        review_status=optional(obj, "review_status", str, where, "unreviewed"),
        meta=optional(obj, "meta", dict, where, {}),
        kind=_kind(obj, where),
        steps=[_read_step(s, where, f"steps[{i}]", bases) for i, s in enumerate(steps)],
        reviews=reviews,
    )


def _kind(obj: dict, where: Where) -> str:
    kind = optional(obj, "kind", str, where, "sample")
    if kind not in ("sample", "trajectory"):  # a probe has no screen; variants and copies belong to their studies
        raise where.error(f"kind is 'sample' or 'trajectory', not {shown(kind)}", "kind")
    return kind


def _iso(value) -> str | None:
    return value.isoformat() if value is not None else None


def episode_to_json(bundle, image_name, tree_name=lambda step: None) -> dict:
    """`tree_name(step)`: the file its tree was written to (None: no tree)."""
    e = bundle.episode
    return {
        "v": VERSION, "id": e.key, **({"kind": e.kind} if e.kind != "sample" else {}), "goal": e.goal,
        "scenario": e.scenario, "split": e.split, "review_status": e.review_status, "meta": e.meta,
        "steps": [{
            "image": image_name(sb.screen), "sha256": sb.screen.sha256,
            **({"tree": name} if (name := tree_name(sb.step)) else {}),
            "width": sb.screen.width, "height": sb.screen.height, "platform": sb.screen.platform,
            "screen_source": sb.screen.source, "screen_meta": sb.screen.meta,
            "instruction": sb.step.instruction, "meta": sb.step.meta,
            "actions": [{
                "box": json_box(b),
                "label": b.label, **({"category": b.category} if b.category else {}),
                "action_type": b.action_type, "element_text": b.element_text,
                "type_text": b.type_text, "source": b.source, "author": b.author, "version": b.version,
                "created_at": _iso(b.created_at), "updated_at": _iso(b.updated_at), "meta": b.meta,
            } for b in sb.boxes],
        } for sb in bundle.steps],
        "reviews": [{
            "kind": r.kind, "generator": r.generator, "prompt": r.prompt, "payload": r.payload,
            "status": r.status, "reviewer": r.reviewer, "reason": r.reason,
            "created_at": _iso(r.created_at), "updated_at": _iso(r.updated_at),
        } for r in bundle.reviews],
    }


def write(ctx: ExportContext) -> ExportReport:
    report = ExportReport("screenlab", ctx.out)
    with atomic_output(ctx.out) as tmp:
        write_episodes(tmp, ctx.bundles, ctx.image_bytes, ctx.session, report)
    return report


def write_episodes(folder: Path, bundles, image_bytes, session, report: ExportReport) -> None:
    """episodes.jsonl, images/ and trees/ into `folder` (also a run's own episodes: runs/run_transfer.py)."""
    images = ImageWriter(folder, image_bytes)
    trees = _TreeWriter(folder, session)
    with open(folder / FILE_NAME, "w", encoding="utf-8", newline="\n") as fh:
        for bundle in bundles:
            line = episode_to_json(bundle, images.add, trees.of(bundle))
            fh.write(json.dumps(line, ensure_ascii=False, sort_keys=False) + "\n")
            report.episodes += 1
            report.annotations += sum(len(sb.boxes) for sb in bundle.steps)
    report.images = images.count


class _TreeWriter:
    """Each step's accessibility tree as it was dumped, once per dump, as trees/<sha256>.xml."""

    def __init__(self, folder: Path, session):
        self.folder, self.session, self.written = folder, session, set()

    def of(self, bundle):
        if self.session is None:
            return lambda step: None
        from desktop_app.store.trees import trees_of_steps

        found = trees_of_steps(self.session, [sb.step for sb in bundle.steps])

        def name(step) -> str | None:
            row = found.get(step.id)
            if row is None:
                return None
            relative = f"trees/{row.sha256}.xml"
            if row.sha256 not in self.written:
                (self.folder / "trees").mkdir(exist_ok=True)
                (self.folder / relative).write_text(row.xml, encoding="utf-8", newline="")
                self.written.add(row.sha256)
            return relative

        return name


SPEC = FormatSpec(
    name="screenlab",
    description="ScreenLab JSONL (lossless; episodes.jsonl + images/)",
    read=read,
    write=write,
)
