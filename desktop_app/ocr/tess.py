"""Tesseract through its command line: used when a `tesseract` binary is on PATH.

No Python binding (pytesseract adds nothing but a subprocess call). The image goes in on
stdin as PNG, words come back as TSV (level 5 rows are words, with a 0-100 confidence).
Screenshot text is small (x-height 7-8 px) and Tesseract is tuned for ~20 px, so the image
is upscaled 2x first and coordinates divided back; --psm 11 (sparse text) because a screen
is scattered labels, not a page of paragraphs.

The command runs with OpenMP limited to one thread (OMP_THREAD_LIMIT=1) unless the user's
environment sets a limit: Debian's tesseract is built with OpenMP, and its threads spin against
each other. On this 2-core machine a 1280x800 screen took 3.8 s with them and 0.52 s without,
words identical (ADR 0073).
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess
from typing import TYPE_CHECKING, Any

from desktop_app.ocr.base import OcrEngine, OcrUnavailable, Word, reading_order

if TYPE_CHECKING:  # numpy is imported by the functions that use it: a launch paints its first screen without it
    import numpy as np  # (50 ms; ADR 0071)

TIMEOUT_S = 120
# our ISO 639-1 codes -> Tesseract traineddata names; anything else is passed through
_LANGS = {"en": "eng", "de": "deu", "fr": "fra", "es": "spa", "it": "ita", "pt": "por", "nl": "nld",
          "pl": "pol", "ru": "rus", "uk": "ukr", "tr": "tur", "sv": "swe", "da": "dan", "fi": "fin",
          "no": "nor", "cs": "ces", "hu": "hun", "ro": "ron", "zh": "chi_sim", "zh-cn": "chi_sim",
          "zh-tw": "chi_tra", "ja": "jpn", "ko": "kor", "ar": "ara", "hi": "hin", "vi": "vie"}
INSTALL_HINT = ("install Tesseract (Debian/Ubuntu: apt install tesseract-ocr; macOS: brew install tesseract; "
                "Windows: the UB Mannheim installer) and make sure `tesseract` is on PATH, or use the rapidocr engine")


def tesseract_language(language: str) -> str:
    return _LANGS.get(language.lower(), language)


def find_binary(options: dict[str, Any]) -> str | None:
    return options.get("binary") or shutil.which("tesseract")


def command_environment() -> dict[str, str]:
    """The environment the tesseract command runs in: ours, with OpenMP at one thread unless a limit is set."""
    return {**os.environ, "OMP_THREAD_LIMIT": os.environ.get("OMP_THREAD_LIMIT") or "1"}


def parse_tsv(tsv: str, scale: float = 1.0) -> list[Word]:
    """Words from `tesseract ... tsv` output; coordinates divided by scale."""
    words = []
    reader = csv.DictReader(io.StringIO(tsv), delimiter="\t", quoting=csv.QUOTE_NONE)
    for row in reader:
        try:
            if int(row["level"]) != 5:
                continue
            conf = float(row["conf"])
            left, top = float(row["left"]) / scale, float(row["top"]) / scale
            width, height = float(row["width"]) / scale, float(row["height"]) / scale
        except (KeyError, TypeError, ValueError):
            continue  # a malformed row (e.g. a tab inside recognised text) is skipped
        text = (row.get("text") or "").strip()
        if conf < 0 or not text:
            continue
        words.append(Word.from_xyxy((left, top, left + width, top + height), text, conf / 100.0))
    return words


class TesseractEngine(OcrEngine):
    name = "tesseract"
    description = "Tesseract (system binary on PATH)"

    def __init__(self, language: str = "en", **options: Any):
        super().__init__(language, **options)
        ok, reason = self.available(language, **options)
        if not ok:
            raise OcrUnavailable(reason)
        self._binary = find_binary(options)
        self._scale = float(options.get("scale", 2.0))

    @classmethod
    def available(cls, language: str = "en", **options: Any) -> tuple[bool, str]:
        binary = find_binary(options)
        if binary is None:
            return False, f"tesseract binary not found on PATH; {INSTALL_HINT}"
        try:
            listed = subprocess.run([binary, "--list-langs"], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError) as exc:
            return False, f"cannot run {binary}: {exc}"
        langs = {line.strip() for line in listed.stdout.splitlines()[1:]}
        lang = tesseract_language(language)
        if lang not in langs:
            return False, (f"tesseract has no '{lang}' language data (installed: {', '.join(sorted(langs)) or 'none'}); "
                           f"install it (e.g. apt install tesseract-ocr-{lang}) or put {lang}.traineddata "
                           "in the folder TESSDATA_PREFIX names")
        return True, ""

    def read(self, image: np.ndarray) -> list[Word]:
        import cv2
        import numpy as np

        big = cv2.resize(image, None, fx=self._scale, fy=self._scale, interpolation=cv2.INTER_CUBIC)
        ok, png = cv2.imencode(".png", np.ascontiguousarray(big[:, :, ::-1]))
        if not ok:
            raise OcrUnavailable("could not encode the image for tesseract")
        cmd = [self._binary, "stdin", "stdout", "-l", tesseract_language(self.language), "--psm", "11", "tsv"]
        done = subprocess.run(cmd, input=png.tobytes(), capture_output=True, timeout=TIMEOUT_S,
                              env=command_environment())
        if done.returncode != 0:
            raise RuntimeError(f"tesseract failed ({done.returncode}): {done.stderr.decode(errors='replace')[-500:]}")
        return reading_order(parse_tsv(done.stdout.decode("utf-8", errors="replace"), self._scale))
