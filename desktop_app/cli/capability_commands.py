"""`screenlab capability ...`: recorded app tasks (Sphinx) and the observations agents get of them."""

from __future__ import annotations

import json
import sys

from desktop_app.cli.common import add_filters, filter_of


def cmd_check(args) -> int:
    """Each recorded task's reference trajectory against its own evaluators; exit 1 when one fails."""
    from desktop_app import api
    from desktop_app.cli.common import open_project

    with open_project(args) as project:
        checks = api.check_references(project, filter_of(args))
    if args.json:
        print(json.dumps([{"episode": c.key, "passed": c.passed, "problem": c.problem,
                           "evaluators": [{"evaluator": d, "passed": ok} for d, ok in c.evaluators]}
                          for c in checks], indent=2))
    else:
        for c in checks:
            if c.passed and not args.verbose:
                continue
            print(f"{'pass' if c.passed else 'FAIL'}  {c.key}  {c.goal[:70]}")
            if c.problem:
                print(f"        {c.problem}")
            for words, ok in c.evaluators:
                if args.verbose or not ok:
                    print(f"        {'ok  ' if ok else 'FAIL'} {words}")
        failed = sum(1 for c in checks if not c.passed)
        print(f"{len(checks) - failed} of {len(checks)} recorded tasks pass their own evaluators"
              + (f"; {failed} do not" if failed else ""))
    if not checks:
        print("no recorded tasks with evaluators here (import a Sphinx folder: "
              "screenlab import PROJECT FOLDER --format sphinx)", file=sys.stderr)
    return 1 if any(not c.passed for c in checks) else 0


def cmd_observe(args) -> int:
    """What an agent is shown of one step's screen in a text mode (or the marks picture, written to --out)."""
    from desktop_app import api
    from desktop_app.cli.common import open_project

    with open_project(args) as project:
        try:
            text, picture = api.observation(project, args.step, args.mode)
        except (KeyError, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    if picture is not None:
        if not args.out:
            print("error: --mode marks draws a picture; give --out FILE.png", file=sys.stderr)
            return 2
        with open(args.out, "wb") as handle:
            handle.write(picture)
        print(f"wrote {args.out}")
    else:
        print(text)
    return 0


def cmd_profile(args) -> int:
    """The capability profile of every agent and observation mode, as a table (and CSV / LaTeX files)."""
    from desktop_app import api
    from desktop_app.capability.profile import table_rows, write_csv, write_latex
    from desktop_app.cli.common import open_project

    with open_project(args) as project:
        rows = api.capability_profiles(project, args.run)
    if args.json:
        print(json.dumps([{"agent": r.agent, "observation": r.observation, "axes": r.axes, "sr": r.sr,
                           "acp": r.acp, "acp_ci95": r.acp_ci95, "runs": r.runs} for r in rows], indent=2))
    else:
        if not rows:
            print("no grounding, completion or replay runs yet (screenlab run ... --protocol grounding)")
        header, body = table_rows(rows)
        widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
        for line in [header, *body] if rows else []:
            print("  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip())
    if args.csv:
        print(f"wrote {write_csv(rows, args.csv)}")
    if args.latex:
        print(f"wrote {write_latex(rows, args.latex)}")
    return 0


def add_commands(sub, add_project) -> None:
    from desktop_app.a11y.observe import MODES

    cap = sub.add_parser("capability", help="recorded app tasks (Sphinx): check evaluators, show observations")
    csub = cap.add_subparsers(dest="capability_command", required=True)
    p = csub.add_parser("check", help="does each recorded task's reference trajectory pass its own evaluators?")
    add_project(p)
    add_filters(p)
    p.add_argument("--verbose", "-v", action="store_true", help="list every task and evaluator, not only failures")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_check)
    p = csub.add_parser("profile", help="each agent's capability profile (Sphinx): the five axes, SR and ACP")
    add_project(p)
    p.add_argument("--run", type=int, action="append", help="only these runs (repeat); default: every run")
    p.add_argument("--csv", help="also write a tidy CSV here")
    p.add_argument("--latex", help="also write a LaTeX table here")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_profile)
    p = csub.add_parser("observe", help="print what an agent is shown of a step's screen")
    add_project(p)
    p.add_argument("step", type=int, help="the step's id")
    p.add_argument("--mode", choices=MODES, default="tree")
    p.add_argument("--out", help="marks mode: where to write the picture")
    p.set_defaults(func=cmd_observe)
