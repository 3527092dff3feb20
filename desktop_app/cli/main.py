"""`screenlab` command line: a thin layer over the same functions the GUI uses."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from desktop_app import __version__
from desktop_app.agents.profiles import ProfileError
from desktop_app.cli.common import add_filters, add_project, filter_of, open_project
from desktop_app.formats import FORMATS
from desktop_app.formats.box_layout import LAYOUTS
from desktop_app.formats.ingest import ImportOptions
from desktop_app.formats.records import FormatError
from desktop_app.images import DEFAULT_MAX_PIXELS
from desktop_app.store.migrate import SchemaTooNew
from desktop_app.store.project import Project, ProjectError

# Errors caused by the user's input: reported in one line, exit status 2.
USER_ERRORS = (FormatError, ProjectError, SchemaTooNew, ProfileError)


def cmd_init(args) -> int:
    with Project.init(args.project, args.media, media_in_database=args.media_in_database) as project:
        where = "in the database" if project.media.in_database else f"in {project.media.root}"
        print(f"created project {project.folder or project.url} (images {where})")
    return 0


def cmd_info(args) -> int:
    from desktop_app.store.queries import project_counts

    with open_project(args) as project, project.reading() as session:
        counts = project_counts(session)
    if args.json:
        print(json.dumps(counts, indent=2, sort_keys=True))
        return 0
    print(f"project  {args.project}")
    for key in ("screens", "episodes", "steps", "actions", "actions_without_box"):
        print(f"{key.replace('_', ' '):<20} {counts[key]}")
    if counts["double_annotation_copies"]:  # a team's private versions, not counted above
        print(f"{'annotator copies':<20} {counts['double_annotation_copies']}")
    for key, title in (("episodes_by_scenario", "episodes by scenario"), ("episodes_by_split", "episodes by split"),
                       ("episodes_by_review_status", "episodes by review status"),
                       ("actions_by_label", "actions by label"), ("review_items_by_status", "review items")):
        if counts[key]:
            print(f"\n{title}:")
            for name, n in counts[key].items():
                print(f"  {name or '(none)':<18} {n}")
    return 0


def cmd_import(args) -> int:
    from desktop_app.cli.progress import ProgressBar
    from desktop_app.formats.ingest import BadImagesError
    from desktop_app.formats.transfer import detected_format, import_path

    options = ImportOptions(images_dir=Path(args.images) if args.images else None, max_pixels=args.max_pixels,
                            bbox_format=args.bbox_format, split=args.set_split,
                            skip_bad_images=args.skip_bad_images)
    with open_project(args) as project:
        try:
            fmt = args.format
            if fmt is None:
                fmt = detected_format(Path(args.path))
                if not args.quiet:
                    print(f"format: {fmt} (name another with --format)", file=sys.stderr)
            report = import_path(project, Path(args.path), fmt, options,
                                 progress=ProgressBar() if not args.quiet else lambda *a: None)
        except BadImagesError as exc:
            hint = f"\nadd --skip-bad-images to import the other {exc.importable}" if exc.importable else ""
            print(f"error: {exc}{hint}", file=sys.stderr)
            return 2
    print(json.dumps(report.as_dict()) if args.json else report.summary())
    return 0


def cmd_export(args) -> int:
    from desktop_app.formats.transfer import export_path

    with open_project(args) as project:
        report = export_path(project, Path(args.out), args.format, filter_of(args))
    print(report.summary())
    return 0


def cmd_gui(args) -> int:
    launcher = getattr(args, "gui_launcher", None)
    if launcher is None:  # this program was built without the window (desktop_app/__main__.py wires it)
        print("error: this command line has no GUI; run `screenlab` or `python -m desktop_app`", file=sys.stderr)
        return 2
    return launcher(getattr(args, "project", None), media=getattr(args, "media", None),
                    smoke=getattr(args, "smoke", False))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="screenlab",
        description="Label screens, synthesize distracting screens and evaluate GUI agents. "
                    "Without a command, opens the GUI on the demo project.")
    parser.add_argument("--version", action="version", version=f"screenlab {__version__}")
    parser.add_argument("--smoke", action="store_true", help=argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("init", help="create an empty project")
    add_project(p)
    p.add_argument("--media-in-database", action="store_true",
                   help="keep the images in the project's database, not in a media folder (a team on a server "
                        "with no shared folder); --media is then where this machine caches them")
    p.set_defaults(func=cmd_init)

    p = sub.add_parser("info", help="counts by scenario, label and review status")
    add_project(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_info)

    readable = [n for n, s in FORMATS.items() if s.read]
    p = sub.add_parser("import", help="import a dataset (all or nothing)",
                       description="Formats: " + "; ".join(f"{n}: {FORMATS[n].description}" for n in readable))
    add_project(p)
    p.add_argument("path", help="file or folder to import")
    p.add_argument("--format", "-f", choices=readable,
                   help="the format of PATH; default: the one it holds, when that is clear (it says which)")
    p.add_argument("--images", metavar="DIR", help="folder to resolve relative image paths against")
    reads_layout = ", ".join(n for n in readable if "bbox_format" in FORMATS[n].options)
    p.add_argument("--bbox-format", choices=tuple(LAYOUTS),
                   help=f"box layout, for the formats that read one ({reads_layout}): "
                        + "; ".join(f"{k} = {v}" for k, v in LAYOUTS.items())
                        + ". Default: the format's own rule (its description says which)")
    p.add_argument("--split", dest="set_split", metavar="NAME", help="put every imported episode in this split")
    p.add_argument("--max-pixels", type=int, default=DEFAULT_MAX_PIXELS, help="refuse larger images")
    p.add_argument("--skip-bad-images", action="store_true",
                   help="import the rest when some images cannot be read (corrupt, truncated, too large); "
                        "the report names each one skipped. Without it a bad image stops the whole import")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_import)

    writable = [n for n, s in FORMATS.items() if s.write]
    p = sub.add_parser("export", help="export episodes to a new folder",
                       description="Formats: " + "; ".join(f"{n}: {FORMATS[n].description}" for n in writable))
    add_project(p)
    p.add_argument("out", help="output folder (must not exist, or be empty)")
    p.add_argument("--format", "-f", required=True, choices=writable)
    add_filters(p)
    p.set_defaults(func=cmd_export)

    from desktop_app.cli import (
        agent_commands,
        box_commands,
        capability_commands,
        judge_commands,
        synth_commands,
        team_commands,
        vaf_commands,
    )
    from desktop_app.cli.ocr_command import add_ocr_command
    from desktop_app.cli.report_command import add_report_command

    add_ocr_command(sub, add_project)
    add_report_command(sub, add_project)
    synth_commands.add_commands(sub, add_project)
    synth_commands.add_verify_command(sub, add_project)
    agent_commands.add_commands(sub, add_project)
    judge_commands.add_commands(sub, add_project)
    capability_commands.add_commands(sub, add_project)
    vaf_commands.add_commands(sub, add_project)
    team_commands.add_commands(sub, add_project)
    box_commands.add_commands(sub, add_project)

    p = sub.add_parser("gui", help="open the annotation window on a project")
    p.add_argument("project", nargs="?", help="project folder (default: the demo project)")
    p.add_argument("--media", metavar="DIR", help="media folder for a database-URL project")
    p.add_argument("--smoke", action="store_true", help="open, draw one screen, save a screenshot, exit")
    p.set_defaults(func=cmd_gui)
    return parser


def main(argv: list[str] | None = None, gui=None) -> int:
    """`gui(project, media=, smoke=) -> exit code` opens the window (no command, or `gui`). The CLI
    never imports the UI itself: desktop_app/__main__.py passes it in."""
    parser = build_parser()
    args = parser.parse_args(argv)
    args.gui_launcher = gui
    func = getattr(args, "func", cmd_gui)
    try:
        return func(args)
    except USER_ERRORS as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; nothing was changed by the unfinished command", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
