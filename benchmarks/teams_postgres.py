"""A team project on a PostgreSQL server, measured as a person waits for it: the next screen in the window
(its image decoded and painted) and 50 annotators writing at once, each on their own login, with row-level
security on. The same project as a SQLite folder is measured in the same run beside it.

    .venv/bin/python benchmarks/teams_postgres.py [--screens 100000] [--annotators 50] [--walk 200]
        [--seconds 60] [--pg-test-settings] [--log-slow MS] [--json FILE]

THE PROJECT. A throw-away PostgreSQL cluster (tests/pg_server.py: Debian's binaries, run as the `postgres`
user when we are root; its superuser is the project's owner) and a SQLite folder get the same rows: N
single-step samples on N distinct screens (1280x800), 3 actions (gold, distracted, other) on every 10th
step, written with SQLAlchemy Core bulk inserts after Project.init (not through the importer: importing
100,000 PNGs takes minutes). On the server the owner drops any leftover logins ann01..annNN (DROP ROLE IF
EXISTS) and adds them with teams.members.add_member as annotators: each a login with its own password, in
the project's annotator group role, so the grants, row-level security and identity triggers of migration
0013 apply to them. On SQLite the same names are plain names. teams.assignment.assign gives the first
20,000 samples to them in turn (400 each with 50); then the server gets VACUUM ANALYZE (what autovacuum does
within a minute of a large import); SQLite gets nothing (the app never runs ANALYZE). The cluster is
restarted with production durability (fsync, synchronous_commit and full_page_writes on: every commit waits
for its WAL flush) unless --pg-test-settings keeps the test suite's fsync=off settings.
Image files exist only for the screens the window walk shows (the first W + 5 of ann01's queue): 8 distinct
1280x800 PNGs drawn like a shop's web page (bars, text, buttons, a form field and two photo-like noisy
pictures; about 0.5 MB each; QImageReader decodes one in about the time it takes for the demo dataset's
1280x800 screenshots, 12-20 ms on this kind of machine), hard-linked into each project's media folder under
the name store/media.py gives the screen's row (sha256[:2]/sha256.png). Every other screen has no file. The
OS file cache is warm (the files were just written).

MEASURED. Beside each figure: os.getloadavg()'s 1-minute load, and the share of the machine's CPU time that
processes other than this benchmark's used meanwhile ("others": /proc/stat's busy time less this process,
the cluster's processes and the annotator processes), which says whether the machine was otherwise idle.
Where both back ends are measured they alternate, so both see the same machine.
1. Opening, cold (a new Project, so a new engine and new connections): Project.open + count_episodes +
   list_episodes(first 200) + states_of for that page, median of 5; as the owner over everything, and as
   annotator ann01 over her queue (EpisodeFilter(assignee="ann01"), the list her window shows; on the
   server opened with her own login, under row-level security). Goal <= 1 s.
2. Next screen in the window: one real MainWindow per back end, both open at once (QT_QPA_PLATFORM=offscreen,
   1920x1080, Settings(annotator="ann01", show_suggestions=False)): on the server opened by ann01 with her
   own login and password (window.open_project(URL with password, media): the window then lists her
   queue), on SQLite as "ann01" (the window starts on the same queue, as the owner of a local project sees
   it). Once each list has been counted (100,000 episodes are counted off the UI thread), gc.freeze() as
   ui/app.py does after building its window, then W (default 200) presses of D ("nav.next"), alternating
   between the windows. Before each press, not timed: the window pressed is activated and given 250 ms
   with events processed (a person looks at a screen before moving on), then the window's background
   calls are let end and what they sent back is delivered (ui/tasks.wait_all): what it does when it becomes
   active, and what the last press started off the UI thread (the time spent written 150 ms after the
   screen showed, the next screen decoded ahead: ui/canvas/prefetch.py) land before the clock starts.
   Timed: from just before QTest.keyClick(window, D) to after the canvas was painted: keyClick (the list
   moves one row; the workspace loads the sample and its screen in one session; the canvas takes the
   screen decoded ahead, or decodes the PNG with QImageReader if it was not, builds its image item and
   boxes; the panels refresh), QApplication.processEvents() (what was posted: the window's own repaint of
   the list and panels), then a synchronous window.view.viewport().repaint(). (The properties panel
   repaints once more right after; that lands outside the timed span.) After each press the benchmark
   checks that the window shows the next sample of the queue and that the scene's background is an
   ImageItem, i.e. a decoded picture, not the placeholder of a missing file. Median, p95 and max per back
   end; goal: median <= 50 ms. Printed beside it: QImageReader.read() of the same files alone (median),
   how many screens had been decoded ahead, and the database work of a press as SQLAlchemy's events count
   it on each window's engine (statements and their time and connection checkouts on the UI thread;
   statements off it counted apart).
   Then, after the walk, with the windows idle for 2 s and background calls ended, how many connections
   the server holds for ann01 (pg_stat_activity, read as the owner). Goal <= 1 per idle window.
3. Writes, on the server only: A annotator processes (default 50: benchmarks/teams_annotator.py, started at
   most one per CPU at a time, so that their start-up does not flood the machine), each logged in with its
   own login and password (given in SCREENLAB_DB_PASSWORD), so row-level security decides what each sees
   and writes. Each opens the project and warms up on one of its samples (a read and one write of each
   kind below: what is timed is then a working window's steady state, not a first call's loading and
   compiling), then reports ready (a barrier). All start at the same instant, their first writes
   staggered evenly over 2 s, and each makes one write every 2 s for S seconds (default 60) on its own
   samples (the last ones of its queue, not those the walk visited): api.add_boxes with expected_version
   = the version api.screen read half a period earlier (that read is timed apart, not as a write),
   api.edit_boxes and api.delete_boxes of that box with expected_version raised by one after each, and on
   every 3rd sample api.set_state(..., "done") as a 4th write; then its next sample. Every write call is
   timed in the process making it: p50, p99 and max of all writes and per kind; conflicts (StaleEdit: none
   expected, nobody else edits these samples) and errors. The processes close their projects and end only
   once all have reported (their exit is CPU work that would otherwise land on the others' last writes).
   Beside the figures: the 1-minute load when the writes started and when they ended, the machine's CPU
   busy share, and the CPU seconds used by the annotator processes (all 50 share this machine's CPUs with
   the server, unlike a real team's computers) and by the server. Goal: p99 <= 50 ms with the machine
   otherwise idle. Afterwards, as the owner: audit.replay_boxes from the box state before the writes
   equals audit.stored_boxes (no write lost or recorded twice).
--log-slow MS sets log_min_duration_statement on the cluster and prints, at the end, the statements it
logged, grouped by login kind and text (count, median, max); --json FILE writes every timing taken. Ratios
are PostgreSQL / SQLite (above 1: PostgreSQL is slower). A default run takes about 4 minutes on 2 CPUs.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before Qt is imported
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import text  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from desktop_app.store import audit  # noqa: E402
from desktop_app.store.db import public_url  # noqa: E402
from desktop_app.store.media import MediaStore  # noqa: E402
from desktop_app.store.models import ActionBox, Assignment, Episode, Screen, Step  # noqa: E402
from desktop_app.store.orm import select  # noqa: E402
from desktop_app.store.project import Project  # noqa: E402
from desktop_app.store.queries import EpisodeFilter, count_episodes, list_episodes  # noqa: E402
from desktop_app.store.types import utcnow  # noqa: E402
from desktop_app.store.work_states import states_of  # noqa: E402
from desktop_app.teams import assignment, members  # noqa: E402

ASSIGNED = 20_000
PAGE = 200  # ui/browser.py PAGE
OPEN_REPEAT = 5
EDIT_PERIOD_S = 2.0
DONE_EVERY = 3  # every 3rd sample is marked done after its three box edits
PICTURES = 8
WINDOW_SIZE = (1920, 1080)
SETTLE_MS = 250  # between two presses (not timed): a person looks at a screen longer; the window decodes ahead after 150 ms
SCENARIOS = ("popup", "login", "search", "cart", "settings")
LABELS = ("gold", "distracted", "other")
WORKER = Path(__file__).with_name("teams_annotator.py")


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def load() -> float:
    return os.getloadavg()[0]


def cpu_times() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine since boot."""
    fields = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields) - idle, sum(fields)


def server_cpu_s(server) -> float:
    """CPU seconds used so far by the cluster: its postmaster, the live children (backends, WAL writer,
    checkpointer...) and the children that already ended (counted into the postmaster's cutime)."""
    def stat(pid) -> list[str]:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()

    tick = os.sysconf("SC_CLK_TCK")
    postmaster = int((server.data / "postmaster.pid").read_text().split()[0])
    own = stat(postmaster)
    total = sum(int(v) for v in own[11:15])  # utime, stime, cutime, cstime
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = stat(entry.name)
            except OSError:  # ended meanwhile
                continue
            if int(fields[1]) == postmaster:
                total += int(fields[11]) + int(fields[12])
    return total / tick


def span_start(server) -> tuple:
    return cpu_times(), resource.getrusage(resource.RUSAGE_SELF), server_cpu_s(server)


def others_share(server, start: tuple, ours_s: float = 0.0) -> float:
    """The share of the machine's CPU time since `start` used by processes that are not this benchmark's:
    not this process (the windows included), not the cluster, and not `ours_s` (the annotator processes)."""
    (busy0, total0), self0, server0 = start
    (busy1, total1), self1, server1 = span_start(server)
    tick = os.sysconf("SC_CLK_TCK")
    own = (self1.ru_utime + self1.ru_stime - self0.ru_utime - self0.ru_stime) + (server1 - server0) + ours_s
    return max(0.0, (busy1 - busy0) / tick - own) / max(1e-9, (total1 - total0) / tick)


def tally_round_trips(engine) -> dict[str, float]:
    """Count what the engine sends from now on: statements (and their time as SQLAlchemy's cursor events see
    it) and connection checkouts (each one pre-pinged on the server: store/db.py)."""
    import threading

    from sqlalchemy import event

    tally = {"statements": 0, "seconds": 0.0, "checkouts": 0, "background": 0}
    ui_thread = threading.get_ident()  # what the person waits on; the rest (decoding ahead, time spent) not

    def before(conn, cursor, statement, parameters, context, executemany):
        conn.info["bench_t"] = time.perf_counter()

    def after(conn, cursor, statement, parameters, context, executemany):
        started = conn.info.pop("bench_t", time.perf_counter())
        if threading.get_ident() != ui_thread:
            tally["background"] += 1
            return
        tally["statements"] += 1
        tally["seconds"] += time.perf_counter() - started

    def checkout(dbapi_connection, record, proxy):
        if threading.get_ident() == ui_thread:
            tally["checkouts"] += 1

    event.listen(engine, "before_cursor_execute", before)
    event.listen(engine, "after_cursor_execute", after)
    event.listen(engine.pool, "checkout", checkout)
    return tally


# -- building the project ---------------------------------------------------------------------------------
def rows(n: int) -> dict[str, list[dict]]:
    now = utcnow()
    screens = [{"id": i, "sha256": f"{i:064x}", "ext": "png", "width": 1280, "height": 800, "platform": "web",
                "source": f"bench/{i:06d}.png", "meta": {}, "created_at": now} for i in range(1, n + 1)]
    episodes = [{"id": i, "key": f"ep-{i:06d}", "kind": "sample", "goal": f"goal number {i}",
                 "scenario": SCENARIOS[i % len(SCENARIOS)], "split": "", "review_status": "unreviewed",
                 "meta": {}, "created_at": now, "updated_at": now, "updated_by": "", "version": 1}
                for i in range(1, n + 1)]
    steps = [{"id": i, "episode_id": i, "index": 0, "screen_id": i, "instruction": "", "meta": {}}
             for i in range(1, n + 1)]
    boxes = []
    for i in range(1, n + 1, 10):
        for k, label in enumerate(LABELS):
            x, y = 40 + 100 * k, 60 + (i % 500)
            boxes.append({"id": len(boxes) + 1, "step_id": i, "x1": x, "y1": y, "x2": x + 90, "y2": y + 30,
                          "label": label, "action_type": "click", "element_text": f"button {k}", "type_text": "",
                          "source": "import", "author": "bench", "meta": {}, "created_at": now,
                          "updated_at": now, "version": 1})
    return {"screen": screens, "episode": episodes, "step": steps, "action_box": boxes}


def build(location, media, data: dict[str, list[dict]], people: list[str], annotate: int
          ) -> tuple[dict[str, float], dict[str, str]]:
    """Project.init, bulk rows, the team (server: logins), assignment, VACUUM ANALYZE (server); returns seconds
    per phase and the logins' passwords."""
    times, passwords = {}, {}
    t0 = time.perf_counter()
    with Project.init(location, media) as project:
        times["init"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        with project.engine.begin() as conn:
            for model in (Screen, Episode, Step, ActionBox):
                table = model.__table__
                batch = data[table.name]
                for start in range(0, len(batch), 10_000):
                    conn.execute(table.insert(), batch[start:start + 10_000])
                if conn.dialect.name == "postgresql":  # explicit ids: move the sequence past them
                    conn.execute(text(f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                                      f"(SELECT max(id) FROM {table.name}))"))
        times["rows"] = time.perf_counter() - t0
        if project.on_server:
            t0 = time.perf_counter()
            with project.engine.begin() as conn:  # logins left by an earlier run on this server
                for login in people:
                    conn.exec_driver_sql(f'DROP ROLE IF EXISTS "{login}"')
            for login in people:
                passwords[login] = members.add_member(project, login, "annotator").password
            times["logins"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        assignment.assign(project, list(range(1, annotate + 1)), people,
                          lead=None if project.on_server else "lead")
        times["assign"] = time.perf_counter() - t0
        if project.on_server:
            t0 = time.perf_counter()
            with project.engine.connect() as conn:
                conn.execution_options(isolation_level="AUTOCOMMIT").execute(text("VACUUM ANALYZE"))
            times["vacuum"] = time.perf_counter() - t0
    return times, passwords


def restart_durable(server) -> None:
    """The same cluster with PostgreSQL's defaults for durability (fsync, synchronous_commit and
    full_page_writes on), as a team's server runs; tests/pg_server.py turns them off for speed."""
    server._run(str(server.bin / "pg_ctl"), "-D", str(server.data), "-m", "fast", "-w", "stop")
    opts = f"-p {server.port} -k {server.root} -c listen_addresses=127.0.0.1 -c max_connections=200"
    server._run(str(server.bin / "pg_ctl"), "-D", str(server.data), "-l", str(server.root / "log"), "-o", opts,
                "-w", "-t", "60", "start")
    server.wait_ready()


def draw_pictures(folder: Path, count: int) -> list[Path]:
    """`count` distinct 1280x800 PNGs that look like web pages: a header, a sidebar, text, buttons, form
    fields and two photos (noise over gradients: what makes a real screenshot heavy to decode)."""
    import random

    from PIL import Image, ImageDraw, ImageFilter, ImageFont

    folder.mkdir(parents=True, exist_ok=True)
    try:
        font = ImageFont.load_default(14)
    except TypeError:  # an old Pillow without scalable default font
        font = ImageFont.load_default()
    paths = []
    for k in range(count):
        rng = random.Random(k)
        image = Image.new("RGB", (1280, 800), (248, 248, 250))
        draw = ImageDraw.Draw(image)
        accent = (rng.randrange(30, 200), rng.randrange(30, 200), rng.randrange(30, 200))
        draw.rectangle((0, 0, 1280, 64), fill=accent)
        draw.text((24, 22), f"Shop {k} - Home  Products  Deals  Account  Help", fill="white", font=font)
        draw.rectangle((0, 64, 240, 800), fill=(236, 238, 242))
        for i in range(22):
            draw.text((20, 84 + 30 * i), f"Category {rng.randrange(1000)} item {i}", fill=(40, 40, 60), font=font)
        for p, (x, y) in enumerate(((270, 90), (780, 90))):  # two product photos
            w, h = 460, 300
            base = Image.linear_gradient("L").resize((w, h)).convert("RGB")
            tint = Image.new("RGB", (w, h), (rng.randrange(256), rng.randrange(256), rng.randrange(256)))
            photo = Image.blend(base, tint, 0.5)
            noise = Image.effect_noise((w, h), 40 + 10 * p).convert("RGB")
            photo = Image.blend(photo, noise, 0.35).filter(ImageFilter.SMOOTH)
            image.paste(photo, (x, y))
        for i in range(12):  # text under the photos
            line = " ".join(rng.choice(("deal", "free", "shipping", "size", "colour", "reviews", "stars", "price",
                                        "return", "order", "today", "cart", "saved", "offer")) for _ in range(16))
            draw.text((270, 410 + 22 * i), line, fill=(30, 30, 30), font=font)
        for i in range(5):  # buttons and form fields
            x = 270 + 190 * i
            draw.rounded_rectangle((x, 700, x + 170, 740), 8, fill=accent if i % 2 else (255, 255, 255),
                                   outline=(120, 120, 130))
            draw.text((x + 20, 712), ("Add to cart", "Buy now", "Compare", "Save", "Share")[i],
                      fill=(0, 0, 0), font=font)
        draw.rectangle((270, 660, 1240, 690), outline=(150, 150, 160), fill=(255, 255, 255))
        draw.text((280, 667), "Search products...", fill=(140, 140, 140), font=font)
        path = folder / f"page{k}.png"
        image.save(path, format="PNG")
        paths.append(path)
    return paths


def place_pictures(media_root: Path, screens: list[tuple[str, str]], pictures: list[Path]) -> None:
    """A picture under each screen row's name in the media store (hard links: the bytes are written once)."""
    store = MediaStore(media_root)
    for n, (sha256, ext) in enumerate(screens):
        target = store.path_for(sha256, ext)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.unlink(missing_ok=True)
        try:
            os.link(pictures[n % len(pictures)], target)
        except OSError:  # another file system
            shutil.copyfile(pictures[n % len(pictures)], target)


# -- 1. opening --------------------------------------------------------------------------------------------
def open_first_page(location, media, user: str | None, flt: EpisodeFilter) -> dict[str, float]:
    """What the window does when a project opens: the list's count, its first page and their states."""
    parts = {}
    t0 = time.perf_counter()
    project = Project.open(location, media, user=user)
    try:
        parts["open"] = time.perf_counter() - t0
        with project.reading() as s:
            t = time.perf_counter()
            count_episodes(s, flt)
            parts["count"] = time.perf_counter() - t
            t = time.perf_counter()
            page = list_episodes(s, flt, 0, PAGE)
            parts["page"] = time.perf_counter() - t
            t = time.perf_counter()
            states = states_of(s, [e.id for e in page], user)
            parts["states"] = time.perf_counter() - t
        parts["total"] = time.perf_counter() - t0
        assert len(page) == PAGE and len(states) == PAGE and states[page[0].id][1], "page or states missing"
    finally:
        project.close()
    return parts


# -- 2. next screen in the window --------------------------------------------------------------------------
def open_window(location, media, annotator: str):
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from desktop_app.settings import Settings
    from desktop_app.ui.main_window import MainWindow

    window = MainWindow(Settings(annotator=annotator, show_suggestions=False))
    window.resize(*WINDOW_SIZE)
    window.show()
    QTest.qWaitForWindowExposed(window)
    window.activateWindow()
    if not window.open_project(location, media):
        raise RuntimeError(f"the window could not open {make_url(str(location)).render_as_string()}"
                           if "://" in str(location) else f"the window could not open {location}")
    deadline = time.monotonic() + 120
    while window.browser.model.counting:  # a list of 100,000 is counted off the UI thread: let it land
        QApplication.processEvents()
        time.sleep(0.01)
        if time.monotonic() > deadline:
            raise RuntimeError("the list was not counted within 2 minutes")
    QApplication.processEvents()
    return window


def walk(windows: dict[str, object], presses: int) -> dict[str, dict]:
    """`presses` presses of D in each window, alternating; per window the times and the samples shown."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from desktop_app.ui.canvas.items import ImageItem
    from desktop_app.ui.tasks import wait_all

    out = {key: {"times": [], "shown": [window.ws.episode.id], "loads": [], "not_decoded": 0, "ahead": 0}
           for key, window in windows.items()}
    for i in range(presses):
        order = list(windows.items())
        if i % 2:
            order.reverse()  # neither back end always goes first
        for key, window in order:
            # the person looks at the screen before moving on: the window is active, everything it had to do
            # (repainting on activation, the panels' second paint after the last move, the background calls
            # of both windows: the next screen decoded ahead, the time spent written) is done
            window.activateWindow()
            window.view.setFocus()
            QApplication.processEvents()
            QTest.qWait(SETTLE_MS)
            wait_all()
            QApplication.processEvents()  # what the background calls sent back (a decoded screen) is delivered
            if QApplication.activeWindow() is not window:
                raise RuntimeError(f"the {key} window could not be made active")
            out[key]["loads"].append(load())
            ahead = set(window.step_view.prefetch._ready)  # screens decoded while the last one showed
            t0 = time.perf_counter()
            QTest.keyClick(window, Qt.Key_D)
            QApplication.processEvents()
            window.view.viewport().repaint()
            out[key]["times"].append(time.perf_counter() - t0)
            out[key]["ahead"] += str(window.ws.image_path()) in ahead
            out[key]["shown"].append(window.ws.episode.id)
            out[key]["not_decoded"] += not isinstance(window.scene.background, ImageItem)
    return out


def decode_alone(paths: list[Path], repeat: int = 5) -> float:
    from PySide6.QtGui import QImageReader

    times = []
    for _ in range(repeat):
        for path in paths:
            t0 = time.perf_counter()
            image = QImageReader(str(path)).read()
            times.append(time.perf_counter() - t0)
            assert not image.isNull()
    return statistics.median(times)


def server_connections(owner_url: str, login: str) -> int:
    with _raw(owner_url) as conn:
        return conn.execute("SELECT count(*) FROM pg_stat_activity WHERE usename = %s AND datname = "
                            "current_database()", (login,)).fetchone()[0]


def _raw(url: str):
    import psycopg

    u = make_url(url)
    return psycopg.connect(host=u.host, port=u.port, dbname=u.database, user=u.username, password=u.password,
                           autocommit=True)


# -- 3. writes ---------------------------------------------------------------------------------------------
def edit_load(server, bare_url: str, media: Path, passwords: dict[str, str], plans: dict[str, list[int]],
              seconds: float, logs: Path) -> dict:
    """One process per annotator (benchmarks/teams_annotator.py), its own login; a barrier, then S seconds."""
    n = len(plans)
    procs: list[tuple[str, subprocess.Popen]] = []
    readies: dict[str, dict] = {}
    pending: list[tuple[str, subprocess.Popen]] = []
    t0 = time.perf_counter()

    def wait_ready(login: str, proc: subprocess.Popen) -> None:
        line = proc.stdout.readline()
        if not line:
            proc.wait(timeout=30)
            err = (logs / f"{login}.err").read_text(errors="replace")[-1500:]
            raise RuntimeError(f"annotator {login} ended before it was ready:\n{err}")
        readies[login] = json.loads(line)

    for k, (login, samples) in enumerate(plans.items()):
        while len(pending) >= (os.cpu_count() or 1):  # start-up is CPU-bound: one per CPU at a time
            wait_ready(*pending.pop(0))
        env = dict(os.environ, SCREENLAB_DB_PASSWORD=passwords[login])
        with open(logs / f"{login}.err", "w") as err:  # the child keeps its own copy of the descriptor
            proc = subprocess.Popen([sys.executable, str(WORKER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=err, text=True, env=env, cwd=ROOT)
        url = make_url(bare_url).set(username=login).render_as_string(hide_password=False)
        proc.stdin.write(json.dumps({"url": url, "media": str(media), "login": login, "samples": samples,
                                     "seconds": seconds, "period": EDIT_PERIOD_S, "done_every": DONE_EVERY,
                                     "offset": k * EDIT_PERIOD_S / n}) + "\n")
        proc.stdin.flush()
        procs.append((login, proc))
        pending.append((login, proc))
    for login, proc in pending:
        wait_ready(login, proc)
    started_in = time.perf_counter() - t0
    at_start, cpu0, server0, span = load(), cpu_times(), server_cpu_s(server), span_start(server)
    start = time.monotonic() + 0.5
    for _, proc in procs:  # the barrier: everyone is ready, everyone starts at `start`
        proc.stdin.write(json.dumps({"start": start}) + "\n")
        proc.stdin.flush()
    outs = {}
    for login, proc in procs:
        line = proc.stdout.readline()
        outs[login] = json.loads(line) if line else {
            "writes": [], "reads": [], "conflicts": 0,
            "errors": [f"{login} ended without a report: "
                       + (logs / f"{login}.err").read_text(errors="replace")[-300:]]}
    cpu1, at_end, server1 = cpu_times(), load(), server_cpu_s(server)
    clients_s = sum(o.get("cpu_s", 0.0) for o in outs.values())
    others = others_share(server, span, clients_s)
    for _, proc in procs:  # now they may leave
        try:
            proc.stdin.write("\n")
            proc.stdin.close()
        except OSError:  # it ended already
            pass
    for _, proc in procs:
        proc.wait(timeout=60)
    writes = [w for o in outs.values() for w in o["writes"]]
    pauses = [p for o in outs.values() for p in o.get("gc", [])]
    return {"latencies": [w[1] for w in writes], "by_kind": writes, "gc": pauses,
            "reads": [t for o in outs.values() for t in o["reads"]],
            "conflicts": sum(o["conflicts"] for o in outs.values()),
            "errors": [e for o in outs.values() for e in o["errors"]],
            "visible": sorted({r["visible"] for r in readies.values()}),
            "open_s": statistics.median(r["open_s"] for r in readies.values()),
            "started_in": started_in, "load_start": at_start, "load_end": at_end,
            "busy": (cpu1[0] - cpu0[0]) / max(1, cpu1[1] - cpu0[1]),
            "busy_s": (cpu1[0] - cpu0[0]) / os.sysconf("SC_CLK_TCK"),
            "clients_s": clients_s, "server_s": server1 - server0, "others": others}


# -- the server's log --------------------------------------------------------------------------------------
def slowest_statements(log: Path, n: int = 12) -> list[tuple[str, str, int, float, float]]:
    """The statements the server logged as slow, grouped by login kind and text: (who, statement, count,
    median ms, max ms), the slowest first."""
    entries, current = [], None
    for line in log.read_text(errors="replace").splitlines():
        if line[:1].isspace() and current is not None:  # a statement's next line
            current[1] += " " + line.strip()
        else:
            current = [line, ""]
            entries.append(current)
    pattern = re.compile(r"\] (\S*)@\S* LOG:\s+duration: ([0-9.]+) ms\s+(?:statement|execute [^:]*): (.*)")
    groups: dict[tuple[str, str], list[float]] = {}
    for head, rest in entries:
        m = pattern.search(head)
        if m:
            who = "annotator" if re.fullmatch(r"ann\d+", m.group(1)) else m.group(1)
            statement = " ".join((m.group(3) + rest).split())
            groups.setdefault((who, statement[:160]), []).append(float(m.group(2)))
    rows = [(who, st, len(ts), statistics.median(ts), max(ts)) for (who, st), ts in groups.items()]
    return sorted(rows, key=lambda r: -r[4])[:n]


# -- reporting -----------------------------------------------------------------------------------------------
def ms(seconds: float | None) -> str:
    return "—" if seconds is None else f"{seconds * 1000:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--screens", type=int, default=100_000)
    parser.add_argument("--annotators", type=int, default=50, help="simulated annotators, each its own login")
    parser.add_argument("--walk", type=int, default=200, help="next-screen presses in each window")
    parser.add_argument("--seconds", type=float, default=60.0, help="length of the write load")
    parser.add_argument("--pg-test-settings", action="store_true",
                        help="keep the test cluster's fsync=off settings instead of production durability")
    parser.add_argument("--json", type=Path, default=None, help="also write every timing measured to this file")
    parser.add_argument("--log-slow", type=int, metavar="MS", default=None,
                        help="log statements slower than MS ms on the server and print the slowest")
    args = parser.parse_args()
    width = max(2, len(str(args.annotators)))
    people = [f"ann{k:0{width}d}" for k in range(1, args.annotators + 1)]
    annotate = min(ASSIGNED, args.screens)
    per_person = annotate // len(people)
    edit_samples = math.ceil(args.seconds / EDIT_PERIOD_S / 3) + 2
    if per_person < args.walk + 1 + edit_samples:
        parser.error(f"each annotator gets {per_person} samples; the walk needs {args.walk + 1} and the writes "
                     f"{edit_samples}: more --screens, fewer --annotators or a shorter --walk")
    sys.path.insert(0, str(ROOT / "tests"))
    from pg_server import PgServer

    work = Path(tempfile.mkdtemp(prefix="screenlab-teams-pg-"))
    os.environ.setdefault("SCREENLAB_CONFIG_DIR", str(work / "config"))  # never touch the user's settings
    os.environ.setdefault("SCREENLAB_DATA_DIR", str(work / "data"))
    os.environ.pop("SCREENLAB_DB_PASSWORD", None)  # each opening below says whose password it uses
    server = PgServer().start()
    began = time.perf_counter()
    windows = {}
    try:
        server.wait_ready()
        url = server.new_database()  # the owner's (the cluster's superuser), password included
        bare = public_url(url)  # (URL.set(password=None) would keep the password)
        pg_media, sqlite_dir = work / "pg-media", work / "sqlite-project"

        t0 = time.perf_counter()
        data = rows(args.screens)
        print(f"rows for {args.screens:,} screens/samples/steps and {len(data['action_box']):,} actions made in "
              f"{time.perf_counter() - t0:.1f} s")
        passwords: dict[str, str] = {}
        for what, location, media in (("PostgreSQL", url, pg_media), ("SQLite", sqlite_dir, None)):
            times, got = build(location, media, data, people, annotate)
            passwords.update(got)
            print(f"{what} project built: " + ", ".join(f"{k} {v:.1f} s" for k, v in times.items())
                  + f"  ({annotate:,} samples assigned, {per_person} to each of {len(people)} annotators)")
        del data

        def as_login(login: str) -> str:
            return make_url(bare).set(username=login, password=passwords[login]).render_as_string(
                hide_password=False)

        # the pictures, for the screens of ann01's queue the walk shows (and a few more)
        me = people[0]
        with Project.open(url, pg_media) as p, p.reading() as s:
            queue = list(s.execute(select(Assignment.episode_id).where(Assignment.annotator == me)
                                   .order_by(Assignment.episode_id)).scalars())
            shown = queue[:args.walk + 5]
            screens = s.execute(select(Screen.sha256, Screen.ext).join(Step, Step.screen_id == Screen.id)
                                .where(Step.episode_id.in_(shown)).order_by(Step.episode_id)).all()
            plans = {}
            for login in people:
                theirs = list(s.execute(select(Assignment.episode_id).where(Assignment.annotator == login)
                                        .order_by(Assignment.episode_id)).scalars())
                plans[login] = theirs[-edit_samples:]  # the end of the queue: not what the walk visits
            rls = s.execute(text("SELECT count(*) FROM pg_class WHERE relrowsecurity AND relnamespace = "
                                 "'public'::regnamespace")).scalar()
        t0 = time.perf_counter()
        pictures = draw_pictures(work / "pictures", PICTURES)
        for root in (pg_media, sqlite_dir / "media"):
            place_pictures(root, [tuple(r) for r in screens], pictures)
        sizes = [p.stat().st_size for p in pictures]
        print(f"{PICTURES} pictures of 1280x800 drawn ({min(sizes) / 1e6:.2f}-{max(sizes) / 1e6:.2f} MB each) and "
              f"placed for {len(screens)} screens of {me}'s queue in both projects in {time.perf_counter() - t0:.1f} s")

        if not args.pg_test_settings:
            restart_durable(server)
        if args.log_slow is not None:
            with _raw(url) as conn:
                conn.execute(f"ALTER SYSTEM SET log_min_duration_statement = {int(args.log_slow)}")
                conn.execute("ALTER SYSTEM SET log_line_prefix = '%m [%p] %u@%d '")
                conn.execute("SELECT pg_reload_conf()")
        with Project.open(url, pg_media) as p, p.reading() as s:
            settings = {k: s.execute(text(f"SHOW {k}")).scalar() for k in
                        ("server_version", "fsync", "synchronous_commit", "full_page_writes", "shared_buffers")}
        print("PostgreSQL " + ", ".join(f"{k}={v}" for k, v in settings.items())
              + f"; row-level security on {rls} tables")

        # 1. open + first page, as the owner and as ann01: alternate the two back ends
        who = {"owner": ({"pg": (url, pg_media, None), "sqlite": (sqlite_dir, None, None)}, EpisodeFilter()),
               me: ({"pg": (as_login(me), pg_media, None), "sqlite": (sqlite_dir, None, me)},
                    EpisodeFilter(assignee=me))}
        opens = {k: {"pg": [], "sqlite": []} for k in who}
        open_load = {k: {"pg": [], "sqlite": []} for k in who}
        span = span_start(server)
        for _ in range(OPEN_REPEAT):
            for person, (where, flt) in who.items():
                for key, (location, media, user) in where.items():
                    open_load[person][key].append(load())
                    opens[person][key].append(open_first_page(location, media, user, flt))
        open_others = others_share(server, span)
        med_open = {k: {} for k in who}
        print(f"\n1. open + count + first {PAGE} + states_of, cold, median of {OPEN_REPEAT} (other processes used "
              f"{open_others * 100:.0f} % of the machine's CPU meanwhile):")
        for person in who:
            print(f"   as {person}" + (" (everything)" if person == "owner" else f" (her queue, {per_person})"))
            for key, runs in opens[person].items():
                med = {part: statistics.median(r[part] for r in runs) for part in runs[0]}
                med_open[person][key] = med["total"]
                print(f"   {'PostgreSQL' if key == 'pg' else 'SQLite    '}: total {ms(med['total'])} (first "
                      f"{ms(runs[0]['total'])}; open {ms(med['open'])}, count {ms(med['count'])}, page "
                      f"{ms(med['page'])}, states_of {ms(med['states'])})  "
                      f"load {statistics.median(open_load[person][key]):.2f}")

        # 2. next screen in the window, decode and paint included
        from PySide6.QtCore import qInstallMessageHandler
        from PySide6.QtWidgets import QApplication

        def quiet(mode, context, message):  # the offscreen platform's notice at every window, not a problem
            if "propagateSizeHints" not in message:
                sys.stderr.write(message + "\n")
        qInstallMessageHandler(quiet)
        app = QApplication.instance() or QApplication([])
        t0 = time.perf_counter()
        windows["pg"] = open_window(as_login(me), str(pg_media), me)
        windows["sqlite"] = open_window(str(sqlite_dir), None, me)
        opened_in = time.perf_counter() - t0
        gc.collect()
        gc.freeze()  # as ui/app.py does once its window is built: long-lived objects out of the collector's walk
        for key, window in windows.items():
            assert window.project.user == me, (key, window.project.user)
            assert window.ws.episode is not None and window.ws.episode.id == queue[0], (key, window.ws.episode)
        viewport = windows["pg"].view.viewport().size()
        trips = {key: tally_round_trips(window.project.engine) for key, window in windows.items()}
        span = span_start(server)
        walked = walk(windows, args.walk)
        walk_others = others_share(server, span)
        for tally in trips.values():
            tally["frozen"] = dict(tally)  # what the walk sent (the listeners stay until the windows close)
        for key, result in walked.items():
            if result["shown"] != queue[:args.walk + 1]:
                raise RuntimeError(f"the {key} window did not walk {me}'s queue: {result['shown'][:5]}...")
            if result["not_decoded"]:
                raise RuntimeError(f"the {key} window showed {result['not_decoded']} screens without their image")
        decode = decode_alone(pictures)
        from PySide6.QtTest import QTest

        from desktop_app.ui import tasks

        QTest.qWait(1000)  # the windows idle, their event loop running
        tasks.wait_all()
        QTest.qWait(1000)
        held = server_connections(url, me)
        nxt = {k: r["times"] for k, r in walked.items()}
        next_load = {k: statistics.median(r["loads"]) for k, r in walked.items()}
        print(f"\n2. next screen in the window (D), {args.walk} presses each through {me}'s queue, alternating; "
              f"decode and paint included (windows {WINDOW_SIZE[0]}x{WINDOW_SIZE[1]}, canvas "
              f"{viewport.width()}x{viewport.height()}; both opened in {opened_in:.1f} s; other processes used "
              f"{walk_others * 100:.0f} % of the machine's CPU meanwhile):")
        for key, times in nxt.items():
            print(f"   {'PostgreSQL' if key == 'pg' else 'SQLite    '}: median {ms(statistics.median(times))}, "
                  f"p95 {ms(percentile(times, 0.95))}, max {ms(max(times))}  load {next_load[key]:.2f}")
        print(f"   the PNG decode alone (QImageReader.read, median over the {PICTURES} files): {ms(decode)}; "
              + ", ".join(f"{'PostgreSQL' if k == 'pg' else 'SQLite'} {r['ahead']} of {args.walk}"
                          for k, r in walked.items()) + " screens had been decoded ahead, while the one before showed")
        for key, tally in trips.items():
            t = tally["frozen"]
            print(f"   {'PostgreSQL' if key == 'pg' else 'SQLite    '} database work a press: "
                  f"{t['statements'] / args.walk:.1f} statements taking {ms(t['seconds'] / args.walk)} in all, "
                  f"{t['checkouts'] / args.walk:.1f} connection checkouts"
                  + (" (each pre-pinged: one more round trip)" if key == "pg" else "")
                  + f" on the UI thread; {t['background'] / args.walk:.1f} statements off it (decoding ahead, "
                    "time spent)")
        print(f"   server connections held by {me}'s idle window: {held}")
        for window in windows.values():
            window.close()
        windows.clear()
        app.processEvents()
        after_close = server_connections(url, me)

        # 3. writes: A annotators on their own logins
        with Project.open(url, pg_media) as p, p.reading() as s:
            before, last_entry = audit.box_state(s)
        result = edit_load(server, bare, pg_media, passwords, plans, args.seconds, work)
        with Project.open(url, pg_media) as p, p.reading() as s:  # no edit lost or written twice
            consistent = audit.replay_boxes(s, before, last_entry) == audit.stored_boxes(s)
        lat = result["latencies"]
        loads_text = f"{result['load_start']:.2f}→{result['load_end']:.2f}, others {result['others'] * 100:.0f} %"
        print(f"\n3. {len(plans)} annotators, each its own login and process, one write every {EDIT_PERIOD_S:.0f} s "
              f"for {args.seconds:.0f} s (started in {result['started_in']:.0f} s; each sees "
              f"{'/'.join(map(str, result['visible']))} samples under row-level security; opening took "
              f"{ms(result['open_s'])} median):")
        print(f"   {len(lat)} writes, {result['conflicts']} conflicts (StaleEdit), {len(result['errors'])} errors; "
              f"audit log replayed == stored boxes: {consistent}; load {result['load_start']:.2f} at the start, "
              f"{result['load_end']:.2f} at the end; the machine's CPU {result['busy'] * 100:.0f} % busy")
        if lat:
            print(f"   all writes   : p50 {ms(statistics.median(lat))}, p99 {ms(percentile(lat, 0.99))}, "
                  f"max {ms(max(lat))}")
            for kind in ("add_boxes", "edit_boxes", "delete_boxes", "set_state"):
                ts = [w[1] for w in result["by_kind"] if w[0] == kind]
                if ts:
                    print(f"   {kind:<13}: n={len(ts):<5} p50 {ms(statistics.median(ts))}, "
                          f"p99 {ms(percentile(ts, 0.99))}, max {ms(max(ts))}")
            reads = result["reads"]
            if reads:
                print(f"   (api.screen reads, not writes: n={len(reads)} p50 {ms(statistics.median(reads))}, "
                      f"p99 {ms(percentile(reads, 0.99))})")
        writes_n = max(1, len(lat))
        print(f"   CPU during the writes: {result['busy_s']:.0f} CPU-s busy of {os.cpu_count()} CPUs x "
              f"{args.seconds:.0f} s; the annotator processes {result['clients_s']:.0f} CPU-s "
              f"({result['clients_s'] / writes_n * 1000:.0f} ms a write, its screen read included), the server "
              f"{result['server_s']:.0f} CPU-s ({result['server_s'] / writes_n * 1000:.0f} ms a write); other processes "
              f"{result['others'] * 100:.0f} % of the machine")
        full = [d for g, d in result["gc"] if g == 2]
        print(f"   Python's cycle collector in the annotator processes: {len(result['gc'])} runs, {len(full)} of them "
              f"full (generation 2), longest {ms(max((d for _, d in result['gc']), default=0.0))}")
        for error in result["errors"][:5]:
            print("   error:", error.strip().splitlines()[-1])

        if args.log_slow is not None:
            print(f"\nslowest statements in the server's log (log_min_duration_statement = {args.log_slow} ms):")
            print("   who        count  median      max  statement")
            for login, statement, count, median, longest in slowest_statements(server.root / "log"):
                print(f"   {login:<10} {count:>5} {median:>7.1f} {longest:>8.1f}  {statement}")

        # the table
        def row(name, pg, sq, goal_s, load_text, unit="ms"):
            if unit == "ms":
                show, goal = ms, ("—" if goal_s is None else f"<= {goal_s * 1000:.0f} ms")
            else:
                show, goal = (lambda v: "—" if v is None else f"{v}"), ("—" if goal_s is None else f"<= {goal_s}")
            ratio = f"{pg / sq:.2f}" if pg is not None and sq else "—"
            verdict = "—" if goal_s is None or pg is None else ("PASS" if pg <= goal_s else "MISS")
            print(f"{name:<50} {show(pg):>11} {show(sq):>11} {ratio:>6} {goal:>10} {verdict:>5}  {load_text}")

        print(f"\nsummary: {args.screens:,} screens, {len(people)} annotators, PostgreSQL "
              f"{settings['server_version']} (fsync={settings['fsync']}, synchronous_commit="
              f"{settings['synchronous_commit']}, row-level security on) vs SQLite; {os.cpu_count()} CPUs")
        print(f"{'measurement':<50} {'PostgreSQL':>11} {'SQLite':>11} {'ratio':>6} {'goal':>10} {'':>5}  load")
        for person in who:
            row(f"open + count + first {PAGE} + states, {person} (med {OPEN_REPEAT})", med_open[person]["pg"],
                med_open[person]["sqlite"], 1.0, f"{statistics.median(open_load[person]['pg']):.2f}/"
                                                 f"{statistics.median(open_load[person]['sqlite']):.2f}, "
                                                 f"others {open_others * 100:.0f} %")
        loads2 = f"{next_load['pg']:.2f}/{next_load['sqlite']:.2f}, others {walk_others * 100:.0f} %"
        row("next screen in window, decode+paint, median", statistics.median(nxt["pg"]),
            statistics.median(nxt["sqlite"]), 0.05, loads2)
        row("next screen in window, decode+paint, p95", percentile(nxt["pg"], 0.95),
            percentile(nxt["sqlite"], 0.95), None, loads2)
        row("server connections of an idle window", held, None, 1, f"(0 after closing: {after_close == 0})",
            unit="n")
        print(f"{len(plans)} annotators, {len(lat)} writes, {result['conflicts']} conflicts, "
              f"{len(result['errors'])} errors, replay == stored: {consistent}, CPU busy {result['busy'] * 100:.0f} %")
        lat = lat or [float("nan")]
        row("   write p50", statistics.median(lat), None, None, loads_text)
        row("   write p99", percentile(lat, 0.99), None, 0.05, loads_text)
        row("   write max", max(lat), None, None, loads_text)
        if args.json:
            args.json.write_text(json.dumps({
                "settings": settings, "screens": args.screens, "annotators": len(people),
                "open": opens, "next_screen": {k: {"times": r["times"], "shown": r["shown"]} for k, r in walked.items()},
                "connections_idle": held, "writes": result["by_kind"], "reads": result["reads"], "gc": result["gc"]},
                indent=1))
        print(f"(whole benchmark: {time.perf_counter() - began:.0f} s)")
    finally:
        for window in windows.values():
            window.close()
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
