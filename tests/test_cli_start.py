"""The command line starts without what it does not need (issue 19): `screenlab --version` and `--help` load no
database, format, image, LLM or Qt library; `screenlab info` on a current project loads neither Alembic nor the
ORM models; what every command prints is unchanged (the info lines below were printed by the code before).
The times themselves are measured by benchmarks/cli_start.py."""

import argparse
import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import create_engine, select

from desktop_app.__main__ import main
from desktop_app.store import edits, migrate
from desktop_app.store.models import Episode, Step
from desktop_app.store.project import Project

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "datasets" / "demo"

# every module a start of `screenlab` loaded, printed after what the command printed
LOADED = """
import json, sys
from desktop_app.__main__ import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print("\\nloaded:" + json.dumps(sorted(sys.modules)))
"""
LIBRARIES = ("sqlalchemy", "alembic", "numpy", "PIL", "openai", "PySide6")


def started(*argv: str) -> tuple[str, list[str]]:
    """What `screenlab ARGV` printed, and the modules it loaded."""
    out = subprocess.run([sys.executable, "-c", LOADED, *argv], capture_output=True, text=True, check=True).stdout
    shown, _, loaded = out.rpartition("\nloaded:")
    return shown, json.loads(loaded)


def among(modules: list[str], *names: str) -> list[str]:
    return [m for m in modules if any(m == n or m.startswith(n + ".") for n in names)]


@pytest.mark.parametrize("argv", [["--version"], ["--help"]])
def test_version_and_help_load_no_database_format_image_llm_or_qt_library(argv):
    shown, loaded = started(*argv)
    assert among(loaded, *LIBRARIES, "desktop_app.formats", "desktop_app.store") == []
    if argv == ["--version"]:
        assert shown.strip().startswith("screenlab ")
    else:  # every command is still listed, with its line
        assert "import a dataset (all or nothing)" in shown and "box-attributes" in shown


def test_import_help_still_lists_every_format_it_reads():
    from desktop_app.formats import FORMATS

    shown, loaded = started("import", "--help")
    assert among(loaded, "desktop_app.formats")  # the registry is loaded when the command needs it
    unwrapped = "".join(shown.split())  # argparse wraps lines, also at a name's hyphen
    for name, spec in FORMATS.items():
        if spec.read:
            assert f"{name}:{spec.description}".replace(" ", "") in unwrapped


def test_each_command_built_alone_has_the_help_of_the_parser_built_whole():
    from desktop_app.cli.main import COMMANDS, build_parser

    def commands(parser):
        (sub,) = [a for a in parser._actions if a.dest == "command"]
        return sub

    whole = build_parser()
    assert [(a.dest, a.help) for a in commands(whole)._choices_actions] == \
        [(name, line) for name, (line, _) in COMMANDS.items()]
    assert build_parser(set()).format_help() == whole.format_help()
    for name in COMMANDS:
        assert commands(build_parser({name})).choices[name].format_help() == \
            commands(whole).choices[name].format_help()
        # as a command's start builds it (main): its own group's parsers alone, the same help
        alone = commands(build_parser({name}, listed=False)).choices
        assert alone[name].format_help() == commands(whole).choices[name].format_help()
        own = argparse.ArgumentParser().add_subparsers()
        COMMANDS[name][1](own)
        assert set(alone) == set(own.choices) < set(COMMANDS)


COUNTED = """\
screens              28
episodes             28
steps                28
actions              399
actions without box  31
{copies}
episodes by scenario:
  chat               6
  popup              9
  recommendation     6
  search             7

episodes by split:
  dev                28

episodes by review status:
  accepted           24
  pending            4

actions by label:
  distracted         52
  gold               86
  other              261

review items:
  accepted           24
  pending            4
"""


def test_info_prints_what_it_printed_before_with_annotator_copies_apart(new_location, capsys):
    location, media = new_location()
    where = [str(location)] + (["--media", str(media)] if media else [])
    assert main(["init", *where]) == 0
    assert main(["import", *where, str(DEMO), "--format", "screenlab", "--quiet", "--split", "dev"]) == 0
    capsys.readouterr()

    def info() -> str:
        assert main(["info", *where]) == 0
        head, rest = capsys.readouterr().out.split("\n", 1)
        assert head == f"project  {location}"
        return rest

    assert info() == COUNTED.format(copies="")
    # two annotators on a quarter of the samples: 14 private copies, one with two boxes drawn on it
    if media:  # on a server the two are logins first
        for who in ("ann", "bob"):
            assert main(["team", "add-member", *where, who]) == 0
    assert main(["team", "assign", *where, "ann,bob", "--overlap", "0.25", "--seed", "1"]) == 0
    with Project.open(location, media) as project:
        with project.reading() as s:
            step = s.execute(select(Step.id).join(Episode, Episode.id == Step.episode_id)
                             .where(Episode.kind == "copy").order_by(Step.id)).scalars().first()
        edits.create_boxes(project, step, [{"x1": 1, "y1": 1, "x2": 30, "y2": 30, "label": "distracted"},
                                           {"label": "other"}])
    capsys.readouterr()
    assert info() == COUNTED.format(copies="annotator copies     14\n")
    assert main(["info", *where, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["double_annotation_copies"] == 14


def test_info_on_a_current_project_loads_neither_alembic_nor_the_orm_models(tmp_path):
    Project.init(tmp_path / "p").close()
    shown, loaded = started("info", str(tmp_path / "p"))
    assert "screens              0" in shown
    assert among(loaded, "alembic", "desktop_app.store.models", "desktop_app.formats", "numpy",
                 "PIL", "PySide6") == []


def test_info_upgrades_an_older_schema_and_refuses_a_newer_one(tmp_path, capsys):
    from alembic import command

    folder = tmp_path / "old"
    folder.mkdir()
    engine = create_engine(f"sqlite:///{folder / 'screenlab.sqlite'}")
    cfg = migrate._config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0010")
    engine.dispose()
    assert main(["info", str(folder)]) == 0
    assert "episodes             0" in capsys.readouterr().out
    with Project.open(folder) as project:
        assert migrate.current_revision(project.engine) == migrate.head_revision()

    with sqlite3.connect(folder / "screenlab.sqlite") as db:
        db.execute("UPDATE alembic_version SET version_num = '9999'")
    db.close()
    assert main(["info", str(folder)]) == 2
    assert capsys.readouterr().err == (f"error: this project's schema (9999) is newer than this ScreenLab knows "
                                       f"({migrate.head_revision()}); update ScreenLab to open it\n")


def test_the_head_read_from_the_migration_files_is_alembics():
    # opening a current project compares against this head without loading Alembic (store/migrate.py); a
    # migration file written so that it cannot be read this way sends every open through Alembic
    assert migrate.head_on_disk() == migrate.head_revision()


def test_the_head_read_again_follows_a_migration_file_added_or_changed(tmp_path, monkeypatch):
    # head_on_disk keeps its answer while the files' names, sizes and times stay; a new migration (an update of
    # ScreenLab under a running process, a developer's new revision) is read again
    head = migrate.head_revision()
    versions = tmp_path / "migrations" / "versions"
    shutil.copytree(migrate._MIGRATIONS / "versions", versions)
    monkeypatch.setattr(migrate, "_MIGRATIONS", tmp_path / "migrations")
    assert migrate.head_on_disk() == head
    (versions / "9999_next.py").write_text(f'revision = "9999"\ndown_revision = "{head}"\n', encoding="utf-8")
    assert migrate.head_on_disk() == "9999"
    (versions / "9999_next.py").write_text('revision = f"9999"\n', encoding="utf-8")  # not readable so
    assert migrate.head_on_disk() is None
    (versions / "9999_next.py").unlink()
    assert migrate.head_on_disk() == head


def test_the_libraries_a_command_loads_carry_their_bytecode():
    # make installs the packages with uv (ADR 0064), which writes no bytecode unless told to: with
    # PYTHONDONTWRITEBYTECODE set (this machine, the CI machine) every command then compiled SQLAlchemy and the rest
    # again, 1.6 s of a 2.5 s `screenlab import`. An installer that leaves them out fails here.
    import importlib.util

    import alembic.command
    import numpy
    import sqlalchemy.orm

    for module in (sqlalchemy, sqlalchemy.orm, numpy, alembic.command):
        cached = Path(importlib.util.cache_from_source(module.__file__))
        assert cached.is_file(), f"{module.__name__} has no bytecode ({cached}): reinstall it with bytecode"
