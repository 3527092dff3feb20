"""`screenlab uninstall-data`: remove this user's ScreenLab settings, caches and logs (and with --projects the
projects in ScreenLab's data folder), after listing them (desktop_app/uninstall.py does the work)."""

from __future__ import annotations

import sys

HELP = "remove your ScreenLab settings, caches and logs (your projects only when asked), after listing them"


def add_uninstall_command(sub) -> None:
    p = sub.add_parser("uninstall-data", help=HELP, description=(
        "Lists what it will delete, then asks. Removed: settings (and agent profiles), caches (the Node.js and "
        "browser driver unpacked on the first render, a server project's cached pictures), logs and crash reports. "
        "Projects in ScreenLab's own data folder (the demo, the ones made for opened folders) only with --projects; "
        "projects you made elsewhere are never touched. The program itself is removed by your package manager, "
        "the Windows uninstaller, or by deleting its folder. Quit ScreenLab's window first."))
    p.add_argument("--projects", action="store_true",
                   help="also remove the projects in ScreenLab's data folder (their screenshots and labels)")
    p.add_argument("--yes", "-y", action="store_true", help="remove without asking")
    p.add_argument("--dry-run", action="store_true", help="only list what would be removed")
    p.set_defaults(func=cmd_uninstall_data)


def cmd_uninstall_data(args) -> int:
    from desktop_app.uninstall import plan_removal, remove_data

    plan = plan_removal(projects=args.projects)
    print("\n".join(plan.lines()))
    if not plan.items or args.dry_run:
        return 0
    if not args.yes:
        if not sys.stdin.isatty():
            print("nothing removed: add --yes to remove these without being asked", file=sys.stderr)
            return 1
        answer = input(f"Remove these ({plan.bytes / 1048576:.1f} MB)? [y/N] ").strip().lower()
        if answer not in ("y", "yes"):
            print("nothing removed")
            return 1
    report = remove_data(plan)
    print(report.summary())
    return 1 if report.failed else 0
