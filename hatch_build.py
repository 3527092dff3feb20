"""The wheel's build hook (pyproject.toml: [tool.hatch.build.targets.wheel.hooks.custom]): a wheel built after
`make guide` carries the built user guide as desktop_app/_data/guide/, where desktop_app/guide.py looks.

Not a force-include in pyproject.toml: those must exist, and the guide is built (by MkDocs, the docs extra),
not kept in git, so a plain `pip install .` of a fresh checkout would fail. A wheel built without it has no
guide, and Help > User guide says how to build one. An editable install needs nothing: it finds build/guide/
of its checkout."""

from __future__ import annotations

from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class UserGuide(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        site = Path(self.root) / "build" / "guide"
        if (site / "index.html").is_file():
            build_data["force_include"][str(site)] = "desktop_app/_data/guide"
