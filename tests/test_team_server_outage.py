"""The server goes away: the command line says so in one line (exit 3) and changes nothing; a re-scoring of
the agents' answers that met the lost connection after an edit had committed runs again once the server is
back, so no verdict stays judged against labels that changed."""

from __future__ import annotations

import json

from sqlalchemy import select

from desktop_app import api
from desktop_app.agents.profiles import BASELINES
from desktop_app.cli.main import main
from desktop_app.formats.transfer import import_path
from desktop_app.runs.engine import create_run, execute
from desktop_app.store import models as m
from desktop_app.store.project import Project

from conftest import make_image


def _scored(url, media, tmp_path) -> int:
    """A screen whose gold box holds the centre, and the centre baseline's stored answer on it (gold)."""
    make_image(tmp_path / "data" / "s.png", size=(200, 100))
    line = {"id": "one", "goal": "Sign in", "scenario": "popup", "steps": [{"image": "s.png", "actions": [
        {"label": "gold", "box": [80, 30, 120, 70], "element_text": "Sign in"}]}]}
    (tmp_path / "data" / "episodes.jsonl").write_text(json.dumps(line) + "\n")
    with Project.init(url, media) as project:
        import_path(project, tmp_path / "data", "screenlab")
        execute(project, create_run(project, BASELINES["center"]))  # clicks (100, 50)
        with project.reading() as s:
            return s.execute(select(m.ActionBox.id)).scalar_one()


def _verdict(project) -> str:
    with project.reading() as s:
        return s.execute(select(m.Prediction.verdict)).scalar_one()


def test_a_rescoring_lost_with_the_server_runs_when_it_is_back(own_server, tmp_path):
    url, media = own_server.new_database(), tmp_path / "media"
    box = _scored(url, media, tmp_path)
    # the server goes away between the edit's commit and the re-scoring that follows it: a listener run
    # before the re-scoring stops it (the real server, stopped for real)
    stopped = []

    def server_goes_away(_project, _steps):
        if not stopped:
            own_server.pause()
            stopped.append(True)

    try:
        with api.open_project(url, media) as project:
            project.after_edit.insert(0, server_goes_away)  # before the re-scoring the opening added
            api.edit_boxes(project, {box: {"label": "distracted"}})  # committed; the re-scoring meets no server
            assert stopped and len(project.pending_after_edit) == 1
            own_server.resume()
            project.ping()  # the window's banner pings until the server is back: the re-scoring runs then
            assert project.pending_after_edit == []
            assert _verdict(project) == "distracted"
    finally:
        if not _up(own_server):
            own_server.resume()


def _up(server) -> bool:
    return server._run(str(server.bin / "pg_isready"), "-h", "127.0.0.1", "-p", str(server.port),
                       check=False).returncode == 0


def test_the_command_line_says_a_lost_server_in_one_line(own_server, tmp_path, monkeypatch, capsys):
    url, media = own_server.new_database(), tmp_path / "media"
    _scored(url, media, tmp_path)
    bare = url.replace(":team-secret@", "@")
    monkeypatch.setenv("SCREENLAB_DB_PASSWORD", "team-secret")
    own_server.pause()
    try:
        for argv in (["team", "state", bare, "--media", str(media), "done", "one"],
                     ["team", "progress", bare, "--media", str(media)],
                     ["boxes", "show", bare, "--media", str(media), "1"],
                     ["info", bare, "--media", str(media)]):
            assert main(argv) == 3, argv
            err = capsys.readouterr().err
            assert err.count("\n") == 1 and err.startswith("error: cannot reach the database server: "), err
            assert "nothing was changed" in err and "team-secret" not in err
    finally:
        own_server.resume()
    monkeypatch.setenv("SCREENLAB_DB_PASSWORD", "wrong")
    assert main(["team", "progress", bare, "--media", str(media)]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "refused the login: " in err and "password authentication failed" in err
