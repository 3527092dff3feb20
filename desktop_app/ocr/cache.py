"""OCR results cached in the project database, per (image hash, engine, settings).

Reopening a screen reads one indexed row (a few ms) instead of running OCR (0.7 s for a
1280x800 screen on one core, ADR 0026). The row holds the refined words and the element
proposals, so the GUI gets both at once.
Each stored result is its own short transaction: a bulk run that is cancelled or crashes
keeps everything finished before it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy.exc import IntegrityError

from desktop_app.ocr.base import (
    OcrOutcome,
    Proposal,
    Word,
    words_from_json,
    words_to_json,
)
from desktop_app.ocr.pipeline import analyse_file, analyse_image, load_rgb  # noqa: F401 - callers import the last two from here too
from desktop_app.ocr.registry import DEFAULT_ENGINE, get_engine, settings_json
from desktop_app.store.models import OcrResult, Screen
from desktop_app.store.orm import select
from desktop_app.store.project import NotAllowed

Analyser = Callable[[Path, str, str, dict[str, Any]], tuple[list[Word], list[Proposal], float]]


def _find_row(project, sha256: str, engine: str, settings: str) -> OcrResult | None:
    with project.reading() as s:
        return s.exec(select(OcrResult).where(OcrResult.sha256 == sha256, OcrResult.engine == engine,
                                              OcrResult.settings == settings)).first()


def _outcome(row: OcrResult, language: str, cached: bool, started: float) -> OcrOutcome:
    return OcrOutcome(words=words_from_json(row.words), elements=[Proposal.from_json(d) for d in row.elements],
                      engine=row.engine, language=language, settings=row.settings, cached=cached,
                      duration_ms=row.duration_ms or 0.0, elapsed_ms=(time.perf_counter() - started) * 1000)


def _screen(project, screen: Screen | int) -> Screen:
    if isinstance(screen, Screen):
        return screen
    with project.reading() as s:
        found = s.get(Screen, screen)
    if found is None:
        raise LookupError(f"no screen with id {screen}")
    return found


def cached_outcome(project, screen: Screen | int, engine: str = DEFAULT_ENGINE, language: str = "en",
                   **options: Any) -> OcrOutcome | None:
    """The cached result or None, never running OCR (for showing words when a screen opens)."""
    started = time.perf_counter()
    scr = _screen(project, screen)
    row = _find_row(project, scr.sha256, engine, settings_json(engine, language, **options))
    return None if row is None else _outcome(row, language, True, started)


def ocr_screen(project, screen: Screen | int, engine: str = DEFAULT_ENGINE, language: str = "en",
               refresh: bool = False, analyse: Analyser = analyse_file, **options: Any) -> OcrOutcome:
    """Words and element proposals of a screen: from the cache when present, else computed (by `analyse`:
    here, or another process's) and stored. Raises OcrUnavailable (engine missing; message says why) or
    OSError (image)."""
    started = time.perf_counter()
    scr = _screen(project, screen)
    settings = settings_json(engine, language, **options)
    if not refresh:
        row = _find_row(project, scr.sha256, engine, settings)
        if row is not None:
            return _outcome(row, language, True, started)

    words, proposals, duration = analyse(project.image_path(scr), engine, language, options)
    row = OcrResult(sha256=scr.sha256, engine=engine, settings=settings, words=words_to_json(words),
                    elements=[p.to_json() for p in proposals], duration_ms=round(duration, 1))
    _store(project, row)
    return OcrOutcome(words=words, elements=proposals, engine=engine, language=language, settings=settings,
                      cached=False, duration_ms=row.duration_ms,
                      elapsed_ms=(time.perf_counter() - started) * 1000)


def _store(project, row: OcrResult) -> None:
    """Replace any row with the same key, in one short transaction."""
    query = select(OcrResult).where(OcrResult.sha256 == row.sha256, OcrResult.engine == row.engine,
                                    OcrResult.settings == row.settings)
    try:
        with project.transaction() as s:
            for old in s.exec(query).all():
                s.delete(old)
            s.flush()
            s.add(row)
    except IntegrityError:
        pass  # another process stored the same key meanwhile; its result is as good as ours
    except NotAllowed:
        pass  # an annotator on a server: readings are shared by staff only (one could plant words for another)


@dataclass
class OcrRunReport:
    engine: str
    language: str
    total: int = 0
    computed: int = 0
    skipped: int = 0  # already cached
    failed: list[tuple[str, str]] = field(default_factory=list)  # (sha256, message)
    cancelled: bool = False
    seconds: float = 0.0

    def summary(self) -> str:
        per = f", {self.seconds / self.computed:.2f} s per screen" if self.computed else ""
        text = (f"OCR {self.engine} ({self.language}): {self.total} screens, {self.computed} read, "
                f"{self.skipped} already cached, {len(self.failed)} failed in {self.seconds:.1f} s{per}")
        if self.cancelled:
            text += " (cancelled; finished screens are kept)"
        for sha, message in self.failed[:10]:
            text += f"\n  {sha[:12]}: {message}"
        return text


def ocr_project(project, engine: str = DEFAULT_ENGINE, language: str = "en", only_missing: bool = True,
                progress: Callable[[str, int, int], None] | None = None,
                cancel: Callable[[], bool] | None = None, **options: Any) -> OcrRunReport:
    """OCR every screen of the project; only_missing=False recomputes cached ones too.
    Raises OcrUnavailable before touching anything when the engine cannot run."""
    started = time.perf_counter()
    report = OcrRunReport(engine, language)
    settings = settings_json(engine, language, **options)
    with project.reading() as s:
        screens = s.exec(select(Screen).order_by(Screen.id)).all()
        done = set(s.exec(select(OcrResult.sha256).where(OcrResult.engine == engine,
                                                          OcrResult.settings == settings)).all())
    report.total = len(screens)
    todo = [scr for scr in screens if not (only_missing and scr.sha256 in done)]
    report.skipped = report.total - len(todo)
    if todo:
        get_engine(engine, language, **options)  # fail early, with the engine's own message
    progress = progress or (lambda *a: None)
    progress("ocr", 0, len(todo))
    for i, scr in enumerate(todo):
        if cancel is not None and cancel():
            report.cancelled = True
            break
        try:
            ocr_screen(project, scr, engine, language, refresh=True, **options)
            report.computed += 1
        except (OSError, ValueError) as exc:  # a missing or undecodable image file
            report.failed.append((scr.sha256, str(exc)))
        progress("ocr", i + 1, len(todo))
    report.seconds = time.perf_counter() - started
    return report
