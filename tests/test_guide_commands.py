"""The user guide (docs/guide/, issue 40 item 7) is one a newcomer can follow: it builds with `mkdocs build
--strict` and reads offline, every command in it that a test can run is run here, and Help > User guide
opens the built pages (or says how to build them) in every door.

How the pages mark their command blocks, which this file enforces:
- a fenced block marked `console`, `bash`, `sh` or `shell` is runnable, unless the line right above it is
  `<!-- not run: REASON -->` (a PostgreSQL server of your own, your own files, a real model...: the reason
  names the tests that cover it); `text` blocks are never run;
- in a runnable block every line (comments dropped, `\\` continuations joined) is a `screenlab` command,
  optionally after NAME=value environment assignments, as a shell reads it; any other line fails the test;
- the runnable blocks of a page run in page order in one sandbox: a fresh folder that is the working folder
  and HOME (so `~/shots` is there), holding `myproject` (a copy of the demo project the app makes on first
  start, as getting-started.md tells the reader to make) and `shots/` (three of the demo's screenshots);
  http://localhost:8000/v1, the address the guide gives for "your OpenAI-compatible server", is a local
  stand-in (tests/openai_server.py) answering each kind of request in its expected shape, and
  OPENAI_API_KEY holds a fake key.
A command passes when it exits 0, as `screenlab` run in a shell would.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from openai_server import FakeOpenAI, Response, user_text

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guide"
PAGES = sorted(GUIDE.rglob("*.md"))
RUNNABLE = {"console", "bash", "sh", "shell"}
FENCE = re.compile(r"^```(\w*)\s*$")
NOT_RUN = re.compile(r"^<!-- not run: (.+?) -->$")
ENDPOINT = "http://localhost:8000/v1"  # the guide's example address of an OpenAI-compatible server


@dataclass
class Block:
    page: Path
    line: int  # of its opening fence, 1-based
    language: str
    lines: list[str]
    not_run: str | None  # the reason, when marked

    @property
    def runnable(self) -> bool:
        return self.language in RUNNABLE and self.not_run is None

    def commands(self) -> list[str]:
        """Its command lines as a shell reads them: continuations joined, comments and blank lines dropped."""
        joined, pending = [], ""
        for raw in self.lines:
            if raw.rstrip().endswith("\\"):
                pending += raw.rstrip()[:-1] + " "
                continue
            joined.append(pending + raw)
            pending = ""
        commands = []
        for line in joined:
            words = shlex.split(line, comments=True)
            if words:
                commands.append(line)
        return commands


def blocks(page: Path) -> list[Block]:
    found, text = [], page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(text):
        opening = FENCE.match(text[i])
        if opening is None:
            i += 1
            continue
        start, body = i, []
        i += 1
        while i < len(text) and not text[i].startswith("```"):
            body.append(text[i])
            i += 1
        marker = NOT_RUN.match(text[start - 1]) if start > 0 else None
        found.append(Block(page, start + 1, opening.group(1), body, marker.group(1) if marker else None))
        i += 1
    return found


def name(page: Path) -> str:
    return page.relative_to(GUIDE).as_posix()


RUN_PAGES = [p for p in PAGES if any(b.runnable for b in blocks(p))]


# -- the guide's markup -------------------------------------------------------------------------------------
def test_every_not_run_mark_stands_above_a_command_block_and_says_why():
    for page in PAGES:
        lines = page.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, 1):
            if line.startswith("<!-- not run"):
                assert NOT_RUN.match(line), f"{name(page)}:{number}: write it as <!-- not run: REASON -->"
                following = lines[number] if number < len(lines) else ""
                fence = FENCE.match(following)
                assert fence and fence.group(1) in RUNNABLE, \
                    f"{name(page)}:{number}: a not-run mark belongs right above a console block"


def test_the_guide_runs_most_of_its_commands():
    """The marks are exceptions: most of the guide's screenlab lines are run here."""
    run = sum(len(b.commands()) for p in PAGES for b in blocks(p) if b.runnable)
    marked = sum(len(b.commands()) for p in PAGES for b in blocks(p) if b.not_run)
    assert run >= 100 and run > 3 * marked, (run, marked)
    assert {name(p) for p in RUN_PAGES} >= {
        "getting-started.md", "annotators-day.md", "team-leads-day.md", "agents-and-runs.md", "formats.md",
        "protocols/envdistraction.md", "protocols/navi-plus.md", "protocols/agent-eval-refine.md",
        "protocols/sphinx.md", "protocols/vaf.md"}


# -- the sandbox a page runs in -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def demo_project(first_start_template):
    """The demo project the app makes on its first start (every demo dataset in it): the worker's, never written
    to (each page's sandbox copies it)."""
    return first_start_template


def _answer(body: dict, n: int) -> Response:
    """The stand-in model: each kind of request gets an answer in the shape its prompt asks for."""
    asked = user_text(body)
    if '"marked_element"' in asked:  # a grounding task's instruction, written from its framed element
        return Response(text='{"marked_element": "the search box", "instruction": "Tap the search box."}')
    if "semantic_understanding_score" in asked:  # VAF's mention judge
        return Response(text='{"semantic_understanding_score": 1, "reasoning": "it names the item"}')
    if '"away-from-the-goal"' in asked:  # a per-step trajectory judge
        return Response(text='Thoughts: the step opens the next screen.\nResponse: "towards-the-goal"')
    if 'Status: "success"' in asked:  # a whole-trajectory judge
        return Response(text='Thoughts: the last screen shows the task done.\nStatus: "success"')
    if "ui-tars" in body.get("model", ""):  # a browsing agent: click the first card
        return Response(text="Thought: I can see the following laptops on this screen: Northwind 14.\n"
                             "Action: click(start_box='(500,280)')")
    return Response(text='{"action_type": "click", "element": "Close"}')


@contextlib.contextmanager
def sandbox(folder: Path, demo: Path, monkeypatch, guide_dir: Path):
    shutil.copytree(demo, folder / "myproject")
    shots = folder / "shots"
    shots.mkdir()
    for picture in sorted((ROOT / "datasets" / "demo" / "images").glob("*.png"))[:3]:
        shutil.copy(picture, shots / picture.name)
    monkeypatch.chdir(folder)
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-guide-stand-in")
    monkeypatch.setenv("SCREENLAB_GUIDE_DIR", str(guide_dir))
    with FakeOpenAI(_answer) as model:
        yield model.base_url


def run_line(line: str, endpoint: str, monkeypatch, capsys) -> tuple[int | str, str]:
    """`line` as a shell would run it (leading NAME=value words set for it alone); its exit code and output."""
    from desktop_app.__main__ import main

    words = [os.path.expanduser(w).replace(ENDPOINT, endpoint) for w in shlex.split(line, comments=True)]
    env = {}
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[0]):
        key, _, value = words.pop(0).partition("=")
        env[key] = value
    if not words or words[0] != "screenlab":
        return "not a screenlab command", ""
    with monkeypatch.context() as scoped:
        for key, value in env.items():
            scoped.setenv(key, value)
        try:
            code = main(words[1:])
        except SystemExit as exit_:  # argparse's errors and --help
            code = exit_.code if isinstance(exit_.code, int) else 1
    out = capsys.readouterr()
    return code, out.out + out.err


@pytest.mark.browser
@pytest.mark.parametrize("page", RUN_PAGES, ids=name)
def test_the_pages_commands_run(page, demo_project, built_guide, tmp_path, monkeypatch, capsys):
    ran = []
    with sandbox(tmp_path, demo_project, monkeypatch, built_guide) as endpoint:
        for block in blocks(page):
            if not block.runnable:
                continue
            for line in block.commands():
                code, printed = run_line(line, endpoint, monkeypatch, capsys)
                where = f"{name(page)} (block at line {block.line}): {line}"
                assert code == 0, f"{where}\nexited {code}; printed:\n{printed[-3000:]}\n(mark the block " \
                                  "<!-- not run: REASON --> if a test cannot run it)"
                ran.append(line)
    assert ran


# -- the built guide ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def built_guide(tmp_path_factory):
    """`make guide`'s build, warnings as errors, into a folder of this test run."""
    site = tmp_path_factory.mktemp("guide") / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                           str(ROOT / "mkdocs.yml"), "--site-dir", str(site)],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return site


def test_the_guide_builds_strictly_and_reads_offline(built_guide):
    pages = {p.relative_to(built_guide).as_posix() for p in built_guide.rglob("*.html")}
    for page in PAGES:  # every source page is a page of the site, as a file (they open from disk)
        assert name(page).removesuffix(".md") + ".html" in pages
    loaded = re.compile(r"<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)=\"(?:https?:)?//", re.I)
    for page in built_guide.rglob("*.html"):
        assert not loaded.search(page.read_text(encoding="utf-8")), f"{page} loads something from the network"
    for css in built_guide.rglob("*.css"):
        assert not re.search(r"url\(['\"]?(?:https?:)?//", css.read_text(encoding="utf-8")), css
    reference = (built_guide / "api-reference.html").read_text(encoding="utf-8")
    for documented in ("open_project", "import_data", "create_run", "evaluate", "assign", "screen", "guide_path"):
        assert f'id="desktop_app.api.{documented}"' in reference  # from the docstrings of desktop_app/api/
    front = (built_guide / "index.html").read_text(encoding="utf-8")
    assert 'src="img/main-window-light.png"' in front and (built_guide / "img" / "main-window-light.png").is_file()


# -- Help > User guide, `screenlab guide`, api.guide_path() --------------------------------------------------
def test_every_door_finds_the_built_guide_or_says_how_to_build_it(built_guide, tmp_path, monkeypatch, capsys):
    from desktop_app import api
    from desktop_app.__main__ import main

    monkeypatch.setenv("SCREENLAB_GUIDE_DIR", str(built_guide))
    assert api.guide_path() == built_guide / "index.html"
    assert main(["guide"]) == 0
    assert capsys.readouterr().out.strip() == str(built_guide / "index.html")

    monkeypatch.setenv("SCREENLAB_GUIDE_DIR", str(tmp_path / "never-built"))
    with pytest.raises(FileNotFoundError, match="make guide"):
        api.guide_path()
    assert main(["guide"]) == 1
    printed = capsys.readouterr()
    assert printed.out == "" and printed.err.count("\n") == 1 and "make guide" in printed.err


@pytest.mark.gui
def test_help_user_guide_opens_the_built_index_or_says_how_to_build_it(qtbot, demo_copy, built_guide, tmp_path,
                                                                       monkeypatch):
    from PySide6.QtCore import QObject, QUrl, Slot
    from PySide6.QtGui import QDesktopServices

    from test_gui_editing import open_window

    class Browser(QObject):  # where Qt hands file:// URLs it is asked to open: the user's browser's place
        def __init__(self):
            super().__init__()
            self.opened: list[QUrl] = []

        @Slot(QUrl)
        def open(self, url: QUrl) -> None:
            self.opened.append(url)

    window = open_window(qtbot, demo_copy)
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    action = next(a for a in help_menu.actions() if a.text() == "User guide")
    browser = Browser()
    QDesktopServices.setUrlHandler("file", browser, "open")
    try:
        monkeypatch.setenv("SCREENLAB_GUIDE_DIR", str(built_guide))
        action.trigger()
        assert browser.opened == [QUrl.fromLocalFile(str(built_guide / "index.html"))]
        assert window.dialogs.guide_missing is None

        monkeypatch.setenv("SCREENLAB_GUIDE_DIR", str(tmp_path / "never-built"))
        action.trigger()
        assert len(browser.opened) == 1  # nothing more opened
        note = window.dialogs.guide_missing
        assert note.isVisible() and "make guide" in note.text()
        note.accept()
        assert window.isEnabled()  # the window goes on
    finally:
        QDesktopServices.unsetUrlHandler("file")
        window.close()
