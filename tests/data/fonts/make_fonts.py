"""Makes the fonts tests/test_gui_snapshots.py draws with besides the bundled DejaVu Sans (resources/fonts, a
Latin subset), each cut from DejaVu 2.37 under a family name of its own, so no font of the machine is ever used:

  symbols.ttf, symbols-bold.ttf   "ScreenLab Test Symbols": the signs the window shows that the subset lacks
                                  ("◐ in progress", "⚠"); the test falls back to them before any other font
  mono.ttf                        "ScreenLab Test Mono": printable ASCII of DejaVu Sans Mono, for the boxes
                                  the window shows in the system's fixed-width font (a run's results)

The licence is DejaVu's (resources/fonts/LICENSE-DejaVu.txt): changed fonts may be shared under a new name.
Run once when the window starts showing a new sign:

    pip install fonttools            # a tool for this script only, not a dependency of the app
    python tests/data/fonts/make_fonts.py /usr/share/fonts/truetype/dejavu
"""

from __future__ import annotations

import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTFont

# the signs in the window's texts (desktop_app/ui, desktop_app/evaluation) that DejaVu Sans has and the subset not
SIGNS = "ΔκτΣ−≈⟨⟩⚠●○◐◀▭⊘✔✗"
ASCII = "".join(chr(c) for c in range(32, 127)) + "…·×—–"


def cut(source: Path, target: Path, family: str, style: str, signs: str) -> None:
    font = TTFont(source)
    options = subset.Options()
    options.hinting = False  # the test draws unhinted
    options.layout_features = []
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6]
    cutter = subset.Subsetter(options)
    cutter.populate(unicodes=[ord(c) for c in signs])
    cutter.subset(font)
    names = font["name"]
    for record in list(names.names):
        if record.nameID in (1, 16):
            names.setName(family, record.nameID, record.platformID, record.platEncID, record.langID)
        elif record.nameID in (4,):
            names.setName(f"{family} {style}", record.nameID, record.platformID, record.platEncID, record.langID)
        elif record.nameID == 6:
            names.setName(f"{family.replace(' ', '')}-{style}", record.nameID, record.platformID, record.platEncID,
                          record.langID)
    font.save(target)


if __name__ == "__main__":
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "/usr/share/fonts/truetype/dejavu")
    here = Path(__file__).parent
    cut(folder / "DejaVuSans.ttf", here / "symbols.ttf", "ScreenLab Test Symbols", "Book", SIGNS)
    cut(folder / "DejaVuSans-Bold.ttf", here / "symbols-bold.ttf", "ScreenLab Test Symbols", "Bold", SIGNS)
    cut(folder / "DejaVuSansMono.ttf", here / "mono.ttf", "ScreenLab Test Mono", "Book", ASCII)
