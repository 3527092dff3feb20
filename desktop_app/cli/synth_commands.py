"""`screenlab synth`: generate pending distraction samples (offline bank or an LLM)."""

from __future__ import annotations

import sys

from desktop_app.synth.scene import INJECTIONS
from desktop_app.synth.templates import POPUP_LAYOUTS, SCENARIOS


def cmd_synth(args) -> int:
    from desktop_app.cli.main import _open
    from desktop_app.cli.progress import ProgressBar
    from desktop_app.render.browser import BrowserNotFound
    from desktop_app.render.renderer import Renderer
    from desktop_app.settings import load_settings
    from desktop_app.synth.generate import SynthOptions, check_options, generate
    from desktop_app.synth.llm import LlmEndpoint

    options = SynthOptions(args.scenario, args.count, args.layout, args.injection, args.viewport, args.seed)
    try:
        check_options(options)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    settings = load_settings()
    endpoint = None
    if not args.offline:
        if args.base_url or args.model:
            if not (args.base_url and args.model):
                print("error: give both --base-url and --model (or --offline)", file=sys.stderr)
                return 2
            endpoint = LlmEndpoint(args.base_url, args.model, args.temperature, args.api_key_env or "")
        else:
            endpoint = LlmEndpoint.from_settings(settings)
        if endpoint is None:
            print("no LLM endpoint configured (Settings or --base-url/--model): using the offline content bank",
                  file=sys.stderr)
    try:
        with _open(args) as project, Renderer(browser_path=settings.browser_path) as renderer:
            report = generate(project, options, renderer, endpoint, progress=ProgressBar())
    except BrowserNotFound as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(report.summary())
    return 1 if report.failures and not report.episode_ids else 0


def add_commands(sub, add_project) -> None:
    p = sub.add_parser("synth", help="generate distracting screens (they land as pending, for verification)")
    p.add_argument("scenario", choices=SCENARIOS)
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
    p.set_defaults(func=cmd_synth)
