"""The app's OCR output on every demo screen, written to JSON at full precision, and two such files compared.

A library built our own way for the installer (OpenCV with fewer modules, numpy without OpenBLAS) must not change
what OCR reads. Run `dump` in the developer venv and in a venv holding the rebuilt library, then `diff`:

    python packaging/ocr_outputs.py dump /tmp/pypi.json        # .venv
    build/venv/bin/python packaging/ocr_outputs.py dump /tmp/own.json
    python packaging/ocr_outputs.py diff /tmp/pypi.json /tmp/own.json   # exit 1 when a screen differs
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

DEMO = Path(__file__).resolve().parents[1] / "datasets" / "demo" / "images"


def dump(out: Path) -> None:
    import cv2
    import numpy

    from desktop_app.ocr.cache import analyse_image, load_rgb
    from desktop_app.ocr.registry import get_engine

    engine = get_engine("rapidocr")
    result = {"libraries": {"cv2": cv2.__version__, "numpy": numpy.__version__,
                            "numpy_blas": numpy.show_config(mode="dicts")["Build Dependencies"].get("blas", {}).get("name")},
              "images": {}}
    for path in sorted(DEMO.glob("*.png")):
        words, proposals = analyse_image(load_rgb(path), engine)
        result["images"][path.name] = {
            "words": [{"text": w.text, "quad": [[float(x), float(y)] for x, y in w.quad], "conf": float(w.conf),
                       "kind": w.kind} for w in words],
            "proposals": [{"box": [float(v) for v in p.box], "kind": p.kind, "text": p.text,
                           "score": float(p.score)} for p in proposals],
        }
        print(path.name, len(words), "words", len(proposals), "proposals", flush=True)
    out.write_text(json.dumps(result, indent=1, ensure_ascii=False))


def diff(a: Path, b: Path) -> int:
    left, right = json.loads(a.read_text()), json.loads(b.read_text())
    print("a:", left["libraries"], "\nb:", right["libraries"])
    names = sorted(set(left["images"]) | set(right["images"]))
    differing = [n for n in names if left["images"].get(n) != right["images"].get(n)]
    for name in differing:
        print("differs:", name)
    print(f"identical on {len(names) - len(differing)}/{len(names)} screens")
    return 1 if differing else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "dump":
        dump(Path(sys.argv[2]))
    elif len(sys.argv) == 4 and sys.argv[1] == "diff":
        sys.exit(diff(Path(sys.argv[2]), Path(sys.argv[3])))
    else:
        sys.exit(__doc__)
