"""`screenlab report PROJECT [--runs 1,2,3] [--out DIR]`: result tables and plots for a paper.

Writes, into DIR:
  table_by_scenario.{csv,md,tex}   agents x patterns rows, a column group per scenario (+ all)
  table_by_pattern.{csv,md,tex}    agents rows, a column group per working pattern (+ all)
  table_scenario_<name>.{...}      per scenario: agents x patterns (the paper's Tables 3-6)
  plot_overall.png, plot_by_scenario.png, plot_by_pattern.png
                                   grouped bars of Acc_gold / Acc_dist / Acc_inv with 95 % intervals
No window is shown: plots are rendered offscreen (see evaluation/plots.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from desktop_app.store.project import Project

DEFAULT_OUT = "screenlab-report"


def _run_ids(text: str) -> list[int]:
    try:
        ids = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError("--runs: comma-separated run ids, e.g. 1,2,3") from None
    if not ids:
        raise argparse.ArgumentTypeError("--runs: give at least one run id")
    return ids


def write_report(project: Project, run_ids: list[int] | None, out: Path | str, plots: bool = True,
                 palette: str = "colorblind") -> list[Path]:
    """Everything `screenlab report` writes; returns the files. run_ids None: every run."""
    from desktop_app.evaluation import tables
    from desktop_app.evaluation.report import runs

    known = [r.id for r in runs(project)]
    if run_ids is None:
        run_ids = known
    missing = sorted(set(run_ids) - set(known))
    if missing:
        raise ValueError(f"no run {', '.join(map(str, missing))} in this project (runs: "
                         f"{', '.join(map(str, known)) or 'none'})")
    if not run_ids:
        raise ValueError("this project has no runs yet (start one with `screenlab run`)")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rows = tables.verdict_rows(project, run_ids)
    written: list[Path] = []
    for name, table in tables.paper_tables(rows).items():
        for fmt in ("csv", "md", "tex"):
            written.append(tables.write(table, out / f"table_{name}.{fmt}"))
    if plots:
        from desktop_app.evaluation.plots import render_png

        for name, table in (("overall", tables.overall_table(rows)),
                            ("by_scenario", tables.breakdown_table(rows, "scenario")),
                            ("by_pattern", tables.breakdown_table(rows, "pattern"))):
            written.append(render_png(table, out / f"plot_{name}.png", palette))
    return written


def cmd_report(args) -> int:
    with Project.open(args.project, args.media) as project:
        try:
            files = write_report(project, args.runs, Path(args.out), plots=not args.no_plots, palette=args.palette)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        except ImportError as exc:  # Qt's system libraries are missing: the tables are still useful
            print(f"error: cannot draw plots ({exc}); use --no-plots", file=sys.stderr)
            return 2
    print(f"wrote {len(files)} files to {Path(args.out).resolve()}")
    for path in files:
        print(f"  {path.name}")
    return 0


def add_report_command(subparsers, add_project) -> None:
    p = subparsers.add_parser("report", help="result tables (CSV, Markdown, LaTeX) and plots of runs",
                              description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    add_project(p)
    p.add_argument("--runs", type=_run_ids, default=None, metavar="IDS",
                   help="comma-separated run ids (default: every run)")
    p.add_argument("--out", default=DEFAULT_OUT, metavar="DIR", help=f"output folder (default: ./{DEFAULT_OUT})")
    p.add_argument("--no-plots", action="store_true", help="tables only (no Qt needed)")
    p.add_argument("--palette", default="colorblind", choices=("colorblind", "default"),
                   help="bar colours (default: colour-blind safe blue / orange / grey)")
    p.set_defaults(func=cmd_report)
