"""The whole OCR pipeline on one image, without the project database: what the OCR process imports.

cache.py stores these results in the project; the OCR worker (process.py) only reads screens and hands the
results back, so it imports this module and never the store (SQLAlchemy and SQLModel are ~32 MB of the
worker's memory and half a second of its start: ADR 0059).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop_app.ocr.base import OcrEngine, Proposal, Word, reading_order
from desktop_app.ocr.elements import propose
from desktop_app.ocr.registry import get_engine

if TYPE_CHECKING:  # numpy is imported by the functions that use it: a launch paints its first screen without it
    import numpy as np  # (50 ms; ADR 0071)


def load_rgb(path) -> np.ndarray:
    """An image file as RGB uint8; transparency is flattened onto white like a browser would."""
    import numpy as np
    from PIL import Image  # with the first screen read: the window imports this module at start

    with Image.open(path) as im:
        if im.mode in ("RGBA", "LA", "P"):
            im = im.convert("RGBA")
            flat = Image.new("RGB", im.size, (255, 255, 255))
            flat.paste(im, mask=im.getchannel("A"))
            return np.asarray(flat)
        return np.asarray(im.convert("RGB"))


def analyse_image(image: np.ndarray, engine: OcrEngine) -> tuple[list[Word], list[Proposal]]:
    """The whole pipeline on one RGB image: OCR words fitted to their ink, then proposals."""
    # with the first read: it needs numpy at import, the window's start does not
    from desktop_app.ocr.ink import refine_words

    words = reading_order(refine_words(image, engine.read(image)))
    return words, propose(image, words)


def analyse_file(path: Path, engine: str, language: str,
                 options: dict[str, Any]) -> tuple[list[Word], list[Proposal], float]:
    """analyse_image on an image file with the named engine, in this process (the window hands this work to
    its OCR process instead: ocr/process.py), and its milliseconds (the models loaded and the file read
    before the clock starts). Raises OcrUnavailable before reading the file."""
    ocr = get_engine(engine, language, **options)
    image = load_rgb(path)
    started = time.perf_counter()
    words, proposals = analyse_image(image, ocr)
    return words, proposals, (time.perf_counter() - started) * 1000
