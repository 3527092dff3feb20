"""The JSONL written by the EnvDistraction authors' code (arXiv 2408.02544).

One sample per line: `target`, `goal`, `persona`, `distractor`, `modified_file`
and `label: {gold, bad, other}`. A label entry is a string ("Button <icon-cross>"),
a pair `[text, [x1, y1, x2, y2]]` in screenshot pixels, or `[text, "<oos>"]` when
the element is out of screen. `bad` is what ScreenLab calls distracted. Fields we
do not model are kept in the episode's metadata and written back on export.
"""

from __future__ import annotations

import json
from pathlib import Path, PurePath

from desktop_app.formats.records import (
    BoxRecord,
    EpisodeRecord,
    StepRecord,
    Where,
    find_inside,
    names_to_try,
    parse_box,
    read_jsonl_objects,
    require,
    shown,
)
from desktop_app.formats.spec import ExportContext, ExportReport, FormatSpec
from desktop_app.formats.writing import ImageWriter, atomic_output, json_box, path_part

OUT_OF_SCREEN = "<oos>"
_LABEL_KEYS = {"gold": "gold", "bad": "distracted", "other": "other"}
_OUR_TO_THEIRS = {v: k for k, v in _LABEL_KEYS.items()}
_SCENARIO_PREFIXES = (("popupbox", "popup"), ("text_google", "search"), ("search", "search"),
                      ("category", "recommendation"), ("chatting", "chat"), ("chat", "chat"))
_DEFAULT_TARGET = {"popup": "popupbox", "search": "text_google", "recommendation": "category_4",
                   "chat": "chatting"}
_KNOWN = {"goal", "modified_file", "label"}  # modelled directly; everything else goes to meta


def scenario_of(target: str) -> str:
    for prefix, scenario in _SCENARIO_PREFIXES:
        if target.startswith(prefix):
            return scenario
    return target


def _image(record: dict, where: Where, bases: list[Path]) -> Path:
    modified = record["modified_file"]
    target = record.get("target") or ""
    stem = PurePath(modified).stem
    names = []
    if modified.lower().endswith((".png", ".jpg", ".jpeg", ".webp")):
        names += [modified, PurePath(modified).name]
    names += [f"images/{target}/{stem}.png", f"{target}/{stem}.png", f"images/{stem}.png", f"{stem}.png"]
    return find_inside([n for name in names for n in names_to_try(name)], bases, where, "modified_file", "screenshot")


def _entry(value, where: Where, name: str, label: str) -> BoxRecord:
    box, meta = None, {}
    if isinstance(value, str):
        text = value
    elif isinstance(value, list) and len(value) == 2 and isinstance(value[0], str):
        text, place = value
        if place == OUT_OF_SCREEN:
            meta["out_of_screen"] = True
        else:
            box = parse_box(place, where, name)
    else:
        raise where.error(
            f'expected "text", [text, [x1, y1, x2, y2]] or [text, "{OUT_OF_SCREEN}"], got {shown(value)}',
            name)
    action = "type" if text.lower().startswith("input") else "click"
    return BoxRecord(label=label, box=box, element_text=text, action_type=action, meta=meta, field=name)


def _parse(obj, where: Where, bases: list[Path]) -> EpisodeRecord:
    if not isinstance(obj, dict):
        raise where.error("expected a JSON object per line")
    goal = require(obj, "goal", str, where)
    modified = require(obj, "modified_file", str, where)
    labels = require(obj, "label", dict, where)
    boxes = []
    for theirs, ours in _LABEL_KEYS.items():
        entries = labels.get(theirs, [])
        if theirs != "other" and theirs not in labels:
            raise where.error("missing", f"label.{theirs}")
        if not isinstance(entries, list):
            raise where.error("expected a list", f"label.{theirs}")
        boxes += [_entry(v, where, f"label.{theirs}[{i}]", ours) for i, v in enumerate(entries)]
    unknown = set(labels) - set(_LABEL_KEYS)
    if unknown:
        raise where.error(f"unknown label group(s) {', '.join(sorted(unknown))} (expected gold, bad, other)", "label")
    target = obj.get("target") if isinstance(obj.get("target"), str) else ""
    return EpisodeRecord(
        key=PurePath(modified).stem,
        where=where,
        goal=goal,
        scenario=scenario_of(target),
        meta={"envdistraction": {k: v for k, v in obj.items() if k not in _KNOWN}, "modified_file": modified},
        steps=[StepRecord(image=_image(obj, where, bases), boxes=boxes, screen_source=modified,
                          image_field="modified_file")],
    )


def read(path: Path, options) -> list[EpisodeRecord]:
    return read_jsonl_objects(path, options.images_dir, _parse, "samples")


def _label_entry(box):
    if box.has_box:
        return [box.element_text, json_box(box)]
    if box.meta.get("out_of_screen"):
        return [box.element_text, OUT_OF_SCREEN]
    return box.element_text


def write(ctx: ExportContext) -> ExportReport:
    report = ExportReport("envdistraction", ctx.out, skipped_why="multi-step episodes (one screen per sample)")
    with atomic_output(ctx.out) as tmp:
        images = ImageWriter(tmp, ctx.image_bytes)
        with open(tmp / "data.jsonl", "w", encoding="utf-8", newline="\n") as fh:
            for bundle in ctx.bundles:
                if len(bundle.steps) != 1:
                    report.skipped += 1
                    continue
                episode, step = bundle.episode, bundle.steps[0]
                extra = dict(episode.meta.get("envdistraction", {}))
                target = extra.get("target") or _DEFAULT_TARGET.get(episode.scenario, episode.scenario or "screen")
                original = episode.meta.get("modified_file", "")
                stem = PurePath(original).stem if original else episode.key
                rel = images.add(step.screen, f"images/{path_part(target, episode.key, 'target')}/"
                                              f"{path_part(stem, episode.key, 'modified_file')}.{step.screen.ext}")
                # their code finds images/<target>/<stem>.png from an HTML name; anything else gets our path
                keeps_name = original.lower().endswith((".html", ".htm")) and step.screen.ext == "png"
                labels = {"gold": [], "bad": [], "other": []}
                for box in step.boxes:
                    labels[_OUR_TO_THEIRS[box.label]].append(_label_entry(box))
                line = {"target": target, "goal": episode.goal, "persona": extra.get("persona", ""),
                        "distractor": extra.get("distractor", {}), **extra,
                        "modified_file": original if keeps_name else rel, "label": labels}
                fh.write(json.dumps(line, ensure_ascii=False) + "\n")
                report.episodes += 1
                report.annotations += len(step.boxes)
        report.images = images.count
    return report


SPEC = FormatSpec(
    name="envdistraction",
    description="EnvDistraction JSONL (target, goal, persona, distractor, modified_file, label{gold,bad,other})",
    read=read,
    write=write,
)
