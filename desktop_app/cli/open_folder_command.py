"""`screenlab open-folder FOLDER [--project DIR]`: a folder of screenshots into a project, the first at once and
the rest in batches behind it (formats/folder_open.py; what the window's File > Open Screenshots Folder… does).
Ctrl+C keeps every batch already in: the same command again imports the rest."""

from __future__ import annotations

import json
import sys

HELP = "open a folder of screenshots: the first at once, the rest imported behind it"


def add_open_folder_command(sub) -> None:
    p = sub.add_parser("open-folder", help=HELP, description=(
        "Import a folder of PNG/JPEG/WebP screenshots (sub-folders too) into a project in batches: pictures "
        "that cannot be read are skipped and named, pictures the project holds already are not imported again, "
        "so running it again imports only what is new. Without --project the folder gets a project of its own "
        "in the user data folder (the one the window opens for it); nothing is written into FOLDER."))
    p.add_argument("folder", help="the folder of screenshots")
    p.add_argument("--project", metavar="DIR",
                   help="import into this project (or make one in this empty or new folder) instead")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_open_folder)


def cmd_open_folder(args) -> int:
    from desktop_app.cli.progress import ProgressBar
    from desktop_app.formats.folder_open import open_folder

    bar = None if args.quiet else ProgressBar()
    last = []

    def progress(report) -> None:
        last[:] = [report]
        if bar is not None:
            bar("importing", report.done, report.total)

    try:
        report = open_folder(args.folder, args.project, progress)
    except KeyboardInterrupt:
        if last:
            print(f"\ninterrupted: {last[0].screens:,} of {last[0].total:,} screenshots are in {last[0].project}; "
                  "the same command again imports the rest", file=sys.stderr)
        return 130
    if args.json:
        print(json.dumps(report.as_dict()))
    else:
        print(report.summary())
        print(f"  open it in the window: screenlab gui {report.project}")
    return 0
