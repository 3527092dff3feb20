"""`screenlab eval` (each rule set) and `screenlab export` on projects of 10,000 to 1,000,000 predictions.

    .venv/bin/python benchmarks/scale_1m.py [--sizes 10000,100000,1000000] [--repeat 3] [--per-sample]
                                            [--keep DIR] [--no-export]
    .venv/bin/python benchmarks/scale_1m.py --text-answers 100000 [--repeat 3] [--keep DIR]

Each size N is a project of N single-step episodes (3 annotated actions each: gold, distracted,
other) and N predictions from four agents, one per output convention the rule sets
read differently: json-text (text answers, token F1 / result numbers), cogagent (the 0-999 grid read
from the raw answer), seeclick (a literal read from the raw answer) and point-px (ScreenLab's parse);
agent k answered the k-th quarter of the episodes (as runs on four splits would). Answers cycle
through hits on each label, misses and unparsable text; one in 499 requests failed. Scenarios cycle popup, search, recommendation, chat.

How the projects are made: `Project.init` lays out the schema (the migrations), then the rows go in
straight through sqlite3 `executemany` in one transaction (synchronous off), and the answers are parsed as a
run parses each one it writes (evaluation/parsed_answers.py, ADR 0052), not through the importer:
the importer's cost is benchmarks/import_scale.py's subject, and a million images would measure the
disk. Every step shows one 4x4 PNG (one screen row: the schema keeps one screen per image hash), so
the export measures our cost per episode, not PNG copying.

Every figure is measured in a fresh `screenlab` process (`desktop_app.cli.main.main`): seconds of the
command itself (start-up and imports excluded and printed apart), the cost per prediction or
screen (the seconds less the same command's on a project of 200, its fixed cost: imports, opening
the project), and the peak resident memory of that process (its VmHWM), the median of --repeat runs,
with the 1-minute load beside it. The last lines give, per command, the cost per item
at the largest size over the cost at the smallest (linear: about 1). The SHA-256 of what each command
printed or wrote is shown so runs of two versions of the code can be compared. The project is written as runs
leave it: each answer parsed, the text answers' envdistraction flags stored (evaluation/flag_cache.py, ADR 0066).
Each `eval` is timed with those flags forgotten before it (as after every screen's actions were edited: it
scores every answer again), the slowest case; `eval --rules envdistraction` is then timed with them stored.

--text-answers N instead times `eval` under each rule set on a project of N text answers (one json-text run:
issue 36's "100k text answers under either rule set <= 2 s"), the whole command less the interpreter's
start-up, and prints each figure as a row of the README's table (benchmarks/rows.py); under the envdistraction
rules as the first evaluation after the run and with every answer's flags forgotten. runner.py's text
figures time the per-answer scorers (`eval --per-sample`), which `eval` does not use.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from desktop_app.evaluation.parsed_answers import parse_unparsed  # noqa: E402
from desktop_app.evaluation.rows import store_flags  # noqa: E402
from desktop_app.evaluation.rules import RULES  # noqa: E402
from desktop_app.store.media import MediaStore  # noqa: E402
from desktop_app.store.project import Project  # noqa: E402

from benchmarks.import_scale import _tiny_png  # noqa: E402
from benchmarks.rows import emit  # noqa: E402

SCENARIOS = ("popup", "search", "recommendation", "chat")
CONVENTIONS = ("json-text", "cogagent", "seeclick", "point-px")
OUTCOMES = ("gold", "distracted", "other", "miss", "junk", "gold", "distracted")
WORDS = ("close", "offer", "subscribe", "newsletter", "accept", "cookies", "settings", "continue", "shopping",
         "download", "report", "free", "voucher", "claim", "reply", "message", "later", "skip", "survey", "install",
         "app", "website", "account", "verify", "search", "results", "player", "official", "guide", "deal")
WIDTH, HEIGHT = 1280, 800
NOW = "2025-01-02 03:04:05.000000"
BASELINE = 200  # a project this small measures the fixed cost of each command
JUNK = {"json-text": "I would rather not click anything here.", "cogagent": "[[12,abc]]",
        "seeclick": "(0.5+0.1, 0.2)", "point-px": "no idea"}


def _text(i: int, k: int) -> str:
    """A label text: different for most screens, as real pages are."""
    return f"{WORDS[(i + k) % len(WORDS)]} {WORDS[(i * 7 + k * 3) % len(WORDS)]} {WORDS[(i // 30 + k) % len(WORDS)]}"


def _boxes(i: int) -> list[tuple[str, str, tuple[float, float, float, float]]]:
    x, y = 40 + (i * 37) % 800, 60 + (i * 53) % 500
    return [("gold", _text(i, 0), (x, y, x + 200, y + 40)),
            ("distracted", _text(i, 1), (x, y + 60, x + 300, y + 110)),
            ("other", _text(i, 2), (x + 320, y, x + 400, y + 40))]


def _answer(i: int, convention: str, boxes) -> tuple[str, dict, str, int | None]:
    """(raw answer, stored parse, ScreenLab verdict, index of the matched box or None)."""
    outcome = OUTCOMES[(i // 4) % len(OUTCOMES)]
    parsed = {"raw": "", "action_type": "click", "point": None, "box": None, "element": None, "text": None,
              "wrong_format": False, "extra": {}, "calls": 1}
    if outcome == "junk":
        return JUNK[convention], {**parsed, "action_type": None, "wrong_format": True, "how": "none",
                                  "score": 0.0}, "invalid", None
    hit = ("gold", "distracted", "other").index(outcome) if outcome != "miss" else None
    if convention == "json-text":
        element = boxes[hit][1] if hit is not None else f"result {i % 10}"
        raw = json.dumps({"action_type": "click", "element": element})
        return raw, {**parsed, "element": element, "how": "text", "score": 1.0 if hit is not None else 0.0}, \
            outcome if hit is not None else "invalid", hit
    if hit is None:
        x, y = WIDTH - 1.0, HEIGHT - 1.0
    else:
        x1, y1, x2, y2 = boxes[hit][2]
        x, y = (x1 + x2) / 2, (y1 + y2) / 2
    if convention == "cogagent":
        gx, gy = int(x / WIDTH * 999), int(y / HEIGHT * 999)
        raw, x, y = f"CLICK(box=[[{gx},{gy}]])", gx / 999 * WIDTH, gy / 999 * HEIGHT
    elif convention == "seeclick":
        rx, ry = round(x / WIDTH, 3), round(y / HEIGHT, 3)
        raw, x, y = f"({rx},{ry})", rx * WIDTH, ry * HEIGHT
    else:
        raw = f"click({round(x)}, {round(y)})"
        x, y = float(round(x)), float(round(y))
    return raw, {**parsed, "point": [x, y], "how": "point", "score": 1.0 if hit is not None else 0.0}, \
        outcome if hit is not None else "invalid", hit


def generate(folder: Path, n: int, conventions: tuple[str, ...] = CONVENTIONS) -> None:
    """A project of n episodes and n predictions, written with executemany (see the module docstring);
    conventions: one agent and run per output convention, each answering its share of the episodes."""
    Project.init(folder).close()
    png = _tiny_png(0)
    sha = hashlib.sha256(png).hexdigest()
    MediaStore(folder / "media").put(sha, "png", png, durable=False, note=False)
    db = sqlite3.connect(folder / "screenlab.sqlite")
    db.execute("PRAGMA synchronous=OFF")
    with db:
        db.executemany(
            "INSERT INTO agent_profile (id, name, base_url, model, pattern, convention, api_key_ref, params, "
            "created_at) VALUES (?, ?, '', ?, 'direct', ?, '', '{}', ?)",
            [(k + 1, f"agent-{c}", f"model-{c}", c, NOW) for k, c in enumerate(conventions)])
        db.executemany(
            "INSERT INTO run (id, name, profile_id, selection, status, created_at, protocol, options, failure, agent, "
            "kind, model, pattern, convention, samples, excluded, prompt_tokens, completion_tokens, cost, cached, "
            "executions) VALUES (?, ?, ?, '{}', 'done', ?, 'screen', '{}', '', ?, 'openai', ?, 'direct', ?, ?, 0, "
            "?, ?, 0, 0, 1)",
            [(k + 1, f"agent-{c} all samples", k + 1, NOW, f"agent-{c}", f"model-{c}", c, n // len(conventions),
              n * 250, n * 5) for k, c in enumerate(conventions)])
        db.execute("INSERT INTO screen (id, sha256, ext, width, height, platform, source, meta, created_at) "
                   "VALUES (1, ?, 'png', ?, ?, 'web', '', '{}', ?)", (sha, WIDTH, HEIGHT, NOW))
        db.executemany(
            "INSERT INTO episode (id, key, goal, scenario, split, review_status, meta, created_at, updated_at, "
            "version, kind, updated_by) VALUES (?, ?, ?, ?, '', 'accepted', '{}', ?, ?, 1, 'sample', '')",
            ((i + 1, f"ep-{i:07d}", f"Goal {i}: {_text(i, 5)}", SCENARIOS[(i // 4) % 4], NOW, NOW) for i in range(n)))
        db.executemany(
            'INSERT INTO step (id, episode_id, "index", screen_id, instruction, meta) VALUES (?, ?, 0, ?, \'\', \'{}\')',
            ((i + 1, i + 1, 1) for i in range(n)))
        db.executemany(
            "INSERT INTO action_box (id, step_id, x1, y1, x2, y2, label, action_type, element_text, type_text, source, "
            "author, meta, created_at, updated_at, version) VALUES (?, ?, ?, ?, ?, ?, ?, 'click', ?, '', 'import', '', "
            "'{}', ?, ?, 1)",
            ((3 * i + k + 1, i + 1, *box, label, text, NOW, NOW)
             for i in range(n) for k, (label, text, box) in enumerate(_boxes(i))))

        def predictions():
            for i in range(n):
                k = i * len(conventions) // n
                if i % 499 == 498:
                    yield (i + 1, k + 1, i + 1, "", "{}", None, None, "", "error", None, False, None, None, None,
                           "HTTP 500: Error code: 500 - injected", NOW)
                    continue
                raw, parsed, verdict, hit = _answer(i, conventions[k], _boxes(i))
                parsed["raw"] = raw
                point = parsed["point"] or (None, None)
                yield (i + 1, k + 1, i + 1, raw, json.dumps(parsed), *point, parsed["element"] or "", verdict,
                       3 * i + hit + 1 if hit is not None else None, parsed["wrong_format"], 100.0 + i % 900, 250,
                       5, "", NOW)

        db.executemany(
            "INSERT INTO prediction (id, run_id, step_id, raw_text, parsed, x, y, element_text, verdict, "
            "matched_box_id, wrong_format, latency_ms, prompt_tokens, completion_tokens, error, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", predictions())
    db.close()
    with Project.open(folder) as project:
        with project.transaction() as s:
            parse_unparsed(s)  # what a run does as it writes each answer (ADR 0052), here all at once
        store_flags(project, list(range(1, len(conventions) + 1)))  # what a run does when it ends (ADR 0066)


# The command in a fresh interpreter. Its peak memory is VmHWM, the high-water mark of the memory it
# mapped itself: a forked child's ru_maxrss would also count the parent's pages copied before exec.
# cpu: the seconds of CPU the command took, its worker processes' included (they are reaped when it ends): on
# a shared machine the wall time also measures the others' load, the CPU time far less.
CHILD = """
import json, os, resource, sys, time
def cpu():
    return sum(u.ru_utime + u.ru_stime for u in map(resource.getrusage, (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)))
t0 = time.perf_counter()
from desktop_app.cli.main import main
t1, c1 = time.perf_counter(), cpu()
code = main(sys.argv[1:])
t2, c2 = time.perf_counter(), cpu()
hwm = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
with open(os.environ["SCALE_TIMES"], "w") as fh:
    json.dump({"imports": t1 - t0, "work": t2 - t1, "cpu": c2 - c1, "code": code, "rss_mb": hwm / 1024}, fh)
"""


def measure(argv: list[str], work: Path, output: Path | None = None) -> dict:
    """One command in a fresh process: seconds of the work, of start-up, peak RSS (MB), digest of its output."""
    times = work / "times.json"
    out = work / "stdout.txt"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["SCALE_TIMES"] = str(times)
    with open(out, "wb") as fh:
        child = subprocess.run([sys.executable, "-c", CHILD, *argv], cwd=ROOT, env=env, stdout=fh)
    result = json.loads(times.read_text())
    if child.returncode or result["code"]:
        raise SystemExit(f"{' '.join(argv)} failed ({child.returncode}): {out.read_text()[-2000:]}")
    digest = hashlib.sha256(out.read_bytes())
    if output is not None:
        for path in sorted(p for p in output.rglob("*") if p.is_file()):
            digest.update(path.relative_to(output).as_posix().encode() + b"\0" + path.read_bytes())
    return {**result, "sha": digest.hexdigest()[:12], "load": os.getloadavg()[0]}


def median_of(runs: list[dict]) -> dict:
    shas = {r["sha"] for r in runs}
    return {"work": statistics.median(r["work"] for r in runs), "imports": statistics.median(r["imports"] for r in runs),
            "cpu": statistics.median(r["cpu"] for r in runs),
            "rss_mb": max(r["rss_mb"] for r in runs), "sha": "/".join(sorted(shas)),
            "load": statistics.median(r["load"] for r in runs)}


def _project(base: Path, name: str, n: int, conventions: tuple[str, ...] = CONVENTIONS) -> Path:
    """The project of that name in base, generated unless kept from before."""
    project = base / name
    if (project / "screenlab.sqlite").exists():
        print(f"{n:,}: project kept from before in {project}")
        return project
    t0 = time.perf_counter()
    partial = base / f"partial-{name}"  # a kept folder is whole: an interrupted generation leaves no project
    shutil.rmtree(partial, ignore_errors=True)
    generate(partial, n, conventions)
    partial.rename(project)
    print(f"{n:,}: generated {n:,} episodes and predictions ({', '.join(conventions)}) and {3 * n:,} actions "
          f"(answers parsed) in {time.perf_counter() - t0:.1f} s  (load {os.getloadavg()[0]:.2f})")
    return project


def forget_stored_flags(project: Path) -> None:
    """The project as a run leaves it: no answer's envdistraction flags stored yet (evaluation/flag_cache.py)."""
    db = sqlite3.connect(project / "screenlab.sqlite")
    with db:
        db.execute("UPDATE prediction SET cached_flags = NULL")
    db.close()


def text_answers(base: Path, n: int, repeat: int) -> None:
    """`screenlab eval --rules R` of one run of n text answers (json-text: element texts matched by token F1),
    the whole command as a user waits for it less the interpreter's start-up (issue 36: <= 2 s for 100,000),
    printed as a row of the README's table (benchmarks/rows.py). Under the envdistraction rules, twice: the
    first evaluation after the run (which stored the answers' flags as it ended), and with every answer's flags
    forgotten before each (as after every screen's actions were edited: it scores them all and stores them)."""
    project = _project(base, f"text-{n}", n, ("json-text",))
    for name in RULES:
        kinds = [("", False)] if name == "screenlab" else [(", the first evaluation after the run", False),
                                                           (", every answer's flags forgotten", True)]
        for kind, forget in kinds:
            if name != "screenlab" and not forget:  # as the run left the project (generate stores them as it does)
                forget_stored_flags(project)
                with Project.open(project) as opened:
                    store_flags(opened, [1])
            argv = ["eval", str(project), "--json", "--rules", name]
            runs = []
            for _ in range(repeat):
                if forget:
                    forget_stored_flags(project)
                runs.append(measure(argv, base))
            r = median_of(runs)
            print(f"  eval --rules {name:<15} {n:,} text answers{kind}: {r['work']:6.2f} s  peak RSS "
                  f"{r['rss_mb']:5.0f} MB  (start-up {r['imports']:.2f} s; CPU {r['cpu']:.2f} s; output {r['sha']})  "
                  f"goal <= 2 s  (load {r['load']:.2f})", flush=True)
            emit(f"`screenlab eval` of {n:,} text answers, {name} rules{kind}",
                 r["work"], "s", goal="<= 2 s (100,000)", met=r["work"] <= 2 if n >= 100_000 else None, runs=repeat,
                 load=r["load"], note=f"median of fresh processes, interpreter start-up excluded; CPU {r['cpu']:.2f} s",
                 command=f"benchmarks/scale_1m.py --text-answers {n}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000,1000000", help="comma-separated project sizes")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (the median is printed)")
    parser.add_argument("--per-sample", action="store_true", help="also time `eval --per-sample` (all rule sets)")
    parser.add_argument("--keep", type=Path, help="keep the generated projects in this folder")
    parser.add_argument("--no-export", action="store_true",
                        help="time `eval` only (the README's table has no export figure: benchmarks/table.py)")
    parser.add_argument("--text-answers", type=int, metavar="N",
                        help="instead: `eval` under each rule set of a project of N text answers (one json-text run)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    base = args.keep or Path(tempfile.mkdtemp(prefix="screenlab-scale-"))
    base.mkdir(parents=True, exist_ok=True)
    if args.text_answers:
        try:
            text_answers(base, args.text_answers, args.repeat)
        finally:
            if args.keep is None:
                shutil.rmtree(base, ignore_errors=True)
        return
    print("images: every step shows one shared 4x4 PNG (one screen, one media file), so export figures are our "
          "cost per episode, not image copying")
    commands = {f"eval --rules {name}": ["eval", "{p}", "--json", "--rules", name] for name in RULES}
    if args.per_sample:
        commands["eval --per-sample"] = ["eval", "{p}", "--per-sample"]
    if not args.no_export:
        commands["export --format screenlab"] = ["export", "{p}", "{out}", "--format", "screenlab"]
    results: dict[str, dict[int, dict]] = {name: {} for name in commands}
    fixed: dict[str, float] = {}
    try:
        for n in [BASELINE, *sizes]:
            project = base / f"project-{n}"
            if not (project / "screenlab.sqlite").exists():
                t0 = time.perf_counter()
                partial = base / f"partial-{n}"  # a kept folder is whole: an interrupted generation leaves no project
                shutil.rmtree(partial, ignore_errors=True)
                generate(partial, n)
                partial.rename(project)
                print(f"\n{n:,}{' (baseline)' if n == BASELINE else ''}: generated {n:,} episodes and predictions "
                      f"and {3 * n:,} actions (answers parsed) in "
                      f"{time.perf_counter() - t0:.1f} s  (load {os.getloadavg()[0]:.2f})")
            else:
                print(f"\n{n:,}: project kept from before in {project}")
            for name, template in commands.items():
                runs = []
                for _ in range(args.repeat):
                    out = base / "export-out"
                    shutil.rmtree(out, ignore_errors=True)
                    argv = [a.format(p=project, out=out) for a in template]
                    if name.startswith("eval"):  # each as the first evaluation after the runs: no flags stored
                        forget_stored_flags(project)
                    runs.append(measure(argv, base, out if "{out}" in template else None))
                    shutil.rmtree(out, ignore_errors=True)
                r = median_of(runs)
                if n == BASELINE:  # what the command costs whatever the size: imports, opening the project
                    fixed[name] = r["work"]
                    print(f"  {name:<28} {r['work']:7.2f} s  (the fixed cost, taken off the figures per item)  "
                          f"(load {r['load']:.2f})", flush=True)
                    continue
                r["per_item"] = max(r["work"] - fixed[name], 0.0) / n
                results[name][n] = r
                unit = "screen" if name.startswith("export") else "prediction"
                print(f"  {name:<28} {r['work']:7.2f} s  {r['per_item'] * 1e6:8.2f} us/{unit}  peak RSS "
                      f"{r['rss_mb']:6.0f} MB  (start-up {r['imports']:.2f} s; CPU {r['cpu']:.2f} s; output {r['sha']})  "
                      f"(load {r['load']:.2f})", flush=True)
                if name == "eval --rules envdistraction":  # the flags the last one stored (flag_cache.py)
                    again = median_of([measure(argv, base) for _ in range(args.repeat)])
                    print(f"  {name:<28} again, the flags stored: {again['work']:.2f} s  (output {again['sha']})  "
                          f"(load {again['load']:.2f})", flush=True)
        if len(sizes) > 1:
            small, large = min(sizes), max(sizes)
            print(f"\nper-item cost at {large:,} / at {small:,} (linear: ~1.0; goal <= 1.2):")
            for name, by_size in results.items():
                if by_size[small]["per_item"] <= 0:  # lost in the fixed cost's noise at the small size
                    print(f"  {name:<28}   n/a (at {small:,} the command costs no more than its fixed cost)")
                    continue
                ratio = by_size[large]["per_item"] / by_size[small]["per_item"]
                print(f"  {name:<28} {ratio:5.2f}")
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
