"""An import reads images only under the folders the user named; an export writes only into its folder."""

from __future__ import annotations

import json

import pytest

from desktop_app.formats.records import FormatError
from desktop_app.formats.transfer import export_path, import_path
from desktop_app.store import models as m
from desktop_app.store.orm import select

from conftest import make_image, snapshot


def _jsonl(folder, image: str):
    folder.mkdir(parents=True, exist_ok=True)
    line = {"id": "e1", "goal": "Close the pop-up", "steps": [{"image": image, "actions": []}]}
    (folder / "episodes.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    return folder / "episodes.jsonl"


def test_an_image_outside_the_import_folders_is_refused_by_name(project, tmp_path):
    make_image(tmp_path / "private" / "secret.png")
    before = snapshot(project)
    with pytest.raises(FormatError, match=r"lies outside the folders this import reads"):
        import_path(project, _jsonl(tmp_path / "data", "../private/secret.png"), "screenlab")
    (tmp_path / "link").mkdir()
    (tmp_path / "link" / "shot.png").symlink_to(tmp_path / "private" / "secret.png")
    with pytest.raises(FormatError, match=r"shot.png lies outside"):
        import_path(project, _jsonl(tmp_path / "link", "shot.png"), "screenlab")
    # an absolute path from someone else's machine is looked up here by its file name
    with pytest.raises(FormatError, match=r"image not found; looked for .*data2/secret.png"):
        import_path(project, _jsonl(tmp_path / "data2", str(tmp_path / "private" / "secret.png")), "screenlab")
    assert snapshot(project) == before
    make_image(tmp_path / "data2" / "secret.png")
    assert import_path(project, _jsonl(tmp_path / "data2", "C:\\\\Users\\\\them\\\\secret.png"), "screenlab").episodes == 1


def test_an_export_never_writes_outside_its_folder_whatever_the_data_says(project, tmp_path):
    victim = tmp_path / "home" / "me" / "victim.png"
    victim.parent.mkdir(parents=True)
    victim.write_bytes(b"precious")
    make_image(tmp_path / "ed" / "images" / "popupbox_phone_2b" / "page.png", size=(400, 300))
    record = {"target": "popupbox_phone_2b", "goal": "Keep browsing", "persona": "", "distractor": {},
              "modified_file": "page.html", "label": {"gold": [["Close", [360, 10, 390, 40]]], "bad": []}}
    (tmp_path / "ed" / "out.jsonl").write_text(json.dumps(record) + "\n")
    import_path(project, tmp_path / "ed" / "out.jsonl", "envdistraction")
    with project.transaction() as s:  # the `target` a hostile or careless record carried into the project
        episode = s.exec(select(m.Episode)).one()
        episode.meta = {**episode.meta, "envdistraction": {**episode.meta["envdistraction"],
                                                           "target": "../../../home/me/victim"}}
    out = tmp_path / "export" / "deep" / "out"
    with pytest.raises(FormatError, match=r"field 'target': '../../../home/me/victim' cannot be a folder"):
        export_path(project, out, "envdistraction")
    assert victim.read_bytes() == b"precious"
    assert not out.exists() and not list((tmp_path / "export").rglob("*.png"))


def test_text_no_file_can_store_is_refused_at_import_naming_the_field(project, tmp_path):
    """A lone surrogate (a JSON \\ud800 escape) accepted once broke every later export of the project."""
    make_image(tmp_path / "data" / "shot.png")
    line = ('{"id": "e1", "goal": "Buy shoes", "meta": {"persona": "a shopper \\ud800"}, "steps": '
            '[{"image": "shot.png", "actions": [{"box": [1, 1, 20, 20], "label": "gold", "element_text": "OK"}]}]}')
    (tmp_path / "data" / "episodes.jsonl").write_text(line + "\n", encoding="utf-8")
    before = snapshot(project)
    with pytest.raises(FormatError, match=r"line 1, field 'meta': persona holds a lone surrogate \(U\+D800\)"):
        import_path(project, tmp_path / "data" / "episodes.jsonl", "screenlab")
    assert snapshot(project) == before
    out = tmp_path / "out"
    export_path(project, out, "screenlab")  # the project still exports


def test_a_pipe_given_as_input_is_refused_instead_of_waiting_forever(project, tmp_path):
    import os

    fifo = tmp_path / "episodes.jsonl"
    os.mkfifo(fifo)
    before = snapshot(project)
    with pytest.raises(FormatError, match="not a file or a folder"):
        import_path(project, fifo, "screenlab")
    os.mkfifo(tmp_path / "shot.png")  # an image that is a pipe: found by name, refused, never read
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "episodes.jsonl").write_text(
        json.dumps({"id": "e1", "goal": "g", "steps": [{"image": "../shot.png", "actions": []}]}) + "\n")
    with pytest.raises(FormatError):
        import_path(project, tmp_path / "data" / "episodes.jsonl", "screenlab")
    assert snapshot(project) == before
