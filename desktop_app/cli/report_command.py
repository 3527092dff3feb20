"""`screenlab report PROJECT [--runs 1,2,3] [--rules ...] [--text-metric ...] [--out DIR]`: tables and plots of runs.

What it writes is listed in desktop_app/runs/report.py. No window is shown and Qt is not needed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from desktop_app.cli.common import add_text_metric, open_project, rules_argument

DEFAULT_OUT = "screenlab-report"


def _run_ids(text: str) -> list[int]:
    try:
        ids = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError("--runs: comma-separated run ids, e.g. 1,2,3") from None
    if not ids:
        raise argparse.ArgumentTypeError("--runs: give at least one run id")
    return ids


def cmd_report(args) -> int:
    from desktop_app import api
    from desktop_app.runs.evaluate import DEFAULT_RULES

    with open_project(args) as project:
        try:
            files = api.write_report(project, Path(args.out), args.runs, plots=not args.no_plots,
                                     rules=args.rules or DEFAULT_RULES, palette=args.palette,
                                     text_metric=args.text_metric)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    print(f"wrote {len(files)} files to {Path(args.out).resolve()}")
    for path in files:
        print(f"  {path.name}")
    return 0


def add_report_command(subparsers, add_project) -> None:
    p = subparsers.add_parser("report", help="result tables (CSV, Markdown, LaTeX) and plots of runs",
                              description="Tables and plots of runs; see desktop_app/runs/report.py for the files.")
    add_project(p)
    p.add_argument("--runs", type=_run_ids, default=None, metavar="IDS",
                   help="comma-separated run ids (default: every run)")
    p.add_argument("--rules", type=rules_argument, metavar="NAMES",
                   help="rule sets, comma-separated (default: screenlab,envdistraction, side by side)")
    add_text_metric(p)
    p.add_argument("--out", default=DEFAULT_OUT, metavar="DIR", help=f"output folder (default: ./{DEFAULT_OUT})")
    p.add_argument("--no-plots", action="store_true", help="tables only")
    p.add_argument("--palette", default="colorblind", choices=("colorblind", "default"),
                   help="bar colours (default: colour-blind safe blue / orange / sky blue / grey)")
    p.set_defaults(func=cmd_report)
