"""`screenlab ocr PROJECT`: OCR and element proposals for every screen, cached in the project."""

from __future__ import annotations

import argparse
import sys

from desktop_app.ocr.base import OcrUnavailable
from desktop_app.ocr.registry import ENGINES


def add_ocr_command(subparsers, add_project) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "ocr", help="read the text and find UI elements on every screen (cached in the project)",
        description="Runs OCR and element proposals on the project's screens and stores the results, so the "
                    "annotation window shows words and box suggestions at once. By default only screens "
                    "without a cached result for this engine and language are read.")
    add_project(p)
    p.add_argument("--engine", choices=list(ENGINES), help="OCR engine (default: the one in your settings, "
                                                           "normally rapidocr)")
    p.add_argument("--language", help="language code, e.g. en, de, zh (default: your settings, normally en)")
    p.add_argument("--all", action="store_true", help="read every screen again, replacing cached results")
    p.add_argument("--model-dir", metavar="DIR", help="easyocr only: folder holding its model files")
    p.add_argument("--allow-downloads", action="store_true", help="easyocr only: let it download missing models")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_ocr)
    return p


def cmd_ocr(args) -> int:
    from desktop_app.cli.common import open_project
    from desktop_app.cli.progress import ProgressBar
    from desktop_app.ocr.cache import ocr_project
    from desktop_app.settings import load_settings

    settings = load_settings()
    engine = args.engine or settings.ocr_engine or "rapidocr"
    language = args.language or settings.ocr_language or "en"
    options = {}
    if engine == "easyocr":
        options["model_dir"] = args.model_dir or settings.easyocr_model_dir or None
        options["allow_downloads"] = args.allow_downloads or settings.allow_downloads
        options = {k: v for k, v in options.items() if v}
    with open_project(args) as project:
        try:
            report = ocr_project(project, engine, language, only_missing=not args.all,
                                 progress=(lambda *a: None) if args.quiet else ProgressBar(), **options)
        except OcrUnavailable as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    print(report.summary())
    return 1 if report.failed else 0
