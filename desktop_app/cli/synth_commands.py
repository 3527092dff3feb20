"""`screenlab synth`: generate pending distraction samples (offline bank or an LLM)."""

from __future__ import annotations

import sys

from desktop_app.synth.scene import INJECTIONS
from desktop_app.synth.templates import POPUP_LAYOUTS, SCENARIOS

DERIVED = ("overlay", "ambiguous")


def _sources(project, where: dict, multi_step: bool) -> list[int]:
    """Episodes to build on: multi-step ones for ambiguous tasks, any for pop-up overlays."""
    from sqlalchemy import func, select

    from desktop_app.store import models as m
    from desktop_app.store.queries import EpisodeFilter, episode_ids

    with project.reading() as s:
        ids = episode_ids(s, EpisodeFilter(**where))
        counts = dict(s.execute(select(m.Step.episode_id, func.count()).group_by(m.Step.episode_id)).all())
        scenarios = dict(s.execute(select(m.Episode.id, m.Episode.scenario)).all())
    return [i for i in ids if scenarios[i] != "ambiguous" and (counts.get(i, 0) > 1 or not multi_step)]


def cmd_derived(args, settings, endpoint) -> int:
    """`synth ambiguous` and `synth overlay`: new samples made from episodes already in the project."""
    import random

    from desktop_app import api
    from desktop_app.cli.common import open_project
    from desktop_app.cli.progress import ProgressBar
    from desktop_app.synth.llm import EndpointError, LlmSession, SynthError

    rng = random.Random(args.seed)
    made, failed = [], []
    with open_project(args) as project:
        sources = _sources(project, args.where, multi_step=args.scenario == "ambiguous")
        empty = api.selects_nothing(project, args.where) if args.where else ""
        if empty:
            from desktop_app.cli.agent_commands import nothing_selected

            print(f"error: {nothing_selected(args, empty)}", file=sys.stderr)
            return 2
        if not sources:
            print("error: no episodes to build on (ambiguous tasks need multi-step episodes)", file=sys.stderr)
            return 2
        chosen = rng.sample(sources, min(args.count, len(sources)))
        session = LlmSession(endpoint) if endpoint else None
        bar = ProgressBar()
        if args.scenario == "ambiguous":
            from desktop_app.synth.ambiguous import make_ambiguous

            for n, episode_id in enumerate(chosen, 1):
                try:
                    made.append(make_ambiguous(project, episode_id, session, rng, args.remove))
                except SynthError as exc:
                    failed.append(str(exc))
                    if isinstance(exc, EndpointError):
                        break  # the endpoint is down: the next samples would wait as long
                bar("generating", n, len(chosen))
        else:
            from desktop_app.render.renderer import Renderer
            from desktop_app.synth.overlay import overlay_sample

            with Renderer(browser_path=settings.browser_path) as renderer:
                for n, episode_id in enumerate(chosen, 1):
                    try:
                        made.append(overlay_sample(project, episode_id, renderer, rng, session))
                    except SynthError as exc:
                        failed.append(str(exc))
                        if isinstance(exc, EndpointError):
                            break
                    bar("generating", n, len(chosen))
    print(f"generated {len(made)} pending {args.scenario} samples" +
          (f"\n{len(failed)} failed:\n  " + "\n  ".join(failed[:10]) if failed else ""))
    return 1 if failed and not made else 0


def cmd_synth(args) -> int:
    from desktop_app.cli.common import open_project
    from desktop_app.cli.progress import ProgressBar
    from desktop_app.render.browser import BrowserNotFound
    from desktop_app.render.renderer import Renderer
    from desktop_app.settings import load_settings
    from desktop_app.synth.generate import SynthOptions, check_options, generate
    from desktop_app.synth.llm import LlmEndpoint

    settings = load_settings()
    endpoint = None
    if not args.offline:
        if args.base_url or args.model:
            if not (args.base_url and args.model):
                print("error: give both --base-url and --model (or --offline)", file=sys.stderr)
                return 2
            if args.api_key_env:
                from desktop_app.secrets import check_variable_name

                try:
                    check_variable_name(args.api_key_env)
                except ValueError as exc:  # never echoed: it may be the key itself
                    print(f"error: --api-key-env: {exc}", file=sys.stderr)
                    return 2
            endpoint = LlmEndpoint(args.base_url, args.model, args.temperature, args.api_key_env or "")
        else:
            endpoint = LlmEndpoint.from_settings(settings)
        if endpoint is None and args.scenario == "ambiguous":
            print("error: ambiguous tasks are written by an LLM: configure one in Settings or give "
                  "--base-url and --model", file=sys.stderr)
            return 2
        if endpoint is None:
            print("no LLM endpoint configured (Settings or --base-url/--model): using the offline content bank",
                  file=sys.stderr)
    if args.scenario in DERIVED:
        return cmd_derived(args, settings, endpoint)
    options = SynthOptions(args.scenario, args.count, args.layout, args.injection, args.viewport, args.seed)
    try:
        check_options(options)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        with open_project(args) as project, Renderer(browser_path=settings.browser_path) as renderer:
            report = generate(project, options, renderer, endpoint, progress=ProgressBar())
    except BrowserNotFound as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(report.summary())
    return 1 if report.failures and not report.episode_ids else 0


def add_commands(sub, add_project) -> None:
    from desktop_app.cli.agent_commands import parse_where

    p = sub.add_parser("synth", help="generate samples (they land as pending, for verification)",
                       description="popup, search, recommendation, chat: distracting screens rendered from our "
                                   "templates; overlay: a pop-up drawn over existing screenshots; ambiguous: "
                                   "ambiguous tasks with follow-up questions from multi-step episodes (needs an LLM)")
    p.add_argument("scenario", choices=(*SCENARIOS, *DERIVED))
    add_project(p)
    p.add_argument("--count", "-n", type=int, default=1)
    p.add_argument("--layout", choices=POPUP_LAYOUTS, help="popup layout (default: random)")
    p.add_argument("--injection", choices=INJECTIONS, default="none",
                   help="environment injection (paper §5.1): ambiguous accept, emotional reject, or both")
    p.add_argument("--viewport", choices=("desktop", "mobile"), help="default: desktop and mobile, 2 to 1")
    p.add_argument("--offline", action="store_true", help="use the hand-written content bank, no LLM")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint (default: the one in Settings)")
    p.add_argument("--model")
    p.add_argument("--temperature", type=float, default=1.0)
    p.add_argument("--api-key-env", metavar="VAR", help="environment variable holding the API key")
    p.add_argument("--seed", type=int, help="for a reproducible set")
    p.add_argument("--where", type=parse_where, default={},
                   help="overlay/ambiguous: which episodes to build on, e.g. scenario=navigation")
    p.add_argument("--remove", type=int, default=1, choices=(1, 2),
                   help="ambiguous: how many informative steps to take out of the task")
    p.set_defaults(func=cmd_synth)


def cmd_verify(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project
    from desktop_app.synth.verify import ProblemsFound

    with open_project(args) as project:
        try:
            status = api.verify_sample(project, args.sample, args.decision, args.reason, anyway=args.anyway)
        except (ProblemsFound, KeyError, ValueError) as exc:
            print(f"error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
            return 2
    print(f"{args.sample}: {status}")
    return 0


def add_verify_command(sub, add_project) -> None:
    p = sub.add_parser("verify", help="accept or reject a generated sample, as the verification queue does",
                       description="Accepted samples that anyone changed since they were generated are recorded "
                                   "as edited. An ambiguous task whose checklist is empty or whose removed detail "
                                   "no question asks for is refused unless --anyway.")
    add_project(p)
    p.add_argument("sample", help="the sample's key")
    p.add_argument("decision", choices=("accept", "reject"))
    p.add_argument("--reason", default="", help="why it is rejected (e.g. boxes wrong or missing)")
    p.add_argument("--anyway", action="store_true", help="accept an ambiguous task despite its problems")
    p.set_defaults(func=cmd_verify)
