"""`screenlab vaf ...`: page variants (visual attributes of one target) and what browsing agents did
with them. Trials run as the `browse` protocol: `screenlab run PROJECT --protocol browse --agent A`."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def cmd_vaf(args) -> int:
    """Every `screenlab vaf` command: a request that cannot be done (no such page, a selector that matches
    nothing, a bad table) is said in one line, exit 2, no traceback."""
    from desktop_app.cli.common import said_in_one_line

    return said_in_one_line(args.vaf_func, args)


def cmd_pages(args) -> int:
    from desktop_app import api

    for page in api.vaf_demo_pages():
        print(f"demo:{page.name:<20} {page.title}  (target {page.target}: {page.target_name[:60]})")
    return 0


def cmd_settings(args) -> int:
    from desktop_app import api
    from desktop_app.vaf.settings import FAMILIES

    table = api.vaf_settings(args.table)
    if args.write:
        api.save_vaf_settings(table, args.write)
        print(f"{len(table)} settings written to {args.write} (edit it, then: vaf generate ... --settings FILE)")
        return 0
    for family in FAMILIES.values():
        names = [s.value for s in table if s.family == family.name]
        print(f"{family.title:<12} {len(names):>3}  {' '.join(names)}")
    print(f"{'':<12} {len(table):>3}  settings")
    return 0


def _words(args) -> dict:
    return {k: v for k, v in (("target_name", args.target_name), ("items", args.items), ("category", args.category),
                              ("page_type", args.page_type), ("item_singular", args.item),
                              ("item_plural", args.items_word), ("fields", args.fields),
                              ("clickable", args.clickable), ("title", args.title)) if v}


def cmd_pick(args) -> int:
    from desktop_app import api

    found = api.pick_vaf_target(args.page, args.x, args.y)
    if not found:
        print("nothing at that point of the page", file=sys.stderr)
        return 1
    print(json.dumps(found, indent=1))
    return 0


def cmd_generate(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project
    from desktop_app.cli.progress import ProgressBar

    page = api.vaf_page(args.page, args.target or "", args.name or "", **_words(args))
    table = api.vaf_settings(args.settings)
    if args.family:
        table = [s for s in table if s.family in args.family]
    bar = ProgressBar()
    with open_project(args) as project:
        report = api.generate_variants(project, page, table, progress=lambda i, n, name: bar("rendering", i, n))
    print("\n".join(report.lines()))
    if report.added:
        print(f"verify them in the window (Variants > Page variants…) or with: screenlab vaf verify {args.project} "
              f"KEY accept|reject")
    return 0


def cmd_list(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project

    with open_project(args) as project:
        found = api.vaf_variants(project, args.study)
        studies = api.vaf_studies(project)
    if args.json:
        print(json.dumps([{"id": v.episode_id, "key": v.key, "study": v.study, "setting": v.setting,
                           "status": v.review_status, "target": v.target, "warnings": list(v.warnings)}
                          for v in found], indent=1))
        return 0
    for study, counts in studies.items():
        if args.study and study != args.study:
            continue
        print(f"{study}: " + ", ".join(f"{n} {status}" for status, n in sorted(counts.items())))
    if args.verbose:
        for v in found:
            print(f"  {v.episode_id:>6} {v.review_status:<9} {v.key}" + (f"  ({'; '.join(v.warnings)})" if v.warnings else ""))
    return 0


def cmd_verify(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project

    with open_project(args) as project:
        keys = [v.key for v in api.vaf_variants(project, args.study) if v.review_status == "pending"] \
            if args.all_pending else args.variant
        for key in keys:
            api.verify_variant(project, int(key) if str(key).isdigit() else key, args.decision, args.reason)
    print(f"{len(keys)} variant{'s' if len(keys) != 1 else ''} {args.decision}ed")
    return 0


def cmd_results(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project
    from desktop_app.vaf import figures
    from desktop_app.vaf.metrics import TMR_PAPER, TMR_READABLE, heatmap, ranked

    with open_project(args) as project:
        runs = {r.id: r for r in api.runs(project) if r.protocol == "browse"}
        ids = args.run or list(runs)
        unknown = [r for r in ids if r not in runs]
        if unknown:
            raise ValueError(f"run(s) {', '.join(map(str, unknown))} are not browse runs (screenlab runs lists them)")
        results = api.vaf_results(project, ids)
    if args.json:
        print(json.dumps(results, indent=1))
    for run_id, metrics in results.items():
        if args.json:
            break
        print(f"run {run_id} ({runs[run_id].agent}): {metrics['trials']} trials")
        if metrics.get("judged"):  # both denominators of TMR, named (ADR 0042)
            for name, key in ((TMR_READABLE, "tmr"), (TMR_PAPER, "tmr_paper")):
                rate = metrics.get(key) or {}
                shown = "-" if rate.get("rate") is None else f"{rate['rate']:.3f} ({rate['hits']}/{rate['n']})"
                print(f"  {name}: {shown}")
            print(f"  judge replies unreadable: {metrics.get('judge_failed', 0)}")
        top, base, bottom = ranked(metrics, args.top)
        print(f"  {'rank':>4}  {'variant':<30} {'TCR':>6} {'TMR (readable)':>15} {'TMR (paper)':>12}")
        for row in [*top, *([base] if base else []), *bottom]:
            tmr = "-" if row.tmr is None else f"{row.tmr:.3f}"
            paper = "-" if row.tmr_paper is None else f"{row.tmr_paper:.3f}"
            rank = "base" if row.rank == 0 else str(row.rank)
            print(f"  {rank:>4}  {row.setting:<30} {row.tcr:6.3f} {tmr:>15} {paper:>12}")
    if args.csv:
        from desktop_app.vaf.tables import write_csv

        write_csv(Path(args.csv), results, {r: runs[r].agent for r in results})
        print(f"per-variant table written to {args.csv}")
    if args.heatmap:
        names, columns, cells = heatmap({f"{runs[r].agent} #{r}": results[r] for r in ids})
        Path(args.heatmap).write_bytes(figures.heatmap_png(names, columns, cells))
        print(f"delta heatmap written to {args.heatmap}")
    return 0


def cmd_clicks(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project
    from desktop_app.vaf import figures
    from desktop_app.vaf.metrics import item_counts
    from desktop_app.vaf.study import variant_id, variants

    with open_project(args) as project:
        vid = variant_id(project, int(args.variant) if args.variant.isdigit() else args.variant)
        variant = variants(project, ids=[vid])[0]
        points = api.vaf_clicks(project, args.run, vid)
        for text, n, target in item_counts(points, list(variant.items)):
            print(f"{n:>5}  {'TARGET ' if target else ''}{text}")
        if args.png:
            from desktop_app.vaf.views import page_png

            Path(args.png).write_bytes(figures.click_map_png(page_png(project, vid), points, variant.target))
            print(f"click map written to {args.png}")
    return 0


def cmd_trial(args) -> int:
    from desktop_app import api
    from desktop_app.cli.common import open_project

    with open_project(args) as project:
        trials = api.vaf_trials(project, args.run, int(args.variant) if args.variant.isdigit() else args.variant)
    chosen = [t for t in trials if args.trial is None or t["trial"] == args.trial]
    if not chosen:
        print("no such trial in that run", file=sys.stderr)
        return 1
    for t in chosen:
        mention = {None: "not judged", 0: "not mentioned", 1: "mentioned"}[t["mention"]]
        print(f"trial {t['trial']}: {t['ended']}, target {'clicked' if t['target_click'] else 'not clicked'}, "
              f"{mention}")
        for i, step in enumerate(t["steps"]):
            a = step["action"]
            what = a["kind"] + (f" {a['direction']}" if a.get("direction") else "") + \
                (f" at ({a['point'][0]:.0f},{a['point'][1]:.0f})" if a.get("point") else "") + \
                (f" ({a['error']})" if a.get("error") else "")
            print(f"  {i + 1}. scroll {step['scroll_y']:>5}: {what}")
            if args.verbose:
                print("     " + (a.get("thought") or "").replace("\n", "\n     "))
    return 0


def add_commands(sub, add_project) -> None:
    vaf = sub.add_parser("vaf", help="page variants: one target restyled, agents browsing them (VAF)")
    vsub = vaf.add_subparsers(dest="vaf_command", required=True)
    vaf.set_defaults(func=cmd_vaf)
    p = vsub.add_parser("pages", help="our demo pages (use as demo:<name>)")
    p.set_defaults(vaf_func=cmd_pages)
    p = vsub.add_parser("settings", help="the variant table (the paper's 48 settings), or write it to edit")
    p.add_argument("--table", help="a table saved before (JSON)")
    p.add_argument("--write", metavar="FILE", help="write the table as JSON to edit (add or drop settings)")
    p.set_defaults(vaf_func=cmd_settings)
    p = vsub.add_parser("pick", help="the item under a point of a page, and a CSS selector for it")
    p.add_argument("page", help="demo:<name>, an HTML file or a folder with index.html")
    p.add_argument("x", type=float)
    p.add_argument("y", type=float, help="page pixels, at 1280 wide")
    p.set_defaults(vaf_func=cmd_pick)
    p = vsub.add_parser("generate", help="render a page's variants (offline) and queue them for verification")
    add_project(p)
    p.add_argument("page", help="demo:<name>, an HTML file or a folder with index.html")
    p.add_argument("--target", help="CSS selector of the target item (a demo page has its own)")
    p.add_argument("--name", help="the study's name (default: the page's)")
    p.add_argument("--target-name", help="the target's name, for the mention judge")
    p.add_argument("--items", help="CSS selector of every item (default: the target's siblings)")
    p.add_argument("--settings", help="a variant table (JSON from `vaf settings --write`); default: the paper's 48")
    p.add_argument("--family", action="append", help="only these families (repeat)")
    for flag, what in (("--category", "what the agent looks for, e.g. laptop"),
                       ("--page-type", "e.g. online shop's search results"), ("--item", "an item, e.g. laptop"),
                       ("--items-word", "items, e.g. laptops"), ("--fields", "e.g. name, price, rating"),
                       ("--clickable", "what to click, e.g. laptop's title"), ("--title", "the page's title")):
        p.add_argument(flag, help=what)
    p.set_defaults(vaf_func=cmd_generate)
    p = vsub.add_parser("list", help="studies and their variants by review status")
    add_project(p)
    p.add_argument("--study")
    p.add_argument("--verbose", "-v", action="store_true")
    p.add_argument("--json", action="store_true")
    p.set_defaults(vaf_func=cmd_list)
    p = vsub.add_parser("verify", help="accept or reject variants (reject those that break the page)")
    add_project(p)
    p.add_argument("variant", nargs="*", help="keys (vaf/<study>/<setting>) or ids")
    p.add_argument("decision", choices=("accept", "reject"))
    p.add_argument("--reason", default="")
    p.add_argument("--all-pending", action="store_true", help="every pending variant (of --study)")
    p.add_argument("--study")
    p.set_defaults(vaf_func=cmd_verify)
    p = vsub.add_parser("results", help="TCR / TMR per variant, ranked, with deltas; CSV and heatmap PNG")
    add_project(p)
    p.add_argument("--run", type=int, action="append", help="browse runs (default: all)")
    p.add_argument("--top", type=int, default=5, help="rows at each end of the ranking (default 5)")
    p.add_argument("--csv")
    p.add_argument("--heatmap", metavar="PNG")
    p.add_argument("--json", action="store_true")
    p.set_defaults(vaf_func=cmd_results)
    p = vsub.add_parser("clicks", help="where the clicks on one variant landed (per item); --png draws the map")
    add_project(p)
    p.add_argument("variant", help="key or id")
    p.add_argument("--run", type=int, action="append", required=True)
    p.add_argument("--png")
    p.set_defaults(vaf_func=cmd_clicks)
    p = vsub.add_parser("trial", help="a trial step by step: scrolls, the click, the agent's thoughts (-v)")
    add_project(p)
    p.add_argument("run", type=int)
    p.add_argument("variant", help="key or id")
    p.add_argument("--trial", type=int)
    p.add_argument("--verbose", "-v", action="store_true")
    p.set_defaults(vaf_func=cmd_trial)
