"""`screenlab` command line: a thin layer over the same functions the GUI uses.

Only the chosen command's arguments are built (COMMANDS): they import what the command needs (the format
registry, agents, OCR...), which `screenlab --version`, `--help` or `info` should not wait for.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from desktop_app import __version__
from desktop_app.cli.common import add_filters, add_project, filter_of, open_project

# Errors caused by the user's input: reported in one line, exit status 2. Named by module, and looked up only
# in modules already loaded: an error whose module was never imported cannot have been raised.
USER_ERRORS = (("desktop_app.formats.records", "FormatError"), ("desktop_app.store.project", "ProjectError"),
               ("desktop_app.store.migrate", "SchemaTooNew"), ("desktop_app.store.migrate", "SchemaNeedsOwner"),
               ("desktop_app.agents.profiles", "ProfileError"))


USER_ERRORS += (("desktop_app.store.project", "NotAllowed"), ("desktop_app.store.edits", "EditConflict"),
                ("desktop_app.store.media", "LockTimeout"))
SERVER_DOWN = 3  # the exit status when the database server cannot be reached or refuses the login


def is_user_error(exc: BaseException) -> bool:
    return any(isinstance(exc, cls) for module, name in USER_ERRORS
               if (cls := getattr(sys.modules.get(module), name, None)) is not None)


_LOGIN_REFUSED = ("password authentication failed", "no password supplied", "does not exist",
                  "permission denied for database", "pg_hba.conf")


def server_trouble(exc: BaseException) -> str | None:
    """One line for a database server that cannot be reached or refuses the login (the full traceback goes to
    the crash log); None for anything else."""
    errors = sys.modules.get("sqlalchemy.exc")
    if errors is None or not isinstance(exc, errors.OperationalError | errors.InterfaceError):
        return None
    from desktop_app.secrets import redact
    from desktop_app.store.project import is_connection_lost

    first = redact(str(getattr(exc, "orig", exc)) or type(exc).__name__).strip().splitlines()
    reason = first[0] if first else type(exc).__name__
    if any(words in reason for words in _LOGIN_REFUSED):
        return (f"the database server refused the login: {reason} (your password comes from "
                "SCREENLAB_DB_PASSWORD or this computer's keyring; a lead can reset it)")
    if is_connection_lost(exc):
        return f"cannot reach the database server: {reason}; nothing was changed"
    return None


MACHINE_TROUBLE = 4  # the exit status when the machine refused: no browser, a full disk, no permission


def _playwright_error(exc: BaseException) -> bool:
    """Playwright's errors, told by the module of their class: the CLI never imports Playwright to check."""
    return any(cls.__module__.split(".")[0] == "playwright" for cls in type(exc).__mro__)


def _damaged_database(exc: BaseException) -> bool:
    """SQLite's word for a file that is not (or no longer) a whole database."""
    errors = sys.modules.get("sqlalchemy.exc")
    return (errors is not None and isinstance(exc, errors.DatabaseError)
            and any(w in str(exc) for w in ("database disk image is malformed", "file is not a database")))


def _launching(text: str) -> str:
    """The browser Playwright tried to start, from its "<launching> PATH --flags" log line ("" if none)."""
    for line in text.splitlines():
        if line.startswith("<launching> "):
            return line.removeprefix("<launching> ").split(" --", 1)[0].strip()
    return ""


def _first_line(exc: BaseException) -> str:
    from desktop_app.secrets import redact

    lines = redact(str(exc)).strip().splitlines()
    return lines[0][:300] if lines else type(exc).__name__


def machine_trouble(exc: BaseException) -> str | None:
    """One line for an expected failure of the machine rather than of the input: the browser cannot start
    (or died), the disk is full, permission denied, a file vanished. None for anything else. The exception
    or one it was raised from counts (a library wraps an OSError in its own error)."""
    import errno

    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if _damaged_database(exc):
            return (f"the project's database is damaged ({_first_line(getattr(exc, 'orig', None) or exc)}); "
                    "restore it from a copy (`screenlab check` tells how much is hurt)")
        if _playwright_error(exc):
            browser = _launching(str(exc))
            which = f" ({browser})" if browser else ""
            return (f"the browser{which} could not start or stopped: {_first_line(exc)}; install Chromium, Chrome or "
                    "Edge, or set SCREENLAB_BROWSER to a working one (a browser also stops when memory runs out)")
        if isinstance(exc, OSError):
            name = f": {exc.filename}" if exc.filename else ""
            if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", -1)):
                return f"the disk is full{name}; free some space and run the command again (nothing half-written is kept)"
            if isinstance(exc, PermissionError) or exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
                return f"permission denied{name} ({exc.strerror or exc}); check who owns it and whether it is read-only"
            if isinstance(exc, FileNotFoundError):
                return f"no such file or folder{name}; it may have been moved or deleted while the command ran"
            if exc.filename:  # not a folder, a folder where a file belongs, a file system's refusal: the OS says it
                return f"{exc.strerror or type(exc).__name__}{name}"
        exc = exc.__cause__ or exc.__context__
    return None


def _logged(exc: BaseException) -> str:
    from desktop_app import crash

    try:
        return f" (details: {crash.write_crash_log(type(exc), exc, exc.__traceback__)})"
    except OSError:
        return ""


def cmd_init(args) -> int:
    from desktop_app.opening import init_project

    with init_project(args.project, args.media, media_in_database=args.media_in_database) as project:
        where = "in the database" if project.media.in_database else f"in {project.media.root}"
        print(f"created project {project.folder or project.url} (images {where})")
    return 0


def cmd_migrate(args) -> int:
    from desktop_app.store import migrate
    from desktop_app.store.project import Project, is_project_folder, is_url

    before = None
    there = is_url(args.project) or is_project_folder(Path(args.project).expanduser())
    probe = Project._located(args.project, args.media) if there else None
    if probe is not None:
        try:
            before = migrate.current_revision(probe.engine)
        finally:
            probe.close()
    with open_project(args) as project:
        after = migrate.current_revision(project.engine)
        who = project.identity
    if before is not None and before != after:
        print(f"upgraded {args.project} from schema {before} to {after} (as {who.user})")
    else:
        print(f"{args.project} is at schema {after}, this ScreenLab's: nothing to do")
    return 0


def cmd_info(args) -> int:
    from desktop_app.store.counts import project_counts

    with open_project(args) as project, project.engine.connect() as conn:
        counts = project_counts(conn)
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
                       ("actions_by_label", "actions by label"), ("actions_by_class", "actions by class"),
                       ("review_items_by_status", "review items")):
        if counts[key]:
            print(f"\n{title}:")
            for name, n in counts[key].items():
                print(f"  {name or '(none)':<18} {n}")
    return 0


def cmd_import(args) -> int:
    from desktop_app.cli.progress import ProgressBar
    from desktop_app.formats.ingest import BadImagesError, ImportOptions
    from desktop_app.formats.transfer import detected_format, import_path

    options = ImportOptions(images_dir=Path(args.images) if args.images else None, max_pixels=args.max_pixels,
                            bbox_format=args.bbox_format, split=args.set_split,
                            skip_bad_images=args.skip_bad_images, clip_boxes=args.clip_boxes, shapes=args.shapes,
                            add_labels=args.add_labels)
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


def add_project_commands(sub) -> None:
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

    p = sub.add_parser("migrate", help="bring a project's schema, and on a server its roles and rules, up to this "
                                       "ScreenLab's",
                       description="Opening a project does this too; on a server only its owner may, with the "
                                   "owner's login (the rules then hold for everyone who opens it).")
    add_project(p)
    p.set_defaults(func=cmd_migrate)


def add_transfer_commands(sub) -> None:
    from desktop_app.formats import FORMATS
    from desktop_app.formats.box_layout import LAYOUTS
    from desktop_app.formats.labelling_tools import SHAPE_CHOICES, SHAPES_HELP
    from desktop_app.images import DEFAULT_MAX_PIXELS

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
    p.add_argument("--clip-boxes", action="store_true",
                   help="cut a box that reaches past its picture's edge at the edge, and leave out one wholly outside "
                        "(its action kept without a box); the report lists each one. Without it such a box stops "
                        "the whole import")
    reads_shapes = ", ".join(n for n in readable if "shapes" in FORMATS[n].options)
    p.add_argument("--shapes", choices=SHAPE_CHOICES, default="refuse",
                   help=f"what a shape that is not a rectangle (a polygon, circle, line, point...) becomes, for "
                        f"the formats that have them ({reads_shapes}): "
                        + "; ".join(f"{k} = {v}" for k, v in SHAPES_HELP.items())
                        + ". The report counts each kind")
    p.add_argument("--add-labels", action="store_true",
                   help="add the classes the file names that the project does not have; without it the import "
                        "is refused, naming every one of them")
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


def add_check_commands(sub) -> None:
    from desktop_app.cli.check_command import add_check_command

    add_check_command(sub, add_project)


def add_ocr_commands(sub) -> None:
    from desktop_app.cli.ocr_command import add_ocr_command

    add_ocr_command(sub, add_project)


def add_report_commands(sub) -> None:
    from desktop_app.cli.report_command import add_report_command

    add_report_command(sub, add_project)


def add_synth_commands(sub) -> None:
    from desktop_app.cli import synth_commands

    synth_commands.add_commands(sub, add_project)


def add_verify_commands(sub) -> None:
    from desktop_app.cli import synth_commands

    synth_commands.add_verify_command(sub, add_project)


def add_agent_commands(sub) -> None:
    from desktop_app.cli import agent_commands

    agent_commands.add_commands(sub, add_project)


def add_eval_command(sub) -> None:
    from desktop_app.cli import agent_commands

    agent_commands.add_eval_command(sub, add_project)


def add_judge_commands(sub) -> None:
    from desktop_app.cli import judge_commands

    judge_commands.add_commands(sub, add_project)


def add_capability_commands(sub) -> None:
    from desktop_app.cli import capability_commands

    capability_commands.add_commands(sub, add_project)


def add_vaf_commands(sub) -> None:
    from desktop_app.cli import vaf_commands

    vaf_commands.add_commands(sub, add_project)


def add_record_commands(sub) -> None:
    from desktop_app.cli import record_commands

    record_commands.add_commands(sub, add_project)


def add_run_transfer_commands(sub) -> None:
    from desktop_app.cli import run_transfer_commands

    run_transfer_commands.add_run_transfer_commands(sub)


def add_team_commands(sub) -> None:
    from desktop_app.cli import team_commands

    team_commands.add_commands(sub, add_project)


def add_box_commands(sub) -> None:
    from desktop_app.cli import box_commands

    box_commands.add_commands(sub, add_project)


def add_open_folder_command(sub) -> None:
    from desktop_app.cli.open_folder_command import add_open_folder_command as add

    add(sub)


def add_uninstall_command(sub) -> None:
    from desktop_app.cli.uninstall_command import add_uninstall_command as add

    add(sub)


def cmd_guide(args) -> int:
    from desktop_app.guide import NOT_BUILT, guide_index

    index = guide_index()
    if index is None:
        print(f"error: {NOT_BUILT}", file=sys.stderr)
        return 1
    print(index)
    if args.open:
        import webbrowser

        webbrowser.open(index.as_uri())
    return 0


def add_guide_command(sub) -> None:
    p = sub.add_parser("guide", help="where the user guide's built pages are (index.html), to read offline",
                       description="Prints the path of the built guide's index.html (the pages Help > User guide "
                                   "opens). Not built yet: `make guide` in a checkout writes build/guide/.")
    p.add_argument("--open", action="store_true", help="also open it in your web browser")
    p.set_defaults(func=cmd_guide)


def add_gui_command(sub) -> None:
    p = sub.add_parser("gui", help="open the annotation window on a project")
    p.add_argument("project", nargs="?", help="project folder (default: the demo project)")
    p.add_argument("--media", metavar="DIR", help="media folder for a database-URL project")
    p.add_argument("--smoke", action="store_true", help="open, draw one screen, save a screenshot, exit")
    p.set_defaults(func=cmd_gui)


# Every command in the order `screenlab --help` lists it, with the line it shows there and the function that
# adds its arguments (with the other commands that function adds). tests/test_cli_start.py checks this table
# against the parser built in full.
COMMANDS = {
    "init": ("create an empty project", add_project_commands),
    "info": ("counts by scenario, label and review status", add_project_commands),
    "migrate": ("bring a project's schema, and on a server its roles and rules, up to this ScreenLab's",
                add_project_commands),
    "check": ("check a project: database integrity, counts, images no screen names", add_check_commands),
    "import": ("import a dataset (all or nothing)", add_transfer_commands),
    "export": ("export episodes to a new folder", add_transfer_commands),
    "open-folder": ("open a folder of screenshots: the first at once, the rest imported behind it",
                    add_open_folder_command),
    "ocr": ("read the text and find UI elements on every screen (cached in the project)", add_ocr_commands),
    "report": ("result tables (CSV, Markdown, LaTeX) and plots of runs", add_report_commands),
    "synth": ("generate samples (they land as pending, for verification)", add_synth_commands),
    "verify": ("accept or reject a generated sample, as the verification queue does", add_verify_commands),
    "agents": ("list output conventions and your agents; add or remove agents", add_agent_commands),
    "run": ("run an agent on samples and score every answer", add_agent_commands),
    "prelabel": ("accept a run's answers as boxes on screens nobody labelled yet", add_agent_commands),
    "eval": ("metrics of runs (default: every run), under both rule sets side by side", add_eval_command),
    "parse-action": ("parse a model answer the way a run would (debug coordinates)", add_agent_commands),
    "export-run": ("write a run as a folder another project can import (its answers, and a live run's "
                   "trajectories)", add_run_transfer_commands),
    "import-run": ("a run folder (export-run) as a new run of this project", add_run_transfer_commands),
    "judge": ("trajectories, human labels, model judges and their agreement", add_judge_commands),
    "capability": ("recorded app tasks (Sphinx): check evaluators, show observations", add_capability_commands),
    "vaf": ("page variants: one target restyled, agents browsing them (VAF)", add_vaf_commands),
    "record": ("record a task in a real browser: each action with its screen, element and tree",
               add_record_commands),
    "replay": ("replay a recorded task: the steps that no longer match, and its evaluator", add_record_commands),
    "team": ("a team on one project: people, assign, states, review, progress, agreement, adjudicate",
             add_team_commands),
    "boxes": ("show a screen's boxes and version; add, edit or delete boxes (refused if it changed since)",
              add_box_commands),
    "labels": ("the project's classes (a box's role is gold, distracted or other; its class is one of these)",
               add_box_commands),
    "box-attributes": ("show or set a box's attributes (free key-value pairs)", add_box_commands),
    "gui": ("open the annotation window on a project", add_gui_command),
    "guide": ("where the user guide's built pages are (index.html), to read offline", add_guide_command),
    "uninstall-data": ("remove your ScreenLab settings, caches and logs (your projects only when asked), "
                       "after listing them", add_uninstall_command),
}


def chosen_command(argv: list[str]) -> str | None:
    """The command on a command line: its first word that is not an option (no top-level option takes a value)."""
    return next((word for word in argv if not word.startswith("-")), None)


def build_parser(commands: set[str] | None = None, listed: bool = True) -> argparse.ArgumentParser:
    """The parser with every command's arguments, or only those of `commands` (the others are listed by
    name and help line, which is all `screenlab --help` and an unknown command's error show of them; not even
    that without `listed`: 60 parsers made for nothing are 3 ms of each start, the window's too)."""
    parser = argparse.ArgumentParser(
        prog="screenlab",
        description="Label screens, synthesize distracting screens and evaluate GUI agents. "
                    "Without a command, opens the GUI on the demo project.")
    parser.add_argument("--version", action="version", version=f"screenlab {__version__}")
    parser.add_argument("--smoke", action="store_true", help=argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    wanted = {add for name, (_, add) in COMMANDS.items() if commands is None or name in commands}
    for name, (help_line, add) in COMMANDS.items():
        if name in sub.choices:  # added with an earlier command of its group
            continue
        if add in wanted:
            add(sub)
        elif listed:
            sub.add_parser(name, help=help_line)
    return parser


def main(argv: list[str] | None = None, gui=None) -> int:
    """`gui(project, media=, smoke=) -> exit code` opens the window (no command, or `gui`). The CLI
    never imports the UI itself: desktop_app/__main__.py passes it in."""
    argv = sys.argv[1:] if argv is None else argv
    chosen = chosen_command(argv)
    # the other commands' names only where they are shown: the whole help, an unknown command's error
    listed = chosen not in COMMANDS and (chosen is not None or any(a in ("-h", "--help") for a in argv))
    parser = build_parser({chosen} - {None}, listed=listed)
    args = parser.parse_args(argv)
    args.gui_launcher = gui
    func = getattr(args, "func", cmd_gui)
    try:
        return func(args)
    except Exception as exc:
        trouble = server_trouble(exc)
        if trouble is not None:
            print(f"error: {trouble}{_logged(exc)}", file=sys.stderr)
            return SERVER_DOWN
        if is_user_error(exc):
            from desktop_app.secrets import redact

            print(f"error: {redact(str(exc))}", file=sys.stderr)
            return 2
        trouble = machine_trouble(exc)
        if trouble is None:
            raise
        print(f"error: {trouble}{_logged(exc)}", file=sys.stderr)
        return MACHINE_TROUBLE
    except KeyboardInterrupt:
        print("interrupted; nothing was changed by the unfinished command", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
