"""Reliability under attack (issue 20): bad inputs, kills, concurrent writers, hostile pages and leaked keys, counted.

    .venv/bin/python benchmarks/reliability.py [--only imports,answers,kills,window,writers,hostile,secrets,bombs]
        [--examples 20] [--answers 1000] [--seed 1] [--timeout 30] [--jobs 1] [--formats screenlab,images] [--show 3]
        [--import-kills 4] [--kill-images 300] [--run-kills 4] [--kill-samples 120]
        [--window-kills 3] [--writer-loops 2] [--backends sqlite,postgresql] [--hostile-payloads all|one]

Every section prints the load average before and after it (2-core machines share them with other work), and the
end a table of issue 20's rows with their goals. The default counts keep the whole run to a few minutes; the
issue's full counts are --examples 2000 --answers 2000 (and benchmarks/kill_safety.py's own defaults).

imports  for every importer of the format registry, --examples cases made by the generator of
         tests/test_fuzz_importers.py (the format's small valid dataset with one to three mutations: wrong types,
         missing fields, 1e400, 5,000-digit integers, NaN, deep nesting, invalid UTF-8, lone surrogates, Latin-1
         file names, truncated and bomb images, `..`, absolute paths, links out of the folder, pipes), each imported
         into a copy of a project that already holds work. Counted:
           imported  the import went through (and the project then exports)
           refused   a FormatError naming a file of the dataset, in words, the project exactly as it was
           crashed   any other exception (or the worker process died)
           changed   refused, but the project changed (a row or a media file)
           hung      no answer within --timeout seconds (the case runs in a worker process, killed and replaced)
           other     refused with a message naming no file or showing Python internals; a picture from outside
                     the imported folder in the project; an accepted import whose export then crashed; the
                     generator itself failing (a harness error, listed with the failures)
answers  for every output convention, --answers generated model answers (tests/test_conventions.py: random text,
         JSON with wrong types, huge numbers, NaN, nested JSON, lone surrogates, some 1 MB long) parsed; counted as
         parsed / wrong_format / crashed (an exception, or the last-resort guard in conventions/base.py catching
         one) / non-finite (a point that is not a finite number), with the slowest parse.
kills    benchmarks/kill_safety.py's loops (tests/test_kill_safety.py's harness) with small counts: `screenlab
         import` and `screenlab run` killed with SIGKILL at random moments; integrity, all or nothing, what the
         orphan sweep takes, committed answers asked again after `--resume`.
window   the real main window (offscreen, its own process) drawing boxes, killed with SIGKILL after a random
         number of boxes it showed as saved (tests/window_kill.py, shared with tests/test_gui_crash_safety.py):
         edits shown as saved and then missing from the database.
writers  tests/writer_loops.py (shared with tests/test_concurrent_writers.py) on SQLite and on a throw-away
         PostgreSQL server (tests/pg_server.py, as tests/conftest.py's pg_server starts it): per loop, an import
         while a run writes predictions (fake OpenAI server), two processes editing boxes through desktop_app.api
         on the same screens, agent profiles and runs made during an import. 'database is locked' (and lock
         timeouts) in every child's stderr and in stored errors, runs left running, failed writes, edits lost.
hostile  tests/hostile_pages.py (shared with tests/test_hostile_pages.py): <script>, an <img> and CSS url() at a
         local listener, a javascript: link, an RTL override and 100 KB in every LLM-written field of every
         synthesised page shape (Chromium, render_scene and generate() against the fake LLM), as VAF variant-table
         values and as a VAF page's own markup, and as a trajectory's texts in the labeller, a run's name and
         failure in the run list and a model's answer texts on its card (Qt): fields tried, rendered escaped,
         refused cleanly, connections that reached the listener.
bombs    tests/bombs.py's decompression bombs at issue 34's sizes (1.5-5 MB on disk: Parquet GZIP, Snappy and
         ZSTD pages, GZIP TFRecord, GZIP JSON Lines) and oversized texts (a 200 MB CVAT attribute, a billion-laughs
         DOCTYPE, a 100 MB and a 2 MB Sphinx node text), each imported by `screenlab import` in its own process:
         refused or not, peak RSS (the child's ru_maxrss) and seconds. Goal: every one refused naming its file,
         under 300 MB and 5 s.
secrets  tests/secrets_sweep.py (shared with tests/test_secrets_sweep.py): three keys through synthesis, runs, a
         judge run, exports, a report and crash logs against servers that echo them; every file, SQLite .dump and
         printed output searched for any 12 characters of a key. Then a key pasted as --api-key-env (refused), a
         key no profile names echoed in a server's errors, eval, export and a crash: the same search.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import math
import multiprocessing
import os
import random
import signal
import sys
import tempfile
import time
from dataclasses import dataclass
from multiprocessing.connection import wait
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import test_conventions as answers  # noqa: E402  (the answer generator)
import test_fuzz_importers as fuzz  # noqa: E402  (the dataset generator and the judge of a case)
from scoped_env import environment  # noqa: E402

from desktop_app.agents.conventions import CONVENTIONS, parse_action  # noqa: E402

IMPORT_COLUMNS = ("tried", "refused", "imported", "crashed", "changed", "hung", "other")
PARSE_COLUMNS = ("tried", "parsed", "wrong_format", "crashed", "non-finite")
SECTIONS = ("imports", "answers", "kills", "window", "writers", "hostile", "secrets", "bombs")


# --------------------------------------------------------------------------- importers, one worker per job


def _case(fmt: str, seed: int, index: int, template: Path, seconds: float) -> tuple[str, str, str]:
    rng = random.Random(f"{seed}-{fmt}-{index}")
    ds, outcome = fuzz.one_case(fmt, rng, count=rng.randint(1, 3), template=template, seconds=seconds)
    return outcome.kind, outcome.detail, " | ".join(ds.log)


def _serve(conn, template: Path, seconds: float) -> None:
    """A worker: runs the cases it is sent, one at a time, and answers each."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    while True:
        job = conn.recv()
        if job is None:
            return
        fmt, seed, index = job
        try:
            kind, detail, log = _case(fmt, seed, index, template, seconds)
        except Exception as exc:  # noqa: BLE001 - the generator or the judge failed, not the import: said apart
            kind, detail, log = "harness error", f"{type(exc).__name__}: {exc}", ""
        conn.send((fmt, index, kind, detail[:2000], log[:1000]))


class Worker:
    def __init__(self, ctx, template: Path, seconds: float):
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_serve, args=(child, template, seconds), daemon=True)
        self.process.start()
        child.close()
        self.job: tuple | None = None
        self.sent = 0.0

    def send(self, job) -> None:
        self.conn.send(job)
        self.job, self.sent = job, time.monotonic()

    def stop(self) -> None:
        self.process.kill()
        self.process.join()


def fuzz_importers(formats: list[str], examples: int, seed: int, seconds: float, jobs: int):
    counts = {fmt: collections.Counter() for fmt in formats}
    examples_of = collections.defaultdict(list)  # (fmt, kind) -> [(log, detail)]
    ctx = multiprocessing.get_context("fork")
    with tempfile.TemporaryDirectory(prefix="reliability-") as tmp:
        template = fuzz.template_project(Path(tmp))
        pending = collections.deque((fmt, seed, i) for fmt in formats for i in range(examples))
        total, done, started = len(pending), 0, time.monotonic()
        workers = [Worker(ctx, template, seconds) for _ in range(jobs)]
        try:
            while pending or any(w.job for w in workers):
                for w in workers:
                    if w.job is None and pending:
                        w.send(pending.popleft())
                ready = wait([w.conn for w in workers if w.job], timeout=1.0)
                for n, w in enumerate(workers):
                    if w.job is None:
                        continue
                    result, lost = None, False
                    if w.conn in ready:
                        try:
                            result = w.conn.recv()
                        except EOFError:  # the process died (a segfault, the OOM killer)
                            result, lost = (*w.job[::2], "crashed", "the worker process died", ""), True
                    elif time.monotonic() - w.sent > seconds + 15:  # the in-process deadline did not fire
                        result, lost = (*w.job[::2], "hung", f"no answer after {seconds + 15:g} s (killed)", ""), True
                    if result is None:
                        continue
                    fmt, _index, kind, detail, log = result
                    column = kind if kind in IMPORT_COLUMNS else "other"
                    counts[fmt]["tried"] += 1
                    counts[fmt][column] += 1
                    if column not in ("imported", "refused"):
                        examples_of[(fmt, kind)].append((log, detail))
                    done += 1
                    if lost:
                        w.stop()
                        workers[n] = Worker(ctx, template, seconds)
                    else:
                        w.job = None
                if done and done % 500 == 0:
                    print(f"  ... {done}/{total} cases, {time.monotonic() - started:.0f} s", file=sys.stderr)
        finally:
            for w in workers:
                w.stop()
    return counts, examples_of


# --------------------------------------------------------------------------- parsers, in this process


def fuzz_parsers(count: int, seed: int, seconds: float):
    counts = {name: collections.Counter() for name in CONVENTIONS}
    slowest = {name: (0.0, "") for name in CONVENTIONS}
    examples_of = collections.defaultdict(list)
    for i in range(count):
        rng = random.Random(f"{seed}-answer-{i}")
        text = answers.hostile_answer(rng, big=i % 200 == 0)  # one answer in 200 may hold 1 MB strings
        for name in CONVENTIONS:
            counts[name]["tried"] += 1
            started = time.perf_counter()
            try:
                with fuzz.deadline(seconds):
                    action = parse_action(name, text, 1280, 800)
            except fuzz.Hung:
                counts[name]["crashed"] += 1
                examples_of[name].append((text[:200], f"no answer after {seconds:g} s"))
                continue
            except Exception as exc:  # noqa: BLE001 - counted: parse_action must never raise on a model's text
                counts[name]["crashed"] += 1
                examples_of[name].append((text[:200], f"{type(exc).__name__}: {exc}"))
                continue
            took = time.perf_counter() - started
            if took > slowest[name][0]:
                slowest[name] = (took, f"{len(text):,} characters")
            values = (*(action.point or ()), *(action.box or ()))
            if "parser_error" in action.extra:  # the guard in base.run caught an exception: a crash all the same
                counts[name]["crashed"] += 1
                examples_of[name].append((text[:200], action.extra["parser_error"]))
            elif not all(math.isfinite(v) for v in values):
                counts[name]["non-finite"] += 1
                examples_of[name].append((text[:200], f"point {action.point}"))
            elif action.wrong_format:
                counts[name]["wrong_format"] += 1
            else:
                counts[name]["parsed"] += 1
    return counts, slowest, examples_of


# --------------------------------------------------------------------------- printing


def table(title: str, rows: dict[str, collections.Counter], columns: tuple[str, ...], extra=None) -> None:
    width = max(len(title), *(len(r) for r in rows), 5)
    head = f"{title:<{width}}  " + "  ".join(f"{c:>12}" for c in columns) + ("  slowest" if extra else "")
    print(head)
    print("-" * len(head))
    total = collections.Counter()
    for name, counter in rows.items():
        total.update(counter)
        print(f"{name:<{width}}  " + "  ".join(f"{counter[c]:>12,}" for c in columns)
              + (f"  {extra[name][0]:.2f} s ({extra[name][1]})" if extra else ""))
    print(f"{'all':<{width}}  " + "  ".join(f"{total[c]:>12,}" for c in columns))
    print()



def load() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def print_rows(rows: list[tuple[str, str]]) -> None:
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"  {name:<{width}}  {value}")


@dataclass
class Row:
    """One row of issue 20's table: what was tried, what came of it, the goal, whether it was met."""

    what: str
    measured: str
    goal: str
    clean: bool
    load: str = ""


@contextlib.contextmanager
def user_folders(work: Path):
    """This process's and its children's settings, data and logs under `work`: never the user's own."""
    with environment(**{f"SCREENLAB_{v}_DIR": str(work / "user" / v.lower()) for v in ("CONFIG", "DATA", "LOG")}):
        yield


# --------------------------------------------------------------------------- the sections


def section_imports(args, _work: Path, failures: list) -> list[Row]:
    formats = [f for f in args.formats.split(",") if f] or sorted(fuzz.SAMPLES)
    started = time.monotonic()
    imports, import_failures = fuzz_importers(formats, args.examples, args.seed, args.timeout, args.jobs)
    print(f"Bad import inputs ({args.examples:,} per importer, seed {args.seed}, {time.monotonic() - started:.0f} s, "
          f"timeout {args.timeout:g} s, {args.jobs} worker{'s' if args.jobs != 1 else ''})")
    table("importer", imports, IMPORT_COLUMNS)
    failures += [(f"{fmt}: {kind}", found) for (fmt, kind), found in sorted(import_failures.items())]
    total = sum(imports.values(), collections.Counter())
    bad = sum(total[c] for c in ("crashed", "changed", "hung", "other"))
    return [Row(f"bad import inputs ({len(formats)} importers x {args.examples})",
                f"{total['tried']:,} tried: {total['refused']:,} refused cleanly, {total['imported']:,} imported; "
                f"{bad} crashed, hung or not clean", "all refused cleanly or imported", bad == 0)]


def section_answers(args, _work: Path, failures: list) -> list[Row]:
    started = time.monotonic()
    parses, slowest, parse_failures = fuzz_parsers(args.answers, args.seed, args.timeout)
    print(f"Model answers ({args.answers:,} per convention, seed {args.seed}, {time.monotonic() - started:.0f} s)")
    table("convention", parses, PARSE_COLUMNS, slowest)
    failures += [(f"{name}: parser", found) for name, found in sorted(parse_failures.items())]
    total = sum(parses.values(), collections.Counter())
    worst = max(slowest.values(), key=lambda v: v[0])
    return [Row(f"model answers ({len(parses)} conventions x {args.answers})",
                f"{total['tried']:,} parsed: {total['crashed']} crashed, {total['non-finite']} non-finite "
                f"(slowest {worst[0]:.2f} s)", "0 crashed, 0 non-finite",
                total["crashed"] == 0 and total["non-finite"] == 0)]


def section_kills(args, _work: Path, failures: list) -> list[Row]:
    from benchmarks import kill_safety

    with contextlib.redirect_stdout(io.StringIO()):  # what the in-process `screenlab import` re-imports print
        imports, runs = kill_safety.measure(args.import_kills, args.kill_images, args.run_kills, args.kill_samples,
                                            seed=args.seed)
    print(f"Kills (SIGKILL) during `screenlab import` and `screenlab run` ({imports.seconds + runs.seconds:.0f} s)")
    print_rows(kill_safety.rows(imports, runs))
    print()
    clean = (imports.integrity_ok == imports.all_or_nothing == imports.kills and imports.left_after_sweep == 0
             and runs.committed_asked_again == 0 and runs.answered_once and runs.final_status == "done")
    if not clean:
        failures.append(("kills", [(str(imports), ""), (str(runs), "")]))
    return [Row(f"kill -9 during imports ({imports.images} screenshots) / runs (+ --resume, {runs.samples} samples)",
                f"{imports.kills} import kills: integrity ok {imports.integrity_ok}, all or nothing "
                f"{imports.all_or_nothing}, left after the sweep {imports.left_after_sweep}; {runs.kills} run kills: "
                f"committed answers asked again {runs.committed_asked_again}, answered exactly once "
                f"{'yes' if runs.answered_once else 'NO'}",
                "every kill sound and all or nothing, 0 left, 0 asked again", clean)]


def section_window(args, work: Path, failures: list) -> list[Row]:
    import window_kill

    rng = random.Random(args.seed)
    project = window_kill.demo_project(work / "window" / "project")
    outcomes = []
    started = time.monotonic()
    for n in range(args.window_kills):
        kill_after = rng.randint(1, 40)
        outcome = window_kill.kill_while_drawing(project, work / "window", kill_after, annotator=f"killed-{n}")
        outcomes.append(outcome)
        print(f"  kill {n + 1}: after {kill_after} boxes shown as saved: shown {outcome.shown}, stored "
              f"{outcome.stored}, integrity {'ok' if outcome.integrity_ok else 'NOT ok'}"
              + ("" if outcome.killed else " (the window ended before the kill)"))
    shown, lost = sum(o.shown for o in outcomes), sum(o.lost for o in outcomes)
    killed = sum(o.killed for o in outcomes)
    sound = sum(o.integrity_ok for o in outcomes)
    print(f"Window killed while drawing: {killed} kills, {shown} boxes shown as saved, {lost} lost, integrity ok "
          f"{sound} of {len(outcomes)} ({time.monotonic() - started:.0f} s)\n")
    clean = lost == 0 and sound == len(outcomes) and killed == len(outcomes)
    if not clean:
        failures.append(("window", [(f"kill after {o.shown}", f"stored {o.stored}; {o.stderr[-300:]}")
                                    for o in outcomes if o.lost or not o.killed or not o.integrity_ok]))
    return [Row(f"window killed while drawing ({len(outcomes)} kills)",
                f"{shown} edits shown as saved, {lost} lost; integrity ok {sound} of {len(outcomes)}",
                "0 lost", clean)]


def section_writers(args, work: Path, failures: list) -> list[Row]:
    import writer_loops

    out = []
    for backend in [b for b in args.backends.split(",") if b]:
        pg = None
        if backend == "postgresql":
            from pg_server import PgServer, binaries

            if binaries() is None:
                print("PostgreSQL is not installed (apt-get install postgresql): its loops are left out\n")
                out.append(Row("concurrent writers on postgresql", "not measured: PostgreSQL is not installed",
                               "0", False))
                continue
            pg = PgServer().start()
        try:
            if pg is not None:
                pg.wait_ready()
            figures = writer_loops.writer_loops(backend, work / f"writers-{backend}", args.writer_loops, pg=pg)
        finally:
            if pg is not None:
                pg.stop()
        print(f"Concurrent writers on {backend}")
        print_rows(writer_loops.rows(figures))
        for problem in figures.problems:
            print(f"    {problem}")
        print(f"  load {load()}\n")
        clean = (figures.locked, figures.left_running, figures.failed_writes, figures.edits_lost) == (0, 0, 0, 0)
        if not clean:
            failures.append((f"writers on {backend}", [(p, "") for p in figures.problems]))
        out.append(Row(f"concurrent writers on {backend} ({figures.loops} loops of 3 scenes)",
                       f"'database is locked' {figures.locked}; runs left running {figures.left_running}, failed "
                       f"writes {figures.failed_writes}, edits lost {figures.edits_lost} ({figures.edits} edits, "
                       f"{figures.imports} imports, {figures.runs + figures.runs_created} runs; writes overlapped in "
                       f"{figures.overlapped} of {figures.scenes} scenes)", "all 0", clean))
    return out


def section_hostile(args, work: Path, failures: list) -> list[Row]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import hostile_pages

    from desktop_app.render.renderer import Renderer
    from desktop_app.store.project import Project

    started = time.monotonic()
    with hostile_pages.Listener() as listener, Renderer() as renderer, \
            Project.init(work / "hostile" / "project") as project:
        texts = hostile_pages.payloads(listener.port)
        from desktop_app.formats.transfer import import_path
        from desktop_app.paths import demo_dataset_dir

        import_path(project, demo_dataset_dir(), "screenlab")  # the samples the run list's runs select
        tallies = [hostile_pages.synthesised_pages(renderer, listener, texts,
                                                   one_payload_per_field=args.hostile_payloads == "one"),
                   hostile_pages.generated_end_to_end(project, renderer, listener),
                   hostile_pages.vaf_settings(texts),
                   hostile_pages.vaf_pages(project, renderer, listener, texts, work / "hostile"),
                   hostile_pages.trajectory_texts(texts),
                   hostile_pages.run_list_texts(project, texts, listener),  # a run's name and failure
                   hostile_pages.answer_texts(texts, listener)]  # a model's answer texts on their card
        time.sleep(1.0)  # a late request would have arrived by now
        late = len(listener.hits) - sum(t.outside_requests for t in tallies)
    print(f"Hostile text ({len(texts)} payloads: {', '.join(texts)}; {time.monotonic() - started:.0f} s)")
    rows = hostile_pages.rows(tallies)
    width = max(len(name) for name, _ in rows)
    head = f"  {'surface':<{width}}  " + "  ".join(f"{c:>18}" for c in hostile_pages.COLUMNS)
    print(head + "\n  " + "-" * (len(head) - 2))
    for name, values in rows:
        print(f"  {name:<{width}}  " + "  ".join(f"{v:>18}" for v in values))
    print(f"  connections to the listener after the last render: {late}\n")
    tried = sum(t.tried for t in tallies)
    escaped = sum(t.escaped or 0 for t in tallies)
    refused = sum(t.refused for t in tallies)
    contained = sum(t.tried - t.refused for t in tallies if t.escaped is None)  # a VAF page's own markup
    outside = sum(t.outside_requests for t in tallies) + late
    problems = [(f"{t.surface}: {f}", "") for t in tallies for f in t.failures]
    if problems:
        failures.append(("hostile", problems))
    return [Row("hostile text in pages, the labeller, run list and answers",
                f"{tried} tried: {escaped} rendered escaped, {refused} refused cleanly, {contained} as a page's own "
                f"markup (its requests aborted); outside requests {outside}", "0 requests, no markup from text",
                outside == 0 and not problems)]


def section_secrets(args, work: Path, failures: list) -> list[Row]:
    import secrets_sweep

    started = time.monotonic()
    (work / "run").mkdir()
    with user_folders(work):  # the config, data and log folders searched are the scenario's own
        sweep = secrets_sweep.leak_sweep(work / "run", work / "vault.json")
    folders = ", ".join(str(f.relative_to(work)) for f in sweep.folders)
    print(f"Secrets: {len(secrets_sweep.KEYS)} keys; {sweep.files} files (under {folders}), {sweep.outputs} printed "
          f"outputs, {sweep.size:,} bytes searched: {len(sweep.found)} key hits ({time.monotonic() - started:.0f} s)")
    for hit in sweep.found[: args.show]:
        print(f"    {hit}")
    # issue 34: a key pasted as a variable's name, a key no profile names echoed in errors, a crash with both
    (work / "pasted").mkdir()
    with user_folders(work / "pasted"):
        pasted = secrets_sweep.pasted_key_sweep(work / "pasted")
    print(f"Pasted keys: {len(secrets_sweep.PASTED)} keys; {pasted.files} files, {pasted.outputs} printed outputs "
          f"searched: {len(pasted.found)} key hits")
    for case in pasted.cases:
        print(f"    {case}")
    for hit in pasted.found[: args.show]:
        print(f"    {hit}")
    print()
    if sweep.found:
        failures.append(("secrets", [(hit, "") for hit in sweep.found]))
    refused = pasted.cases[0].endswith("refused as a key")
    if pasted.found or not refused:
        failures.append(("pasted keys", [(hit, "") for hit in pasted.found] + ([] if refused else [(pasted.cases[0], "")])))
    return [Row("API keys in project, config, logs, .dumps, output",
                f"{sweep.files} files and {sweep.outputs} outputs ({sweep.size / 1e6:.1f} MB) searched: key hits "
                f"{len(sweep.found)}", "0", not sweep.found),
            Row("pasted / unnamed keys (--api-key-env <key>, echoed, crash)",
                f"{'refused' if refused else 'NOT refused'}; {pasted.files} files and {pasted.outputs} outputs "
                f"searched: key hits {len(pasted.found)}", "refused, 0", refused and not pasted.found)]


BOMB_RSS_MB, BOMB_SECONDS = 300, 5.0


def _bombs(work: Path) -> list:
    import bombs

    mb = 1 << 20
    return [
        bombs.screenspot_parquet(work / "pq-gzip-1" / "test.parquet", "gzip", "big", 1_600_000),
        bombs.screenspot_parquet(work / "pq-gzip-5" / "test.parquet", "gzip", "big", 4_900_000),
        bombs.screenspot_parquet(work / "pq-snappy" / "test.parquet", "snappy", "many", 1_500_000),
        bombs.screenspot_parquet(work / "pq-zstd" / "test.parquet", "zstd", "big", 1_500_000),
        bombs.tfrecord_claim(work / "tf-gzip" / "episodes.tfrecord.gz", True, 2**31 - 2, 1536 * mb),
        bombs.tfrecord_claim(work / "tf-plain" / "episodes.tfrecord", False, 2**31 - 2),
        bombs.gzip_jsonl(work / "jsonl-gzip", 1536 * mb),
        bombs.cvat_attribute(work / "cvat-attr", 200_000_000),
        bombs.cvat_entities(work / "cvat-laughs"),
        bombs.sphinx_text_node(work / "sphinx-100mb", 100_000_000),
        bombs.sphinx_text_node(work / "sphinx-2mb", 2_000_000),
    ]


def _import_child(project: Path, bomb) -> tuple[int, str, float, float]:
    """`screenlab import` of one bomb in its own process: exit code, its output, peak RSS (MB), seconds."""
    import subprocess

    peak_file = project.parent / "peak.txt"
    peak_file.unlink(missing_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "BOMB_PEAK_FILE": str(peak_file)}
    started = time.monotonic()
    child = subprocess.run([sys.executable, "-c", _PEAK_AT_EXIT, "import", "--format", bomb.fmt, str(project),
                            str(bomb.path)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    seconds = time.monotonic() - started
    peak = int(peak_file.read_text()) / 1024 if peak_file.exists() else float("nan")
    return child.returncode, child.stdout.decode("utf-8", "replace"), peak, seconds


# The CLI, noting its own peak RSS as it exits: VmHWM of /proc/self/status, which starts anew at exec (the
# rusage of a child would count the parent's memory at the fork, and this benchmark's parent holds the bombs).
_PEAK_AT_EXIT = """
import atexit, os, sys
def note():
    for line in open('/proc/self/status'):
        if line.startswith('VmHWM:'):
            open(os.environ['BOMB_PEAK_FILE'], 'w').write(line.split()[1])
atexit.register(note)
from desktop_app.__main__ import main
sys.argv[0] = 'screenlab'
sys.exit(main())
"""


def section_bombs(args, work: Path, failures: list) -> list[Row]:
    import subprocess

    started = time.monotonic()
    made = _bombs(work)
    built = time.monotonic() - started
    project = work / "project"
    subprocess.run([sys.executable, "-m", "desktop_app", "init", str(project)], check=True, capture_output=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})
    print(f"Bombs ({len(made)} built in {built:.1f} s; each imported by `screenlab import` in its own process)")
    print(f"  {'case':<46} {'on disk':>10} {'would be':>10} {'refused':>8} {'peak RSS':>9} {'seconds':>8}")
    bad = []
    worst_rss = worst_s = 0.0
    for bomb in made:
        code, output, rss, seconds = _import_child(project, bomb)
        lines = [line for line in output.splitlines() if line.strip()]
        refused = code != 0 and len(lines) == 1 and all(w in lines[0] for w in bomb.words)
        worst_rss, worst_s = max(worst_rss, rss), max(worst_s, seconds)
        print(f"  {bomb.name:<46} {bomb.on_disk / 1e6:>7.1f} MB {bomb.decodes_to / 1e6:>7,.0f} MB "
              f"{'yes' if refused else 'NO':>8} {rss:>6.0f} MB {seconds:>8.2f}")
        print(f"      {(lines[-1] if lines else '(no output)')[:200]}")
        if not refused or rss > BOMB_RSS_MB or seconds > BOMB_SECONDS:
            bad.append((bomb.name, f"exit {code}, {rss:.0f} MB, {seconds:.2f} s: {output.strip()[:300]}"))
    print()
    if bad:
        failures.append(("bombs", bad))
    return [Row(f"decompression bombs and long texts ({len(made)} cases)",
                f"{len(made) - len(bad)} of {len(made)} refused within bounds; worst {worst_rss:.0f} MB peak RSS, "
                f"{worst_s:.2f} s", f"all refused, < {BOMB_RSS_MB} MB, < {BOMB_SECONDS:g} s", not bad)]


RUNNERS = {"imports": section_imports, "answers": section_answers, "kills": section_kills,
           "window": section_window, "writers": section_writers, "hostile": section_hostile,
           "secrets": section_secrets, "bombs": section_bombs}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(SECTIONS), help=f"sections, comma-separated ({', '.join(SECTIONS)})")
    parser.add_argument("--examples", type=int, default=20, help="cases per importer (default 20; the issue: 2000)")
    parser.add_argument("--answers", type=int, default=1000, help="generated answers per convention (default 1000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds a case may take before it is 'hung'")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes for the importer cases")
    parser.add_argument("--formats", default="", help="comma-separated importers (default: all)")
    parser.add_argument("--show", type=int, default=3, help="examples printed per kind of failure")
    parser.add_argument("--import-kills", type=int, default=4)
    parser.add_argument("--kill-images", type=int, default=300, help="screenshots per killed import")
    parser.add_argument("--run-kills", type=int, default=4)
    parser.add_argument("--kill-samples", type=int, default=120, help="samples of the killed run")
    parser.add_argument("--window-kills", type=int, default=3)
    parser.add_argument("--writer-loops", type=int, default=2, help="loops of the three scenes per back end")
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--hostile-payloads", choices=("all", "one"), default="all",
                        help="every payload in every field, or one per field in turn")
    args = parser.parse_args(argv)
    chosen = [s for s in args.only.split(",") if s]
    unknown = sorted(set(chosen) - set(SECTIONS))
    if unknown:
        parser.error(f"unknown sections: {', '.join(unknown)} (one of {', '.join(SECTIONS)})")

    print(f"reliability, sections {', '.join(chosen)}; {os.cpu_count()} cores, load {load()}\n")
    table_rows: list[Row] = []
    failures: list = []
    with tempfile.TemporaryDirectory(prefix="screenlab-reliability-") as tmp, user_folders(Path(tmp)):
        for name in (s for s in SECTIONS if s in chosen):
            before = load()
            print(f"== {name} (load before: {before})")
            (Path(tmp) / name).mkdir()
            try:
                rows = RUNNERS[name](args, Path(tmp) / name, failures)
            except Exception as exc:  # noqa: BLE001 - a section's harness failing is reported, the others still run
                rows = [Row(name, f"harness error: {type(exc).__name__}: {exc}", "-", False)]
                failures.append((f"{name}: harness error", [(repr(exc), "")]))
            after = load()
            for row in rows:
                row.load = f"{before.split()[0]} -> {after.split()[0]}"
            table_rows += rows
            print(f"   (load after: {after})\n")

    print("Issue 20's table (load: 1-minute average before -> after the section)")
    width = max(len(r.what) for r in table_rows)
    for r in table_rows:
        print(f"  {'ok ' if r.clean else 'NOT'} {r.what:<{width}}  {r.measured}   [goal: {r.goal}; load {r.load}]")

    if failures:
        print("\nFailures (first examples of each)")
        for label, found in failures:
            print(f"  {label}: {len(found)}")
            for log, detail in found[: args.show]:
                print(f"    input: {log[:300]!a}")
                if detail:
                    print(f"      got: {(detail.splitlines() or [''])[0][:300]!a}")
    clean = all(r.clean for r in table_rows) and not failures
    print("\nall clean" if clean else "\nNOT clean: see the failures above")
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
