"""The app's OCR output on every demo screen, written to JSON at full precision, and two such files compared.

A library built our own way for the installer (OpenCV with fewer modules, numpy without OpenBLAS) must not change
what OCR reads. Run `dump` in the developer venv and in a venv holding the rebuilt library, then `diff`:

    python packaging/ocr_outputs.py dump /tmp/pypi.json        # .venv
    build/venv/bin/python packaging/ocr_outputs.py dump /tmp/own.json
    python packaging/ocr_outputs.py diff /tmp/pypi.json /tmp/own.json   # exit 1 when a screen differs

`dump ... --limit N` reads the first N screens only. The bundle's self-check writes the same dump when
SCREENLAB_OCR_DUMP names a file, and packaging/smoke_test.sh compares it with the source tree's.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def dump(out: Path, images: Path | None = None, limit: int | None = None, quiet: bool = False) -> None:
    """The OCR output of the demo screens (the first `limit` of them, in name order) written to `out`."""
    import cv2
    import numpy

    from desktop_app.ocr.cache import analyse_image, load_rgb
    from desktop_app.ocr.registry import get_engine
    from desktop_app.paths import demo_dataset_dir

    engine = get_engine("rapidocr")
    try:
        blas = numpy.show_config(mode="dicts")["Build Dependencies"].get("blas", {}).get("name")
    except Exception:  # noqa: BLE001 - only a label in the output
        blas = "unknown"
    result = {"libraries": {"cv2": cv2.__version__, "numpy": numpy.__version__, "numpy_blas": blas}, "images": {}}
    for path in sorted((images or demo_dataset_dir() / "images").glob("*.png"))[:limit]:
        words, proposals = analyse_image(load_rgb(path), engine)
        result["images"][path.name] = {
            "words": [{"text": w.text, "quad": [[float(x), float(y)] for x, y in w.quad], "conf": float(w.conf),
                       "kind": w.kind} for w in words],
            "proposals": [{"box": [float(v) for v in p.box], "kind": p.kind, "text": p.text,
                           "score": float(p.score)} for p in proposals],
        }
        if not quiet:
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
    args = sys.argv[1:]
    limit = None
    if len(args) >= 2 and args[-2] == "--limit":
        limit, args = int(args[-1]), args[:-2]
    if len(args) == 2 and args[0] == "dump":
        dump(Path(args[1]), limit=limit)
    elif len(args) == 3 and args[0] == "diff":
        sys.exit(diff(Path(args[1]), Path(args[2])))
    else:
        sys.exit(__doc__)
