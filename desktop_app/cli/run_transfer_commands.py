"""`screenlab export-run` and `screenlab import-run`: a run carried to another project as a folder (its row, its
answers, and the episodes it wrote itself: a live run's trajectories; runs/run_transfer.py)."""

from __future__ import annotations

from pathlib import Path

from desktop_app.cli.common import add_project


def cmd_export_run(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project

    with open_project(args) as project:
        done = api.export_run(project, args.run, Path(args.out))
    print(done.summary("written to"))
    return 0


def cmd_import_run(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project

    with open_project(args) as project:
        done = api.import_run(project, Path(args.folder), args.name or "")
    print(done.summary("imported from"))
    return 0


def add_run_transfer_commands(sub) -> None:
    p = sub.add_parser("export-run", help="write a run as a folder another project can import (its answers, and a "
                                          "live run's trajectories)")
    add_project(p)
    p.add_argument("--run", type=int, required=True, help="the run's id (screenlab eval lists them)")
    p.add_argument("out", help="a new or empty folder")
    p.set_defaults(func=cmd_export_run)

    p = sub.add_parser("import-run", help="a run folder (export-run) as a new run of this project")
    add_project(p)
    p.add_argument("folder", help="the folder export-run wrote")
    p.add_argument("--name", help="a name for the run (default: the one it had)")
    p.set_defaults(func=cmd_import_run)
