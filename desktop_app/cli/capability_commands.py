"""`screenlab capability ...`: recorded app tasks (Sphinx) and the observations agents get of them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from desktop_app.cli.common import add_filters, filter_of, said_in_one_line


def cmd_capability(args) -> int:
    """Every `screenlab capability` command: what the user asked that cannot be done (an unknown task, a
    bad label, a rejection without a reason) is said in one line, exit 2, no traceback."""
    return said_in_one_line(args.capability_func, args)


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
        text, picture = api.observation(project, args.step, args.mode)
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
    from desktop_app.capability.profile import length_rows, table_rows, write_csv, write_latex
    from desktop_app.cli.common import open_project

    with open_project(args) as project:
        rows = api.capability_profiles(project, args.run)
    if args.json:
        print(json.dumps([{"agent": r.agent, "observation": r.observation, "axes": r.axes, "sr": r.sr,
                           "acp": r.acp, "acp_ci95": r.acp_ci95, "runs": r.runs} for r in rows], indent=2))
    else:
        if not rows:
            print("no grounding, completion or replay runs yet (screenlab run ... --protocol grounding)")
        for header, body in (table_rows(rows), length_rows(rows)):
            if not body:
                continue
            widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
            for line in [header, *body]:
                print("  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip())
            print()
    if args.csv:
        print(f"wrote {write_csv(rows, args.csv)}")
    if args.latex:
        print(f"wrote {write_latex(rows, args.latex)}")
    return 0


def cmd_extract(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project

    with open_project(args) as project:
        print(api.extract_grounding_tasks(project).summary())
    return 0


def cmd_write(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project
    from desktop_app.settings import load_settings
    from desktop_app.synth.llm import LlmEndpoint

    if args.base_url or args.model:
        if not (args.base_url and args.model):
            print("error: give both --base-url and --model", file=sys.stderr)
            return 2
        endpoint = LlmEndpoint(args.base_url, args.model, args.temperature, args.api_key_env or "")
    else:
        endpoint = LlmEndpoint.from_settings(load_settings())
    if endpoint is None:
        print("error: instructions are written by an LLM: configure one in Settings or give --base-url and "
              "--model", file=sys.stderr)
        return 2
    with open_project(args) as project:
        report = api.write_grounding_instructions(project, endpoint, args.temperature, args.limit)
    print(report.summary())
    for line in report.failed[:20]:
        print(f"  {line}", file=sys.stderr)
    return 1 if report.failed and not report.written else 0


def cmd_verify(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project

    with open_project(args) as project:
        status = api.verify_grounding_task(project, args.task, args.decision, args.reason, args.instruction)
    print(f"{args.task}: {status}")
    return 0


def cmd_provenance(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project

    with open_project(args) as project:
        counts = api.grounding_provenance(project)
    if args.json:
        print(json.dumps(counts))
    else:
        print(f"grounding tasks: {counts['tasks']}; instructions written by the model: {counts['written']}")
        print(f"  kept {counts['kept']} (revised {counts['revised']}), removed {counts['removed']}, "
              f"still to verify {counts['pending']}; boxes fixed {counts['boxes_fixed']}")
    return 0


def cmd_probes(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project

    with open_project(args) as project:
        rows = api.probes(project)
    if args.json:
        print(json.dumps([vars(p) for p in rows], indent=2, ensure_ascii=False))
        return 0
    for p in rows:
        print(f"{p.key}  [{p.level}, key {p.answer}, {p.status}]  {p.question}")
    counts = {level: sum(1 for p in rows if p.level == level) for level in ("goal", "app")}
    print(f"{len(rows)} probes: {counts['goal']} about the goal, {counts['app']} about the app")
    return 0


def cmd_add_probe(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project

    options = {}
    for text in args.option:
        letter, _, value = text.partition("=")
        options[letter.strip().upper()] = value.strip()
    with open_project(args) as project:
        episode_id = api.add_probe(project, args.question, options, args.answer.upper(), args.level,
                                   args.app or [], args.category, args.author)
    print(f"probe {episode_id} added (to verify)")
    return 0


def cmd_verify_probe(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project

    with open_project(args) as project:
        status = api.verify_probe(project, args.probe, args.decision, args.reason)
    print(f"{args.probe}: {status}")
    return 0


def cmd_set_evaluators(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project

    try:
        evaluators = json.loads(Path(args.file).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        print(f"error: {args.file}: {exc}", file=sys.stderr)
        return 2
    with open_project(args) as project:
        check = api.set_task_evaluators(project, _episode_id(project, args.task), evaluators)
    failed = [words for words, ok in check.evaluators if not ok]
    print(f"{args.task}: {len(check.evaluators)} evaluators saved; the reference "
          + ("passes all of them" if not failed else f"fails {len(failed)}: " + "; ".join(failed)))
    return 0


def cmd_completion(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project

    with open_project(args) as project:
        api.set_completion_label(project, args.step, args.label)
    print(f"step {args.step}: {args.label}")
    return 0


def _episode_id(project, key: str) -> int:
    from desktop_app.store.models import Episode
    from desktop_app.store.orm import select

    with project.reading() as s:
        found = s.execute(select(Episode.id).where(Episode.key == key)).scalar()
    if found is None:
        raise KeyError(f"no task {key!r} in this project")
    return found


def add_commands(sub, add_project) -> None:
    from desktop_app.a11y.observe import MODES

    cap = sub.add_parser("capability", help="recorded app tasks (Sphinx): check evaluators, show observations")
    csub = cap.add_subparsers(dest="capability_command", required=True)
    cap.set_defaults(func=cmd_capability)
    p = csub.add_parser("check", help="does each recorded task's reference trajectory pass its own evaluators?")
    add_project(p)
    add_filters(p)
    p.add_argument("--verbose", "-v", action="store_true", help="list every task and evaluator, not only failures")
    p.add_argument("--json", action="store_true")
    p.set_defaults(capability_func=cmd_check)
    p = csub.add_parser("profile", help="each agent's capability profile (Sphinx): the five axes, SR and ACP")
    add_project(p)
    p.add_argument("--run", type=int, action="append", help="only these runs (repeat); default: every run")
    p.add_argument("--csv", help="also write a tidy CSV here")
    p.add_argument("--latex", help="also write a LaTeX table here")
    p.add_argument("--json", action="store_true")
    p.set_defaults(capability_func=cmd_profile)
    p = csub.add_parser("extract-grounding", help="one grounding task per distinct element action of the "
                                                  "recorded tasks (pending, no instruction yet)")
    add_project(p)
    p.set_defaults(capability_func=cmd_extract)
    p = csub.add_parser("write-instructions", help="an LLM writes each grounding task's one-line instruction")
    add_project(p)
    p.add_argument("--base-url", help="OpenAI-compatible endpoint (default: the one in Settings)")
    p.add_argument("--model")
    p.add_argument("--api-key-env", metavar="VAR", help="environment variable holding the API key")
    p.add_argument("--temperature", type=float, default=0.75, help="default 0.75, as the paper")
    p.add_argument("--limit", type=int, help="at most this many")
    p.set_defaults(capability_func=cmd_write)
    p = csub.add_parser("verify", help="accept or reject a grounding task (optionally with a new instruction)")
    add_project(p)
    p.add_argument("task", help="the task's key")
    p.add_argument("decision", choices=("accept", "reject"))
    p.add_argument("--instruction", help="the corrected instruction (recorded as revised)")
    p.add_argument("--reason", default="", help="why it is rejected (e.g. unclear screenshot)")
    p.set_defaults(capability_func=cmd_verify)
    p = csub.add_parser("provenance", help="the grounding set's counts: written, kept, removed, revised, boxes fixed")
    add_project(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(capability_func=cmd_provenance)
    p = csub.add_parser("probes", help="list the knowledge probes (question, level, answer key, status)")
    add_project(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(capability_func=cmd_probes)
    p = csub.add_parser("add-probe", help="write a knowledge probe: a question, options A-D, the key, the level")
    add_project(p)
    p.add_argument("--question", required=True)
    p.add_argument("--option", action="append", default=[], metavar="LETTER=TEXT", help="four times: A=..., B=...")
    p.add_argument("--answer", required=True, help="the right option's letter")
    p.add_argument("--level", required=True, choices=("goal", "app"),
                   help="goal: what the user wants; app: knowledge of the app")
    p.add_argument("--app", action="append", help="an app the question is about (repeat)")
    p.add_argument("--category", default="")
    p.add_argument("--author", default="")
    p.set_defaults(capability_func=cmd_add_probe)
    p = csub.add_parser("verify-probe", help="accept or reject a knowledge probe")
    add_project(p)
    p.add_argument("probe", help="the probe's key (screenlab capability probes lists them)")
    p.add_argument("decision", choices=("accept", "reject"))
    p.add_argument("--reason", default="")
    p.set_defaults(capability_func=cmd_verify_probe)
    p = csub.add_parser("set-evaluators", help="replace a recorded task's evaluators from a JSON file (checked "
                                               "first; says how the reference fares)")
    add_project(p)
    p.add_argument("task", help="the task's key, e.g. sphinx-101-money")
    p.add_argument("file", help="evaluator.json")
    p.set_defaults(capability_func=cmd_set_evaluators)
    p = csub.add_parser("completion", help="override a step's completion label (derived: the last step is stop)")
    add_project(p)
    p.add_argument("step", type=int, help="the step's id")
    p.add_argument("label", choices=("continue", "stop"))
    p.set_defaults(capability_func=cmd_completion)
    p = csub.add_parser("observe", help="print what an agent is shown of a step's screen")
    add_project(p)
    p.add_argument("step", type=int, help="the step's id")
    p.add_argument("--mode", choices=MODES, default="tree")
    p.add_argument("--out", help="marks mode: where to write the picture")
    p.set_defaults(capability_func=cmd_observe)
