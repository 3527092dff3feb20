"""Two imports of the same images at once: a failing one never takes away files the other committed."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from desktop_app.formats.records import FormatError
from desktop_app.formats.transfer import import_path
from desktop_app.store import models as m
from desktop_app.store.project import Project

from conftest import make_image


def _dataset(folder, n: int, bad_last: bool = False):
    lines = []
    for i in range(n):
        make_image(folder / "images" / f"s{i}.png", size=(300, 200), color=(i * 20 % 255, 80, 120))
        box = [10, 10, 50, 50] if not (bad_last and i == n - 1) else [10, 10, 900, 50]  # outside the image
        lines.append({"id": f"{folder.name}-{i}", "goal": "Tap it", "steps": [
            {"image": f"images/s{i}.png", "actions": [{"box": box, "label": "gold", "element_text": "OK"}]}]})
    (folder / "episodes.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return folder / "episodes.jsonl"


@pytest.fixture(params=["sqlite", "postgresql", "postgresql, images in the database"])
def store(request, tmp_path):
    """(location, media) of a new project on each back end, and on PostgreSQL with its images in the
    database: two imports on two machines then share no folder and lock on the server."""
    if request.param == "sqlite":
        Project.init(tmp_path / "p").close()
        return tmp_path / "p", None
    url = request.getfixturevalue("pg_server").new_database()
    in_database = request.param.endswith("database")
    media = None if in_database else tmp_path / "media"
    Project.init(url, media, media_in_database=in_database).close()
    return url, media


def _stored_images(project) -> list[tuple[str, str]]:
    if project.media.in_database:
        with project.reading() as s:
            return [tuple(row) for row in s.execute(select(m.MediaBlob.sha256, m.MediaBlob.ext))]
    return [(f.stem, f.suffix[1:]) for f in project.media.root.rglob("*.png")]


def _missing_files(project) -> list[str]:
    with project.reading() as s:
        screens = s.execute(select(m.Screen.sha256, m.Screen.ext)).all()
    return [sha for sha, ext in screens if not project.media.has(sha, ext)]


def test_a_failing_import_keeps_the_files_another_import_committed_meanwhile(store, tmp_path):
    failing = _dataset(tmp_path / "a", 6, bad_last=True)
    good = _dataset(tmp_path / "b", 6)  # the same pictures (same colours, same sizes): the same files
    ran, checked = [], []

    def other_import_meanwhile(stage, done, total):
        # one tick per record checked (a streamed file reports a percentage, so count the ticks)
        if stage == "checking images":
            checked.append(done)
        if len(checked) == 5 and not ran:  # A has copied 5 files, B runs whole
            ran.append(True)
            with Project.open(*store) as other:
                assert import_path(other, good, "screenlab").episodes == 6

    with Project.open(*store) as project:
        with pytest.raises(FormatError, match="lies outside the 300x200 image"):
            import_path(project, failing, "screenlab", progress=other_import_meanwhile)
        assert ran and _missing_files(project) == []  # every committed screen still has its file
        assert len(_stored_images(project)) == 6


def test_an_import_puts_back_a_file_removed_between_its_check_and_its_commit(store, tmp_path):
    good = _dataset(tmp_path / "b", 3)
    with Project.open(*store) as project:
        def a_failed_import_cleans_up(stage, done, total):
            if stage == "checking images" and done == total:  # checked and copied; not committed yet
                for sha, ext in _stored_images(project):
                    project.media.remove(sha, ext)

        assert import_path(project, good, "screenlab", progress=a_failed_import_cleans_up).episodes == 3
        assert _missing_files(project) == []
