"""Rebuild datasets/demo from datasets/demo_spec.json with a real browser.

    .venv/bin/python datasets/build_demo.py

Each spec entry names a scenario, a viewport and the page content (hand-written,
no LLM). The page is rendered from resources/scenarios with Playwright and every
action box and label is read from the DOM, exactly as generated samples are.
"""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import sys
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

from desktop_app.formats.writing import json_number  # noqa: E402
from desktop_app.render.renderer import VIEWPORTS, Renderer  # noqa: E402
from desktop_app.synth.templates import render_html  # noqa: E402

SPEC = ROOT / "demo_spec.json"
OUT = ROOT / "demo"
BUILT_AT = "2026-11-21T00:00:00+00:00"  # fixed, so a rebuild gives the same file
AUTHOR = "screenlab-demo"


def _small_png(png: bytes) -> bytes:
    """Re-encode with the best zlib level; screenshots shrink ~10-20 % losslessly."""
    buffer = io.BytesIO()
    Image.open(io.BytesIO(png)).save(buffer, format="PNG", optimize=True)
    return min(png, buffer.getvalue(), key=len)


def build(spec_path: Path = SPEC, out: Path = OUT) -> dict:
    specs = json.loads(spec_path.read_text(encoding="utf-8"))
    if out.exists():
        shutil.rmtree(out)
    (out / "images").mkdir(parents=True)
    lines = []
    with Renderer() as renderer:
        for spec in specs:
            viewport = VIEWPORTS[spec["viewport"]]
            rendered = renderer.render(render_html(spec["scenario"], spec["content"], viewport), viewport)
            png = _small_png(rendered.png)
            sha = hashlib.sha256(png).hexdigest()
            (out / "images" / f"{sha}.png").write_bytes(png)
            actions = []
            for el in rendered.elements:
                meta = {"role": el.role} if el.role else {}
                if el.box is None:
                    meta["out_of_screen"] = True
                if el.covered:
                    meta["covered"] = True
                actions.append({
                    "box": [json_number(round(v, 2)) for v in el.box] if el.box else None, "label": el.label,
                    "action_type": el.action, "element_text": el.text, "type_text": "", "source": "dom",
                    "author": AUTHOR, "version": 1, "created_at": BUILT_AT, "updated_at": BUILT_AT, "meta": meta,
                })
            status = spec.get("review_status", "accepted")
            lines.append({
                "v": 1, "id": spec["id"], "goal": spec["goal"], "scenario": spec["scenario"],
                "split": spec.get("split", "demo"), "review_status": status,
                "meta": {k: spec[k] for k in ("persona", "distractor") if k in spec}
                | {"viewport": viewport.name, "content": spec["content"]},
                "steps": [{
                    "image": f"images/{sha}.png", "sha256": sha, "width": rendered.width,
                    "height": rendered.height, "platform": "web", "screen_source": f"demo:{spec['id']}",
                    "screen_meta": {"viewport": viewport.name}, "instruction": "", "meta": {},
                    "actions": actions,
                }],
                "reviews": [{
                    "kind": "distraction_screen", "generator": "hand-written", "prompt": "datasets/demo_spec.json",
                    "payload": {}, "status": status, "reviewer": AUTHOR if status != "pending" else "",
                    "reason": "", "created_at": BUILT_AT, "updated_at": BUILT_AT,
                }],
            })
    with open(out / "episodes.jsonl", "w", encoding="utf-8", newline="\n") as fh:
        for line in lines:
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    return {"episodes": len(lines), "bytes": size}


if __name__ == "__main__":
    result = build()
    print(f"built {result['episodes']} demo episodes in {OUT} ({result['bytes'] / 1e6:.2f} MB)")
