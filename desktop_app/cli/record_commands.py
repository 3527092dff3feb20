"""`screenlab record` and `screenlab replay`: a task recorded in a real browser, and replayed to see what changed."""

from __future__ import annotations

import sys


def cmd_record(args) -> int:
    from desktop_app.cli.common import said_in_one_line

    return said_in_one_line(_record, args)


def _record(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project
    from desktop_app.record.browser import NoDisplay, has_display
    from desktop_app.record.site import open_site

    open_site(args.start)  # a start that is nothing is said before the project or a browser is opened
    if not args.headed:
        # without a window there is no one to act: a script records with api.record(..., actions=[...])
        raise ValueError("recording needs a person at a window: add --headed (or record from a script with "
                         "api.record(project, start, goal, actions=[...]))")
    if not has_display():
        raise NoDisplay("--headed needs a display, and there is none here (DISPLAY and WAYLAND_DISPLAY are unset)")
    print("recording: act in the browser window; press Stop in its bar or close the window when done",
          file=sys.stderr)
    with open_project(args) as project:
        episode_id = api.record(project, args.start, args.goal, headed=True)
    print(f"recorded episode {episode_id}; replay it with: screenlab replay {args.project} {episode_id}")
    return 0


def cmd_replay(args) -> int:
    from desktop_app.cli.common import said_in_one_line

    return said_in_one_line(_replay, args)


def _replay(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project

    with open_project(args) as project:
        report = api.replay(project, args.episode, start=args.start)
    print("\n".join(report.lines()))
    return 0 if report.passed else 1


def add_commands(sub, add_project) -> None:
    p = sub.add_parser("record", help="record a task in a real browser: each action with its screen, element and tree")
    add_project(p)
    p.add_argument("start", metavar="URL", help="a web page (http/https), a saved page (a file or a folder with "
                                                "index.html) or a flow site: flow:NAME (flow:account, flow:shop, ...)")
    p.add_argument("--goal", required=True, help="what the task does, in words")
    p.add_argument("--headed", action="store_true", help="open a browser window to act in (needs a display)")
    p.set_defaults(func=cmd_record)
    p = sub.add_parser("replay", help="replay a recorded task: the steps that no longer match, and its evaluator")
    add_project(p)
    p.add_argument("episode", type=int, help="the recorded episode's id")
    p.add_argument("--start", help="replay on another copy of the site (a saved page, or a flow template file)")
    p.set_defaults(func=cmd_replay)
