"""Issue 34, finding 6: what ScreenLab says matches the options it has.

Every string in desktop_app/ that names a `--flag` (help texts, errors, hints; docstrings are not said) names
one that exists: on the command the text names ("screenlab import ... --format sphinx"), else on one of the
commands the module holds (cli/judge_commands.py's texts on `judge ...`), else, for a module with no command
(the core, the window), on some command. Then end to end: `judge run` does not offer a flag it does not have,
and a `--where` that selects nothing is refused, saying what there is, with no empty run.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import re
import sqlite3
from contextlib import closing
from pathlib import Path

from desktop_app import api
from desktop_app.cli.main import build_parser, main
from desktop_app.formats.transfer import import_path
from desktop_app.paths import demo_dataset_dir, judge_demo_dataset_dir
from desktop_app.store.project import Project

from openai_server import FakeOpenAI, Response

PACKAGE = Path(__file__).resolve().parents[1] / "desktop_app"
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
MENTION = re.compile(r"\bscreenlab((?: [a-z][a-z0-9-]*)+)")
# modules that pass other programs' switches, which are not ours to have
OTHER_PROGRAMS = {"render/browser.py": "Chromium's switches", "record/browser.py": "Chromium's switches", "ocr/tess.py": "Tesseract's switches"}


def commands() -> dict[tuple[str, ...], tuple[set[str], set[str]]]:
    """Each command path ("judge", "run") -> (its flags, the modules of the functions it runs). A subcommand
    whose parser names no function of its own runs its parent's (judge's subcommands: cli/judge_commands.py)."""
    out = {}

    def walk(parser: argparse.ArgumentParser, path: tuple[str, ...], modules: set[str]) -> None:
        own = {v.__module__ for v in parser._defaults.values() if callable(v) and hasattr(v, "__module__")}
        modules = own or modules
        out[path] = ({o for a in parser._actions for o in a.option_strings}, modules)
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, (*path, name), modules)

    walk(build_parser(), (), {"desktop_app.cli.main"})
    return out


def said_strings(tree: ast.AST):
    """(line, text) of every string literal (an f-string's literal parts too) that is not a docstring."""
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.lineno, node.value


def named_command(text: str, before: int, table) -> tuple[str, ...] | None:
    """The command a text names before position `before` ("screenlab judge run ..."), as deep as it goes."""
    mentions = [m for m in MENTION.finditer(text) if m.start() < before]
    if not mentions:
        return None
    path: tuple[str, ...] = ()
    for word in mentions[-1].group(1).split():
        if (*path, word) not in table:
            break
        path = (*path, word)
    return path or None


def test_every_flag_a_message_names_exists_where_it_is_said():
    table = commands()
    every = set().union(*(flags for flags, _ in table.values()))
    by_module: dict[str, set[str]] = {}
    for flags, modules in table.values():
        for module in modules:
            by_module.setdefault(module, set()).update(flags)
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel in OTHER_PROGRAMS:
            continue
        module = "desktop_app." + rel.removesuffix(".py").replace("/", ".")
        for line, text in said_strings(ast.parse(path.read_text(encoding="utf-8"))):
            for found in FLAG.finditer(text):
                flag, command = found.group(), named_command(text, found.start(), table)
                if command is not None:
                    allowed, where = table[command][0], f"`screenlab {' '.join(command)}`"
                elif module in by_module:
                    allowed, where = by_module[module], f"the commands of {module}"
                else:
                    allowed, where = every, "any command"
                if flag not in allowed:
                    wrong.append(f"desktop_app/{rel}:{line}: {flag} is not an option of {where}: {text[:90]!r}")
    assert not wrong, "\n".join(wrong)


def cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def test_judge_run_names_no_option_it_lacks_for_trajectories_without_a_goal(tmp_path):
    project = tmp_path / "p"
    with Project.init(project) as p:
        import_path(p, judge_demo_dataset_dir(), "unified-trajectory")
    with closing(sqlite3.connect(project / "screenlab.sqlite")) as db, db:  # two tasks whose goal was never written
        db.execute("UPDATE episode SET goal = '' WHERE id IN (SELECT id FROM episode WHERE kind = 'trajectory' "
                   "ORDER BY id LIMIT 2)")
    judge_flags = commands()[("judge", "run")][0]
    with FakeOpenAI(lambda body, n: Response(text='Thoughts: done.\nStatus: "success"')) as server:
        assert cli("agents", "add", "judge", "--base-url", server.base_url, "--model", "m")[0] == 0
        code, out, err = cli("judge", "run", str(project), "--judge", "judge")
    assert code == 0, err
    said = next(line for line in out.splitlines() if "left out" in line)
    assert "2 samples left out: 2 no goal" in said
    assert all(flag in judge_flags for flag in FLAG.findall(said)), said


def test_a_where_that_selects_nothing_is_refused_and_creates_no_run(tmp_path):
    project = tmp_path / "p"
    with Project.init(project) as p:
        import_path(p, demo_dataset_dir(), "screenlab")
    code, out, err = cli("run", str(project), "--agent", "random", "--where", "scenario=nonexistent")
    assert code == 2 and out == ""
    assert err == ("error: --where scenario=nonexistent selects no sample (scenarios in this project: chat, popup, "
                   "recommendation, search)\n")
    code, _, err = cli("prelabel", str(project), "--run", "1", "--where", "scenario=nonexistent")
    assert code == 2
    with Project.open(project) as p:
        assert api.runs(p) == []
        # the Python door refuses it too
        try:
            api.create_run(p, "random", {"scenarios": ("nonexistent",)})
        except ValueError as exc:
            assert "selects no sample" in str(exc)
        else:
            raise AssertionError("an empty run was created")
        assert api.runs(p) == []
        run_id = api.create_run(p, "random", {"scenarios": ("popup",)})
    code, _, err = cli("prelabel", str(project), "--run", str(run_id), "--where", "scenario=nonexistent")
    assert code == 2 and "--where scenario=nonexistent selects no sample (scenarios" in err
