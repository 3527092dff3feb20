"""Shared fixtures. Tests use real SQLite files, real images and a real browser."""

from __future__ import annotations

import faulthandler
import os
import shutil
from pathlib import Path

# numpy loaded, as in a window past its first screen: a screen shown while numpy was not yet imported gets its ink map
# (and so its captions) a moment after its paint (step_view.py, ADR 0071), and which test ran first would decide
# whether a window's first captions are there at once. test_startup.py launches the real app to check that path.
import numpy  # noqa: F401
import pytest
from PIL import Image
from sqlalchemy import inspect

# Qt must never try to reach a display in tests; the user's folders must stay untouched.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# the window's package first, as a launch imports it: before pytest-qt's setup imports PySide6, it asks for the
# enums' short names as attributes (ui/enum_shortcuts.py), so the suite runs the window's code as a user's does
import desktop_app.ui  # noqa: E402, F401

# A hung test fails after pyproject's 5 minutes (pytest-timeout) with every thread's stack, when the test's own thread
# can still run Python. Where it cannot (stuck inside Qt or a C library, or the GIL held by a stuck thread), the
# signal never lands: then faulthandler's watchdog, a thread of C that needs no GIL, prints every thread's stack to
# the real stderr (taken before pytest captures it) and ends the worker, which xdist reports as crashed, and the
# suite goes on. A test once held CI for its whole 90 minutes with nothing in the log to say which (2026-12-01).
WATCHDOG_S = float(os.environ.get("SCREENLAB_TEST_WATCHDOG_S", 420))
_real_stderr: int | None = None


def pytest_configure(config):
    global _real_stderr
    _real_stderr = os.dup(2)  # capturing is suspended here: this is the terminal or CI's log


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    faulthandler.dump_traceback_later(WATCHDOG_S, exit=True, file=_real_stderr)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()


@pytest.fixture(autouse=True)
def _isolated_user_dirs(tmp_path_factory, monkeypatch):
    base = tmp_path_factory.mktemp("userdirs")
    monkeypatch.setenv("SCREENLAB_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("SCREENLAB_CONFIG_DIR", str(base / "config"))
    monkeypatch.setenv("SCREENLAB_LOG_DIR", str(base / "log"))
    monkeypatch.setenv("SCREENLAB_CACHE_DIR", str(base / "cache"))
    monkeypatch.setenv("SCREENLAB_USER", "tester")


@pytest.fixture
def project(tmp_path):
    from desktop_app.store.project import Project

    with Project.init(tmp_path / "proj") as p:
        yield p


@pytest.fixture(scope="session")
def _demo_template(tmp_path_factory):
    """The demo dataset imported once per worker (0.7 s each time, and about a hundred tests want it)."""
    from desktop_app.formats.transfer import import_path
    from desktop_app.paths import demo_dataset_dir
    from desktop_app.store.project import Project

    path = tmp_path_factory.mktemp("demo-template") / "demo"
    with Project.init(path) as project:
        import_path(project, demo_dataset_dir(), "screenlab")
    return path


@pytest.fixture
def demo_copy(tmp_path, _demo_template):
    """A project folder of its own holding the bundled demo dataset (a copy of the worker's imported one: a
    project folder is self-contained, its database names its pictures relative to it)."""
    path = tmp_path / "demo"
    shutil.copytree(_demo_template, path)
    return path


@pytest.fixture(scope="session")
def first_start_template(tmp_path_factory):
    """The demo project the app makes on its first start (desktop_app.demo.ensure_demo_project: every demo
    dataset, its judges' verdicts and its live run), built once per worker: 3.5 s of CPU each time, and several
    files want it. Never written to: take a copy (first_start_demo, copy_first_start)."""
    from desktop_app.demo import ensure_demo_project

    return ensure_demo_project(tmp_path_factory.mktemp("first-start-template"))


def copy_first_start(template: Path, data_dir: Path) -> Path:
    """A copy of the first-start demo project where a first start with `data_dir` as the user data folder puts
    it (the folder is self-contained: ensure_demo_project itself builds it elsewhere and renames it in place)."""
    target = data_dir / template.name
    shutil.copytree(template, target)
    return target


@pytest.fixture
def first_start_demo(tmp_path, first_start_template):
    """This test's own copy of the first-start demo project, in tmp_path / "data"."""
    return copy_first_start(first_start_template, tmp_path / "data")


def varint(n: int) -> bytes:
    """An unsigned LEB128 varint, as protobuf and Thrift's compact protocol write them (for files built by hand)."""
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def make_image(path: Path, size=(200, 100), color="white", fmt=None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, color).save(path, format=fmt)
    return path


def ambiguous_tasks_project(tmp_path: Path, model_wrote: bool = True) -> Path:
    """Two pending ambiguous tasks of three steps (the shoe size taken out, asked for at step 2); the second
    also lost its delivery date, which no question asks for. Returns the project folder. model_wrote=False:
    tasks written by hand (as the demo's), with no model texts or step types to compare the reviewers' with."""
    import json

    from desktop_app.formats.transfer import import_path
    from desktop_app.store.project import Project

    folder = tmp_path / "data"
    lines = []
    for e in range(2):
        steps = []
        for i in range(3):
            make_image(folder / "images" / f"e{e}s{i}.png", size=(400, 300), color=(60 * i, 120, 40 * e))
            steps.append({"image": f"images/e{e}s{i}.png", "instruction": ["Open Stride", "Tap size 42", "Tap Buy"][i],
                          "actions": [{"box": [20, 20 + 80 * i, 200, 70 + 80 * i], "label": "gold"}]})
        kinds = ["transactional", "informative", "transactional"]
        navi = {"original_task": "Order the blue shoes in size 42 from Stride" + (" on 12 May" if e else ""),
                "ambiguous_task": "Order the blue shoes from Stride", "step_kinds": kinds,
                "llm": {"step_kinds": kinds, "ambiguous_task": "Order the blue shoes from Stride"} if model_wrote else {},
                "qa_pairs": [{"ask_step": 1, "removed_step": 1, "question": "Which size?", "answer": "Size 42.",
                              "overlap": "in size 42", "llm": {"question": "Which size?", "answer": "Size 42."}}]}
        lines.append({"id": f"shoes-{e}-ambiguous", "goal": navi["ambiguous_task"], "scenario": "ambiguous",
                      "review_status": "pending", "meta": {"navi": navi}, "steps": steps,
                      "reviews": [{"kind": "ambiguous_task", "status": "pending", "generator": "test"}]})
    (folder / "episodes.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    with Project.init(tmp_path / "p") as p:
        import_path(p, folder, "screenlab")
    return tmp_path / "p"


SHOE_BOXES = [[20, 20, 120, 60], [200, 100, 300, 140], [40, 220, 380, 280]]


def write_shoe_episodes(folder: Path, episodes: int = 2) -> Path:
    """Multi-step ambiguous episodes in our JSONL: three steps each (one gold box per step); the size
    was taken out of the task and is asked for at step 1 ("Which size do you need?" -> "Size 42.")."""
    import json

    lines = []
    for e in range(episodes):
        steps = []
        for i, box in enumerate(SHOE_BOXES):
            make_image(folder / "images" / f"e{e}s{i}.png", size=(400, 300), color=(40 * i, 90, 30 * e))
            steps.append({"image": f"images/e{e}s{i}.png", "instruction": f"Tap button {i + 1}",
                          "actions": [{"box": box, "label": "gold", "element_text": f"button {i + 1}"}]})
        navi = {"original_task": "Order the blue shoes in size 42", "ambiguous_task": "Order the blue shoes",
                "qa_pairs": [{"ask_step": 1, "removed_step": 1, "question": "Which size do you need?",
                              "answer": "Size 42.", "overlap": "in size 42"}],
                "step_kinds": ["transactional", "informative", "transactional"]}
        lines.append({"id": f"shoes-{e}", "goal": "Order the blue shoes", "scenario": "ambiguous",
                      "review_status": "accepted", "meta": {"navi": navi}, "steps": steps})
    (folder / "episodes.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return folder


def snapshot(project) -> dict:
    """Everything a user could lose: every row of every table and every media file."""
    state = {}
    with project.engine.connect() as conn:
        # the driver's own cursor: the fuzz tests take two snapshots an import, and SQLAlchemy's statement
        # handling was most of their time (1.7 ms a snapshot of 24 tables against 0.3 ms so)
        cursor = conn.connection.cursor()
        for table in inspect(conn).get_table_names():
            cursor.execute(f'SELECT * FROM "{table}" ORDER BY 1')
            state[table] = cursor.fetchall()
        cursor.close()
    state["media"] = sorted(p.relative_to(project.media.root).as_posix()
                            for p in project.media.root.rglob("*") if p.is_file())
    return state


@pytest.fixture(scope="session")
def renderer():
    """One browser for the whole test session (starting Chromium costs ~0.5 s)."""
    from desktop_app.render.renderer import Renderer

    with Renderer() as r:
        yield r


# -- the two database back ends ---------------------------------------------------------------------------
def _postgres():
    """A started PostgreSQL server (tests/pg_server.py), stopped after the `with`. Without PostgreSQL installed
    the PostgreSQL half of the suite is skipped, except in CI (.ci/run sets SCREENLAB_REQUIRE_POSTGRES)."""
    from contextlib import contextmanager

    from pg_server import PgServer, binaries

    if binaries() is None:
        if os.environ.get("SCREENLAB_REQUIRE_POSTGRES"):
            pytest.fail("PostgreSQL is not installed (apt-get install postgresql)")
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql)")

    @contextmanager
    def started():
        server = PgServer().start()
        try:
            server.wait_ready()
            yield server
        finally:
            server.stop()
    return started()


@pytest.fixture(scope="session")
def pg_server():
    """One real PostgreSQL server for the whole session."""
    with _postgres() as server:
        yield server


@pytest.fixture
def own_server():
    """A PostgreSQL server of this test's own, for a test that stops and starts it again."""
    with _postgres() as server:
        yield server


BACKENDS = ("sqlite", "postgresql")


@pytest.fixture(params=BACKENDS)
def backend(request):
    return request.param


@pytest.fixture
def new_location(backend, tmp_path, request):
    """Makes (location, media root) for a new project on the back end under test: a folder for SQLite, a
    fresh database on the session's PostgreSQL server (media in a folder beside it) for PostgreSQL."""
    names = iter(range(1, 1000))

    def make():
        n = next(names)
        if backend == "sqlite":
            return tmp_path / f"proj{n}", None
        return request.getfixturevalue("pg_server").new_database(), tmp_path / f"media{n}"
    return make


@pytest.fixture
def team(backend, tmp_path, request):
    """A new empty project and its people, lena (lead), rita (reviewer), ana and ben (annotators), on each
    back end in turn: on PostgreSQL four logins of the test server (tests/team_server.py)."""
    from team_server import make_team

    if backend == "sqlite":
        made = make_team("sqlite", tmp_path / "team", None)
    else:
        server = request.getfixturevalue("pg_server")
        made = make_team("postgresql", server.new_database(), tmp_path / "media", server)
    yield made
    made.close()


@pytest.fixture
def any_project(new_location):
    """A new empty project on each back end in turn."""
    from desktop_app.store.project import Project

    location, media = new_location()
    with Project.init(location, media) as p:
        yield p
