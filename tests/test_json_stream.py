"""A JSON file read one item at a time (formats/json_stream.py), and AITW imported that way (issue 18: a
release's train file "streams in bounded memory"): the items are json.loads' own, every error names the line
and column read_json names, memory holds one item and a chunk, and a bad record after thousands of good ones
leaves the project as it was."""

from __future__ import annotations

import json
import random
import tracemalloc
from pathlib import Path

import pytest

from desktop_app.formats import ingest
from desktop_app.formats.json_stream import JsonArrays
from desktop_app.formats.records import FormatError, JsonLines, read_json
from desktop_app.formats.transfer import import_path
from desktop_app.store.models import ActionBox, Episode, Step
from desktop_app.store.orm import select

from conftest import make_image, snapshot


def _items(path: Path, chunk: int):
    return [(i.key, i.index, i.value) for i in JsonArrays(path, chunk)]


def _error(read, path: Path) -> str:
    with pytest.raises(FormatError) as caught:
        read(path)
    return str(caught.value)


# ---------------------------------------------------------------- what it yields

def _value(rng: random.Random, depth: int = 0):
    pick = rng.random()
    if depth > 3 or pick < 0.35:
        return rng.choice([0, -2.5, 1e10, -1.25e-7, 12345678901234567890, True, False, None, "", "a \"quoted\" é ☃\n",
                           "\\ backslash", "x" * 50])
    if pick < 0.7:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(5))]
    return {f"k{i} ü": _value(rng, depth + 1) for i in range(rng.randrange(4))}


@pytest.mark.parametrize("chunk", [1, 2, 7, 1 << 20], ids=["1 char", "2 chars", "7 chars", "1 Mi"])
def test_items_are_what_json_loads_reads_whatever_the_chunk(tmp_path, chunk):
    rng = random.Random(chunk)
    path = tmp_path / "data.json"
    for case in range(60):
        if case % 3 == 0:  # a bare list, as SeeClick's Mind2Web files
            data = [_value(rng) for _ in range(rng.randrange(6))]
            want = [(None, i, v) for i, v in enumerate(data)]
        elif case % 3 == 1:  # an object of lists, as AITW's categories, with a member that is no list
            data = {f"c{j}": [_value(rng) for _ in range(rng.randrange(4))] for j in range(3)} | {"n": 5}
            want = [(k, i, v) for k, vs in data.items() if isinstance(vs, list) for i, v in enumerate(vs)]
            want.append(("n", None, 5))
        else:
            data = rng.choice(["text", 3.5, -17, None])
            want = [(None, None, data)]
        text = json.dumps(data, ensure_ascii=case % 2 == 0, indent=1 if case % 4 < 2 else None)
        path.write_bytes(("\ufeff" if case % 5 == 0 else "").encode() + text.encode("utf-8"))
        assert _items(path, chunk) == want, text


def test_numbers_cut_by_the_chunk_are_read_whole(tmp_path):
    path = tmp_path / "n.json"
    path.write_text("[-2.5, 1e10, 123456, -0.000125, 7]", encoding="utf-8")
    for chunk in range(1, 12):
        assert [v for _, _, v in _items(path, chunk)] == [-2.5, 1e10, 123456, -0.000125, 7], chunk


# ---------------------------------------------------------------- errors, as read_json says them

BROKEN = [
    "", "[1, 2", "[1 2]", '{"a": [1,], "b": 2}', '{"a" [1]}', "{a: 1}", "[1] x", "\n\n  [1,\n  2,\n  x]",
    '[{"a": NaN}]', '{"general": [[{"x": 1e400}]]}', '[["\\ud800"]]', '{"general": [["\\udc00"]]}',
    '{"\\ud800": []}', '[{"\\udc00": 1}]', "[tru]", '{"general": "\\ud800"}', "[" * 5000 + "]" * 5000,
    "[1,\n " + "9" * 5000 + "]", '{"general": [[1],\n [2]]\n "single": []}',
]


@pytest.mark.parametrize("text", BROKEN, ids=range(len(BROKEN)))
def test_errors_name_what_read_json_names(tmp_path, text):
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    expected = _error(read_json, path)
    assert _error(lambda p: list(JsonArrays(p)), path) == expected
    assert _error(lambda p: list(JsonArrays(p, 3)), path) == expected  # the buffer refilled and cut many times


def test_a_syntax_error_deep_in_a_large_file_names_its_line_and_column(tmp_path):
    path = tmp_path / "big.json"
    lines = ['{"general": ['] + [f' [{{"step": {i}, "goal": "g"}}],' for i in range(30_000)] + [' [{"step": }]]}']
    path.write_text("\n".join(lines), encoding="utf-8")
    message = _error(lambda p: list(JsonArrays(p, 4096)), path)
    assert message == f"{path}, line 30002: invalid JSON: Expecting value at column 12"
    assert message == _error(read_json, path)


@pytest.mark.parametrize("raw", [b'[1,\n "ab\xff"]', b'[1,\n "ab\xc3', b"\xff\xfe[\x001\x00]\x00", b'["\xed\xa0\x80"]'],
                         ids=["bad byte", "cut character", "UTF-16", "encoded surrogate"])
def test_invalid_utf8_is_named_by_line_and_byte(tmp_path, raw):
    path = tmp_path / "bad.json"
    path.write_bytes(raw)
    expected = _error(read_json, path)
    assert "not valid UTF-8" in expected
    for chunk in (1, 2, 1 << 20):
        assert _error(lambda p, chunk=chunk: list(JsonArrays(p, chunk)), path) == expected


def test_a_folder_or_a_missing_file_is_refused_in_words(tmp_path):
    assert _error(JsonArrays, tmp_path) == f"{tmp_path}: is a folder; expected a file"
    assert _error(JsonArrays, tmp_path / "nope.json") == f"{tmp_path / 'nope.json'}: file not found"


def test_memory_holds_one_item_and_a_chunk_not_the_file(tmp_path):
    path = tmp_path / "big.json"
    episode = json.dumps([{"goal": "open the settings", "ui": "x" * 700, "step": s} for s in range(8)])
    with open(path, "w", encoding="utf-8") as fh:
        fh.write('{"general": [' + ", ".join([episode] * 6000) + "]}")
    assert path.stat().st_size > 30_000_000
    _assert_read_within(JsonArrays(path), path, 6000, 8_000_000)


def _assert_read_within(reader, path: Path, items: int, peak_bytes: int) -> None:
    """Reading all of `reader` yields `items` and its memory peaks under `peak_bytes`, whatever the file's size."""
    tracemalloc.start()
    try:
        count = sum(1 for _ in reader)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == items
    assert peak < peak_bytes, f"{peak:,} bytes at the peak reading a {path.stat().st_size:,}-byte file"


# ---------------------------------------------------------------- AITW imported as it is read

STEPS = 8


def _aitw(root: Path, episodes: int, bad_at: int | None = None, tail: str = "", ids: str = "ep") -> Path:
    """SeeClick's layout, five screenshots shared by all steps. `bad_at`: that episode's first tap is given in
    pixels; `tail`: added inside the list of episodes, at the end of the file."""
    root.mkdir(parents=True, exist_ok=True)
    for k in range(5):
        make_image(root / "aitw_images" / "general" / f"shot_{k}.png", size=(108, 240), color=(k * 40, 90, 90))
    data = []
    for e in range(episodes):
        steps = [{"img_filename": f"general/shot_{(e + s) % 5}", "goal": f"task {e}", "ep_id": f"{ids}-{e}", "step": s,
                  "action_type_id": 4, "action_type_text": "click", "touch": [0.5, 0.25], "lift": [0.5, 0.25],
                  "type_text": "", "annot_position": [0.1, 0.2, 0.05, 0.3]} for s in range(STEPS)]
        if e == bad_at:
            steps[0]["touch"] = [540, 600]
        data.append(steps)
    path = root / "aitw_data_test.json"
    text = json.dumps({"general": data})
    path.write_text(text[:-2] + tail + text[-2:], encoding="utf-8")
    return path


def _counts(project) -> tuple[int, int, int]:
    with project.reading() as s:
        return (len(s.exec(select(Episode)).all()), len(s.exec(select(Step)).all()),
                len(s.exec(select(ActionBox)).all()))


@pytest.fixture
def busy_project(project, tmp_path):
    """A project that already holds an AITW import (and its screenshots): what a refused import must keep."""
    import_path(project, _aitw(tmp_path / "before", 2, ids="earlier"), "aitw")
    return project


def test_a_bad_record_after_thousands_of_good_ones_leaves_the_project_as_it_was(busy_project, tmp_path):
    episodes = ingest.SPOOL_IN_MEMORY // STEPS + 100  # past what ingest holds in memory: the rest was spilled
    path = _aitw(tmp_path / "big", episodes, bad_at=episodes - 3)
    before = snapshot(busy_project)

    with pytest.raises(FormatError) as caught:
        import_path(busy_project, path, "aitw")

    assert str(caught.value).startswith(f"{path}, field 'general[{episodes - 3}][0].touch': expected [x, y] as "
                                        "fractions 0-1 of the screen"), str(caught.value)
    assert snapshot(busy_project) == before, "a refused import changed the project"


def test_a_syntax_error_at_the_end_of_a_streamed_file_leaves_the_project_as_it_was(busy_project, tmp_path):
    path = _aitw(tmp_path / "big", ingest.SPOOL_IN_MEMORY // STEPS + 50, tail=", [}")
    before = snapshot(busy_project)

    with pytest.raises(FormatError) as caught:
        import_path(busy_project, path, "aitw")

    assert str(caught.value).startswith(f"{path}, line 1: invalid JSON: Expecting value at column "), caught.value
    assert snapshot(busy_project) == before, "a refused import changed the project"


def test_a_streamed_import_past_the_spool_writes_every_episode(busy_project, tmp_path):
    episodes = ingest.SPOOL_IN_MEMORY // STEPS + 100
    path = _aitw(tmp_path / "big", episodes)
    progress = []

    report = import_path(busy_project, path, "aitw", progress=lambda *a: progress.append(a))

    assert (report.episodes, report.steps, report.screens_new, report.screens_reused) == (episodes, episodes * STEPS,
                                                                                           0, 5)
    assert _counts(busy_project) == (episodes + 2, (episodes + 2) * STEPS, (episodes + 2) * STEPS)
    with busy_project.reading() as s:
        last = s.exec(select(Episode).where(Episode.key == f"ep-{episodes - 1}")).one()
        boxes = s.exec(select(ActionBox).join(Step).where(Step.episode_id == last.id)).all()
    assert last.goal == f"task {episodes - 1}" and last.meta == {"aitw": {"category": "general"}}
    assert [(b.x1, b.y1) for b in boxes] == [(54, 60)] * STEPS  # (0.5, 0.25) of 108 x 240
    # the checking stage counts in percent of the file read, the writing stage in episodes
    checking = [(done, total) for stage, done, total in progress if stage == "checking images"]
    assert checking[-1] == (100, 100) and all(d < 100 for d, _ in checking[:-1])
    assert progress[-1] == ("writing", episodes, episodes)


# ---------------------------------------------------------------- ScreenLab JSONL read a line at a time

def test_a_jsonl_file_is_read_a_line_at_a_time_not_whole(tmp_path):
    path = tmp_path / "episodes.jsonl"
    line = json.dumps({"id": "e", "goal": "open the settings", "ui": "x" * 5000}) + "\n"
    path.write_text(line * 6000, encoding="utf-8")
    _assert_read_within(JsonLines(path), path, 6000, 2_000_000)


def test_a_bad_line_far_down_a_screenlab_file_is_named_and_the_project_kept(busy_project, tmp_path):
    data = tmp_path / "data"
    (data / "images").mkdir(parents=True)
    make_image(data / "images" / "a.png")
    good = json.dumps({"id": "e{}", "goal": "g", "steps": [{"image": "images/a.png", "actions": []}]})
    lines = [good.replace("e{}", f"e{i}") for i in range(3000)]
    lines[2950] = '{"id": "broken", "steps": [}'
    (data / "episodes.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    before = snapshot(busy_project)

    with pytest.raises(FormatError) as caught:
        import_path(busy_project, data, "screenlab")

    assert str(caught.value).startswith(f"{data / 'episodes.jsonl'}, line 2951: invalid JSON"), caught.value
    assert snapshot(busy_project) == before, "a refused import changed the project"
