"""Import/export formats: one module per format, registered here by name."""

from desktop_app.formats import (
    aitw,
    androidcontrol,
    androidcontrol_tfrecord,
    coco,
    cvat_images,
    envdistraction,
    gui_odyssey,
    images,
    label_studio,
    labelme,
    mind2web,
    mind2web_parquet,
    mind2web_seeclick,
    naviplus,
    omniact,
    pascal_voc,
    screenlab_jsonl,
    screenspot,
    screenspot_parquet,
    sphinx,
    unified_trajectory,
    vlmevalkit_tsv,
    yolo,
)
from desktop_app.formats.spec import FormatSpec

FORMATS: dict[str, FormatSpec] = {
    spec.name: spec
    for spec in (screenlab_jsonl.SPEC, images.SPEC, envdistraction.SPEC, screenspot.SPEC, coco.SPEC,
                 androidcontrol.SPEC, mind2web.SPEC, mind2web_seeclick.SPEC, mind2web_parquet.SPEC,
                 naviplus.SPEC, unified_trajectory.SPEC, sphinx.SPEC,
                 screenspot_parquet.SPEC, vlmevalkit_tsv.SPEC, omniact.SPEC,
                 androidcontrol_tfrecord.SPEC, aitw.SPEC, gui_odyssey.SPEC,
                 labelme.SPEC, label_studio.SPEC, cvat_images.SPEC, yolo.SPEC, pascal_voc.SPEC)
}


def importers() -> list[str]:
    return [name for name, spec in FORMATS.items() if spec.read]


def exporters() -> list[str]:
    return [name for name, spec in FORMATS.items() if spec.write]
