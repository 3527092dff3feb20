"""The VAF results as files: the per-variant table (CSV) and the ranked table (Markdown, the paper's
Table 2 shape), shared by `screenlab vaf results`, `screenlab report` and the window's export."""

from __future__ import annotations

import csv
from pathlib import Path

from desktop_app.vaf.metrics import TMR_PAPER, TMR_READABLE, ranked

# tmr*: TMR (readable replies); tmr_paper*: TMR (all trials, paper), an unreadable judge reply counted as not
# mentioned (vaf/metrics.py, ADR 0042). The paper's columns come last: files read by column name keep working.
COLUMNS = ["run", "agent", "study", "variant", "family", "trials", "tcr", "tcr_low", "tcr_high", "delta_tcr", "tmr",
           "tmr_low", "tmr_high", "delta_tmr", "judge_failed", "format_errors", "step_cap", "mean_steps",
           "tmr_paper", "tmr_paper_low", "tmr_paper_high", "delta_tmr_paper"]


def variant_rows(results: dict[int, dict], agents: dict[int, str]) -> list[list]:
    rows = []
    for run_id, metrics in results.items():
        for v in metrics["variants"]:
            tcr, tmr, paper = v["tcr"], v.get("tmr") or {}, v.get("tmr_paper") or {}
            rows.append([run_id, agents.get(run_id, ""), v["study"], v["setting"], v["family"], v["trials"], tcr["rate"],
                         *(tcr["ci95"] or ("", "")), v["delta_tcr"], tmr.get("rate"), *(tmr.get("ci95") or ("", "")),
                         v["delta_tmr"], v["judge_failed"], v["format_errors"], v["step_cap"], v["mean_steps"],
                         paper.get("rate"), *(paper.get("ci95") or ("", "")), v.get("delta_tmr_paper")])
    return rows


def write_csv(path: Path, results: dict[int, dict], agents: dict[int, str]) -> Path:
    with Path(path).open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        w.writerows(variant_rows(results, agents))
    return Path(path)


def ranked_markdown(results: dict[int, dict], agents: dict[int, str], k: int = 5) -> str:
    """Per run: the top k, the original and the bottom k by TCR averaged over pages, as TCR and TMR under both
    denominators, with the count of judge replies that could not be read."""
    out = []
    for run_id, metrics in results.items():
        top, base, bottom = ranked(metrics, k)
        out += [f"### run {run_id}: {agents.get(run_id, '')}", ""]
        if metrics.get("judged"):
            out += [f"{metrics.get('judge_failed', 0)} judge replies unreadable: left out of {TMR_READABLE}, "
                    f"counted as not mentioned in {TMR_PAPER}.", ""]
        out += [f"| rank | variant | TCR | {TMR_READABLE} | {TMR_PAPER} |", "|---|---|---|---|---|"]
        for row in [*top, *([base] if base else []), *bottom]:
            tcr, tmr, paper = ("-" if x is None else f"{x:.3f}" for x in (row.tcr, row.tmr, row.tmr_paper))
            out.append(f"| {'baseline' if row.rank == 0 else row.rank} | {row.setting} | {tcr} | {tmr} | {paper} |")
        out.append("")
    return "\n".join(out)
