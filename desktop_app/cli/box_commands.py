"""`screenlab boxes` (a screen's boxes, and edits that never overwrite what the caller did not see),
`screenlab labels` (the project's classes: ADR 0047) and `screenlab box-attributes` (a box's free key-value
attributes) from the command line.

Every edit takes --expected-version, the version `screenlab boxes show` printed: when someone changed the
screen since, the edit is refused (exit 2, one line naming who) and nothing is written. Without it the
edit reads the version in its own transaction and lands over whatever is stored then."""

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
            box = api.set_box_attributes(project, args.box, _pairs(args.set),
                                         expected_version=args.expected_version) if args.set else \
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
            if args.add:
                api.add_classes(project, args.add)
            for name in args.remove:
                api.remove_class(project, name)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        # one per line: a class may hold spaces ("sports ball")
        for name in api.classes(project):
            print(name)
    return 0


BOX_TEXT_FIELDS = ("label", "category", "action_type", "element_text", "type_text", "source")
ALIASES = {"role": "label", "class": "category"}  # the words the window uses
BOX_NUMBER_FIELDS = ("x1", "y1", "x2", "y2")


def _box_line(box) -> str:
    where = "no box" if box.x1 is None else f"{box.x1:g},{box.y1:g},{box.x2:g},{box.y2:g}"
    kind = f"{box.label}/{box.category}" if box.category else box.label
    return f"{box.id:>8}  {kind:<20} {box.action_type:<8} {where:<24} {box.element_text[:40]}"


def _changes(texts: list[str]) -> dict:
    out: dict = {}
    for name, value in _pairs(texts).items():
        name = ALIASES.get(name, name)
        if name in BOX_NUMBER_FIELDS:
            try:
                out[name] = float(value)
            except ValueError:
                raise ValueError(f"{name} is a number (image pixels), not {value!r}") from None
        elif name in BOX_TEXT_FIELDS:
            out[name] = value
        else:
            raise ValueError(f"cannot set '{name}' (one of {', '.join(BOX_NUMBER_FIELDS + BOX_TEXT_FIELDS)}; "
                             "role and class name label and category)")
    return out


def _corners(text: str) -> dict:
    try:
        x1, y1, x2, y2 = (float(v) for v in text.split(","))
    except ValueError:
        raise ValueError(f"a box is X1,Y1,X2,Y2 in image pixels, not {text!r}") from None
    return {"x1": x1, "y1": y1, "x2": x2, "y2": y2}


def cmd_boxes(args) -> int:
    from desktop_app.cli.common import open_project, said_in_one_line

    def run(a):
        with open_project(a) as project:
            return a.boxes_func(project, a)
    return said_in_one_line(run, args)


def _after(_project, step_id: int, expected: int | None) -> None:
    """The version the screen is at after this edit: the one to pass to the next (read after the edit it could
    already hold someone else's change that this caller never saw)."""
    if expected is not None:
        print(f"step {step_id} is at version {expected + 1}")
    else:
        print(f"step {step_id}: applied to the screen as stored then (no --expected-version); read it again with "
              "`screenlab boxes show` before the next edit")


def cmd_boxes_show(project, args) -> int:
    from desktop_app import api

    shown = api.screen(project, args.step)
    if args.json:
        print(json.dumps({"step": shown.step_id, "episode": shown.episode_id, "version": shown.version,
                          "boxes": [{"id": b.id, **{k: getattr(b, k) for k in BOX_NUMBER_FIELDS + BOX_TEXT_FIELDS}}
                                    for b in shown.boxes]}, ensure_ascii=False))
        return 0
    print(f"step {shown.step_id} (episode {shown.episode_id}, step {shown.step_index}) at version {shown.version}")
    for box in shown.boxes:
        print(_box_line(box))
    return 0


def cmd_boxes_add(project, args) -> int:
    from desktop_app import api

    values = {**_corners(args.box), "label": args.label, "category": args.box_class,
              "action_type": args.action_type, "element_text": args.element_text}
    (box,) = api.add_boxes(project, args.step, [values], expected_version=args.expected_version)
    print(f"added box {box.id}")
    _after(project, args.step, args.expected_version)
    return 0


def cmd_boxes_edit(project, args) -> int:
    from desktop_app import api

    if not args.set:
        raise ValueError("say what to change: --set NAME=VALUE (x1, y1, x2, y2, role, class, action_type, element_text, ...)")
    (box,) = api.edit_boxes(project, {args.box: _changes(args.set)}, expected_version=args.expected_version)
    print(_box_line(box))
    _after(project, box.step_id, args.expected_version)
    return 0


def cmd_boxes_delete(project, args) -> int:
    from desktop_app import api

    deleted = api.delete_boxes(project, args.boxes, expected_version=args.expected_version)
    print(f"deleted {len(args.boxes)} box{'es' if len(args.boxes) > 1 else ''}")
    _after(project, next(iter(deleted.values()))["step_id"], args.expected_version)
    return 0


def add_commands(sub, add_project) -> None:
    boxes = sub.add_parser("boxes", help="show a screen's boxes and version; add, edit or delete boxes (refused if "
                                         "it changed since)",
                           description="Pass --expected-version (the version `boxes show` printed) to every edit: "
                                       "if anyone changed the screen since, the edit is refused and nothing is "
                                       "written. Without it an edit lands over whatever is stored when it runs.")
    bsub = boxes.add_subparsers(dest="boxes_command", required=True)
    boxes.set_defaults(func=cmd_boxes)
    p = bsub.add_parser("show", help="a step's boxes and the version to pass to an edit")
    add_project(p)
    p.add_argument("step", type=int, help="the step's id")
    p.add_argument("--json", action="store_true")
    p.set_defaults(boxes_func=cmd_boxes_show)
    expected = {"type": int, "metavar": "N", "help": "the version you read (boxes show): refused if it changed since"}
    p = bsub.add_parser("add", help="a new box on a step")
    add_project(p)
    p.add_argument("step", type=int, help="the step's id")
    p.add_argument("box", metavar="X1,Y1,X2,Y2", help="its corners in image pixels")
    p.add_argument("--label", "--role", default="gold", help="its role: gold, distracted or other")
    p.add_argument("--class", dest="box_class", default="", metavar="NAME",
                   help="its class, one of the project's (screenlab labels)")
    p.add_argument("--action-type", default="click")
    p.add_argument("--element-text", default="")
    p.add_argument("--expected-version", **expected)
    p.set_defaults(boxes_func=cmd_boxes_add)
    p = bsub.add_parser("edit", help="change a box's corners, label or texts")
    add_project(p)
    p.add_argument("box", type=int, help="the box's id")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--expected-version", **expected)
    p.set_defaults(boxes_func=cmd_boxes_edit)
    p = bsub.add_parser("delete", help="delete boxes of one screen")
    add_project(p)
    p.add_argument("boxes", type=int, nargs="+", help="box ids")
    p.add_argument("--expected-version", **expected)
    p.set_defaults(boxes_func=cmd_boxes_delete)

    p = sub.add_parser("labels", help="the project's classes (a box's role is gold, distracted or other; its "
                                      "class is one of these)",
                       description="A box has a role, which every protocol scores (gold, distracted, other: keys "
                                   "1-3 in the window), and may have a class from this list (button, Car, COCO's "
                                   "80...: keys 4-9 for the first six, C to search them all), which no protocol "
                                   "reads. Any number, case kept. Prints the classes, one per line.")
    add_project(p)
    p.add_argument("--add", action="append", default=[], metavar="NAME",
                   help="add a class (repeat for more; all or none)")
    p.add_argument("--remove", action="append", default=[], metavar="NAME", help="remove a class no box has")
    p.set_defaults(func=cmd_labels)

    p = sub.add_parser("box-attributes", help="show or set a box's attributes (free key-value pairs)")
    add_project(p)
    p.add_argument("box", type=int, help="the box's id (in exports and the window's Properties)")
    p.add_argument("set", nargs="*", metavar="NAME=VALUE", help="set these (NAME= removes one)")
    p.add_argument("--expected-version", type=int, metavar="N",
                   help="the screen's version you read (boxes show): refused if it changed since")
    p.set_defaults(func=cmd_box_attributes)
