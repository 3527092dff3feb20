"""`screenlab team ...`: a team on one shared project (PostgreSQL, or one SQLite file for one person):
its people and their roles, who labels what, states, review, progress, agreement between double
annotations and the lead's adjudication. On a server who you are is the login in the project's URL (its
password from SCREENLAB_DB_PASSWORD or the keyring) and the server enforces what your role may do; on
SQLite it is SCREENLAB_USER (or your OS login)."""

from __future__ import annotations

import json
import sys


def cmd_team(args) -> int:
    from desktop_app.cli.common import open_project, said_in_one_line

    def run(a):
        with open_project(a) as project:
            return a.team_func(project, a)
    return said_in_one_line(run, args)


def _episode_id(project, ref: str) -> int:
    from sqlalchemy import select

    from desktop_app.store.models import Episode

    with project.reading() as s:
        found = s.execute(select(Episode.id).where(Episode.key == ref)).scalar_one_or_none()
    if found is None and ref.isdigit():
        found = int(ref)
    if found is None:
        raise ValueError(f"no episode with key or id '{ref}'")
    return found


def cmd_assign(project, args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import filter_of

    report = api.assign(project, args.annotators, filter_of(args), args.overlap, args.limit, args.seed)
    print(f"{report.samples} samples given out ({report.double} to two annotators, blind); "
          f"{report.already_assigned} already had someone")
    for name, n in report.per_annotator.items():
        print(f"  {name:<20} {n}")
    return 0


def cmd_queue(project, args) -> int:
    from desktop_app import api
    from desktop_app.store.work_states import skip_note

    who = args.annotator or project.user
    rows = api.queue(project, who, tuple(args.state or ()), limit=args.limit)
    shown = api.states(project, [e.id for e in rows], who)
    why = api.skip_reasons(project, [e.id for e in rows])
    for e in rows:
        note = skip_note([(name, reason) for name, reason in why.get(e.id, ()) if name == who])
        print(f"{e.id:>7}  {shown[e.id][0]:<12} {e.key[:40]:<40} {e.goal[:60]}" + (f"  ({note})" if note else ""))
    print(f"{len(rows)} in {who}'s queue" + (f" ({', '.join(args.state)})" if args.state else ""))
    return 0


def cmd_whoami(project, args) -> int:
    from desktop_app import api

    me = api.whoami(project)
    print(f"{me.user} ({me.role})")
    return 0


def cmd_members(project, args) -> int:
    from desktop_app import api

    for m in api.members(project):
        print(f"{m.login:<24} {m.role}")
    return 0


def _hand_over(project, login: str, password: str | None, keyring: bool) -> None:
    from desktop_app.teams.members import member_url

    if password is None:
        print(f"  {login} already had a login on this server: their password is unchanged")
    elif keyring:
        print(f"  their password is in this computer's keyring for {member_url(project, login)}")
    else:
        print(f"  password (shown once, hand it over): {password}")
    print(f"  they open: {member_url(project, login)}")


def cmd_add_member(project, args) -> int:
    from desktop_app import api

    added = api.add_member(project, args.login, args.role, keyring=args.keyring)
    print(f"{added.login} is now {added.role}" + (" (a new login)" if added.created else ""))
    _hand_over(project, added.login, added.password, args.keyring)
    return 0


def cmd_set_role(project, args) -> int:
    from desktop_app import api

    member = api.set_member_role(project, args.login, args.role)
    print(f"{member.login} is now {member.role}")
    return 0


def cmd_remove_member(project, args) -> int:
    from desktop_app import api

    if api.remove_member(project, args.login):
        print(f"{args.login} is out of the team (their work and its history stay)")
        return 0
    print(f"error: {args.login} was not in this project's team", file=sys.stderr)
    return 2


def cmd_reset_password(project, args) -> int:
    from desktop_app import api

    password = api.reset_password(project, args.login, keyring=args.keyring)
    print(f"{args.login} has a new password")
    _hand_over(project, args.login, password, args.keyring)
    return 0


def cmd_password(project, args) -> int:
    from desktop_app import api

    try:
        password = api.change_password(project, keyring=not args.show)
    except api.PasswordNotKept as exc:
        print(f"error: {exc}; your new password (shown once, note it): {exc.password}", file=sys.stderr)
        return 2
    if args.show:
        print(f"your new password (shown once): {password}")
    else:
        print("your new password is in this computer's keyring; the old one no longer works")
    return 0


def _point(text: str) -> tuple[float, float]:
    try:
        x, y = (float(v) for v in text.split(","))
    except ValueError:
        raise ValueError(f"--point is X,Y in image pixels, not '{text}'") from None
    return x, y


def cmd_review(project, args) -> int:
    from desktop_app import api

    decided = api.review_work(project, _episode_id(project, args.episode), args.decision, args.comment,
                              args.annotator, args.step, args.box, _point(args.point) if args.point else None)
    where = f" (pinned to {decided.pin})" if decided.pin is not None else ""
    print(f"{args.episode}: {decided.annotator}'s work {'accepted' if decided.decision == 'accept' else 'returned'}"
          f" by {decided.reviewer}{where}")
    return 0


def cmd_reviews(project, args) -> int:
    from desktop_app import api

    if args.awaiting:
        rows = api.awaiting_review(project)
        for episode, who in rows:
            print(f"{episode:>7}  {who}")
        print(f"{len(rows)} finished, not yet accepted")
        return 0
    episode = _episode_id(project, args.episode) if args.episode else None
    for r in api.work_reviews(project, episode, args.annotator):
        pin = "" if r.pin is None else f" [{r.pin}]"
        print(f"{r.work_episode_id:>7}  {r.annotator:<16} {r.decision:<7} by {r.reviewer:<16}{pin} {r.comment}")
    return 0


def cmd_state(project, args) -> int:
    from desktop_app import api

    for ref in args.episodes:
        row = api.set_state(project, _episode_id(project, ref), args.state, args.reason, args.annotator)
        print(f"{ref}: {row.state} ({row.annotator})")
    return 0


def cmd_progress(project, args) -> int:
    from desktop_app import api

    rows = api.progress(project)
    accepted = api.acceptance(project)
    if args.json:
        print(json.dumps([{**r.__dict__, "finished_share": r.finished_share,
                           "accepted": accepted[r.annotator].accepted if r.annotator in accepted else 0,
                           "returned": accepted[r.annotator].returned if r.annotator in accepted else 0,
                           "acceptance_rate": accepted[r.annotator].rate if r.annotator in accepted else None}
                          for r in rows], indent=1))
        return 0
    print(f"{'annotator':<20} {'assigned':>8} {'todo':>6} {'started':>7} {'done':>6} {'skipped':>7} "
          f"{'double':>6} {'hours':>6} {'median s/done':>13} {'accepted':>9}")
    for r in rows:
        median = f"{r.median_s_per_done:.0f}" if r.median_s_per_done is not None else "-"
        rate = accepted.get(r.annotator)
        shown = f"{rate.accepted}/{rate.reviewed}" if rate is not None and rate.reviewed else "-"
        print(f"{r.annotator:<20} {r.assigned:>8} {r.todo:>6} {r.in_progress:>7} {r.done:>6} {r.skipped:>7} "
              f"{r.double:>6} {r.seconds / 3600:>6.2f} {median:>13} {shown:>9}")
    waiting = api.awaiting_adjudication(project)
    print(f"{len(waiting)} double-annotated samples wait for adjudication")
    return 0


def _f(value) -> str:
    return "-" if value is None else f"{value:.3f}"


def _kappa(value, note: str) -> str:
    """A kappa, or "-" with why there is none (nothing matched, one label throughout: ADR 0031)."""
    return _f(value) if value is not None or not note else f"- ({note})"


def cmd_agreement(project, args) -> int:
    from desktop_app import api

    result = api.team_agreement(project, threshold=args.iou)
    if args.json:
        pairs = [{**p.__dict__, "confusion": {f"{a}|{b}": n for (a, b), n in p.confusion.items()}}
                 for p in result["pairs"]]
        print(json.dumps({**result, "pairs": pairs}, indent=1, default=str))
        return 0
    print(f"{result['samples']} double-annotated samples; boxes matched at IoU >= {args.iou}")
    for p in result["pairs"]:
        print(f"{p.annotator_a} / {p.annotator_b}: {p.screens} screens, {p.matched} boxes matched, "
              f"unmatched {p.unmatched_a} / {p.unmatched_b}, box F1 {_f(p.box_f1)}, "
              f"label agreement {_f(p.observed)}, Cohen's kappa {_kappa(p.kappa, p.kappa_note)}")
        for label, row in p.per_label.items():
            print(f"    {label:<11} {row['a']:>4} / {row['b']:<4} agree {row['agree']:>4}  "
                  f"specific {_f(row['specific_agreement'])}  kappa {_kappa(row['kappa'], row['kappa_note'])}")
    fleiss = result["fleiss"]
    print(f"Fleiss' kappa {_kappa(fleiss['kappa'], fleiss['kappa_note'])} over {fleiss['items']} boxes with "
          f"{fleiss['raters']} raters each")
    return 0


def cmd_versions(project, args) -> int:
    from desktop_app import api

    for v in api.versions(project, _episode_id(project, args.episode)):
        print(f"{v.annotator} ({v.state}, copy {v.copy_id}):")
        for index, boxes in sorted(v.boxes.items()):
            for b in boxes:
                where = "no box" if b.x1 is None else f"[{b.x1:.0f}, {b.y1:.0f}, {b.x2:.0f}, {b.y2:.0f}]"
                print(f"  step {index}  box {b.id:>6}  {b.label:<10} {where}  {b.element_text[:40]}")
    return 0


def cmd_adjudicate(project, args) -> int:
    from desktop_app import api

    if bool(args.take) == bool(args.boxes):
        print("error: give --take ANNOTATOR or --boxes ID,ID,...", file=sys.stderr)
        return 2
    boxes = [int(b) for b in args.boxes.split(",") if b.strip()] if args.boxes else None
    row = api.adjudicate(project, _episode_id(project, args.episode), args.take, boxes)
    print(f"{args.episode}: adjudicated by {row.lead}: {json.dumps(row.choice)}")
    return 0


def add_commands(sub, add_project) -> None:
    from desktop_app.cli.common import add_filters
    from desktop_app.store.server_roles import ROLES
    from desktop_app.store.work_states import STATES

    team = sub.add_parser("team", help="a team on one project: people, assign, states, review, progress, agreement, "
                                       "adjudicate")
    tsub = team.add_subparsers(dest="team_command", required=True)
    team.set_defaults(func=cmd_team)
    p = tsub.add_parser("assign", help="give samples nobody has yet to annotators, in turn")
    add_project(p)
    p.add_argument("annotators", type=lambda v: [x for x in v.split(",") if x.strip()],
                   help="names, comma-separated")
    p.add_argument("--overlap", type=float, default=0.0, help="share (0..1) labelled by two, blind")
    p.add_argument("--limit", type=int, help="give out at most this many samples")
    p.add_argument("--seed", type=int, default=0, help="which samples fall in the overlap")
    add_filters(p)
    p.set_defaults(team_func=cmd_assign)
    p = tsub.add_parser("whoami", help="who you are in this project: your login and your role")
    add_project(p)
    p.set_defaults(team_func=cmd_whoami)
    p = tsub.add_parser("members", help="the project's people and their roles")
    add_project(p)
    p.set_defaults(team_func=cmd_members)
    p = tsub.add_parser("add-member", help="add a person (a login on the server) with a role (lead only)",
                        description="Makes a server login with a new password (shown once, or with --keyring kept "
                                    "in this computer's keyring), or gives an existing login this role.")
    add_project(p)
    p.add_argument("login", help="their login: lower-case letters, digits, _ . -")
    p.add_argument("--role", choices=ROLES, default="annotator")
    p.add_argument("--keyring", action="store_true", help="keep the password in this computer's keyring "
                                                          "instead of printing it")
    p.set_defaults(team_func=cmd_add_member)
    p = tsub.add_parser("set-role", help="change a member's role (lead only)")
    add_project(p)
    p.add_argument("login")
    p.add_argument("role", choices=ROLES)
    p.set_defaults(team_func=cmd_set_role)
    p = tsub.add_parser("remove-member", help="take a person out of the team (lead only; their work stays)")
    add_project(p)
    p.add_argument("login")
    p.set_defaults(team_func=cmd_remove_member)
    p = tsub.add_parser("reset-password", help="a new password for a member who lost theirs (lead only)")
    add_project(p)
    p.add_argument("login")
    p.add_argument("--keyring", action="store_true", help="keep it in this computer's keyring instead of printing it")
    p.set_defaults(team_func=cmd_reset_password)
    p = tsub.add_parser("password", help="change your own password (kept in this computer's keyring)")
    add_project(p)
    p.add_argument("--show", action="store_true", help="print the new password instead of keeping it in the keyring")
    p.set_defaults(team_func=cmd_password)
    p = tsub.add_parser("queue", help="an annotator's work (default: yours) and its states")
    add_project(p)
    p.add_argument("--annotator", help="someone else's queue (a lead or reviewer)")
    p.add_argument("--state", action="append", choices=STATES)
    p.add_argument("--limit", type=int, default=100)
    p.set_defaults(team_func=cmd_queue)
    p = tsub.add_parser("state", help="mark samples done, skipped (with --reason), in_progress or todo")
    add_project(p)
    p.add_argument("state", choices=("done", "skipped", "in_progress", "todo"))
    p.add_argument("episodes", nargs="+", help="episode keys or ids (your copy's key on a double annotation)")
    p.add_argument("--reason", default="")
    p.add_argument("--annotator", help="whose work (default: yours; someone else's for a lead or reviewer, "
                                       "e.g. to reopen it)")
    p.set_defaults(team_func=cmd_state)
    p = tsub.add_parser("review", help="accept finished work, or return it to its annotator with a comment",
                        description="As a reviewer or the lead. A returned sample is back in its annotator's queue "
                                    "with the comment, pinned to a box (--box) or a point (--step, --point) if given.")
    add_project(p)
    p.add_argument("episode", help="the annotator's copy (key or id), or the sample")
    p.add_argument("decision", choices=("accept", "return"))
    p.add_argument("--comment", default="", help="what to fix (required to return)")
    p.add_argument("--annotator", help="whose work, when two people labelled the sample")
    p.add_argument("--step", type=int, help="the step the comment is about (index, 0 first)")
    p.add_argument("--box", type=int, help="pin the comment to this box")
    p.add_argument("--point", metavar="X,Y", help="or to this point of the step's screen (image pixels)")
    p.set_defaults(team_func=cmd_review)
    p = tsub.add_parser("reviews", help="review decisions (yours only, as an annotator), or what awaits review")
    add_project(p)
    p.add_argument("--episode", help="on this episode's work")
    p.add_argument("--annotator", help="on this annotator's work")
    p.add_argument("--awaiting", action="store_true", help="list finished work not yet accepted")
    p.set_defaults(team_func=cmd_reviews)
    p = tsub.add_parser("progress", help="per annotator: assigned, done, skipped, time spent")
    add_project(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(team_func=cmd_progress)
    p = tsub.add_parser("agreement", help="box and label agreement on double-annotated samples")
    add_project(p)
    p.add_argument("--iou", type=float, default=0.5, help="boxes match at this IoU or more")
    p.add_argument("--json", action="store_true")
    p.set_defaults(team_func=cmd_agreement)
    p = tsub.add_parser("versions", help="each annotator's boxes on a double-annotated sample (once all done)")
    add_project(p)
    p.add_argument("episode", help="the sample's key or id")
    p.set_defaults(team_func=cmd_versions)
    p = tsub.add_parser("adjudicate", help="make one version (or picked boxes) the sample's labels")
    add_project(p)
    p.add_argument("episode", help="the sample's key or id")
    p.add_argument("--take", metavar="ANNOTATOR", help="take this annotator's version whole")
    p.add_argument("--boxes", metavar="IDS", help="or merge: box ids from `team versions`, comma-separated")
    p.set_defaults(team_func=cmd_adjudicate)
