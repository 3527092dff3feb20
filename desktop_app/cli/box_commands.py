"""`screenlab labels` (the project's label set) and `screenlab box-attributes` (a box's free key-value
attributes) from the command line."""

from __future__ import annotations

import json
import sys


def _pairs(texts: list[str]) -> dict[str, str]:
    out = {}
    for text in texts:
        name, sep, value = text.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"expected NAME=VALUE (an empty value removes it), got {text!r}")
        out[name.strip()] = value
    return out


def cmd_box_attributes(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project

    with open_project(args) as project:
        try:
            box = api.set_box_attributes(project, args.box, _pairs(args.set)) if args.set else \
                api.box(project, args.box)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    print(json.dumps(api.box_attributes(box), ensure_ascii=False, sort_keys=True))
    return 0


def cmd_labels(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project

    with open_project(args) as project:
        try:
            for name in args.add:
                api.add_label(project, name)
            for name in args.remove:
                api.remove_label(project, name)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        print(" ".join(api.labels(project)))
    return 0


def add_commands(sub, add_project) -> None:
    p = sub.add_parser("labels", help="the project's box labels: gold, distracted, other and its own",
                       description="A project's own labels (up to 6, keys 4-9 in the window) score as 'other' "
                                   "in every protocol; gold, distracted and other cannot be removed.")
    add_project(p)
    p.add_argument("--add", action="append", default=[], metavar="NAME", help="add a label (repeat for more)")
    p.add_argument("--remove", action="append", default=[], metavar="NAME", help="remove a label no box uses")
    p.set_defaults(func=cmd_labels)

    p = sub.add_parser("box-attributes", help="show or set a box's attributes (free key-value pairs)")
    add_project(p)
    p.add_argument("box", type=int, help="the box's id (in exports and the window's Properties)")
    p.add_argument("set", nargs="*", metavar="NAME=VALUE", help="set these (NAME= removes one)")
    p.set_defaults(func=cmd_box_attributes)
