"""Rebuild datasets/demo with the synthesis pipeline and a real browser.

    .venv/bin/python datasets/build_demo.py

The scenes are the fixed, hand-written part of the offline content bank
(datasets/demo_spec.json: scenario, viewport, goal, distraction and page content). Each
goes through the same path as `screenlab synth --offline`: rendered from
resources/scenarios, boxes and labels read from the DOM, stored with a review item; then
most are accepted (a few stay pending, so the verification queue has work) and the
project is exported in ScreenLab's JSONL.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

from desktop_app.formats.transfer import export_path  # noqa: E402
from desktop_app.render.renderer import Renderer  # noqa: E402
from desktop_app.store.project import Project  # noqa: E402
from desktop_app.store.review import set_review  # noqa: E402
from desktop_app.synth.save import render_scene, save_scene  # noqa: E402
from desktop_app.synth.scene import Scene  # noqa: E402

SPEC = ROOT / "demo_spec.json"
OUT = ROOT / "demo"
REVIEWER = "screenlab-demo"


def scene_of(spec: dict) -> Scene:
    return Scene(scenario=spec["scenario"], viewport=spec["viewport"], goal=spec["goal"], content=spec["content"],
                 distractor=spec.get("distractor", {}), persona=spec.get("persona", ""),
                 layout=spec["content"].get("layout", ""), generator="offline-bank")


def build(spec_path: Path = SPEC, out: Path = OUT) -> dict:
    specs = json.loads(spec_path.read_text(encoding="utf-8"))
    scratch = Path(tempfile.mkdtemp(prefix="screenlab-demo-"))
    try:
        with Project.init(scratch / "project") as project, Renderer() as renderer:
            for spec in specs:
                scene = scene_of(spec)
                episode_id = save_scene(project, scene, render_scene(renderer, scene), key=spec["id"])
                if spec.get("review_status", "accepted") != "pending":
                    set_review(project, episode_id, "accepted", reviewer=REVIEWER)
            if out.exists():
                shutil.rmtree(out)
            export_path(project, out, "screenlab")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    return {"episodes": len(specs), "bytes": size}


if __name__ == "__main__":
    result = build()
    print(f"built {result['episodes']} demo episodes in {OUT} ({result['bytes'] / 1e6:.2f} MB)")
