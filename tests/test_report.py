"""Result tables (CSV / Markdown / LaTeX) and `screenlab report`, run in-process."""

from __future__ import annotations

import argparse
import re

import pytest
from PIL import Image

from desktop_app.agents.profiles import BASELINES
from desktop_app.cli.common import add_project as _add_project
from desktop_app.cli.report_command import add_report_command
from desktop_app.evaluation import tables
from desktop_app.evaluation.metrics import wilson
from desktop_app.evaluation.rows import prediction_rows, verdict_rows
from desktop_app.formats.transfer import import_path
from desktop_app.paths import demo_dataset_dir
from desktop_app.runs.engine import create_run, execute
from desktop_app.runs.evaluate import evaluate
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter


def rows(agent, pattern, scenario, verdicts, run=1):
    return [{"run": run, "agent": agent, "pattern": pattern, "scenario": scenario, "verdict": v,
             "wrong_format": v == "invalid"} for v in verdicts]


SYNTHETIC = (rows("gpt_4o & co", "cot", "popup", ["gold"] * 3 + ["distracted"] + ["invalid"])
             + rows("gpt_4o & co", "cot", "chat", ["gold", "error"])
             + rows("center", "direct", "popup", ["other", "distracted"], run=2))


def test_tables_pool_rows_and_write_escaped_markdown_and_latex(tmp_path):
    table = tables.build_table(SYNTHETIC, title="Results: 100% of $ & _")
    assert table.rows == [("gpt_4o & co", "cot"), ("center", "direct")]
    assert table.columns == ["chat", "popup", tables.ALL]
    popup = table.cell(("gpt_4o & co", "cot"), "popup")
    assert (popup["n"], popup["acc_gold"], popup["acc_dist"], popup["acc_inv"]) == (5, 0.6, 0.2, 0.2)
    assert popup["acc_gold_ci95"] == pytest.approx(list(wilson(3, 5)), abs=1e-6)
    everything = table.cell(("gpt_4o & co", "cot"), tables.ALL)
    assert (everything["n"], everything["errors"], everything["wrong_format"]) == (6, 1, 1)  # errors left out
    assert table.cell(("center", "direct"), "chat") is None
    assert table.row_n(("center", "direct")) == 2

    md = tables.to_markdown(table, tmp_path / "t.md")
    assert (tmp_path / "t.md").read_text() == md
    assert "| gpt_4o & co | cot | 6 | 100.0 [" in md  # chat: 1 gold of 1 scored
    # no chat sample for center: "-", never 0 %; then popup with Acc_other and the wrong-format count
    assert "| center | direct | 2 | - | - | - | - | - | 0.0 [0.0, 65.8] | 50.0 [9.5, 90.5] | 50.0 [" in md
    assert "| 60.0 [23.1, 88.2] | 20.0 [3.6, 62.4] | 0.0 [0.0, 43.4] | 20.0 [3.6, 62.4] | 1 |" in md
    tex = tables.to_latex(table, tmp_path / "t.tex", label="tab:res")
    assert r"\caption{Results: 100\% of \$ \& \_}" in tex and r"\label{tab:res}" in tex
    assert r"gpt\_4o \& co & cot & 6 & 100.0\,{\scriptsize[" in tex
    assert tex.count(r"\cmidrule(lr)") == 3 and r"\begin{tabular}{llr cccc cccc cccc}" in tex
    data = [line for line in tex.splitlines() if line.startswith(("gpt", "center"))]
    assert [len(re.split(r"(?<!\\)&", line)) for line in data] == [2 + 1 + 3 * 4] * 2  # \& is not a cell
    assert tables.latex_escape("a\\b~c^d{e}#") == r"a\textbackslash{}b\textasciitilde{}c\textasciicircum{}d\{e\}\#"


def test_csv_reads_back_exactly(tmp_path):
    table = tables.build_table(SYNTHETIC)
    back = tables.read_csv(tables.to_csv(table, tmp_path / "t.csv"))
    assert (back.row_fields, back.column_field) == (("agent", "pattern"), "scenario")
    assert back.rows == table.rows and back.columns == table.columns
    for key, cell in table.cells.items():
        assert back.cells[key] == cell, key  # rates are stored rounded to 6 places: exact
    assert tables.to_markdown(back) == tables.to_markdown(table)


def test_overall_and_per_scenario_tables():
    overall = tables.overall_table(SYNTHETIC)
    assert overall.columns == [tables.ALL] and overall.cell(("center", "direct"), tables.ALL)["n"] == 2
    single = tables.overall_table(rows("a", "direct", "popup", ["gold", "invalid"]))
    assert single.cell(("a", "direct"), tables.ALL)["acc_gold"] == 0.5
    papers = tables.paper_tables(SYNTHETIC)
    assert set(papers) == {"by_scenario", "by_pattern", "scenario_chat", "scenario_popup"}
    assert papers["scenario_popup"].columns == ["cot", "direct"]
    assert papers["scenario_popup"].rows == [("gpt_4o & co",), ("center",)]
    with pytest.raises(ValueError):
        tables.write(overall, "x.docx")


@pytest.fixture(scope="module")
def project_with_runs(tmp_path_factory):
    """Read-only for the tests below: the demo with a center and a random run."""
    with Project.init(tmp_path_factory.mktemp("report") / "demo") as project:
        import_path(project, demo_dataset_dir(), "screenlab")
        ids = []
        for name in ("center", "random"):
            ids.append(create_run(project, BASELINES[name], EpisodeFilter()))
            execute(project, ids[-1])
        yield project, ids


def report_args(argv):
    parser = argparse.ArgumentParser(prog="screenlab")
    add_report_command(parser.add_subparsers(dest="command"), _add_project)
    return parser.parse_args(argv)


def test_screenlab_report_writes_tables_and_plots(project_with_runs, tmp_path, capsys):
    project, ids = project_with_runs
    out = tmp_path / "report"
    args = report_args(["report", str(project.folder), "--runs", ",".join(map(str, ids)), "--out", str(out)])
    assert args.func(args) == 0
    names = {p.name for p in out.iterdir()}
    for scenario in ("chat", "popup", "recommendation", "search"):
        assert {f"table_scenario_{scenario}.{fmt}" for fmt in ("csv", "md", "tex")} <= names
    assert {"table_by_scenario.csv", "table_by_scenario.md", "table_by_scenario.tex", "table_by_pattern.csv",
            "plot_overall.png", "plot_by_scenario.png", "plot_by_pattern.png", "summary.md",
            "table_by_rules.csv", "table_by_scenario_envdistraction.csv", "plot_by_rules.png"} <= names
    side = tables.read_csv(out / "table_by_rules.csv")
    assert side.columns == ["screenlab", "envdistraction"]  # both rule sets, side by side, ours first
    summary = (out / "summary.md").read_text()
    assert all(f"run {i}" in summary for i in ids) and "envdistraction" in summary
    assert f"wrote {len(names)} files" in capsys.readouterr().out
    with Image.open(out / "plot_by_scenario.png") as image:
        assert image.width > image.height > 200
        assert len(image.convert("RGB").getcolors(maxcolors=1 << 20)) > 10  # something was drawn

    back = tables.read_csv(out / "table_by_scenario.csv")
    metrics = evaluate(project, ids, ("screenlab",))
    for run_id, agent in zip(ids, ("center", "random"), strict=True):
        got = back.cell((agent, "direct"), tables.ALL)
        want = metrics["runs"][run_id]["metrics"]["screenlab"]["overall"]
        assert (got["n"], got["acc_gold"], got["acc_dist"], got["acc_inv"]) == \
            (want["n"], want["acc_gold"], want["acc_dist"], want["acc_inv"])
        assert got["acc_dist_ci95"] == want["acc_dist_ci95"]
    # the light query agrees with the full prediction rows
    assert tables.build_table(prediction_rows(project, ids)).cells == tables.build_table(
        verdict_rows(project, ids)).cells


def test_report_defaults_and_errors(project_with_runs, tmp_path, capsys):
    project, ids = project_with_runs
    args = report_args(["report", str(project.folder), "--out", str(tmp_path / "all"), "--no-plots"])
    assert args.runs is None and args.func(args) == 0
    assert not list((tmp_path / "all").glob("*.png"))
    assert len(tables.read_csv(tmp_path / "all" / "table_by_scenario.csv").rows) == 2  # every run
    args = report_args(["report", str(project.folder), "--runs", "99", "--out", str(tmp_path / "x")])
    assert args.func(args) == 2 and "no run 99" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        report_args(["report", str(project.folder), "--runs", "a,b"])
