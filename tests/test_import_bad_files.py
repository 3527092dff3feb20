"""Unreadable screenshots and duplicates in an import: every bad file named at once (never an object's
repr), the project unchanged unless the user asks to import the rest, and which duplicate is kept."""

import json

import pytest

from desktop_app import api
from desktop_app.cli.main import main
from desktop_app.formats.ingest import BAD_LISTED, ImportOptions
from desktop_app.formats.records import FormatError
from desktop_app.formats.transfer import import_path
from desktop_app.store.models import Episode, Screen
from desktop_app.store.orm import select

from conftest import make_image, snapshot


def _truncated_png(path):
    make_image(path, size=(300, 200), color=None)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


def _folder_with_bad_files(root):
    """Two good screenshots and three bad ones (cut in half, not an image at all, empty in a sub-folder)."""
    make_image(root / "good1.png", color="red")
    make_image(root / "good2.png", color="blue")
    bad = [_truncated_png(root / "half.png"), root / "notes.png", root / "sub" / "empty.png"]
    bad[1].write_bytes(b"these are my notes, saved with the wrong name")
    bad[2].parent.mkdir()
    bad[2].write_bytes(b"")
    return root, bad


def _episode_keys(project):
    with project.reading() as s:
        return sorted(e.key for e in s.exec(select(Episode)))


def _media_files(project):
    return sorted(p.name for p in project.media.root.rglob("*.png"))


def test_every_bad_file_is_named_at_once_and_nothing_is_imported(project, tmp_path):
    src, bad = _folder_with_bad_files(tmp_path / "shots")
    before = snapshot(project)

    with pytest.raises(FormatError) as caught:
        import_path(project, src, "images")

    message = str(caught.value)
    assert message.startswith("3 image files cannot be imported:")
    for path in bad:
        assert str(path) in message
    assert f"{bad[0]}: cannot decode image (image file is truncated)" in message
    assert f"{bad[1]}: not a PNG, JPEG or WebP image" in message
    assert f"{bad[2]}: the file is empty" in message
    assert "object at 0x" not in message and "BytesIO" not in message
    assert "the other 2 episodes can be imported by skipping the bad images" in message
    assert "good1.png" not in message and "good2.png" not in message
    assert snapshot(project) == before


def test_a_long_list_of_bad_files_is_cut_with_a_count(project, tmp_path):
    src = tmp_path / "shots"
    make_image(src / "good.png")
    src.joinpath("bad").mkdir()
    for i in range(BAD_LISTED + 5):
        (src / "bad" / f"b{i:03}.png").write_bytes(b"x" * (i + 1))

    with pytest.raises(FormatError) as caught:
        import_path(project, src, "images")

    lines = str(caught.value).splitlines()
    assert lines[0] == f"{BAD_LISTED + 5} image files cannot be imported:"
    assert sum(1 for line in lines if "/bad/b" in line) == BAD_LISTED
    assert "  and 5 more" in lines


def test_skipping_bad_images_imports_the_rest_and_reports_the_skipped(project, tmp_path):
    src, bad = _folder_with_bad_files(tmp_path / "shots")

    report = import_path(project, src, "images", ImportOptions(skip_bad_images=True))

    assert report.episodes == 2
    assert _episode_keys(project) == ["good1.png", "good2.png"]
    assert sorted(b.path for b in report.bad_images_skipped) == sorted(str(p) for p in bad)
    summary = report.summary()
    assert "skipped 3 images that cannot be read:" in summary
    assert f"{bad[0]}: cannot decode image (image file is truncated)" in summary
    assert "object at 0x" not in summary
    assert [d["path"] for d in report.as_dict()["bad_images_skipped"]] == [b.path for b in report.bad_images_skipped]


def test_a_bad_image_in_a_dataset_file_is_named_with_its_line(project, tmp_path):
    """Formats other than a folder of images: each bad image with the line that names it; skipping them
    imports the other lines, and leaves no image of a skipped episode behind in the media store."""
    folder = tmp_path / "sl"
    make_image(folder / "images" / "ok.png", color="green")
    make_image(folder / "images" / "only_in_e1.png", color="orange")
    _truncated_png(folder / "images" / "cut.png")
    (folder / "images" / "text.png").write_text("not a picture")
    lines = [{"id": "e1", "steps": [{"image": "images/only_in_e1.png"}, {"image": "images/cut.png"}]},
             {"id": "e2", "steps": [{"image": "images/ok.png"}]},
             {"id": "e3", "steps": [{"image": "images/text.png"}]}]
    path = folder / "episodes.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    before = snapshot(project)

    with pytest.raises(FormatError) as caught:
        import_path(project, folder, "screenlab")
    message = str(caught.value)
    assert f"{path}, line 1, field 'steps[1].image': {folder / 'images' / 'cut.png'}: cannot decode" in message
    assert f"{path}, line 3, field 'steps[0].image': {folder / 'images' / 'text.png'}: not a PNG" in message
    assert "the other 1 episode can be imported" in message
    assert snapshot(project) == before

    report = import_path(project, folder, "screenlab", ImportOptions(skip_bad_images=True))
    assert report.episodes == 1 and _episode_keys(project) == ["e2"]
    assert len(report.bad_images_skipped) == 2
    assert len(_media_files(project)) == 1  # only ok.png: only_in_e1.png belonged to a skipped episode


def test_skipping_when_every_image_is_bad_is_still_refused(project, tmp_path):
    (tmp_path / "shots").mkdir()
    (tmp_path / "shots" / "a.png").write_bytes(b"nope")
    before = snapshot(project)
    with pytest.raises(FormatError, match="1 image file cannot be imported"):
        import_path(project, tmp_path / "shots", "images", ImportOptions(skip_bad_images=True))
    assert snapshot(project) == before


def test_command_line_names_every_bad_file_then_imports_the_rest_when_asked(project, tmp_path, capsys):
    src, bad = _folder_with_bad_files(tmp_path / "shots")
    before = snapshot(project)
    where = [str(project.folder), str(src), "--format", "images", "--quiet"]

    assert main(["import", *where]) == 2
    err = capsys.readouterr().err
    assert all(str(path) in err for path in bad)
    assert "object at 0x" not in err
    assert "add --skip-bad-images to import the other 2" in err
    assert snapshot(project) == before

    assert main(["import", *where, "--skip-bad-images", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["episodes"] == 2
    assert sorted(b["path"] for b in report["bad_images_skipped"]) == sorted(str(p) for p in bad)
    assert _episode_keys(project) == ["good1.png", "good2.png"]


def test_api_import_data_passes_skip_bad_images_through(project, tmp_path):
    src, _ = _folder_with_bad_files(tmp_path / "shots")
    with pytest.raises(FormatError):
        api.import_data(project, src, "images")
    assert api.import_data(project, src, "images", skip_bad_images=True).episodes == 2


def _screen_sources(project):
    with project.reading() as s:
        return sorted(sc.source for sc in s.exec(select(Screen)))


def test_of_two_identical_screenshots_the_first_in_natural_path_order_is_kept(project, tmp_path):
    src = tmp_path / "shots"
    make_image(src / "shot10.png", color="red")
    make_image(src / "shot9.png", color="red")  # the same picture: shot9 comes first, as a file browser shows it
    make_image(src / "b" / "x.png", color="blue")
    make_image(src / "a" / "y.png", color="blue")  # a/ comes before b/

    report = import_path(project, src, "images")

    assert _screen_sources(project) == ["a/y.png", "shot9.png"]
    assert report.duplicates == [("b/x.png", "a/y.png"), ("shot10.png", "shot9.png")]
    assert "shot10.png (same as shot9.png)" in report.summary()
    assert "b/x.png (same as a/y.png)" in report.summary()


def test_a_screenshot_already_in_the_project_is_named_as_the_one_kept(project, tmp_path):
    make_image(tmp_path / "first" / "original.png", color="purple")
    import_path(project, tmp_path / "first", "images")
    make_image(tmp_path / "second" / "copy.png", color="purple")
    make_image(tmp_path / "second" / "new.png", color="teal")

    report = import_path(project, tmp_path / "second", "images")

    assert (report.episodes, report.duplicate_images_skipped) == (1, 1)
    assert report.duplicates == [("copy.png", "original.png, already in the project")]
    assert _screen_sources(project) == ["new.png", "original.png"]


def test_control_characters_from_a_file_are_written_out_in_the_message(project, tmp_path):
    """A NUL or an escape sequence in a value would cut a dialog's message short or drive the terminal: the
    message writes them out (\\x00, \\x1b) and keeps its own line breaks (found by the importer fuzzer)."""
    make_image(tmp_path / "a.png", size=(300, 200))
    record = {"id": "e1", "goal": "Tap it", "steps": [{"image": "a.png", "actions": [
        {"box": [1, 1, 5, 5], "label": "gold\x00\x1b[2Jx"}]}]}
    (tmp_path / "e.jsonl").write_text(json.dumps(record) + "\n")
    with pytest.raises(FormatError) as caught:
        import_path(project, tmp_path / "e.jsonl", "screenlab")
    message = str(caught.value)
    assert "class 'gold\\x00\\x1b[2Jx': 1 to 64 characters, no control characters" in message
    assert not any(ord(c) < 32 and c not in "\n\t" for c in message)
