"""`screenlab check PROJECT [--repair]`: the database's own check, the counts, the images no screen names."""

from __future__ import annotations

import json
import sys


def cmd_check(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project

    with open_project(args) as project:
        report = api.check_project(project, repair=args.repair)
    if args.json:
        print(json.dumps(report.as_dict(), indent=2, sort_keys=True))
    else:
        print("\n".join(report.lines()).replace("repairing removes them", "--repair removes them"))
    if report.problems:
        print("error: the database failed its integrity check", file=sys.stderr)
    return 0 if report.ok else 1


def add_check_command(sub, add_project) -> None:
    p = sub.add_parser("check", help="check a project: database integrity, counts, images no screen names",
                       description="SQLite's integrity check (a server: that every table answers), the counts "
                                   "`screenlab info` shows, and the image files no screen names (what a killed import "
                                   "leaves). Exit status 1 when something is wrong. Waits while an import commits.")
    add_project(p)
    p.add_argument("--repair", action="store_true", help="remove the images no screen names (as the next import "
                                                         "would); a damaged database is only reported")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=cmd_check)
