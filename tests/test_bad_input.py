"""Bad input: a clear message naming file, line and field, and the project left exactly as it was."""

import json
import struct
import zlib

import pytest

from desktop_app.cli.main import main
from desktop_app.formats.transfer import import_path

from conftest import make_image, snapshot
from pg_server import PASSWORD


@pytest.fixture
def populated(any_project, tmp_path, monkeypatch):
    """A project that already holds work, so 'unchanged' means something; on SQLite and on PostgreSQL (the
    command line then gets the server's password from the environment, as a team member's would)."""
    monkeypatch.setenv("SCREENLAB_DB_PASSWORD", PASSWORD)
    make_image(tmp_path / "existing" / "old.png", color="purple")
    import_path(any_project, tmp_path / "existing", "images")
    return any_project


def _good_line(tmp_path, n, **label):
    make_image(tmp_path / "ed" / "images" / "popupbox_2b" / f"m{n}.png", size=(300, 200), color=(n, 0, 0))
    return {"target": "popupbox_2b", "goal": f"goal {n}", "modified_file": f"m{n}.html",
            "label": label or {"gold": [["No thanks", [10, 10, 90, 40]]], "bad": [["Join", [100, 10, 190, 40]]]}}


def _run_import(project, path, fmt, capsys, *extra):
    before = snapshot(project)
    where = [str(project.folder)] if project.folder else [project.url, "--media", str(project.media.root)]
    code = main(["import", *where, str(path), "--format", fmt, "--quiet", *extra])
    err = capsys.readouterr().err
    assert code == 2, err
    assert snapshot(project) == before, "a failed import changed the project"
    return err


def _jsonl(path, lines):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(x if isinstance(x, bytes) else (json.dumps(x) + "\n").encode() for x in lines))
    return path


def test_malformed_line(populated, tmp_path, capsys):
    path = _jsonl(tmp_path / "ed" / "data.jsonl", [_good_line(tmp_path, 1), b'{"goal": "broken",\n'])
    err = _run_import(populated, path, "envdistraction", capsys)
    assert f"{path}, line 2: invalid JSON" in err


def test_missing_field_is_named(populated, tmp_path, capsys):
    bad = _good_line(tmp_path, 2)
    del bad["label"]["bad"]
    path = _jsonl(tmp_path / "ed" / "data.jsonl", [_good_line(tmp_path, 1), bad])
    err = _run_import(populated, path, "envdistraction", capsys)
    assert f"{path}, line 2, field 'label.bad': missing" in err


def test_missing_image(populated, tmp_path, capsys):
    lines = [_good_line(tmp_path, 1), _good_line(tmp_path, 2)]
    (tmp_path / "ed" / "images" / "popupbox_2b" / "m2.png").unlink()
    path = _jsonl(tmp_path / "ed" / "data.jsonl", lines)
    err = _run_import(populated, path, "envdistraction", capsys)
    assert f"{path}, line 2, field 'modified_file': screenshot not found" in err
    assert "m2.png" in err


def test_truncated_image(populated, tmp_path, capsys):
    lines = [_good_line(tmp_path, 1), _good_line(tmp_path, 2)]
    image = tmp_path / "ed" / "images" / "popupbox_2b" / "m2.png"
    make_image(image, size=(300, 200), color=None)  # noise-free but uncompressible enough
    data = image.read_bytes()
    image.write_bytes(data[: len(data) // 2])
    path = _jsonl(tmp_path / "ed" / "data.jsonl", lines)
    err = _run_import(populated, path, "envdistraction", capsys)
    assert f"{path}, line 2, field 'modified_file'" in err and "truncated" in err


def _png_header_only(path, width, height):
    """A valid PNG header that claims a huge image: a decompression bomb's shape."""
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64))
                     + chunk(b"IEND", b""))


def test_image_over_the_pixel_limit(populated, tmp_path, capsys):
    lines = [_good_line(tmp_path, 1), _good_line(tmp_path, 2)]
    _png_header_only(tmp_path / "ed" / "images" / "popupbox_2b" / "m2.png", 60_000, 60_000)
    path = _jsonl(tmp_path / "ed" / "data.jsonl", lines)
    err = _run_import(populated, path, "envdistraction", capsys)
    assert f"{path}, line 2, field 'modified_file'" in err
    assert "over the limit" in err and "3600000000 pixels" in err


def test_pixel_limit_is_configurable(populated, tmp_path, capsys):
    make_image(tmp_path / "shots" / "big.png", size=(200, 100))
    err = _run_import(populated, tmp_path / "shots", "images", capsys, "--max-pixels", "10000")
    assert "big.png" in err and "20,000 pixels, over the limit of 10,000" in err


def test_box_outside_the_image(populated, tmp_path, capsys):
    bad = _good_line(tmp_path, 2, gold=[["No", [250, 150, 320, 190]]], bad=[])
    path = _jsonl(tmp_path / "ed" / "data.jsonl", [_good_line(tmp_path, 1), bad])
    err = _run_import(populated, path, "envdistraction", capsys)
    assert f"{path}, line 2, field 'label.gold[0]': box [250, 150, 320, 190] lies outside the 300x200 image" in err


def test_inverted_box(populated, tmp_path, capsys):
    bad = _good_line(tmp_path, 2, gold=[], bad=[["Join", [190, 10, 100, 40]]])
    path = _jsonl(tmp_path / "ed" / "data.jsonl", [_good_line(tmp_path, 1), bad])
    err = _run_import(populated, path, "envdistraction", capsys)
    assert f"{path}, line 2, field 'label.bad[0]': box [190, 10, 100, 40] has x2 < x1" in err


def test_non_utf8_file(populated, tmp_path, capsys):
    good = (json.dumps(_good_line(tmp_path, 1)) + "\n").encode()
    latin1 = json.dumps(_good_line(tmp_path, 2)).replace("goal 2", "caf\u00e9").encode("latin-1") + b"\n"
    path = _jsonl(tmp_path / "ed" / "data.jsonl", [good, latin1])
    err = _run_import(populated, path, "envdistraction", capsys)
    assert f"{path}, line 2: not valid UTF-8" in err


def test_screenlab_hash_mismatch_is_caught(populated, tmp_path, capsys):
    image = make_image(tmp_path / "sl" / "images" / "x.png")
    line = {"id": "e1", "steps": [{"image": "images/x.png", "sha256": "0" * 64}]}
    path = _jsonl(tmp_path / "sl" / "episodes.jsonl", [line])
    err = _run_import(populated, path, "screenlab", capsys)
    assert f"{path}, line 1, field 'steps[0].sha256'" in err and image.name in err


def test_repeated_episode_id_in_one_file(populated, tmp_path, capsys):
    line = _good_line(tmp_path, 1)
    path = _jsonl(tmp_path / "ed" / "data.jsonl", [line, line])
    err = _run_import(populated, path, "envdistraction", capsys)
    assert f"{path}, line 2: episode id 'm1' repeats line 1" in err


def test_unknown_project_is_a_clear_error(tmp_path, capsys):
    assert main(["info", str(tmp_path / "nowhere")]) == 2
    assert "is not a ScreenLab project" in capsys.readouterr().err
