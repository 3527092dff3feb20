"""The README's Measured table: every benchmark of it run with its peer, and the table written from their rows.

    .venv/bin/python benchmarks/table.py [--quick] [--only canvas,ocr] [--out docs/measured.md] [--readme]

Each benchmark below is run in a process of its own, its output passed through as it comes, and the
`bench-row:` lines it prints (benchmarks/rows.py) kept. scale_1m.py's eval figures at each size print no such
lines; they are read from its printed lines here (its --text-answers figures are bench-row lines).
The table (figure / goal / ours / peer / ratio / met / load / runs) is printed and written to --out; --readme
also copies it between the markers of README.md's Measured section. --quick runs every benchmark with small
sizes, to see in minutes that each prints its rows: its figures are not the README's (ADR 0053).
A benchmark that fails or prints no row leaves a line saying so in the table, not an old figure.
--only measures some benchmarks again: their lines in the table already written are replaced (each line is
known by its command), the others kept, and the heading says which were measured again and when.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.rows import Row, parse  # noqa: E402

BEGIN, END = "<!-- measured:begin (benchmarks/table.py writes this) -->", "<!-- measured:end -->"


# -- figures read from printed lines (benchmarks whose internals this change leaves alone) -------------------

def eval_rows(text: str, repeat: int) -> list[Row]:
    """scale_1m.py's `eval --rules envdistraction` line at each size above its baseline (goal: 1M in <= 10 s)."""
    rows, size = [], None
    for line in text.splitlines():
        if m := re.match(r"^([\d,]+)(?: \(baseline\))?: ", line):
            size = int(m.group(1).replace(",", ""))
        m = re.match(r"^\s+eval --rules envdistraction\s+again, the flags stored: ([\d.]+) s", line)
        if m and rows and rows[-1].figure.startswith(f"`screenlab eval` on {size:,} "):
            rows[-1].note += f"; with them stored, as a run leaves them: {float(m.group(1)):.2f} s"
            continue
        m = re.match(r"^\s+eval --rules envdistraction\s+([\d.]+) s\s+[\d.]+ us/prediction.*?\(load ([\d.]+)\)", line)
        if m and size:
            seconds, load = float(m.group(1)), float(m.group(2))
            judged = size >= 1_000_000  # the goal is stated for a million; a smaller run cannot meet or miss it
            rows.append(Row(figure=f"`screenlab eval` on {size:,} predictions, envdistraction rules", ours=seconds,
                            unit="s", goal="<= 10 s (1M)", met=(seconds <= 10) if judged else None, load=load,
                            runs=repeat, note="median of fresh processes, start-up excluded; every answer's "
                            "flags forgotten before each (the slowest case: all scored again, ADR 0066)",
                            command="benchmarks/scale_1m.py"))
    return rows


@dataclass
class Job:
    name: str
    script: str
    full: list[list[str]]  # one benchmark may run at several sizes (open_folder: 2,000 and 10,000)
    quick: list[list[str]]
    read: Callable[[str, int], list[Row]] | None = None  # for a benchmark that prints no bench-row lines
    rows: list[Row] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def jobs() -> list[Job]:
    # in this order: what the issue asked about first, the longest set-ups (10,000 PNGs made once) last
    return [
        Job("canvas", "canvas.py", [["--runs", "5", "--screens", "10000"]],
            [["--runs", "2", "--screens", "2000", "--boxes", "2000"]]),
        Job("cold_start", "cold_start.py", [["--runs", "7", "--no-x11"]], [["--runs", "2", "--no-x11", "--skip-next"]]),
        Job("window_resize", "window_resize.py", [["--runs", "5"]], [["--runs", "1", "--steps", "10"]]),
        Job("window_memory", "window_memory.py", [["--episodes", "10000", "--screens", "20", "--runs", "3"]],
            [["--episodes", "500", "--screens", "4", "--runs", "1"]]),
        Job("eval", "scale_1m.py", [["--sizes", "1000000", "--repeat", "3", "--no-export"]],
            [["--sizes", "10000", "--repeat", "1", "--no-export"]],
            read=eval_rows),
        # `eval` of 100,000 text answers under each rule set (its bench-row lines); runner.py's text figures time
        # the per-answer scorers (`eval --per-sample`), which `eval` does not use (ADR 0058)
        Job("text_answers", "scale_1m.py", [["--text-answers", "100000", "--repeat", "3"]],
            [["--text-answers", "2000", "--repeat", "1"]]),
        Job("ocr", "ocr.py", [["--runs", "3"]],  # every engine available, as make bench ran it before
            [["--engines", "rapidocr,tesseract", "--limit", "3", "--runs", "1", "--jitters", "1"]]),
        Job("open_folder", "open_folder.py", [["--count", "2000", "--runs", "3"], ["--count", "10000", "--runs", "3"]],
            [["--count", "300", "--runs", "1"]]),
    ]


def run(job: Job, quick: bool) -> None:
    for args in job.quick if quick else job.full:
        command = [sys.executable, str(ROOT / "benchmarks" / job.script), *args]
        shown = " ".join(["benchmarks/" + job.script, *args])
        print(f"\n### {shown}  (load {os.getloadavg()[0]:.2f})", flush=True)
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        started = time.monotonic()
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, bufsize=1)
        lines = []
        for line in proc.stdout:
            lines.append(line)
            print(line, end="", flush=True)
        proc.wait()
        found = [r for r in map(parse, lines) if r is not None]
        if job.read:
            found = job.read("".join(lines), int(_arg(args, "--repeat") or 1))
        for row in found:
            row.command = row.command or f"benchmarks/{job.script}"
            row.command += f" {' '.join(args)}"
        job.rows += found
        if proc.returncode != 0 or not found:
            tail = next((ln.strip() for ln in reversed(lines) if ln.strip()), "no output")
            job.failures.append(f"`{shown}` {'exited ' + str(proc.returncode) if proc.returncode else 'printed no row'}"
                                f": {tail[:200]}")
        print(f"### {len(found)} rows in {time.monotonic() - started:.0f} s", flush=True)


def _arg(args: list[str], name: str) -> str:
    return args[args.index(name) + 1] if name in args else ""


def number(value: float | None, unit: str = "") -> str:
    if value is None:
        return "-"
    text = f"{value:,.0f}" if abs(value) >= 100 else f"{value:.2f}" if abs(value) < 10 else f"{value:.1f}"
    return f"{text} {unit}".strip()


def table(rows: list[Row], failures: list[str], heading: str) -> str:
    out = [heading, "",
           "| figure | goal | ours | peer | ratio (ours / peer) | met | load | runs | command |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        peer = f"{number(r.peer, r.unit)} ({r.peer_name})" if r.peer is not None else "-"
        met = "-" if r.met is None else "met" if r.met else "**not met**"
        figure = r.figure + (f"; {r.note}" if r.note else "")
        ratio = "-" if r.ratio is None else f"{r.ratio:.2f}"
        load = "-" if r.load is None else f"{r.load:.2f}"
        out.append(f"| {figure} | {r.goal or '-'} | {number(r.ours, r.unit)} | {peer} | {ratio} | {met} | {load} "
                   f"| {r.runs} | `{r.command}` |")
    for failure in failures:
        out.append(f"| not measured: {failure} | | | | | | | | |")
    return "\n".join(out) + "\n"


def heading(quick: bool, started: datetime.datetime, seconds: float) -> str:
    mode = ("`make bench-quick` (small sizes: a check that every benchmark prints its rows, not the README's figures)"
            if quick else "`make bench`")
    return (f"Written by `benchmarks/table.py` from the rows the benchmarks printed: {mode}, "
            f"{started:%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores ({platform.machine()}), {seconds / 60:.0f} min. "
            "Each ratio's peer ran in the same run; the 1-minute load average is the machine's (shared) "
            "while the figure was measured.")


def _job_of(line: str, quick: bool) -> str | None:
    """The name of the job a table line (a row or a "not measured" line) came from, by its command: the script
    and its first option (scale_1m.py's --sizes and --text-answers are two jobs), so a line written before the
    job's options changed is still known as its."""
    for job in jobs():
        for args in job.quick if quick else job.full:
            if f"`benchmarks/{job.script} {args[0] if args else ''}".rstrip() in line:
                return job.name
    return None


def merged(before: str, fresh: str, rerun: list[Job], quick: bool, started: datetime.datetime) -> str:
    """The table `before` with the lines of the re-run jobs replaced by `fresh`'s (in the place of their first
    old line, or at the end), and its heading saying which were measured again and when. A line of no known
    job (a benchmark since renamed) is kept: the heading still dates it."""
    names = {j.name for j in rerun}
    old_head, *old_lines = before.rstrip("\n").split("\n")
    new_lines = [ln for ln in fresh.rstrip("\n").split("\n")[4:]]
    fresh_by_job: dict[str | None, list[str]] = {}
    for ln in new_lines:
        fresh_by_job.setdefault(_job_of(ln, quick), []).append(ln)
    body, placed = [], set()
    for ln in old_lines[3:]:  # after the blank line and the two header lines
        job = _job_of(ln, quick)
        if job in names:
            if job not in placed:
                body += fresh_by_job.get(job, [])
                placed.add(job)
            continue
        body.append(ln)
    for name in [j.name for j in rerun if j.name not in placed]:
        body += fresh_by_job.get(name, [])
    shown = {_job_of(ln, quick) for ln in body}
    head = re.sub(r" Partial: not run yet: [^.]*\.", "", old_head)
    missing = [j.name for j in jobs() if j.name not in shown]
    head += (f" Measured again {started:%Y-%m-%d %H:%M} UTC: {', '.join(sorted(names))}"
             f" (`benchmarks/table.py --only`; load {os.getloadavg()[0]:.2f} at the end).")
    if missing:
        head += f" Partial: not run yet: {', '.join(missing)}."
    return "\n".join([head, *old_lines[:3], *body]) + "\n"


def write_readme(readme: Path, text: str) -> None:
    """The table between the README's markers; everything else in the README stays as it is."""
    body = readme.read_text(encoding="utf-8")
    if BEGIN not in body or END not in body:
        raise SystemExit(f"{readme}: no '{BEGIN}' ... '{END}' markers to write the table between")
    head, rest = body.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    readme.write_text(f"{head}{BEGIN}\n{text}{END}{tail}", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes: every row printed in minutes")
    parser.add_argument("--only", help="comma-separated job names, measured again: their lines in --out's table "
                                        "are replaced, the others kept; " + ", ".join(j.name for j in jobs()))
    parser.add_argument("--out", type=Path, help="the Markdown table (default docs/measured.md, "
                                                 "build/measured-quick.md with --quick)")
    parser.add_argument("--readme", action="store_true", help="also copy the table into README.md's markers")
    args = parser.parse_args(argv)
    chosen = jobs()
    if args.only:
        names = set(args.only.split(","))
        unknown = names - {j.name for j in chosen}
        if unknown:
            parser.error(f"--only: no benchmark named {', '.join(sorted(unknown))}")
        chosen = [j for j in chosen if j.name in names]
    started, clock = datetime.datetime.now(datetime.UTC), time.monotonic()
    out = args.out or ROOT / ("build/measured-quick.md" if args.quick else "docs/measured.md")
    out.parent.mkdir(parents=True, exist_ok=True)
    # --only re-measures some benchmarks: their lines in the table there is are replaced, the rest kept as they are
    before = out.read_text(encoding="utf-8") if args.only and out.exists() else None
    for done, job in enumerate(chosen, 1):
        run(job, args.quick)
        # written after each benchmark, so a run stopped part-way leaves the rows it has, and says so
        waiting = [j.name for j in chosen[done:]]
        text = table([r for j in chosen for r in j.rows], [f for j in chosen for f in j.failures],
                     heading(args.quick, started, time.monotonic() - clock)
                     + (f" Partial: not run yet: {', '.join(waiting)}." if waiting else ""))
        if before is not None:
            text = merged(before, text, chosen[:done], args.quick, started)
        out.write_text(text, encoding="utf-8")
        if args.readme:
            write_readme(ROOT / "README.md", text)
    print("\n" + text)
    print(f"written to {out}" + (" and into README.md's Measured section" if args.readme else ""))
    return 1 if any(j.failures for j in chosen) else 0


if __name__ == "__main__":
    sys.exit(main())
