"""COCO detection export: categories gold / distracted / other, then the project's own labels.

One COCO image per step (the same screenshot under two goals is two images,
because its labels differ). Actions without coordinates cannot be expressed
in COCO and are counted as left out.
"""

from __future__ import annotations

import json

from desktop_app.formats.spec import ExportContext, ExportReport, FormatSpec
from desktop_app.formats.writing import ImageWriter, atomic_output, json_number
from desktop_app.store import label_set
from desktop_app.store.attributes import attributes_of
from desktop_app.store.models import LABELS


def categories(names: tuple[str, ...] = LABELS) -> list[dict]:
    """COCO categories, ids from 1 in the project's label order (gold, distracted, other first)."""
    return [{"id": i + 1, "name": name, "supercategory": "action"} for i, name in enumerate(names)]


def write(ctx: ExportContext) -> ExportReport:
    names = label_set.labels(ctx.session.get_bind()) if ctx.session is not None else LABELS
    cats = categories(names)
    category_id = {c["name"]: c["id"] for c in cats}
    report = ExportReport("coco", ctx.out, skipped_why="actions without a box (text-only or out of screen)")
    images_json, annotations = [], []
    with atomic_output(ctx.out) as tmp:
        images = ImageWriter(tmp, ctx.image_bytes)
        for bundle in ctx.bundles:
            report.episodes += 1
            for sb in bundle.steps:
                image_id = len(images_json) + 1
                images_json.append({
                    "id": image_id, "file_name": images.add(sb.screen), "width": sb.screen.width,
                    "height": sb.screen.height, "episode": bundle.episode.key, "step": sb.step.index,
                    "goal": bundle.episode.goal, "scenario": bundle.episode.scenario,
                })
                for box in sb.boxes:
                    if not box.has_box:
                        report.skipped += 1
                        continue
                    w, h = box.x2 - box.x1, box.y2 - box.y1
                    annotations.append({
                        "id": len(annotations) + 1, "image_id": image_id,
                        "category_id": category_id[box.label],
                        "bbox": [json_number(v) for v in (box.x1, box.y1, w, h)],
                        "area": w * h, "iscrowd": 0,
                        # the box's own attributes (store/attributes.py) beside ours, as CVAT's COCO does
                        "attributes": {**attributes_of(box.meta), "action_type": box.action_type,
                                       "element_text": box.element_text, "type_text": box.type_text,
                                       "source": box.source},
                    })
        doc = {"info": {"description": "exported by ScreenLab"}, "images": images_json,
               "annotations": annotations, "categories": cats}
        (tmp / "annotations.json").write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
        report.images = images.count
        report.annotations = len(annotations)
    return report


SPEC = FormatSpec(name="coco", description="COCO detection JSON (export only)", write=write)
