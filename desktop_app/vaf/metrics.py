"""TCR and TMR per variant with Wilson 95 % intervals, delta against the study's original, ranked
tables (the paper's Table 2), the delta heatmap (its Fig. 2) and click maps (its Fig. 3).

TCR = target clicks / finished trials: a trial that hit the step cap or answered out of format is a
miss, as the paper counts every trial that does not click the target. TMR is given under two
denominators (ADR 0042), each under its own name:
    TMR (readable replies)   mentions / trials whose judge reply was read; an unreadable reply is left out
                             of n and counted apart (ADR 0019; the default of rankings and heatmaps)
    TMR (all trials, paper)  mentions / trials the judge answered, an unreadable reply counted as "not
                             mentioned", as the paper averages its binary label over every trial
A trial whose judge request failed (resume asks it again) is in neither. Delta = rate of the variant -
rate of the original of the same page in the same run.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

from sqlalchemy import select

from desktop_app.evaluation.metrics import wilson
from desktop_app.store import models as m
from desktop_app.store.project import Project
from desktop_app.vaf.browse import ENDED_CAP, ENDED_ERROR, ENDED_FORMAT
from desktop_app.vaf.settings import ORIGINAL

TMR_READABLE = "TMR (readable replies)"
TMR_PAPER = "TMR (all trials, paper)"


def _rate(hits: int, n: int) -> dict:
    ci = wilson(hits, n)
    return {"hits": hits, "n": n, "rate": hits / n if n else None, "ci95": None if ci is None else list(ci)}


def run_metrics(project: Project, run_id: int) -> dict:
    with project.reading() as s:
        rows = s.execute(select(m.BrowseTrial.episode_id, m.BrowseTrial.ended, m.BrowseTrial.target_click,
                                m.BrowseTrial.mention, m.BrowseTrial.judge, m.BrowseTrial.steps)
                         .where(m.BrowseTrial.run_id == run_id)).all()
        errors = s.execute(select(m.BrowseTrial.error).where(m.BrowseTrial.run_id == run_id,
                                                             m.BrowseTrial.ended == ENDED_ERROR)).scalars().all()
        run = s.get(m.Run, run_id)
        ids = sorted({r[0] for r in rows})
        meta = {e: (meta or {}).get("vaf", {}) for e, meta in
                s.execute(select(m.Episode.id, m.Episode.meta).where(m.Episode.id.in_(ids)))} if ids else {}
    judged_run = bool((run.options or {}).get("judge"))
    per: dict[int, dict] = defaultdict(lambda: Counter())
    for episode_id, ended, target_click, mention, judge, steps in rows:
        if ended == ENDED_ERROR:
            continue  # unfinished: not a miss
        c = per[episode_id]
        c["n"] += 1
        c["clicks"] += bool(target_click)
        c["format_errors"] += ended == ENDED_FORMAT
        c["step_cap"] += ended == ENDED_CAP
        c["steps"] += len(steps or [])
        if mention is not None:
            c["judged"] += 1
            c["mentions"] += mention
        elif (judge or {}).get("failed"):
            c["judge_failed"] += 1
        else:
            c["unjudged"] += 1  # the judge's request failed (or it was not asked yet): resume asks it
    variants = []
    for episode_id, c in per.items():
        info = meta.get(episode_id, {})
        variants.append({"episode_id": episode_id, "study": info.get("page", {}).get("name", ""),
                         "setting": info.get("setting", ""), "family": info.get("family", ""),
                         "tcr": _rate(c["clicks"], c["n"]), "tmr": _rate(c["mentions"], c["judged"]) if judged_run else None,
                         "tmr_paper": _rate(c["mentions"], c["judged"] + c["judge_failed"]) if judged_run else None,
                         "trials": c["n"], "format_errors": c["format_errors"], "step_cap": c["step_cap"],
                         "judge_failed": c["judge_failed"], "mean_steps": c["steps"] / c["n"] if c["n"] else None})
    originals = {v["study"]: v for v in variants if v["family"] == ORIGINAL}
    for v in variants:
        base = originals.get(v["study"])
        for key in ("tcr", "tmr", "tmr_paper"):
            mine, theirs = v.get(key), (base or {}).get(key)
            v[f"delta_{key}"] = (mine["rate"] - theirs["rate"]) if mine and theirs and mine["rate"] is not None \
                and theirs["rate"] is not None else None
    variants.sort(key=lambda v: (v["study"], v["family"] != ORIGINAL, v["setting"]))
    total = sum(v["trials"] for v in variants)
    clicks = sum(v["tcr"]["hits"] for v in variants)
    out = {"variants": variants, "trials": total, "tcr": _rate(clicks, total),
           "expected_trials": run.samples or 0, "judged": judged_run, "failed": len(errors),
           "failures": dict(Counter(errors).most_common(3))}
    if judged_run:
        judged = sum(v["tmr"]["n"] for v in variants)
        out["tmr"] = _rate(sum(v["tmr"]["hits"] for v in variants), judged)
        out["judge_failed"] = sum(v["judge_failed"] for v in variants)
        out["tmr_paper"] = _rate(out["tmr"]["hits"], judged + out["judge_failed"])
        out["unjudged"] = sum(per[v["episode_id"]]["unjudged"] for v in variants)
    return out


@dataclass(frozen=True)
class RankedRow:
    rank: int
    setting: str
    tcr: float | None
    tmr: float | None  # TMR (readable replies)
    studies: int  # pages averaged over
    tmr_paper: float | None = None  # TMR (all trials, paper)


def averaged(metrics: dict) -> dict[str, dict]:
    """Per setting, TCR / TMR / deltas averaged over the run's pages (the paper averages over its five sites)."""
    by: dict[str, list[dict]] = defaultdict(list)
    for v in metrics.get("variants", []):
        by[v["setting"]].append(v)

    def mean(values):
        values = [x for x in values if x is not None]
        return sum(values) / len(values) if values else None

    return {name: {"tcr": mean(v["tcr"]["rate"] for v in vs),
                   "tmr": mean(v["tmr"]["rate"] for v in vs if v.get("tmr")),
                   "tmr_paper": mean(v["tmr_paper"]["rate"] for v in vs if v.get("tmr_paper")),
                   "delta_tcr": mean(v["delta_tcr"] for v in vs), "delta_tmr": mean(v["delta_tmr"] for v in vs),
                   "delta_tmr_paper": mean(v.get("delta_tmr_paper") for v in vs),
                   "studies": len(vs), "family": vs[0]["family"]} for name, vs in by.items()}


def ranked(metrics: dict, k: int = 5) -> tuple[list[RankedRow], RankedRow | None, list[RankedRow]]:
    """(top k, the original, bottom k) by averaged TCR, ties broken by name; ranks count every variant."""
    rows = averaged(metrics)
    base = rows.pop(ORIGINAL, None)
    order = sorted(((name, r) for name, r in rows.items() if r["tcr"] is not None),
                   key=lambda x: (-x[1]["tcr"], x[0]))
    table = [RankedRow(i + 1, name, r["tcr"], r["tmr"], r["studies"], r["tmr_paper"])
             for i, (name, r) in enumerate(order)]
    baseline = RankedRow(0, ORIGINAL, base["tcr"], base["tmr"], base["studies"], base["tmr_paper"]) if base else None
    return table[:k], baseline, table[max(k, len(table) - k):]


def heatmap(metrics_by_column: dict[str, dict], key: str = "delta_tcr") -> tuple[list[str], list[str], list[list]]:
    """(rows = settings, columns, cells) of an averaged value per setting and column (an agent's run,
    or a run on one page); a setting a column did not run is None (drawn grey, "n/a")."""
    tables = {col: averaged(metrics) for col, metrics in metrics_by_column.items()}
    names = []
    for table in tables.values():
        names += [n for n in table if n not in names and n != ORIGINAL]
    columns = list(tables)
    cells = [[(tables[c].get(n) or {}).get(key) for c in columns] for n in names]
    return names, columns, cells


def click_points(project: Project, run_ids: list[int], episode_id: int) -> list[dict]:
    """Where each finished trial's click landed on the variant's page: x, y, the item hit, on target."""
    with project.reading() as s:
        rows = s.execute(select(m.BrowseTrial.run_id, m.BrowseTrial.trial, m.BrowseTrial.click_x,
                                m.BrowseTrial.click_y, m.BrowseTrial.hit_item, m.BrowseTrial.target_click)
                         .where(m.BrowseTrial.run_id.in_(run_ids), m.BrowseTrial.episode_id == episode_id,
                                m.BrowseTrial.click_x.is_not(None))).all()
    return [{"run_id": r, "trial": t, "x": x, "y": y, "item": item, "target": bool(hit)}
            for r, t, x, y, item, hit in rows]


def item_counts(points: list[dict], items: list[dict]) -> list[tuple[str, int, bool]]:
    """(item text, clicks, is the target) most clicked first, then clicks on no item."""
    counts = Counter(p["item"] for p in points)
    by_index = {i["index"]: i for i in items}
    out = [((by_index.get(idx) or {}).get("text", f"item {idx}")[:80], n, bool((by_index.get(idx) or {}).get("target")))
           for idx, n in counts.most_common() if idx is not None]
    if counts.get(None):
        out.append(("(no item)", counts[None], False))
    return out


def trials_of(project: Project, run_id: int, episode_id: int) -> list[dict]:
    with project.reading() as s:
        rows = s.execute(select(m.BrowseTrial).where(m.BrowseTrial.run_id == run_id,
                                                     m.BrowseTrial.episode_id == episode_id)
                         .order_by(m.BrowseTrial.trial)).scalars().all()
        return [{"trial": r.trial, "ended": r.ended, "error": r.error, "click": [r.click_x, r.click_y] if r.click_x is not None else None,
                 "hit_item": r.hit_item, "target_click": r.target_click, "mention": r.mention, "judge": r.judge,
                 "steps": r.steps} for r in rows]


def _pct(rate: dict | None) -> str:
    if not rate or rate.get("rate") is None or rate.get("ci95") is None:
        return "-"
    low, high = rate["ci95"]
    return f"{100 * rate['rate']:5.1f} % [{100 * low:.1f}, {100 * high:.1f}]  ({rate['hits']}/{rate['n']})"


def summary_lines(metrics: dict) -> list[str]:
    lines = [f"{'TCR':<24} {_pct(metrics.get('tcr'))}"]
    if metrics.get("judged"):
        lines.append(f"{TMR_READABLE:<24} {_pct(metrics.get('tmr'))}")
        lines.append(f"{TMR_PAPER:<24} {_pct(metrics.get('tmr_paper'))}")
        lines.append(f"{metrics.get('judge_failed', 0)} judge replies unreadable (left out of the first, "
                     "counted as not mentioned in the second)")
        if metrics.get("unjudged"):
            lines.append(f"{metrics['unjudged']} trials not judged yet (the judge's request failed; --resume asks it)")
    missing = (metrics.get("expected_trials") or 0) - metrics.get("trials", 0)
    if missing > 0:
        lines.append(f"{missing} trials not finished (--resume asks them)")
    for error, n in (metrics.get("failures") or {}).items():
        lines.append(f"  {n} failed: {error[:160]}")
    top, base, bottom = ranked(metrics, 3)
    if base:
        lines.append(f"{'original':<12} TCR {100 * base.tcr:.1f} %" if base.tcr is not None else "original: -")
    for title, rows in (("best", top), ("worst", bottom)):
        if rows:
            lines.append(f"{title:<12} " + ", ".join(f"{r.setting} {100 * r.tcr:.0f} %" for r in rows))
    return lines
