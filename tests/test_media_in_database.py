"""A project created with its images in the database: a team with a server and no shared folder. Every
machine that opens it reads the same images, imports stay all-or-nothing, and the choice is the project's
own (nobody has to remember a --media flag)."""

from __future__ import annotations

import json
import threading

import pytest
from PIL import Image
from sqlalchemy import func, select, text

from desktop_app import api
from desktop_app.formats.records import FormatError
from desktop_app.formats.transfer import export_path, import_path
from desktop_app.store import models as m
from desktop_app.store.project import Project, ProjectError

from conftest import make_image


@pytest.fixture
def db_url(backend, tmp_path, request):
    """A database URL with no project yet, on the back end under test."""
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'team.sqlite'}"
    return request.getfixturevalue("pg_server").new_database()


def _shots(folder, n):
    for i in range(n):
        make_image(folder / f"s{i}.png", size=(320, 200), color=(i * 40 % 255, 90, 30))
    return folder


def _blobs(project) -> int:
    with project.reading() as s:
        return s.execute(select(func.count()).select_from(m.MediaBlob)).scalar_one()


def test_images_in_the_database_reach_another_machine_with_no_shared_folder(db_url, tmp_path, monkeypatch):
    monkeypatch.setenv("SCREENLAB_DATA_DIR", str(tmp_path / "lead-machine"))
    with api.init_project(db_url, media_in_database=True) as project:
        report = import_path(project, _shots(tmp_path / "shots", 3), "images")
        assert report.episodes == 3 and _blobs(project) == 3
    # another annotator's machine: its own data folder, nothing shared but the database
    monkeypatch.setenv("SCREENLAB_DATA_DIR", str(tmp_path / "ann-machine"))
    with api.open_project(db_url) as project, project.reading() as s:
        screens = s.execute(select(m.Screen).order_by(m.Screen.source)).scalars().all()
        path = project.image_path(screens[0])  # the canvas, OCR and the filmstrip read a file
        assert path.is_file() and str(path).startswith(str(tmp_path / "ann-machine"))
        assert Image.open(path).size == (320, 200)
        assert Image.open(path).getpixel((5, 5)) == (0, 90, 30)
        assert project.media.read(screens[2].sha256, screens[2].ext) == (tmp_path / "shots" / "s2.png").read_bytes()
        # an export writes real files from the database
        export_path(project, tmp_path / "out", "screenlab")
    assert len(list((tmp_path / "out").rglob("*.png"))) == 3
    assert not (tmp_path / "media").exists()  # no media folder was ever made


def test_a_failed_import_leaves_no_image_in_the_database(db_url, tmp_path):
    with Project.init(db_url, media_in_database=True) as project:
        import_path(project, _shots(tmp_path / "old", 1), "images")
        shots = _shots(tmp_path / "new", 3)
        lines = [{"id": f"e{i}", "goal": "Tap it", "steps": [{"image": f"s{i}.png", "actions": [
            {"box": [10, 10, 50, 50] if i < 2 else [10, 10, 999, 50], "label": "gold"}]}]} for i in range(3)]
        (shots / "episodes.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
        with pytest.raises(FormatError, match="lies outside the 320x200 image"):
            import_path(project, shots / "episodes.jsonl", "screenlab")
        assert _blobs(project) == 1  # s0 is the old screen's picture; s1 and s2 were taken back


def test_the_choice_is_recorded_once_and_a_folder_project_still_needs_its_folder(db_url, tmp_path):
    with Project.init(db_url, media_in_database=True):
        pass
    with pytest.raises(ProjectError, match="already holds a ScreenLab project"):
        Project.init(db_url, tmp_path / "media")
    with Project.open(db_url, tmp_path / "cache") as project:  # --media: where this machine caches them
        assert project.media.in_database and project.media.root == tmp_path / "cache"


def test_a_project_on_a_url_with_neither_choice_says_what_to_give(pg_server, tmp_path):
    url = pg_server.new_database()
    with pytest.raises(ProjectError, match=r"--media DIR .*--media-in-database"):
        Project.init(url)
    with Project.init(url, tmp_path / "media") as project:
        assert not project.media.in_database
    with pytest.raises(ProjectError, match=r"--media DIR"):
        Project.open(url)


def test_the_command_line_creates_and_uses_it_without_a_media_folder(pg_server, tmp_path, monkeypatch, capsys):
    from desktop_app.cli.main import main

    monkeypatch.setenv("SCREENLAB_DATA_DIR", str(tmp_path / "data"))
    url = pg_server.new_database()
    assert main(["init", url, "--media-in-database"]) == 0
    assert "(images in the database)" in capsys.readouterr().out
    assert main(["import", url, str(_shots(tmp_path / "shots", 2)), "--format", "images", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["info", url, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["screens"] == 2


def test_two_imports_on_two_machines_wait_for_each_other_on_the_server(pg_server, tmp_path):
    """The lock that keeps a failing import from taking back an image another import just committed is
    the server's (an advisory lock), so it holds between machines that share no folder."""
    url = pg_server.new_database()
    Project.init(url, media_in_database=True).close()
    with Project.open(url, tmp_path / "a") as one, Project.open(url, tmp_path / "b") as two:
        entered = threading.Event()

        def other_machine():
            with two.media.locked():
                entered.set()

        with one.media.locked():
            thread = threading.Thread(target=other_machine)
            thread.start()
            assert not entered.wait(0.5)  # the other machine waits
            with one.engine.connect() as conn:
                held = conn.execute(text("SELECT granted, count(*) FROM pg_locks WHERE locktype = 'advisory' "
                                         "GROUP BY granted")).all()
            assert sorted(held) == [(False, 1), (True, 1)]  # one holds it, the other machine waits for it
        thread.join(5)
        assert entered.is_set()
