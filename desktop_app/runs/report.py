"""`screenlab report` (and api.write_report): result tables and plots of runs, for a paper.

Writes, into the output folder:
  summary.md                       every run: protocol, state, failures, its metrics in words
  table_by_rules.{csv,md,tex}      the rule sets side by side (single-screen runs, all samples)
  table_by_scenario.{csv,md,tex}   agents x patterns rows, a column group per scenario (+ all)
  table_by_pattern.{csv,md,tex}    agents rows, a column group per working pattern (+ all)
  table_scenario_<name>.{...}      per scenario: agents x patterns (the paper's Tables 3-6)
  table_by_class.{csv,md,tex}      agents x patterns rows, a column group per class of the gold box (when
                                   some gold box has a class: evaluation/target_class.py)
                                   (each of these again with a _<rules> suffix for the second rule set)
  plot_overall.png, plot_by_scenario.png, plot_by_pattern.png, plot_by_rules.png
  vaf_variants.csv, vaf_ranked.md, vaf_delta_heatmap.png   browse runs (page variants): per variant TCR /
                                   TMR with intervals and deltas, the ranked table, the delta heatmap
Plots are drawn with Pillow (evaluation/chart_png.py): no window, no Qt.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from desktop_app.evaluation import tables
from desktop_app.evaluation.chart_png import render_png
from desktop_app.evaluation.rows import rule_rows
from desktop_app.evaluation.rules import check_text_metric
from desktop_app.evaluation.target_class import any_class, with_target_class
from desktop_app.runs.evaluate import DEFAULT_RULES, evaluate, list_runs, summary_lines
from desktop_app.store.project import Project


def write_report(project: Project, run_ids: list[int] | None, out: Path | str, plots: bool = True,
                 palette: str = "colorblind", rules: tuple[str, ...] = DEFAULT_RULES,
                 text_metric: str = "auto", on_progress: Callable[[str, int, int], None] | None = None) -> list[Path]:
    """Everything `screenlab report` writes; returns the files. run_ids None: every run. text_metric: how the
    envdistraction rules score text answers (auto, f1, result-id). on_progress(what, done, total) is called
    before each part (the summary, the page variants' files, the tables, each plot) and once at the end."""
    check_text_metric(rules, text_metric)
    runs = list_runs(project, run_ids)
    if not runs:
        raise ValueError("this project has no runs yet (start one with `screenlab run`)")
    browse = {r.id: r.agent for r in runs if r.protocol == "browse"}
    screen = [r.id for r in runs if r.protocol == "screen"]
    charts = ["overall", "by_scenario", "by_pattern"] + (["by_rules"] if len(rules) > 1 else [])
    parts = 1 + bool(browse) + (bool(screen) * (1 + len(charts) * plots))
    done = 0

    def step(what: str) -> None:
        nonlocal done
        if on_progress is not None:
            on_progress(what, done, parts)
        done += 1

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    summary = out / "summary.md"
    step("summary.md")
    lines = ["# Runs", "", "```", *summary_lines(evaluate(project, [r.id for r in runs], rules, text_metric)), "```",
             ""]
    summary.write_text("\n".join(lines), encoding="utf-8")
    written.append(summary)
    if browse:
        step("page variants")
        written += _vaf_files(project, browse, out, plots)
    if screen:
        step("tables")
        rows = [row for name in rules for row in rule_rows(project, screen, name, text_metric=text_metric)]
        for name, table in tables.paper_tables(rows).items():
            for fmt in ("csv", "md", "tex"):
                written.append(tables.write(table, out / f"table_{name}.{fmt}"))
        classed = with_target_class(project, [r for r in rows if r["rules"] == rules[0]])
        if any_class(classed):  # a project without classes writes what it wrote before
            for fmt in ("csv", "md", "tex"):
                written.append(tables.write(tables.breakdown_table(classed, "class"), out / f"table_by_class.{fmt}"))
        if plots:
            first = [r for r in rows if r["rules"] == rules[0]]
            made = {"overall": lambda: tables.overall_table(first),
                    "by_scenario": lambda: tables.breakdown_table(first, "scenario"),
                    "by_pattern": lambda: tables.breakdown_table(first, "pattern"),
                    "by_rules": lambda: tables.breakdown_table(rows, "rules")}
            for name in charts:
                step(f"plot_{name}.png")
                written.append(render_png(made[name](), out / f"plot_{name}.png", palette))
    step("done")
    return written


def _vaf_files(project: Project, agents: dict[int, str], out: Path, plots: bool) -> list[Path]:
    from desktop_app.vaf import figures, tables
    from desktop_app.vaf.metrics import heatmap, run_metrics

    results = {r: run_metrics(project, r) for r in agents}
    files = [tables.write_csv(out / "vaf_variants.csv", results, agents)]
    ranked = out / "vaf_ranked.md"
    ranked.write_text(tables.ranked_markdown(results, agents), encoding="utf-8")
    files.append(ranked)
    if plots:
        names, columns, cells = heatmap({f"{agents[r]} #{r}": results[r] for r in agents})
        png = out / "vaf_delta_heatmap.png"
        png.write_bytes(figures.heatmap_png(names, columns, cells))
        files.append(png)
    return files
