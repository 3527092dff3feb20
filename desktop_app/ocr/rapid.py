"""RapidOCR (PP-OCRv6 small, ONNX Runtime): the default engine, fully offline.

The models ship inside the rapidocr wheel (rapidocr/models/*.onnx). We pass their paths
explicitly: given only a model folder, rapidocr would check each file's SHA-256 and
download it when the check fails; with an explicit path it opens the file and nothing else.

Word boxes: rapidocr 3.10 has `return_word_box=True`, which places each word from the
recogniser's CTC column positions inside the detected line (rapidocr/cal_rec_boxes). It
returns the words grouped per line, but drops lines whose words got no box and then
indexes that shorter tuple by line number, so groups and lines may not line up. We
therefore match a group to its line by text (the group's characters, without spaces,
equal the line's) and split any unmatched line proportionally (base.split_line).
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

import numpy as np

from desktop_app.ocr.base import OcrEngine, OcrUnavailable, Word, reading_order, split_line

MODEL_FILES = {"Det": "PP-OCRv6_det_small.onnx", "Rec": "PP-OCRv6_rec_small.onnx",
               "Cls": "ch_ppocr_mobile_v2.0_cls_mobile.onnx"}
# the bundled multilingual PP-OCRv6 recogniser; our settings use ISO 639-1 codes
_ALIASES = {"zh": "ch", "zh-cn": "ch", "zh-tw": "chinese_cht", "ja": "japan"}


def _package_dir() -> Path | None:
    import importlib.util

    spec = importlib.util.find_spec("rapidocr")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent


def _supported_languages() -> list[str]:
    from rapidocr import RapidOCR

    return RapidOCR.list_supported_langs("rec", "PP-OCRv6", "small")


def _quiet() -> None:
    # rapidocr logs every model path at INFO on its own handler (propagate=False)
    logging.getLogger("RapidOCR").setLevel(logging.ERROR)


def _norm(text: str) -> str:
    return "".join(text.split())


class RapidOcrEngine(OcrEngine):
    name = "rapidocr"
    description = "RapidOCR PP-OCRv6 small (bundled, offline)"

    def __init__(self, language: str = "en", **options: Any):
        super().__init__(language, **options)
        ok, reason = self.available(language, **options)
        if not ok:
            raise OcrUnavailable(reason)
        _quiet()
        from rapidocr import RapidOCR

        models = _package_dir() / "models"
        params: dict[str, Any] = {f"{task}.model_path": str(models / file) for task, file in MODEL_FILES.items()}
        params.update({
            "Global.log_level": "error",
            # screenshots have no upside-down text; the 180-degree classifier only costs time
            "Global.use_cls": False,
            "Rec.lang_type": _ALIASES.get(language.lower(), language.lower()),
        })
        self._engine = RapidOCR(params=params)
        # rapidocr opens its ONNX sessions on first use; open them now, so the first screen
        # is not 0.3 s slower than the rest (and load errors surface here, not mid-run)
        for loader in ("_load_det_model", "_load_rec_model"):
            getattr(self._engine, loader, lambda: None)()
        _quiet()
        self._lock = threading.Lock()  # one inference at a time per instance; ORT uses all cores anyway

    @classmethod
    def available(cls, language: str = "en", **options: Any) -> tuple[bool, str]:
        root = _package_dir()
        if root is None:
            return False, "rapidocr is not installed (pip install rapidocr onnxruntime)"
        import importlib.util

        if importlib.util.find_spec("onnxruntime") is None:
            return False, "onnxruntime is not installed (pip install onnxruntime)"
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
        bgr = np.ascontiguousarray(image[:, :, ::-1])
        with self._lock:
            try:
                result = self._engine(bgr, return_word_box=True)
            except (IndexError, ValueError):
                # rapidocr's word-box bookkeeping can fail on odd lines; lines alone still work
                result = self._engine(bgr, return_word_box=False)
        return reading_order(convert_rapidocr(result.boxes, result.txts, result.scores,
                                              getattr(result, "word_results", None)))


def convert_rapidocr(boxes, txts, scores, word_results) -> list[Word]:
    """Lines (4-point boxes, texts, scores) plus per-line word groups -> words.

    A group is (text, score, quad) tuples for one line; it belongs to the line whose text,
    without spaces, it spells. A line without its group is split by character widths.
    """
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
