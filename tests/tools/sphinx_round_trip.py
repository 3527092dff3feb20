"""Round-trip every evaluator file of the Sphinx authors' checkout through our parser.

Not a test: CI has no copy of the authors' repository (and we do not ship their 288 files). Run it by
hand after changing `desktop_app/capability/evaluators.py`, on a checkout made with `fetch` or git:

    .venv/bin/python tests/tools/sphinx_round_trip.py /path/to/sphinx/groundtruth

It prints how many files parsed and wrote back byte-for-byte equal JSON, and exits 1 naming the first
file that did not.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from desktop_app.capability.evaluators import parse_evaluators, to_json


def main(root: Path) -> int:
    paths = sorted(root.glob("*/*/evaluator.json"))
    if not paths:
        print(f"{root}: no */*/evaluator.json here; pass the checkout's groundtruth folder")
        return 2
    for path in paths:
        raw = json.loads(path.read_text())
        if to_json(parse_evaluators(raw, str(path))) != raw:
            print(f"{path}: does not round-trip")
            return 1
    print(f"{len(paths)} evaluator files round-trip")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
