"""Import and export entry points used by the CLI and the GUI alike."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from desktop_app.formats import FORMATS
from desktop_app.formats.ingest import ImportOptions, ImportReport, Progress, ingest, no_progress
from desktop_app.formats.labelling_tools import SHAPE_CHOICES
from desktop_app.formats.records import FormatError
from desktop_app.formats.spec import ExportContext, ExportReport
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter, iter_bundles


def import_path(project: Project, path: Path, fmt: str | None, options: ImportOptions | None = None,
                progress: Progress = no_progress) -> ImportReport:
    """fmt None: the format the file or folder holds (formats/detect.py), or a refusal asking to name it."""
    if fmt is None:
        fmt = detected_format(Path(path))
    spec = FORMATS.get(fmt)
    if spec is None or spec.read is None:
        readable = ", ".join(n for n, s in FORMATS.items() if s.read)
        raise FormatError(f"cannot import format '{fmt}' (one of: {readable})")
    options = replace(options or ImportOptions(), dedupe_images=spec.dedupe_images)
    if options.shapes not in SHAPE_CHOICES:
        raise FormatError(f"shapes {options.shapes!r}: one of {', '.join(SHAPE_CHOICES)}")
    path = Path(path)
    if path.exists() and not (path.is_file() or path.is_dir()):  # reading a pipe or a device would wait forever
        raise FormatError("not a file or a folder (a pipe or a device?); give a file or a folder to import", path)
    records = spec.read(path, options)
    report = ingest(project, records, fmt, str(path), options, progress)
    if spec.layout is not None:
        report.layout = spec.layout(path)
    return report


def detected_format(path: Path) -> str:
    """The format `path` holds, or FormatError asking the user to name it."""
    from desktop_app.formats.detect import detect_format  # reads the first record; only when asked

    if not path.exists():
        raise FormatError("file or folder not found", path)
    found = detect_format(path)
    if found is None:
        readable = ", ".join(n for n, s in FORMATS.items() if s.read)
        raise FormatError(f"cannot tell which format this holds; name it (--format, the Import dialog's "
                          f"'Format'): one of {readable}", path)
    return found


def export_path(project: Project, out: Path, fmt: str, flt: EpisodeFilter = EpisodeFilter()) -> ExportReport:
    spec = FORMATS.get(fmt)
    if spec is None or spec.write is None:
        writable = ", ".join(n for n, s in FORMATS.items() if s.write)
        raise FormatError(f"cannot export format '{fmt}' (one of: {writable})")
    with project.reading() as session:
        flt = replace(flt, kind=spec.episode_kind)
        ctx = ExportContext(Path(out), iter_bundles(session, flt), project.media.read, session)
        return spec.write(ctx)
