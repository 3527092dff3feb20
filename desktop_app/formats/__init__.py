"""Import/export formats: one module per format, registered here by name."""

from desktop_app.formats import (
    androidcontrol,
    coco,
    envdistraction,
    images,
    mind2web,
    naviplus,
    screenlab_jsonl,
    screenspot,
    sphinx,
    unified_trajectory,
)
from desktop_app.formats.spec import FormatSpec

FORMATS: dict[str, FormatSpec] = {
    spec.name: spec
    for spec in (screenlab_jsonl.SPEC, images.SPEC, envdistraction.SPEC, screenspot.SPEC, coco.SPEC,
                 androidcontrol.SPEC, mind2web.SPEC, naviplus.SPEC, unified_trajectory.SPEC, sphinx.SPEC)
}


def importers() -> list[str]:
    return [name for name, spec in FORMATS.items() if spec.read]


def exporters() -> list[str]:
    return [name for name, spec in FORMATS.items() if spec.write]
