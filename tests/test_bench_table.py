"""benchmarks/table.py: the README's Measured table is written from the rows benchmarks print (ADR 0053).

No timing is asserted: these check that a row a benchmark prints reaches the table as it was printed, that a
benchmark which fails or prints nothing leaves a line saying so, and that the README changes between its
markers only."""

from __future__ import annotations

import textwrap

import pytest

from benchmarks import table
from benchmarks.rows import Row, emit, parse


def test_a_printed_row_reads_back_as_it_was(capsys):
    emit("zoom step repaint", 7.5, "ms", peer=80.0, peer_name="labelme 5.8.1", goal="<= 0.2x labelme", met=True,
         runs=40, load=1.25)
    line = capsys.readouterr().out.strip()
    row = parse(line)
    assert row == Row(figure="zoom step repaint", ours=7.5, unit="ms", peer=80.0, peer_name="labelme 5.8.1",
                      goal="<= 0.2x labelme", met=True, runs=40, load=1.25)
    assert row.ratio == pytest.approx(7.5 / 80.0)
    assert parse("zoom step repaint: 7.5 ms") is None  # a line for people is not a row


def test_a_benchmark_run_gives_its_rows_and_a_failure_leaves_a_line(tmp_path, capsys):
    good = tmp_path / "good.py"
    good.write_text(textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(table.ROOT)!r})
        from benchmarks.rows import emit
        print("a line for people")
        emit("launch to the first screen painted, idle", 0.9, "s", peer=1.2, peer_name="labelme 5.8.1",
             goal="<= labelme", met=True, runs=7, load=0.5)
    """))
    bad = tmp_path / "bad.py"
    bad.write_text("raise SystemExit('no labelme venv')\n")
    jobs = [table.Job("good", str(good), [["--runs", "7"]], []), table.Job("bad", str(bad), [[]], [])]
    for job in jobs:
        table.run(job, quick=False)
    assert "a line for people" in capsys.readouterr().out  # the benchmark's own output passes through
    assert [r.figure for r in jobs[0].rows] == ["launch to the first screen painted, idle"]
    assert jobs[0].rows[0].command.endswith("good.py --runs 7")
    assert not jobs[0].failures and not jobs[1].rows
    assert "exited 1" in jobs[1].failures[0] and "no labelme venv" in jobs[1].failures[0]

    text = table.table(jobs[0].rows, jobs[1].failures, "heading")
    lines = text.splitlines()
    assert lines[0] == "heading"
    assert lines[2].startswith("| figure | goal | ours | peer | ratio")
    assert lines[4].startswith("| launch to the first screen painted, idle | <= labelme | 0.90 s | 1.20 s (labelme "
                               "5.8.1) | 0.75 | met | 0.50 | 7 |")
    assert lines[5].startswith("| not measured: ") and "no labelme venv" in lines[5]


def test_a_goal_not_met_and_a_figure_without_peer_or_goal_say_so():
    rows = [Row("memory: window + OCR", 600, "MB", peer=300, peer_name="labelme 5.8.1", goal="<= 1.5x labelme",
                met=False, runs=3, load=2.0),
            Row("longest wait of the event loop", 31.0, "ms", runs=3, load=None)]
    text = table.table(rows, [], "h")
    assert "| memory: window + OCR | <= 1.5x labelme | 600 MB | 300 MB (labelme 5.8.1) | 2.00 | **not met** |" in text
    assert "| longest wait of the event loop | - | 31.0 ms | - | - | - | - | 3 |" in text


def test_figures_read_from_the_evaluation_benchmarks_printed_lines():
    # lines as scale_1m.py prints them (its format, with the numbers of one run)
    scale = ("\n1,000,000: generated 1,000,000 episodes and predictions and 3,000,000 actions in 80.1 s  (load 1.10)\n"
             "  eval --rules screenlab         1.33 s      1.21 us/prediction  peak RSS     91 MB  (start-up 0.40 s; "
             "output ab12)  (load 1.20)\n"
             "  eval --rules envdistraction    8.10 s      7.95 us/prediction  peak RSS    159 MB  (start-up 0.41 s; "
             "output cd34)  (load 0.80)\n")
    [row] = table.eval_rows(scale, 3)
    assert (row.figure, row.ours, row.goal, row.met, row.runs, row.load) == (
        "`screenlab eval` on 1,000,000 predictions, envdistraction rules", 8.10, "<= 10 s (1M)", True, 3, 0.80)
    small = scale.replace("1,000,000:", "10,000:")
    assert table.eval_rows(small, 1)[0].met is None  # the goal is for a million: a quick run neither meets nor misses


def test_the_readme_changes_between_its_markers_only(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"# ScreenLab\n\n## Measured\n\n{table.BEGIN}\nold table\n{table.END}\n\n### Reliability\nkept\n")
    table.write_readme(readme, "| figure |\n|---|\n")
    assert readme.read_text() == (f"# ScreenLab\n\n## Measured\n\n{table.BEGIN}\n| figure |\n|---|\n{table.END}\n\n"
                                  "### Reliability\nkept\n")
    readme.write_text("# no markers\n")
    with pytest.raises(SystemExit, match="README.md: no .* markers"):
        table.write_readme(readme, "x")


def test_only_names_known_benchmarks(capsys):
    with pytest.raises(SystemExit):
        table.main(["--only", "canvas,nonsense"])
    assert "no benchmark named nonsense" in capsys.readouterr().err



def test_only_replaces_the_lines_of_the_benchmarks_measured_again(tmp_path, monkeypatch):
    """`--only eval` keeps the other benchmarks' lines as they were written and replaces eval's, in its place."""
    def line(job: str, figure: str) -> str:
        [args] = next(j.full for j in table.jobs() if j.name == job)
        script = next(j.script for j in table.jobs() if j.name == job)
        return f"| {figure} | - | 1.00 s | - | - | - | 0.50 | 3 | `benchmarks/{script} {' '.join(args)}` |"

    before = "\n".join(["old heading. Partial: not run yet: ocr, open_folder.", "",
                        "| figure | goal | ours | peer | ratio (ours / peer) | met | load | runs | command |",
                        "|---|---|---|---|---|---|---|---|---|",
                        line("canvas", "zoom"), line("eval", "eval 1M old"), line("text_answers", "text old"),
                        "| not measured: `benchmarks/ocr.py --runs 3` exited 1: boom | | | | | | | | |"]) + "\n"
    rerun = [j for j in table.jobs() if j.name in ("eval", "ocr")]
    rerun[0].rows = [Row("eval 1M new", 8.0, "s", command="benchmarks/scale_1m.py --sizes 1000000 --repeat 3")]
    rerun[1].rows = [Row("ocr new", 2.0, "s", command="benchmarks/ocr.py --runs 3")]
    fresh = table.table([r for j in rerun for r in j.rows], [], "fresh heading")
    out = table.merged(before, fresh, rerun, False, table.datetime.datetime(2026, 11, 30, 2, 0))
    lines = out.splitlines()
    assert lines[0].startswith("old heading. Measured again 2026-11-30 02:00 UTC: eval, ocr")
    # the heading names every benchmark the table still has no line of (this one has none of four)
    assert lines[0].endswith("Partial: not run yet: cold_start, window_resize, window_memory, open_folder.")
    assert [ln.split(" | ")[0] for ln in lines[4:]] == ["| zoom", "| eval 1M new", "| text old", "| ocr new"]
    assert "boom" not in out  # the failure line of the benchmark measured again is gone with it


def test_a_line_written_before_a_jobs_options_changed_is_still_that_jobs():
    assert table._job_of("| x | `benchmarks/scale_1m.py --sizes 1000000 --repeat 3` |", False) == "eval"
    assert table._job_of("| x | `benchmarks/scale_1m.py --text-answers 100000 --repeat 3` |", False) == "text_answers"
    assert table._job_of("| x | `benchmarks/open_folder.py --count 10000 --runs 3` |", False) == "open_folder"
    assert table._job_of("| x | `benchmarks/runner.py --repeat 3` |", False) is None  # no job of the table now
