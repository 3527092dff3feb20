"""EasyOCR: optional (it pulls PyTorch, ~1 GB), used only when installed AND its model files
are already in the configured folder.

easyocr.Reader downloads missing weights by default; we check the files ourselves first
and pass download_enabled=False, so nothing is fetched unless the caller explicitly passes
allow_downloads=True (the user setting of the same name). readtext() returns phrases
("Send me my code" as one box); base.split_line turns them into word boxes.
"""

from __future__ import annotations

import importlib.util
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop_app.ocr.base import OcrEngine, OcrUnavailable, Word, reading_order, split_line

if TYPE_CHECKING:  # numpy is imported by the functions that use it: a launch paints its first screen without it
    import numpy as np  # (50 ms; ADR 0071)

DETECTOR_FILE = "craft_mlt_25k.pth"
_LATIN = {"af", "az", "bs", "cs", "cy", "da", "de", "en", "es", "et", "fr", "ga", "hr", "hu", "id", "is",
          "it", "ku", "la", "lt", "lv", "mi", "ms", "mt", "nl", "no", "oc", "pl", "pt", "ro", "sk", "sl",
          "sq", "sv", "sw", "tl", "tr", "uz", "vi"}
_CYRILLIC = {"ru", "be", "bg", "uk", "mn"}
# our ISO 639-1 code -> (easyocr language list, recognition weights it loads)
_SCRIPTS: dict[str, tuple[list[str], str]] = {
    "en": (["en"], "english_g2.pth"),
    "zh": (["ch_sim", "en"], "zh_sim_g2.pth"),
    "zh-cn": (["ch_sim", "en"], "zh_sim_g2.pth"),
    "zh-tw": (["ch_tra", "en"], "chinese.pth"),
    "ja": (["ja", "en"], "japanese_g2.pth"),
    "ko": (["ko", "en"], "korean_g2.pth"),
    "th": (["th", "en"], "thai.pth"),
    "ta": (["ta", "en"], "tamil.pth"),
    "te": (["te", "en"], "telugu_g2.pth"),
    "kn": (["kn", "en"], "kannada_g2.pth"),
    **{c: ([c, "en"], "arabic.pth") for c in ("ar", "fa", "ur")},
    **{c: ([c, "en"], "devanagari.pth") for c in ("hi", "mr", "ne")},
    **{c: ([c, "en"], "bengali.pth") for c in ("bn", "as")},
    **{c: ([c, "en"], "cyrillic_g2.pth") for c in _CYRILLIC},
    **{c: ([c, "en"], "latin_g2.pth") for c in _LATIN - {"en"}},
}


def default_model_dir() -> Path:
    from desktop_app.paths import user_data_dir

    return user_data_dir() / "models" / "easyocr"


def model_files(language: str) -> list[str]:
    """The weight files easyocr needs for language (detector first)."""
    return [DETECTOR_FILE, _SCRIPTS[language.lower()][1]]


def convert_easyocr(results: list) -> list[Word]:
    """easyocr readtext() output -> words.

    readtext returns [([[x, y] * 4], text, confidence), ...] with the corners clockwise from
    top-left (numpy ints and floats in practice). Entries holding one token become words;
    phrases become "line" words, split into words by character widths.
    """
    words: list[Word] = []
    for item in results:
        corners, text, conf = item[0], str(item[1]), float(item[2])
        if not text.strip():
            continue
        quad = tuple((float(x), float(y)) for x, y in corners)
        if len(quad) != 4:
            continue
        if len(text.split()) == 1:
            words.append(Word(quad, text.strip(), conf, "word"))  # type: ignore[arg-type]
        else:
            words.extend(split_line(Word(quad, text, conf, "line")))  # type: ignore[arg-type]
    return words


class EasyOcrEngine(OcrEngine):
    name = "easyocr"
    description = "EasyOCR (optional; PyTorch, weights in a local folder)"

    def __init__(self, language: str = "en", **options: Any):
        super().__init__(language, **options)
        ok, reason = self.available(language, **options)
        if not ok:
            raise OcrUnavailable(reason)
        import easyocr

        model_dir = Path(options.get("model_dir") or default_model_dir())
        model_dir.mkdir(parents=True, exist_ok=True)
        self._reader = easyocr.Reader(_SCRIPTS[language.lower()][0], gpu=False, model_storage_directory=str(model_dir),
                                      download_enabled=bool(options.get("allow_downloads")), verbose=False)
        self._lock = threading.Lock()

    @classmethod
    def available(cls, language: str = "en", **options: Any) -> tuple[bool, str]:
        if importlib.util.find_spec("easyocr") is None:
            return False, ("easyocr is not installed; install it with `pip install easyocr` "
                           "(it brings PyTorch, about 1 GB), or use the rapidocr engine")
        lang = language.lower()
        if lang not in _SCRIPTS:
            return False, f"easyocr has no model for language '{language}'; known: {', '.join(sorted(_SCRIPTS))}"
        if options.get("allow_downloads"):
            return True, ""
        folder = Path(options.get("model_dir") or default_model_dir())
        missing = [f for f in model_files(lang) if not (folder / f).is_file()]
        if missing:
            return False, (f"easyocr model files missing: {', '.join(missing)}; put them in {folder} "
                           "(from the EasyOCR model hub, https://www.jaided.ai/easyocr/modelhub/), set another "
                           "folder in the OCR settings, or allow downloads")
        return True, ""

    def read(self, image: np.ndarray) -> list[Word]:
        import numpy as np
        with self._lock:
            results = self._reader.readtext(np.ascontiguousarray(image), detail=1, paragraph=False)
        return reading_order(convert_easyocr(results))
