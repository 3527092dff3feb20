"""The OCR engines by name, and one loaded instance of each per process.

Adding an engine is one entry in ENGINES. Instances are kept because loading models is the
expensive part (rapidocr: ~0.3 s of ONNX sessions); an engine that failed to load is not
kept, so installing the missing piece and retrying works without a restart.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from desktop_app.ocr.base import OcrEngine, OcrUnavailable
from desktop_app.ocr.easy import EasyOcrEngine
from desktop_app.ocr.rapid import RapidOcrEngine
from desktop_app.ocr.tess import TesseractEngine

ENGINES: dict[str, type[OcrEngine]] = {e.name: e for e in (RapidOcrEngine, EasyOcrEngine, TesseractEngine)}
DEFAULT_ENGINE = "rapidocr"
# Bump when word refinement or element proposals change: cached rows made by an older
# pipeline then miss the cache instead of showing stale boxes. 2: a fill's edge the engine's word box overhangs
# is not a letter (ink.glyph_ink).
PIPELINE_VERSION = 2

_instances: dict[str, OcrEngine] = {}
_lock = threading.Lock()


def engine_class(name: str) -> type[OcrEngine]:
    try:
        return ENGINES[name]
    except KeyError:
        raise OcrUnavailable(f"unknown OCR engine '{name}' (one of {', '.join(ENGINES)})") from None


def available(name: str, language: str = "en", **options: Any) -> tuple[bool, str]:
    try:
        return engine_class(name).available(language, **options)
    except OcrUnavailable as exc:
        return False, str(exc)


def status(language: str = "en", **options: Any) -> dict[str, tuple[bool, str]]:
    """Every engine's (ok, reason), e.g. for a settings dialog."""
    return {name: available(name, language, **options) for name in ENGINES}


def settings_json(name: str, language: str = "en", **options: Any) -> str:
    """The canonical settings string the cache is keyed by."""
    settings = {**engine_class(name).settings_for(language, **options), "pipeline": PIPELINE_VERSION}
    return json.dumps(settings, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def get_engine(name: str = DEFAULT_ENGINE, language: str = "en", **options: Any) -> OcrEngine:
    """The process-wide instance for (name, language, options); raises OcrUnavailable."""
    cls = engine_class(name)
    key = json.dumps([name, language, options], sort_keys=True, default=str)
    with _lock:
        engine = _instances.get(key)
        if engine is None:
            engine = cls(language, **options)
            _instances[key] = engine
        return engine
