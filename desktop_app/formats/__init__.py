"""Import/export formats: one module per format, registered here by name and loaded on first use.

Each format module declares itself in its SPEC (formats/spec.py). A module is imported when its format is
first asked for, not with the package: opening a folder of screenshots needs the images format alone, and
the 23 modules with their libraries (YAML, XML, Parquet, the Sphinx evaluators) cost about 0.15 s of CPU that
a user waited on at the first folder opened (ADR 0065). Listing the formats with what they read and write
(`screenlab import` and `export`, whose options and help name them; the import dialog; an unknown format's
error) loads them all, as before.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop_app.formats.spec import FormatSpec

# name -> the module under desktop_app.formats whose SPEC it is, in the order every list shows them
MODULES: dict[str, str] = {
    "screenlab": "screenlab_jsonl",
    "images": "images",
    "envdistraction": "envdistraction",
    "screenspot": "screenspot",
    "coco": "coco",
    "androidcontrol": "androidcontrol",
    "mind2web": "mind2web",
    "mind2web-seeclick": "mind2web_seeclick",
    "mind2web-parquet": "mind2web_parquet",
    "naviplus": "naviplus",
    "unified-trajectory": "unified_trajectory",
    "sphinx": "sphinx",
    "screenspot-parquet": "screenspot_parquet",
    "vlmevalkit-tsv": "vlmevalkit_tsv",
    "omniact": "omniact",
    "androidcontrol-tfrecord": "androidcontrol_tfrecord",
    "aitw": "aitw",
    "gui-odyssey": "gui_odyssey",
    "labelme": "labelme",
    "label-studio": "label_studio",
    "cvat-images": "cvat_images",
    "yolo": "yolo",
    "voc": "pascal_voc",
}


class FormatRegistry(Mapping):
    """The formats by name (a read-only mapping of FormatSpec); a format's module is imported when its spec
    is first looked up. Names and membership need no import."""

    def __getitem__(self, name: str) -> FormatSpec:
        spec = import_module(f"{__name__}.{MODULES[name]}").SPEC
        if spec.name != name:  # a renamed SPEC would otherwise be found under its old name
            raise LookupError(f"desktop_app/formats/{MODULES[name]}.py declares the format {spec.name!r}, "
                              f"registered as {name!r}")
        return spec

    def __contains__(self, name: object) -> bool:
        return name in MODULES

    def __iter__(self) -> Iterator[str]:
        return iter(MODULES)

    def __len__(self) -> int:
        return len(MODULES)


FORMATS = FormatRegistry()


def importers() -> list[str]:
    return [name for name, spec in FORMATS.items() if spec.read]


def exporters() -> list[str]:
    return [name for name, spec in FORMATS.items() if spec.write]
