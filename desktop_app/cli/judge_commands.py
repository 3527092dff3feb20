"""`screenlab judge ...`: trajectories, their human labels, model judges and how well they agree."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from desktop_app.cli.common import csv_values


def _find(project, key: str) -> int:
    from desktop_app import api

    for row in api.trajectories(project):
        if row.key == key or str(row.episode_id) == key:
            return row.episode_id
    raise ValueError(f"no trajectory {key!r} in this project (`screenlab judge list` shows them)")


def cmd_judge(args) -> int:
    from desktop_app.judging.labels import LabelError
    from desktop_app.runs.protocols import OptionsError

    try:
        return JUDGE_COMMANDS[args.judge_command](args)
    except (LabelError, OptionsError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def cmd_import(args) -> int:
    from desktop_app.cli.common import open_project
    from desktop_app.formats.transfer import import_path

    with open_project(args) as project:
        report = import_path(project, Path(args.path), "unified-trajectory")
    print(report.summary())
    return 0


def cmd_import_verdicts(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project

    with open_project(args) as project:
        imported = api.import_judge_verdicts(project, Path(args.path), args.name or "", args.user or "")
    print(imported.summary())
    return 0


def cmd_from_episodes(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import filter_of, open_project

    with open_project(args) as project:
        made = api.trajectories_from_episodes(project, filter_of(args), args.policy)
    print(f"{len(made)} trajectories made from labelled episodes (policy {args.policy!r})")
    return 0


def cmd_from_run(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project

    with open_project(args) as project:
        made = api.trajectories_from_run(project, args.run)
    print(f"{len(made)} trajectories made from run {args.run}")
    return 0


def cmd_list(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project

    with open_project(args) as project:
        unlabelled = args.unlabelled_by if args.unlabelled_by is not None else ("" if args.unlabelled else None)
        rows = api.trajectories(project, args.policy or "", "", unlabelled)
    for r in rows:
        labels = ", ".join(f"{a}: {o}" for a, o in sorted(r.labels.items())) or "not labelled"
        print(f"{r.key:<36} {r.policy:<20} {r.steps:>3} steps  {labels}\n    {r.intent}")
    print(f"{len(rows)} trajectories")
    return 0


def cmd_label(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project
    from desktop_app.settings import annotator_name, load_settings

    annotator = args.annotator or annotator_name(load_settings())
    with open_project(args) as project:
        label = api.label_trajectory(project, _find(project, args.trajectory), annotator, args.outcome,
                                     list(args.steps) if args.steps else None, args.comment or "")
    print(f"{args.trajectory}: {label.outcome} by {label.annotator}")
    return 0


def cmd_run(args) -> int:
    from desktop_app.cli.agent_commands import cmd_run as run_command

    options = {"mode": args.mode, "frames": args.frames, "ocr": not args.no_ocr}
    if args.captioner:
        options["captioner"] = args.captioner
    ns = argparse.Namespace(
        project=args.project, media=args.media, agent=args.judge, resume=None, pattern=None, where={},
        protocol="judge", include_unlabelled=False, no_ask=False, name=args.name, concurrency=args.concurrency,
        no_cache=args.no_cache, options=options,
        # trajectories with no goal cannot be judged, and no flag of `judge run` keeps them
        keeps_excluded="a judge needs each trajectory's goal: `screenlab judge list` shows them",
        # as the authors ran their judges: temperature 0 (images are always sent at full detail)
        profile_changes={"temperature": args.temperature})
    return run_command(ns)


def cmd_agreement(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project
    from desktop_app.judging.agreement import summary_lines

    with open_project(args) as project:
        runs = {r.id: r for r in api.judge_runs(project)}
        ids = list(args.runs) if args.runs else list(runs)
        unknown = [i for i in ids if i not in runs]
        if unknown:
            raise ValueError(f"not judge runs of this project: {', '.join(map(str, unknown))} "
                             f"(judge runs: {', '.join(map(str, runs)) or 'none'})")
        report = api.agreement(project, ids)
    if args.json:
        print(json.dumps(report, indent=2, default=str))
        return 0
    ref = report["reference"]
    print(f"{report['trajectories']} trajectories; human reference: {ref.get('success', 0)} success, "
          f"{ref.get('failure', 0)} failure, {ref.get('none', 0)} without one"
          + (f" ({report['corrected']} corrected by review)" if report["corrected"] else ""))
    pairs = report["annotators"]["pairs"]
    for p in pairs:
        kappa = f"{p['kappa']:.2f}" if p["kappa"] is not None else f"- ({p['kappa_note']})"
        print(f"annotators {p['a']} / {p['b']}: {p['n']} shared, kappa {kappa}")
    for rid in ids:
        print(f"\njudge run {rid}: {runs[rid].name}")
        for line in summary_lines(report["runs"][rid]):
            print(f"  {line}")
        for policy, cell in report["runs"][rid]["policies"].items():
            judge, human = cell["judge"], cell["human"]
            print(f"    {policy:<24} judge {_rate(judge)}  humans {_rate(human)}")
    return 0


def _rate(cell) -> str:
    if not cell or cell["rate"] is None:
        return "    -    "
    return f"{cell['rate'] * 100:5.1f}% of {cell['n']}"


def cmd_disagreements(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project

    with open_project(args) as project:
        rows = api.disagreements(project, args.run)
    for d in rows:
        human = "success" if d.reference else "failure"
        review = f"  [{d.review}{': ' + ', '.join(d.tags) if d.tags else ''}]" if d.review else ""
        print(f"{d.key:<36} {d.policy:<20} humans {human:<8} judge {d.judged:<10}{review}\n    {d.thoughts}")
    print(f"{len(rows)} disagreements")
    return 0


def cmd_review(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project
    from desktop_app.settings import annotator_name, load_settings

    reviewer = args.reviewer or annotator_name(load_settings())
    with open_project(args) as project:
        review = api.review_verdict(project, args.run, _find(project, args.trajectory), reviewer, args.decision,
                                    tuple(args.tag or ()), args.note or "")
    print(f"{args.trajectory}: {review.decision} (the judge said {review.judged})")
    return 0


def cmd_export(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project

    with open_project(args) as project:
        if args.what == "evals":
            n = api.export_evals(project, Path(args.out), args.run)
            print(f"wrote {n} evals lines to {args.out}")
        elif args.what == "csv":
            n = api.export_judge_csv(project, Path(args.out), [args.run] if args.run else None)
            print(f"wrote {n} trajectories to {args.out}")
        elif args.what == "steps":
            rewards = dict(_reward(text) for text in args.reward or [])
            kept, labelled = api.export_steps(project, Path(args.out), args.run, args.annotator or "",
                                              args.min_reward, rewards)
            print(f"wrote {kept} of {labelled} labelled steps (reward >= {args.min_reward:g}) to {args.out}")
        else:
            if not args.run:
                raise ValueError("export passed needs --run (the judge whose verdicts filter the trajectories)")
            print(api.export_passed(project, Path(args.out), args.run).summary())
    return 0


def _reward(text: str) -> tuple[str, float]:
    label, sep, value = text.partition("=")
    try:
        if not sep:
            raise ValueError(text)
        return label.strip(), float(value)
    except ValueError:
        raise ValueError(f"--reward {text!r}: expected LABEL=NUMBER, e.g. towards-the-goal=0.5") from None


JUDGE_COMMANDS = {"import": cmd_import, "import-verdicts": cmd_import_verdicts, "from-episodes": cmd_from_episodes, "from-run": cmd_from_run,
                  "list": cmd_list, "label": cmd_label, "run": cmd_run, "agreement": cmd_agreement,
                  "disagreements": cmd_disagreements, "review": cmd_review, "export": cmd_export}


def add_commands(sub, add_project) -> None:
    from desktop_app.judging.labels import OUTCOMES, REVIEW_TAGS, STEP_LABELS
    from desktop_app.runs.protocols.judge import MODES

    judge = sub.add_parser("judge", help="trajectories, human labels, model judges and their agreement")
    jsub = judge.add_subparsers(dest="judge_command", required=True)
    judge.set_defaults(func=cmd_judge)

    p = jsub.add_parser("import", help="import a UnifiedTrajectory folder (trajectory_log.json, images/, "
                                       "captions/, evals/)")
    add_project(p)
    p.add_argument("path")
    p = jsub.add_parser("import-verdicts", help="another judge's verdicts as a finished judge run: the authors' "
                                                "rm_results.json, or evals .jsonl lines of one user_uid")
    add_project(p)
    p.add_argument("path")
    p.add_argument("--name", help="the run's name (default: the judge the file names)")
    p.add_argument("--user", help="evals lines: the user_uid that is the judge (when the file has several)")
    p = jsub.add_parser("from-episodes", help="labelled episodes' gold paths as trajectories (demonstrations)")
    add_project(p)
    p.add_argument("--policy", default="demonstration")
    from desktop_app.cli.common import add_filters

    add_filters(p)
    p = jsub.add_parser("from-run", help="an agent run's answers as trajectories to judge")
    add_project(p)
    p.add_argument("run", type=int)
    p = jsub.add_parser("list", help="the trajectories with their labels")
    add_project(p)
    p.add_argument("--policy")
    p.add_argument("--unlabelled", action="store_true", help="only those nobody labelled")
    p.add_argument("--unlabelled-by", metavar="NAME", help="only those this annotator has not labelled")
    p = jsub.add_parser("label", help="label a trajectory by hand")
    add_project(p)
    p.add_argument("trajectory", help="its key (uid) or id")
    p.add_argument("--outcome", required=True, choices=OUTCOMES)
    p.add_argument("--steps", type=csv_values, help=f"per-step labels in order ({', '.join(STEP_LABELS)}; "
                                                     "empty for none)")
    p.add_argument("--comment")
    p.add_argument("--annotator", help="default: the annotator in Settings")
    p = jsub.add_parser("run", help="judge the trajectories with a model (temperature 0)")
    add_project(p)
    p.add_argument("--judge", required=True, metavar="PROFILE", help="a saved agent profile (screenlab agents)")
    p.add_argument("--mode", choices=MODES, default="end_to_end")
    p.add_argument("--frames", type=int, default=1, help="the last N frames shown (default 1, as in the paper)")
    p.add_argument("--captioner", help="caption set or model profile (caption mode; per_step with captions)")
    p.add_argument("--no-ocr", action="store_true", help="do not add OCR text to the captioner's question")
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--name")
    p.add_argument("--concurrency", type=int)
    p.add_argument("--no-cache", action="store_true")
    p = jsub.add_parser("agreement", help="judges against the human labels; annotators against each other")
    add_project(p)
    p.add_argument("--runs", type=lambda v: tuple(int(x) for x in csv_values(v)), help="judge run ids")
    p.add_argument("--json", action="store_true")
    p = jsub.add_parser("disagreements", help="where a judge and the human reference differ")
    add_project(p)
    p.add_argument("run", type=int)
    p = jsub.add_parser("review", help="accept a judge's verdict (corrects the reference) or keep the human label")
    add_project(p)
    p.add_argument("run", type=int)
    p.add_argument("trajectory")
    p.add_argument("decision", choices=("accept", "override"))
    p.add_argument("--tag", action="append", choices=REVIEW_TAGS)
    p.add_argument("--note")
    p.add_argument("--reviewer")
    p = jsub.add_parser("export", help="evals/*.jsonl lines, a CSV, the trajectories a judge passed, or the "
                                       "steps with a high enough step reward")
    add_project(p)
    p.add_argument("what", choices=("evals", "csv", "passed", "steps"),
                   help="steps: the state-action pairs whose step reward is >= --min-reward (filtered BC)")
    p.add_argument("out")
    p.add_argument("--run", type=int, help="a judge run (evals: its verdicts instead of the human labels; "
                                           "steps: a per_step run's labels)")
    p.add_argument("--annotator", help="steps: this person's step labels instead of a judge run's")
    p.add_argument("--min-reward", type=float, default=0.5, help="steps: keep a step whose reward is at least this")
    p.add_argument("--reward", action="append", metavar="LABEL=NUMBER",
                   help="steps: a step label's reward (defaults: " + ", ".join(
                       f"{k}={v[1]:g}" for k, v in STEP_LABELS.items()) + ")")
