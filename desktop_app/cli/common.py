"""What every command shares: the project argument, opening it, the episode filter flags.

Command modules import this, never cli/main.py (which imports them): no import cycle.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when used: `screenlab --version` and `--help` need no database library
    from desktop_app.store.project import Project
    from desktop_app.store.queries import EpisodeFilter


def csv_values(value: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in value.split(",") if v.strip())


def add_project(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("project", help="project folder, or a database URL (then give --media, unless its images "
                                        "are in the database)")
    parser.add_argument("--media", metavar="DIR", help="media folder for a database-URL project (for one with its "
                                                       "images in the database: where to cache them)")


def add_filters(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scenario", type=csv_values, default=(), help="only these scenarios (comma-separated)")
    parser.add_argument("--status", type=csv_values, default=(),
                        help="only these review statuses: unreviewed, pending, accepted, rejected, edited")
    parser.add_argument("--split", type=csv_values, default=(), help="only these splits")
    # one name a flag: a class may hold spaces or commas ("sports ball")
    parser.add_argument("--class", dest="classes", action="append", default=[], metavar="NAME",
                        help="only episodes with a box of this class (repeat for several; case-sensitive)")


def filter_of(args) -> EpisodeFilter:
    from desktop_app.store.queries import EpisodeFilter

    return EpisodeFilter(scenarios=args.scenario, review_statuses=args.status, splits=args.split,
                         classes=tuple(args.classes))


def rules_argument(text: str) -> tuple[str, ...]:
    from desktop_app.evaluation.rules import RULES

    names = tuple(dict.fromkeys(v.strip() for v in text.split(",") if v.strip()))
    unknown = [n for n in names if n not in RULES]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"--rules: one or more of {', '.join(RULES)}, comma-separated")
    return names


# evaluation.rules.TEXT_METRICS' keys, written out so that building the parser imports no scoring code
# (tests/test_text_metric.py checks they agree)
TEXT_METRIC_CHOICES = ("auto", "f1", "result-id")


def add_text_metric(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--text-metric", choices=TEXT_METRIC_CHOICES, default="auto",
        help="how the envdistraction rules score text answers: auto (default, as the authors' code does: their "
             "google_id on search and shopping pages whose labels name 'Click result N', their f1_v2 elsewhere), "
             "f1 (the authors' f1_v2, token F1: the metric of their paper's Eq. 5) or result-id (the authors' "
             "google_id: the result number the answer names). Points are scored by location whatever this says")


def open_project(args) -> Project:
    from desktop_app.opening import open_project

    return open_project(args.project, args.media)  # with the re-scoring after edits, as in every door


def said_in_one_line(func, args) -> int:
    """Run a subcommand; what the user asked that cannot be done (an unknown key, a bad value) raises
    KeyError or ValueError, which is said in one line, exit 2, no traceback."""
    try:
        return func(args)
    except (KeyError, ValueError) as exc:
        from desktop_app.secrets import redact

        said = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)  # str(KeyError) adds quotes
        print(f"error: {redact(said)}", file=sys.stderr)
        return 2
