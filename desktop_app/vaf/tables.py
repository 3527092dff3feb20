"""The VAF results as files: the per-variant table (CSV) and the ranked table (Markdown, the paper's
Table 2 shape), shared by `screenlab vaf results`, `screenlab report` and the window's export."""

from __future__ import annotations

import csv
from pathlib import Path

from desktop_app.vaf.metrics import ranked

COLUMNS = ["run", "agent", "study", "variant", "family", "trials", "tcr", "tcr_low", "tcr_high", "delta_tcr", "tmr",
           "tmr_low", "tmr_high", "delta_tmr", "judge_failed", "format_errors", "step_cap", "mean_steps"]


def variant_rows(results: dict[int, dict], agents: dict[int, str]) -> list[list]:
    rows = []
    for run_id, metrics in results.items():
        for v in metrics["variants"]:
            tcr, tmr = v["tcr"], v.get("tmr") or {}
            rows.append([run_id, agents.get(run_id, ""), v["study"], v["setting"], v["family"], v["trials"], tcr["rate"],
                         *(tcr["ci95"] or ("", "")), v["delta_tcr"], tmr.get("rate"), *(tmr.get("ci95") or ("", "")),
                         v["delta_tmr"], v["judge_failed"], v["format_errors"], v["step_cap"], v["mean_steps"]])
    return rows


def write_csv(path: Path, results: dict[int, dict], agents: dict[int, str]) -> Path:
    with Path(path).open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        w.writerows(variant_rows(results, agents))
    return Path(path)


def ranked_markdown(results: dict[int, dict], agents: dict[int, str], k: int = 5) -> str:
    """Per run: the top k, the original and the bottom k by TCR averaged over pages, as TCR / TMR."""
    out = []
    for run_id, metrics in results.items():
        top, base, bottom = ranked(metrics, k)
        out += [f"### run {run_id}: {agents.get(run_id, '')}", "", "| rank | variant | TCR | TMR |", "|---|---|---|---|"]
        for row in [*top, *([base] if base else []), *bottom]:
            tcr = "-" if row.tcr is None else f"{row.tcr:.3f}"
            tmr = "-" if row.tmr is None else f"{row.tmr:.3f}"
            out.append(f"| {'baseline' if row.rank == 0 else row.rank} | {row.setting} | {tcr} | {tmr} |")
        out.append("")
    return "\n".join(out)
