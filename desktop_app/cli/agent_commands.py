"""`screenlab agents | run | eval | parse-action`: agent profiles, runs and scores."""

from __future__ import annotations

import argparse
import dataclasses
import json
import signal
import sys
import threading

from desktop_app.cli.common import add_text_metric, rules_argument
from desktop_app.store.queries import EpisodeFilter

WHERE_KEYS = {"scenario": "scenarios", "status": "review_statuses", "split": "splits", "id": "ids",
              "label": "has_label", "class": "classes"}


def parse_where(text: str) -> dict:
    """`scenario=popup|search,status=accepted,class=button|icon` -> EpisodeFilter fields."""
    out: dict = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, _, value = part.partition("=")
        if key not in WHERE_KEYS or not value:
            raise argparse.ArgumentTypeError(f"--where: expected key=value with key one of {', '.join(WHERE_KEYS)}")
        values = tuple(v for v in value.split("|") if v)
        if key == "id":
            values = tuple(int(v) for v in values)
        out[WHERE_KEYS[key]] = values[0] if key == "label" else values
    return out


def where_text(where: dict) -> str:
    """The --where text a parsed filter came from (parse_where's inverse), to say what selected nothing."""
    names = {field: key for key, field in WHERE_KEYS.items()}
    parts = []
    for field, values in where.items():
        values = values if isinstance(values, tuple) else (values,)
        parts.append(f"{names.get(field, field)}={'|'.join(map(str, values))}")
    return ",".join(parts)


def nothing_selected(args, reason: str) -> str:
    """The line for a selection that selects nothing, naming it as the user gave it: "--where scenario=x
    selects no sample (...)", or, with no --where, "nothing to run: no sample (...)"."""
    where = getattr(args, "where", None)
    return f"--where {where_text(where)} {reason}" if where else f"nothing to run: {reason.removeprefix('selects ')}"


def cmd_agents(args) -> int:
    from desktop_app.agents.conventions import CONVENTIONS
    from desktop_app.agents.profiles import BASELINES, PATTERNS, load_profiles
    from desktop_app.secrets import redact

    if args.agents_command == "add":
        return cmd_agents_add(args)
    if args.agents_command == "remove":
        return cmd_agents_remove(args)
    if args.agents_command == "set-key":
        return cmd_agents_set_key(args)
    profiles = load_profiles()
    if args.json:
        print(json.dumps({
            "conventions": {c.name: {"family": c.family, "space": c.space, "description": c.description}
                            for c in CONVENTIONS.values()},
            "patterns": list(PATTERNS), "agents": {n: p.snapshot() for n, p in profiles.items()},
            "baselines": list(BASELINES)}, indent=2))
        return 0
    print("Output conventions (--convention):")
    for c in CONVENTIONS.values():
        print(f"  {c.name:<14} {c.space:<16} {c.family}: {c.description}")
    print(f"\nWorking patterns (--pattern): {', '.join(PATTERNS)}")
    print(f"Offline baseline agents: {', '.join(BASELINES)}")
    print("\nYour agents:" if profiles else "\nNo agents yet; add one with `screenlab agents add NAME ...`")
    for p in profiles.values():
        key = redact(p.api_key_ref) or "no key"  # a profile saved before key-shaped names were refused
        print(f"  {p.name:<16} {p.model} @ {p.base_url}  [{p.convention}, {p.pattern}, key: {key}]")
    return 0


def cmd_agents_add(args) -> int:
    from desktop_app.agents.profiles import AgentProfile, load_profiles, save_profiles

    profiles = load_profiles()
    if args.name in profiles and not args.replace:
        print(f"error: an agent named '{args.name}' exists (use --replace)", file=sys.stderr)
        return 2
    extra = json.loads(args.extra_body) if args.extra_body else {}
    profile = AgentProfile(
        name=args.name, base_url=args.base_url or "", model=args.model or "", convention=args.convention,
        pattern=args.pattern, temperature=args.temperature, max_tokens=args.max_tokens,
        image_detail=args.image_detail, extra_body=extra, api_key_env=args.api_key_env or "",
        use_keyring=args.keyring, factor=args.factor, min_pixels=args.min_pixels, max_pixels=args.max_pixels,
        concurrency=args.concurrency, rpm=args.rpm, tpm=args.tpm, timeout_s=args.timeout)
    profile.validate()
    profiles[profile.name] = profile
    save_profiles(profiles)
    print(f"saved agent '{profile.name}'")
    return 0


def cmd_agents_remove(args) -> int:
    from desktop_app.agents.profiles import load_profiles, save_profiles

    profiles = load_profiles()
    if profiles.pop(args.name, None) is None:
        print(f"error: no agent named '{args.name}'", file=sys.stderr)
        return 2
    save_profiles(profiles)
    print(f"removed agent '{args.name}'")
    return 0


def cmd_agents_set_key(args) -> int:
    """The key goes to the OS keyring, read from standard input (unechoed at a terminal): never from the
    command line, which the shell's history and the process list keep."""
    import getpass

    from desktop_app.agents.profiles import load_profiles, save_profiles
    from desktop_app.secrets import store_key

    profiles = load_profiles()
    if args.name not in profiles:
        print(f"error: no agent named '{args.name}' (add it first with `screenlab agents add {args.name} ...`)",
              file=sys.stderr)
        return 2
    key = (getpass.getpass(f"API key for {args.name}: ") if sys.stdin.isatty() else sys.stdin.readline()).strip()
    if not key:
        print("error: no key given on standard input", file=sys.stderr)
        return 2
    try:
        store_key(args.name, key)
    except Exception as exc:  # no keyring back end, a locked keyring
        from desktop_app.secrets import redact

        print(f"error: the OS keyring refused the key ({type(exc).__name__}: {redact(str(exc), (key,))}); "
              "use an environment variable and `agents add --api-key-env NAME` instead", file=sys.stderr)
        return 1
    profile = profiles[args.name]
    if not profile.use_keyring:  # the key just stored is the one its runs read from now on
        profile.use_keyring, profile.api_key_env = True, ""
        save_profiles(profiles)
    print(f"stored the key of '{args.name}' in the OS keyring; its runs read it from there")
    return 0


def cmd_run(args) -> int:
    if not args.agent and not args.resume:
        print("error: give --agent NAME (or --resume RUN_ID)", file=sys.stderr)
        return 2
    cancel = threading.Event()
    # Ctrl+C stops cleanly (`--resume` continues); the previous handler is back when the command returns
    previous = signal.signal(signal.SIGINT, lambda *_: cancel.set())
    from desktop_app.runs.engine import USER_ERRORS

    try:
        return _run(args, cancel)
    except USER_ERRORS as exc:  # options the protocol refuses, an agent it cannot use: say so, no traceback
        from desktop_app.secrets import redact

        print(f"error: {redact(str(exc))}", file=sys.stderr)
        return 2
    finally:
        signal.signal(signal.SIGINT, previous)


def _run(args, cancel: threading.Event) -> int:
    from desktop_app import api
    from desktop_app.agents.profiles import get_profile
    from desktop_app.cli.common import open_project
    from desktop_app.cli.progress import ProgressBar
    from desktop_app.runs.engine import USER_ERRORS, load_run
    from desktop_app.runs.state import error_summary

    bar = ProgressBar()
    with open_project(args) as project:
        if args.resume:
            run_id = args.resume
            run, profile = load_run(project, run_id)
            if args.agent:
                profile = get_profile(args.agent)  # a fresh key lookup; the snapshot has no key
            print(f"resuming run {run_id} ({run.protocol}): {run.name}")
            if _browse_options(args):
                print(f"  note: a resumed run keeps the options it was created with ({', '.join(_browse_options(args))} "
                      f"not applied)", file=sys.stderr)
        else:
            profile = get_profile(args.agent)
            if args.pattern:
                profile = dataclasses.replace(profile, pattern=args.pattern)
            profile = dataclasses.replace(profile, **getattr(args, "profile_changes", {}))
            flt = EpisodeFilter(**args.where)
            options = {**(getattr(args, "options", None) or {}), **_browse_options(args)}
            plan = api.plan_run(project, flt, args.protocol, args.include_unlabelled, **options)
            empty = api.empty_selection(project, flt, plan)
            if empty:  # nothing would be asked: no run is created
                print(f"error: {nothing_selected(args, empty)}", file=sys.stderr)
                return 2
            if plan.protocol == "episode":
                options = {"allow_ask": not args.no_ask}
            else:  # `judge run` shares this path and has neither flag
                if getattr(args, "observation", None):
                    options = {**options, "observation": args.observation}
                if getattr(args, "repair", None):
                    options = {**options, "repair": args.repair}
            options = {**options, **_browser_of_settings(plan.protocol)}
            run_id = api.create_run(project, profile, flt, plan.protocol, args.name or "",
                                    args.include_unlabelled, plan=plan, **options)
            how = "chosen" if args.protocol else "suggested by the samples"
            print(f"run {run_id}: {plan.protocol} protocol ({how}), {plan.steps} samples in {plan.units} "
                  f"unit{'s' if plan.units != 1 else ''}")
            if plan.excluded:  # `judge run` has no such flag: it passes what keeps them there, or nothing
                keeps = getattr(args, "keeps_excluded", "--include-unlabelled keeps them")
                print(f"  {plan.excluded_text}" + (f" ({keeps})" if keeps else ""))
            cached = 0 if args.no_cache else api.cached_answers(project, profile, flt, plan.protocol,
                                                                 args.include_unlabelled, **options)
            if cached:
                print(f"  {plan.steps - cached} to ask: {cached} of {plan.steps} answers are cached")
        try:
            status = api.execute_run(project, run_id, agent=profile, cancel=cancel, concurrency=args.concurrency,
                                     on_progress=lambda st: bar("asking agent", st.skipped + st.done, st.total),
                                     use_cache=not args.no_cache)
        except Exception as exc:
            from desktop_app.secrets import redact

            reason = redact(str(exc) if isinstance(exc, USER_ERRORS) else f"{type(exc).__name__}: {exc}")
            print(f"run {run_id} failed: {reason}\nfix the cause, then continue with: "
                  f"screenlab run {args.project} --resume {run_id}", file=sys.stderr)
            return 2
    verdicts = ", ".join(f"{v} {n}" for v, n in sorted(status.verdicts.items())) or "none"
    print(f"run {run_id}: {status.done} answered, {status.skipped} already done, {status.errors} failed, "
          f"{status.cached} from cache; {verdicts}; {status.prompt_tokens + status.completion_tokens} tokens"
          + (f", ${status.cost:.4f}" if status.cost else "") + f", {status.elapsed_s:.1f} s")
    if status.errors:
        print(f"  failed requests: {error_summary(status.error_kinds)}; `--resume {run_id}` asks them again")
    if status.cancelled:
        print(f"stopped; continue with: screenlab run {args.project} --resume {run_id}")
        return 130
    return 0


def _browser_of_settings(protocol: str) -> dict:
    """A protocol that opens its own browser (live, browse) takes the one chosen in Settings > LLM & browser, as
    the window's New run dialog and `screenlab synth` do (render/browser.py: used when none is found first)."""
    from desktop_app.runs.protocols import PROTOCOLS
    from desktop_app.settings import load_settings

    options_type = PROTOCOLS[protocol].options_type if protocol in PROTOCOLS else None
    if options_type is None or "browser" not in getattr(options_type, "__dataclass_fields__", {}):
        return {}
    path = load_settings().browser_path
    return {"browser": path} if path else {}


def _browse_options(args) -> dict:
    """The browse and live protocols' flags that were given (any other protocol refuses them by name)."""
    return {key: getattr(args, key) for key in ("trials", "max_steps", "history", "temperature", "top_p", "judge",
                                                "allow_web")
            if getattr(args, key, None) is not None}


def cmd_eval(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project
    from desktop_app.evaluation.rules import check_text_metric
    from desktop_app.runs.evaluate import DEFAULT_RULES, list_runs, summary_lines

    rules = args.rules or DEFAULT_RULES
    try:
        check_text_metric(rules, args.text_metric)
    except ValueError as exc:  # --text-metric without the rules it applies to
        print(f"error: {exc}", file=sys.stderr)
        return 2
    with open_project(args) as project:
        try:
            runs = list_runs(project, args.run)
        except ValueError as exc:  # an unknown run id: the message names the runs there are
            print(f"error: {exc}", file=sys.stderr)
            return 2
        if not runs:
            print("error: this project has no runs yet (start one with `screenlab run`)", file=sys.stderr)
            return 2
        if args.latest and not args.run:
            runs = runs[-1:]
        ids = [r.id for r in runs]
        if args.per_sample:
            screen = [r.id for r in runs if r.protocol == "screen"]
            rows = api.iter_per_sample(project, screen, rules, args.text_metric)  # checks the text metric first
            for row in rows:  # streamed: a million rows in bounded memory
                print(json.dumps(row, ensure_ascii=False))
            result = api.evaluate(project, [r.id for r in runs if r.protocol != "screen"], rules, args.text_metric)
            for run_id, info in result["runs"].items():
                for row in info["metrics"].get("per_episode", []):
                    print(json.dumps({"run": run_id, "protocol": info["protocol"], **row}, ensure_ascii=False))
            return 0
        result = api.evaluate(project, ids, rules, args.text_metric)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    which = ("the newest run" if args.latest and not args.run else
             "the runs asked for" if args.run else "every run in this project")
    text = "" if args.text_metric == "auto" else f" (text answers: {args.text_metric})"
    print(f"{len(ids)} run{'s' if len(ids) != 1 else ''} ({which}: {', '.join(map(str, ids))}); rules: "
          f"{', '.join(rules)}{text}. Rates in % of scored samples, [95% Wilson interval]; - : no scored sample.")
    for line in summary_lines(result):
        print(line)
    return 0


def cmd_parse_action(args) -> int:
    from desktop_app.agents.conventions import parse_action

    try:
        width, height = (int(v) for v in args.image_size.lower().split("x"))
    except ValueError:
        print("error: --image-size must look like 1280x800", file=sys.stderr)
        return 2
    resize = {k: v for k, v in (("factor", args.factor), ("min_pixels", args.min_pixels),
                                ("max_pixels", args.max_pixels)) if v}
    text = args.text if args.text != "-" else sys.stdin.read()
    action = parse_action(args.convention, text, width, height, **resize)
    print(json.dumps({"action_type": action.action_type, "point": list(action.point) if action.point else None,
                      "element": action.element, "text": action.text, "wrong_format": action.wrong_format,
                      "box": list(action.box) if action.box else None, "extra": action.extra},
                     ensure_ascii=False))
    return 0


def _resize_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--factor", type=int, help="smart_resize factor (resized-pixel conventions; default per model)")
    p.add_argument("--min-pixels", type=int, help="smart_resize min pixels")
    p.add_argument("--max-pixels", type=int, help="smart_resize max pixels")


def cmd_prelabel(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project

    with open_project(args) as project:
        if args.run not in {r.id for r in api.runs(project)}:
            print(f"error: no run {args.run} in this project (`screenlab eval` lists them)", file=sys.stderr)
            return 2
        empty = api.selects_nothing(project, args.where)
        if empty:
            print(f"error: {nothing_selected(args, empty)}", file=sys.stderr)
            return 2
        report = api.prelabel(project, args.run, args.where, args.label)
    print(report.summary())
    return 0


def add_eval_command(sub, add_project) -> None:
    """`screenlab eval`, apart from the other agent commands: their choices name every protocol and output
    convention, which eval's arguments do not need (its start-up is part of what a user waits for)."""
    p = sub.add_parser("eval", help="metrics of runs (default: every run), under both rule sets side by side")
    add_project(p)
    p.add_argument("--run", type=int, action="append", help="run id (repeat for several)")
    p.add_argument("--latest", action="store_true", help="only the newest run")
    p.add_argument("--rules", type=rules_argument, metavar="NAMES",
                   help="rule sets, comma-separated: screenlab (one verdict per answer, the default view) and "
                        "envdistraction (the EnvDistraction authors' scorer, their numbers); default: both")
    add_text_metric(p)
    p.add_argument("--json", action="store_true")
    p.add_argument("--per-sample", action="store_true", help="one JSON object per prediction (episodes: per episode)")
    p.set_defaults(func=cmd_eval)


def add_commands(sub, add_project) -> None:
    from desktop_app.agents.conventions import CONVENTIONS
    from desktop_app.agents.profiles import PATTERNS

    p = sub.add_parser("agents", help="list output conventions and your agents; add or remove agents")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_agents, agents_command=None)
    agents_sub = p.add_subparsers(dest="agents_command", metavar="ACTION")
    a = agents_sub.add_parser("add", help="save an agent profile (in your settings, shared by all projects)")
    a.add_argument("name")
    a.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1")
    a.add_argument("--model")
    a.add_argument("--convention", default="json-text", choices=list(CONVENTIONS))
    a.add_argument("--pattern", default="direct", choices=list(PATTERNS))
    a.add_argument("--api-key-env", metavar="VAR", help="environment variable holding the API key")
    a.add_argument("--keyring", action="store_true", help="read the key from the OS keyring")
    a.add_argument("--temperature", type=float, default=0.0)
    a.add_argument("--max-tokens", type=int, default=512)
    a.add_argument("--image-detail", default="auto", choices=("auto", "low", "high"))
    a.add_argument("--extra-body", metavar="JSON", help='extra request fields, e.g. \'{"skip_special_tokens": false}\'')
    a.add_argument("--concurrency", type=int, default=8)
    a.add_argument("--rpm", type=int, default=0, help="requests per minute (0 = no limit)")
    a.add_argument("--tpm", type=int, default=0, help="tokens per minute (0 = no limit)")
    a.add_argument("--timeout", type=float, default=60.0, help="seconds per request")
    a.add_argument("--replace", action="store_true")
    _resize_args(a)
    a.set_defaults(func=cmd_agents)
    r = agents_sub.add_parser("remove", help="delete an agent profile")
    r.add_argument("name")
    r.set_defaults(func=cmd_agents)
    k = agents_sub.add_parser("set-key", help="store an agent's API key in the OS keyring (read from standard "
                                              "input; the profile then reads its key from there)")
    k.add_argument("name")
    k.set_defaults(func=cmd_agents)

    from desktop_app.a11y.observe import MODES as OBSERVATION_MODES
    from desktop_app.runs.protocols import PROTOCOLS

    p = sub.add_parser("run", help="run an agent on samples and score every answer")
    add_project(p)
    p.add_argument("--agent", help="agent profile name (or a baseline: random, center, ocr-match)")
    p.add_argument("--pattern", choices=list(PATTERNS), help="override the profile's working pattern")
    p.add_argument("--where", type=parse_where, default={},
                   help="samples, e.g. scenario=popup|search,status=accepted (default statuses: "
                        "accepted, edited, unreviewed); label=ROLE or class=NAME|NAME: a box of that role or class")
    p.add_argument("--protocol", choices=list(PROTOCOLS),
                   help="; ".join(f"{name}: {proto.description}" for name, proto in PROTOCOLS.items())
                   + " (default: the one the samples fit: episode when most selected episodes have several steps)")
    p.add_argument("--include-unlabelled", action="store_true",
                   help="also ask about samples with no goal or no labelled action (left out by default)")
    p.add_argument("--no-ask", action="store_true", help="episode protocol without the ASK action (the 'incomplete' setting)")
    p.add_argument("--repair", metavar="AGENT",
                   help="grounding / probe protocols: a model profile that rewrites answers in the wrong format; "
                        "both the original and the repaired rates are reported (the paper's Original / Repaired)")
    p.add_argument("--observation", choices=OBSERVATION_MODES,
                   help="grounding / completion / replay / focused protocols: what the agent is shown of a recorded screen: image, "
                        "marks (numbered dots), tree (the accessibility tree as text; default), list (its elements); "
                        "live: the screenshot and, with tree / list / marks, that too (default image)")
    browse = p.add_argument_group("browse protocol (page variants, VAF)")
    browse.add_argument("--trials", type=int, help="trials per variant (default 50)")
    browse.add_argument("--max-steps", type=int, help="answers per trial before it ends unclicked (default 10); "
                                                       "live: actions per task before it ends unfinished (default 10)")
    browse.add_argument("--history", type=int, help="earlier viewports shown as images (default 2)")
    browse.add_argument("--temperature", type=float, help="sampling temperature (default 1.0, as the paper)")
    browse.add_argument("--top-p", type=float, help="nucleus sampling (default 0.8, as the paper)")
    browse.add_argument("--judge", metavar="AGENT", help="a model profile that says whether each trial's "
                                                         "thoughts mention the target (TMR)")
    live = p.add_argument_group("live protocol (recorded tasks done in a browser)")
    live.add_argument("--allow-web", action="store_true", default=None,
                      help="also run tasks recorded on a web page (their requests leave this machine); without it "
                           "only the project's pages run, served offline")
    p.add_argument("--concurrency", type=int)
    p.add_argument("--name", help="a name for the run (default: agent · pattern · samples)")
    p.add_argument("--resume", type=int, metavar="RUN_ID", help="continue a stopped, cancelled or failed run")
    p.add_argument("--no-cache", action="store_true", help="ask again even when the answer is cached")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("prelabel", help="accept a run's answers as boxes on screens nobody labelled yet",
                       description="Pre-labelling with your own model: run a grounding model on the samples "
                                   "(screenlab run --agent YOURS --include-unlabelled), then this turns each "
                                   "answer into a box around the element it points at (source llm). Screens "
                                   "that already have boxes are left alone.")
    add_project(p)
    p.add_argument("--run", type=int, required=True, help="the run whose answers become boxes")
    p.add_argument("--where", type=parse_where, default={}, help="only these samples, e.g. scenario=popup")
    p.add_argument("--label", choices=("gold", "distracted", "other"), default="gold",
                   help="the label of the boxes made (default gold: the model's answer to the goal)")
    p.set_defaults(func=cmd_prelabel)

    add_eval_command(sub, add_project)  # in its place in `screenlab --help`

    p = sub.add_parser("parse-action", help="parse a model answer the way a run would (debug coordinates)")
    p.add_argument("text", help="the model's answer ('-' reads standard input)")
    p.add_argument("--convention", required=True, choices=list(CONVENTIONS))
    p.add_argument("--image-size", required=True, metavar="WxH", help="original screenshot size, e.g. 1280x800")
    _resize_args(p)
    p.set_defaults(func=cmd_parse_action)
