"""RapidOCR (PP-OCRv6 small, ONNX Runtime): the default engine, fully offline.

The models ship inside the rapidocr wheel (rapidocr/models/*.onnx). We pass their paths
explicitly: given only a model folder, rapidocr would check each file's SHA-256 and
download it when the check fails; with an explicit path it opens the file and nothing else.

How it runs is set in CONFIG (ADR 0026): 0.74 s for a 1280x800 screen on one core of the
dev box, against 1.19 s with rapidocr's own settings, for 97.4 % word recall against 97.9 %
(benchmarks/ocr.py). Options of the same names override it, e.g. for that comparison.

Word boxes: rapidocr 3.10 has `return_word_box=True`, which places each word from the
recogniser's CTC column positions inside the detected line (rapidocr/cal_rec_boxes). It
returns the words grouped per line, but drops lines whose words got no box and then
indexes that shorter tuple by line number, so groups and lines may not line up. We
therefore match a group to its line by text (the group's characters, without spaces,
equal the line's) and split any unmatched line proportionally (base.split_line).
"""

from __future__ import annotations

import ctypes
import functools
import logging
import platform
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop_app.ocr.base import OcrEngine, OcrUnavailable, Word, reading_order, split_line
from desktop_app.ocr.rapid_model_table import rapidocr_class

if TYPE_CHECKING:  # numpy is imported by the functions that use it: a launch paints its first screen without it
    import numpy as np  # (50 ms; ADR 0071)

MODEL_FILES = {"Det": "PP-OCRv6_det_small.onnx", "Rec": "PP-OCRv6_rec_small.onnx",
               "Cls": "ch_ppocr_mobile_v2.0_cls_mobile.onnx"}
# the bundled multilingual PP-OCRv6 recogniser; our settings use ISO 639-1 codes
_ALIASES = {"zh": "ch", "zh-cn": "ch", "zh-tw": "chinese_cht", "ja": "japan"}

# The default configuration. The recogniser (48 px high lines) costs in proportion to the
# width it is fed, padding included, so most of the saving is not feeding it padding.
CONFIG: dict[str, Any] = {
    # The detector sees the screen at 3/4 size: UI text (13-16 px) is still 10+ px high, and
    # detection costs half as much. A scale, not rapidocr's fixed side length: a 1920x1080
    # screen shrunk to 960 px wide loses small text (recall -4 points), at 3/4 it does not.
    "det_scale": 0.75,
    # Lines recognised one at a time: a batch is padded to its widest line, and on one core
    # batching gains nothing (the cost is the same per pixel of width).
    "rec_batch": 1,
    # Each line is padded to at least this width (rapidocr: 320, four times an "OK"). At 96 a
    # lone glyph such as the close button's "×" was no longer read; 120 and 160 read it.
    "rec_min_width": 160,
    # ONNX Runtime threads per session. Its own default, one per core, spins on every core
    # and ignores the process's CPU affinity; on a busy 2-core machine one thread was faster
    # (wall-clock) than two, and bulk OCR keeps the other core for the window.
    "threads": 1,
}
_LIMITS = {"det_scale": (float, 0.1, 4.0), "rec_batch": (int, 1, 64), "rec_min_width": (int, 16, 2048),
           "threads": (int, 1, 256)}


def _config(options: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """CONFIG with the options of the same names applied, or ({}, what is wrong)."""
    config = dict(CONFIG)
    for key, value in options.items():
        if key in OcrEngine.runtime_options:
            continue
        if key not in _LIMITS:
            return {}, f"unknown rapidocr option '{key}' (known: {', '.join(_LIMITS)})"
        kind, low, high = _LIMITS[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind is int and value != int(value)) \
                or not low <= value <= high:
            return {}, f"rapidocr option '{key}' must be {'an integer' if kind is int else 'a number'} " \
                       f"from {low} to {high}, not {value!r}"
        config[key] = kind(value)
    return config, ""


def _package_dir() -> Path | None:
    import importlib.util

    spec = importlib.util.find_spec("rapidocr")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent


def _supported_languages() -> list[str]:
    return rapidocr_class(_package_dir()).list_supported_langs("rec", "PP-OCRv6", "small")


def _quiet() -> None:
    # rapidocr logs every model path at INFO on its own handler (propagate=False)
    logging.getLogger("RapidOCR").setLevel(logging.ERROR)


@functools.cache
def _malloc_trim():
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return None
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


def release_freed_memory() -> None:
    """Hand the heap memory freed by a read back to the system.

    ONNX Runtime allocates a screen's activations with malloc (the detector's reach ~150 MB
    at 960x608) and frees them after the read, but glibc keeps freed heap memory for reuse:
    without this the process stays ~140 MB larger once OCR has run (benchmarks/ocr_memory.py).
    It costs ~5 ms. Other C libraries (macOS, Windows) are left to do as they do. Also called once the
    sessions are built, for what building them freed (ADR 0059).
    """
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def _norm(text: str) -> str:
    return "".join(text.split())


class RapidOcrEngine(OcrEngine):
    name = "rapidocr"
    description = "RapidOCR PP-OCRv6 small (bundled, offline)"
    runtime_options = OcrEngine.runtime_options | {"threads"}

    def __init__(self, language: str = "en", **options: Any):
        super().__init__(language, **options)
        ok, reason = self.available(language, **options)
        if not ok:
            raise OcrUnavailable(reason)
        _quiet()
        RapidOCR = rapidocr_class(_package_dir())  # noqa: N806 (a class)

        self._config = _config(options)[0]
        models = _package_dir() / "models"
        params: dict[str, Any] = {f"{task}.model_path": str(models / file) for task, file in MODEL_FILES.items()}
        params.update({
            "Global.log_level": "error",
            # screenshots have no upside-down text; the 180-degree classifier only costs time
            "Global.use_cls": False,
            "Rec.lang_type": _ALIASES.get(language.lower(), language.lower()),
            "Rec.rec_batch_num": self._config["rec_batch"],
            "Rec.rec_img_shape": [3, 48, self._config["rec_min_width"]],
            "EngineConfig.onnxruntime.intra_op_num_threads": self._config["threads"],
        })
        self._engine = RapidOCR(params=params)
        # rapidocr opens its ONNX sessions on first use; open them now, so the first screen
        # is not 0.3 s slower than the rest (and load errors surface here, not mid-run)
        for loader in ("_load_det_model", "_load_rec_model"):
            getattr(self._engine, loader, lambda: None)()
        # (the 180-degree classifier is never loaded: rapidocr opens it on first use, and use_cls is off)
        _quiet()
        # Building the sessions (parsing, optimising the graphs) frees ~18 MB of heap that glibc would keep;
        # handed back now, the first read's activations do not sit beside it: the worker's peak is ~33 MB
        # lower with the same reads (ADR 0059).
        release_freed_memory()
        self._lock = threading.Lock()  # one image at a time per instance: the detector size is set per image

    @classmethod
    def settings_for(cls, language: str = "en", **options: Any) -> dict[str, Any]:
        # the configuration in force is part of the cache key, so rows read with another one miss
        config, _ = _config(options)
        return {"language": language, **{k: v for k, v in config.items() if k not in cls.runtime_options}}

    @classmethod
    def available(cls, language: str = "en", **options: Any) -> tuple[bool, str]:
        root = _package_dir()
        if root is None:
            return False, "rapidocr is not installed (pip install rapidocr onnxruntime)"
        import importlib.util

        if importlib.util.find_spec("onnxruntime") is None:
            return False, "onnxruntime is not installed (pip install onnxruntime)"
        _, problem = _config(options)
        if problem:
            return False, problem
        missing = [f for f in MODEL_FILES.values() if not (root / "models" / f).is_file()]
        if missing:
            return False, (f"rapidocr's bundled models are missing from {root / 'models'}: {', '.join(missing)}; "
                           "reinstall the rapidocr wheel")
        _quiet()
        langs = _supported_languages()
        lang = _ALIASES.get(language.lower(), language.lower())
        if lang not in langs:
            return False, (f"language '{language}' is not covered by the bundled PP-OCRv6 model; "
                           f"supported: {', '.join(langs)}")
        return True, ""

    def read(self, image: np.ndarray) -> list[Word]:
        import numpy as np
        bgr = np.ascontiguousarray(image[:, :, ::-1])
        with self._lock:
            self._size_detector(*bgr.shape[:2])
            try:
                result = self._engine(bgr, return_word_box=True)
            except (IndexError, ValueError):
                # rapidocr's word-box bookkeeping can fail on odd lines; lines alone still work
                result = self._engine(bgr, return_word_box=False)
            finally:
                release_freed_memory()
        return reading_order(convert_rapidocr(result.boxes, result.txts, result.scores,
                                              getattr(result, "word_results", None)))

    def _size_detector(self, height: int, width: int) -> None:
        # rapidocr sizes the detector's input by one side's length (then rounds both to a
        # multiple of 32), read from these attributes on every call
        detector = self._engine._load_det_model()
        scale = self._config["det_scale"]
        if scale <= 1:
            detector.limit_type, detector.limit_side_len = "max", max(32, round(scale * max(height, width)))
        else:
            detector.limit_type, detector.limit_side_len = "min", round(scale * min(height, width))


def convert_rapidocr(boxes, txts, scores, word_results) -> list[Word]:
    """Lines (4-point boxes, texts, scores) plus per-line word groups -> words.

    A group is (text, score, quad) tuples for one line; it belongs to the line whose text,
    without spaces, it spells. A line without its group is split by character widths.
    """
    import numpy as np
    if boxes is None or txts is None or len(txts) == 0:
        return []
    groups = [g for g in (word_results or ())
              if g and all(isinstance(t, tuple) and len(t) == 3 and t[2] is not None for t in g)]
    out: list[Word] = []
    gi = 0
    for box, text, score in zip(boxes, txts, scores, strict=False):
        quad = tuple((float(x), float(y)) for x, y in np.asarray(box).reshape(4, 2))
        line = Word(quad, text, float(score), "line")  # type: ignore[arg-type]
        group = None
        # groups keep line order, so the match for this line is at or after gi
        for j in range(gi, len(groups)):
            if _norm("".join(t for t, _, _ in groups[j])) == _norm(text):
                group, gi = groups[j], j + 1
                break
        if group is None:
            out.extend(split_line(line))
            continue
        for wtext, wconf, wbox in group:
            if not str(wtext).strip():
                continue
            wquad = tuple((float(x), float(y)) for x, y in np.asarray(wbox).reshape(4, 2))
            out.append(Word(wquad, str(wtext).strip(), float(wconf), "word"))  # type: ignore[arg-type]
    return out
