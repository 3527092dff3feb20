"""AndroidControl (converters' JSON / JSONL and the released GZIP TFRecords), AITW (SeeClick's release) and
GUI-Odyssey imports (issue 18), from samples under tests/data/formats/ (their READMEs name the sources).

Each test says what a user gets: the episodes and steps, the gold action of each step with its box in pixels
worked out by hand from the release's numbers, the round trip of the AndroidControl export, and refusals that
name the file, the record and the field, with the project left as it was.
"""

from __future__ import annotations

import gzip
import io
import json
import shutil
import struct
from pathlib import Path

import pytest
from PIL import Image

from desktop_app.formats.detect import detect_format
from desktop_app.formats.ingest import ImportOptions
from desktop_app.formats.records import FormatError
from desktop_app.formats.tfrecord import crc32c
from desktop_app.formats.transfer import export_path, import_path
from desktop_app.store.models import ActionBox, Episode, Screen, Step
from desktop_app.store.orm import select
from desktop_app.store.project import Project

from conftest import make_image, snapshot, varint

DATA = Path(__file__).parent / "data" / "formats"
AC_LINE = json.loads((DATA / "androidcontrol" / "data.jsonl").read_text(encoding="utf-8"))
AC_2207 = json.loads((DATA / "androidcontrol" / "episode_2207.json").read_text(encoding="utf-8"))


def _episodes(project) -> dict[str, dict]:
    """key -> {goal, split, meta, steps: [(instruction, screen sha, [(label, type, box, text, meta)])]}."""
    out = {}
    with project.reading() as s:
        for episode in s.exec(select(Episode).order_by(Episode.id)).all():
            steps = []
            for step in s.exec(select(Step).where(Step.episode_id == episode.id).order_by(Step.index)).all():
                screen = s.get(Screen, step.screen_id)
                boxes = s.exec(select(ActionBox).where(ActionBox.step_id == step.id).order_by(ActionBox.id)).all()
                steps.append((step.instruction, screen.sha256, [
                    (b.label, b.action_type, None if b.x1 is None else (b.x1, b.y1, b.x2, b.y2), b.type_text, b.meta)
                    for b in boxes], step.meta))
            out[episode.key] = {"goal": episode.goal, "split": episode.split, "meta": episode.meta, "steps": steps}
    return out


def _refused(project, path, fmt, *words, options=None) -> str:
    before = snapshot(project)
    with pytest.raises(FormatError) as caught:
        import_path(project, path, fmt, options)
    message = str(caught.value)
    for part in words:
        assert part in message, message
    assert snapshot(project) == before, "a refused import changed the project"
    return message


# ---------------------------------------------------------------- AndroidControl, the converters' JSON

def _converter_folder(root: Path, line: dict | None = None) -> Path:
    """The converter's android_control/ folder: data.jsonl and screenshots/1/screenshot_1_{0,1,2}.png."""
    folder = root / "android_control"
    folder.mkdir(parents=True)
    (folder / "data.jsonl").write_text(json.dumps(line or AC_LINE) + "\n", encoding="utf-8")
    for i in range(3):
        make_image(folder / "screenshots" / "1" / f"screenshot_1_{i}.png", size=(1080, 2400), color=(i * 60, 90, 30))
    return folder


def _episode_2207(folder: Path, **changes) -> Path:
    make_image(folder / "android_control_images" / "2207" / "step_0.png", size=(1080, 2400), color=(200, 200, 190))
    path = folder / "episode_2207.json"
    path.write_text(json.dumps({**AC_2207, **changes}), encoding="utf-8")
    return path


def test_a_converter_line_imports_as_the_episode_it_records(project, tmp_path):
    folder = _converter_folder(tmp_path)

    report = import_path(project, folder / "data.jsonl", "androidcontrol")

    assert (report.episodes, report.steps) == (1, 2)
    episode = _episodes(project)["1"]  # "episode_id": [1]
    assert episode["goal"] == "Open the BudgetBytes app"  # "goal": ["Open the BudgetBytes app"]
    assert episode["meta"]["androidcontrol"] == {"final_screenshot": "screenshots/1/screenshot_1_2.png"}
    assert [(s[0], s[2]) for s in episode["steps"]] == [
        ("go to the home screen", [("gold", "navigate_home", None, "", {})]),
        ("open BudgetBytes app", [("gold", "open_app", None, "", {"app_name": "BudgetBytes"})]),
    ]
    assert episode["steps"][1][3]["action"] == {"action_type": "open_app", "app_name": "BudgetBytes"}  # parsed
    with project.reading() as s:
        assert len(s.exec(select(Screen)).all()) == 2  # the screen after the last action is not a step
    assert detect_format(folder / "data.jsonl") == "androidcontrol"
    assert detect_format(folder) == "androidcontrol"


def test_a_click_is_its_element_box_in_pixels_or_the_tapped_point(project, tmp_path):
    _episode_2207(tmp_path / "with_box")
    import_path(project, tmp_path / "with_box" / "episode_2207.json", "androidcontrol")
    (step,) = _episodes(project)["2207"]["steps"]
    # "element_boxes": [[855, 153, 954, 266]], the tap {"x": 903, "y": 188} kept beside it
    assert step[2] == [("gold", "click", (855, 153, 954, 266), "", {"x": 903, "y": 188})]

    with Project.init(tmp_path / "p2") as other:
        _episode_2207(tmp_path / "without", element_boxes=None)
        import_path(other, tmp_path / "without" / "episode_2207.json", "androidcontrol")
        (step,) = _episodes(other)["2207"]["steps"]
        assert step[2] == [("gold", "click", (903, 188, 903, 188), "", {"point": True})]


def test_a_folder_of_jsonl_and_json_files_and_a_jsonl_of_several_lines(project, tmp_path):
    folder = _converter_folder(tmp_path)
    _episode_2207(folder)
    second = {**AC_LINE, "episode_id": [2], "index": 1}
    (folder / "more.jsonl").write_text(json.dumps(second) + "\n" + json.dumps({**AC_LINE, "episode_id": [3]}) + "\n",
                                       encoding="utf-8")

    report = import_path(project, folder, "androidcontrol")

    assert report.episodes == 4 and sorted(_episodes(project)) == ["1", "2", "2207", "3"]
    assert detect_format(folder / "more.jsonl") == "androidcontrol"  # several lines: JSONL, read by this format


def test_the_screenshot_paths_of_the_converters_machine_are_found_by_their_last_parts(project, tmp_path):
    line = {**AC_LINE, "screenshot_path": [
        "/home/someone/work/android_control/screenshots/1/screenshot_1_0.png",  # what os.path.join wrote
        "C:\\data\\android_control\\screenshots\\1\\screenshot_1_1.png",
        "android_control/screenshots/1/screenshot_1_2.png"]}  # relative to where the converter ran
    folder = _converter_folder(tmp_path, line)

    assert import_path(project, folder / "data.jsonl", "androidcontrol").steps == 2


def test_screenshots_kept_elsewhere_are_refused_until_images_names_their_folder(project, tmp_path):
    """The second converter's file (ac_native/2.json): `screenshots` relative to a folder that is not beside it."""
    shots = _converter_folder(tmp_path)
    file = tmp_path / "ac_native" / "2.json"
    file.parent.mkdir()
    native = {k: v for k, v in AC_LINE.items() if k != "screenshot_path"}
    file.write_text(json.dumps({**native, "screenshots": AC_LINE["screenshot_path"]}), encoding="utf-8")

    _refused(project, file, "androidcontrol", str(file), "field 'screenshots[0]'", "not found", "--images")
    report = import_path(project, file, "androidcontrol", ImportOptions(images_dir=shots))
    assert (report.episodes, report.steps) == (1, 2)


@pytest.mark.parametrize("change, field, words", [
    ({"screenshot_widths": [720, 1080, 1080]}, "screenshot_widths[0], screenshot_heights[0]",
     "the record gives this screenshot as 720x2400 pixels, but the image screenshot_1_0.png is 1080x2400"),
    ({"screenshot_heights": [2400, 2400]}, "screenshot_heights", "2 values for 3 screenshots"),
    ({"goal": ["Open the BudgetBytes app", "again"]}, "goal", "expected one value (or a list of one), got a list of 2"),
    ({"episode_id": [{"id": 1}]}, "episode_id[0]", "expected text or integer, got dict"),
    ({"actions": ['{"action_type":"click","x":0.836,"y":0.078}', AC_LINE["actions"][1]]}, "actions[0]",
     "looks normalised (fractions 0-1 of the screen); AndroidControl gives pixels"),
    ({"actions": ['{"action_type":"click","x":5000,"y":20}', AC_LINE["actions"][1]]}, "actions[0]",
     "box [5000, 20, 5000, 20] lies outside the 1080x2400 image screenshot_1_0.png"),
    ({"actions": ['{"action_type":"click","x":10', AC_LINE["actions"][1]]}, "actions[0]",
     "invalid JSON in the action string"),
    ({"step_instructions": None}, "step_instructions", "missing"),
], ids=["size differs from the image", "one height short", "two goals", "id an object", "normalised click",
        "click off the screen", "cut action string", "no instructions"])
def test_broken_converter_lines_are_refused_by_file_line_and_field(project, tmp_path, change, field, words):
    line = {k: v for k, v in {**AC_LINE, **change}.items() if v is not None}
    folder = _converter_folder(tmp_path, line)
    path = folder / "data.jsonl"
    message = _refused(project, path, "androidcontrol", words)
    assert message.startswith(f"{path}, line 1, field '{field}': "), message


# ---------------------------------------------------------------- AndroidControl export, round trip

EPISODE_7 = {
    "episode_id": 7, "goal": "Set a weekday alarm called Gym",
    "screenshots": [f"shots/7_{i}.png" for i in range(7)],
    "step_instructions": ["tap the clock", "hold the alarm", "scroll down", "name it", "type the time", "go back",
                          "wait"],
    "actions": [{"action_type": "click", "x": 561, "y": 2011}, {"action_type": "long_press", "x": 100, "y": 200},
                {"action_type": "scroll", "direction": "down"}, {"action_type": "input_text", "text": "Gym"},
                {"action_type": "type", "text": "7:00", "x": 300, "y": 420}, {"action_type": "navigate_back"},
                {"action_type": "wait"}],
    "element_boxes": [None, None, None, [40, 380, 1040, 460], None, None, None],
}


def test_export_writes_the_converters_layout_and_imports_back_the_same(project, tmp_path):
    source = _converter_folder(tmp_path / "src")
    _episode_2207(source)
    for i in range(7):
        make_image(source / "shots" / f"7_{i}.png", size=(1080, 2400), color=(i * 30, 10, 200))
    (source / "episode_7.json").write_text(json.dumps(EPISODE_7), encoding="utf-8")
    import_path(project, source, "androidcontrol")
    make_image(tmp_path / "loose" / "shot.png", size=(400, 300))  # a screen with no gold action: left out
    import_path(project, tmp_path / "loose", "images")

    report = export_path(project, tmp_path / "out", "androidcontrol")

    assert (report.episodes, report.skipped, report.annotations) == (3, 1, 10)
    lines = [json.loads(t) for t in (tmp_path / "out" / "data.jsonl").read_text(encoding="utf-8").splitlines()]
    first = next(line for line in lines if line["episode_id"] == [1])
    assert first["goal"] == ["Open the BudgetBytes app"]
    assert first["actions"] == ['{"action_type":"navigate_home"}', '{"action_type":"open_app","app_name":"BudgetBytes"}']
    assert first["screenshot_path"] == ["screenshots/1/screenshot_1_0.png", "screenshots/1/screenshot_1_1.png"]
    assert (first["screenshot_widths"], first["screenshot_heights"]) == ([1080, 1080], [2400, 2400])
    assert all((tmp_path / "out" / p).is_file() for line in lines for p in line["screenshot_path"])
    clicked = next(line for line in lines if line["episode_id"] == [2207])
    assert (clicked["actions"], clicked["element_boxes"]) == (['{"action_type":"click","x":903,"y":188}'],
                                                              [[855, 153, 954, 266]])

    with Project.init(tmp_path / "again") as again:
        import_path(again, tmp_path / "out", "androidcontrol")
        before, after = _episodes(project), _episodes(again)
    del before["shot.png"]
    for episode in (*before.values(), *after.values()):
        episode["meta"]["androidcontrol"].pop("final_screenshot", None)  # the final screen is not exported
        episode["steps"] = [step[:3] for step in episode["steps"]]  # the action as written, not as it was read
    assert after == before


# ---------------------------------------------------------------- AndroidControl, the released TFRecords

def _crc32c_bitwise(data: bytes) -> int:
    """CRC-32C one bit at a time, written here independently of the reader's."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def _masked(data: bytes) -> bytes:
    crc = _crc32c_bitwise(data)
    return struct.pack("<I", ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF)


def _delimited(number: int, payload: bytes) -> bytes:
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def _example(features: dict[str, list]) -> bytes:
    """A tf.train.Example written byte by byte from example.proto / feature.proto: bytes values go in a
    BytesList (Feature field 1), integers in a packed Int64List (Feature field 3)."""
    entries = b""
    for name, values in features.items():
        if values and isinstance(values[0], int):
            feature = _delimited(3, _delimited(1, b"".join(varint(v) for v in values)))
        else:
            feature = _delimited(1, b"".join(_delimited(1, v) for v in values))
        entries += _delimited(1, _delimited(1, name.encode()) + _delimited(2, feature))
    return _delimited(1, entries)


def _tfrecord(examples: list[bytes]) -> bytes:
    out = b""
    for data in examples:
        length = struct.pack("<Q", len(data))
        out += length + _masked(length) + data + _masked(data)
    return out


def _png(size=(1080, 2400), color=(20, 120, 220)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, format="PNG")
    return buffer.getvalue()


def _released_episodes(widths=1080) -> list[bytes]:
    """Episode 1 with the converter line's field values (they are the TFRecord's, decoded), and episode 2207."""
    one = {
        "episode_id": AC_LINE["episode_id"], "goal": [g.encode() for g in AC_LINE["goal"]],
        "screenshots": [_png(color=(i * 60, 90, 30)) for i in range(3)],
        "accessibility_trees": [b"", b"", b""],
        "screenshot_widths": [widths, 1080, 1080], "screenshot_heights": AC_LINE["screenshot_heights"],
        "actions": [a.encode() for a in AC_LINE["actions"]],
        "step_instructions": [s.encode() for s in AC_LINE["step_instructions"]],
    }
    clicked = {
        "episode_id": [2207], "goal": [AC_2207["goal"].encode()],
        "screenshots": [_png(color=(200, 200, 190)), _png(color=(190, 200, 200))],
        "screenshot_widths": [1080, 1080], "screenshot_heights": [2400, 2400],
        "actions": [a.encode() for a in AC_2207["actions"]],
        "step_instructions": [s.encode() for s in AC_2207["step_instructions"]],
    }
    return [_example(one), _example(clicked)]


def test_the_released_gzip_tfrecord_imports_with_its_pictures(project, tmp_path):
    shard = tmp_path / "android_control" / "android_control-00000-of-00020"
    shard.parent.mkdir()
    shard.write_bytes(gzip.compress(_tfrecord(_released_episodes())))

    report = import_path(project, shard, "androidcontrol-tfrecord")

    assert (report.episodes, report.steps, report.screens_new) == (2, 3, 3)  # final screens are not steps
    episodes = _episodes(project)
    assert episodes["1"]["goal"] == "Open the BudgetBytes app"
    assert [s[2] for s in episodes["1"]["steps"]] == [[("gold", "navigate_home", None, "", {})],
                                                      [("gold", "open_app", None, "", {"app_name": "BudgetBytes"})]]
    (step,) = episodes["2207"]["steps"]
    assert step[2] == [("gold", "click", (903, 188, 903, 188), "", {"point": True})]  # {"x": 903, "y": 188}
    assert detect_format(shard) == "androidcontrol-tfrecord"
    assert detect_format(shard.parent) == "androidcontrol-tfrecord"


def test_a_folder_of_gzip_and_plain_shards(project, tmp_path):
    one, clicked = _released_episodes()
    folder = tmp_path / "shards"
    folder.mkdir()
    (folder / "episodes-00000-of-00002.tfrecord.gz").write_bytes(gzip.compress(_tfrecord([one])))
    (folder / "episodes-00001-of-00002.tfrecord").write_bytes(_tfrecord([clicked]))  # uncompressed
    (folder / "README.txt").write_text("not a shard")

    assert import_path(project, folder, "androidcontrol-tfrecord").episodes == 2


def test_damaged_tfrecords_are_refused_by_record_number(project, tmp_path):
    plain = _tfrecord(_released_episodes())
    second = len(_tfrecord(_released_episodes()[:1]))  # where record 2 starts
    path = tmp_path / "android_control-00000-of-00001"

    damaged = bytearray(plain)
    damaged[second + 12 + 40] ^= 0xFF  # a byte of record 2's data
    path.write_bytes(bytes(damaged))
    _refused(project, path, "androidcontrol-tfrecord", str(path),
             "record 2: the checksum of the record's data does not match: the file is damaged")

    path.write_bytes(plain[:second + 500])
    _refused(project, path, "androidcontrol-tfrecord", "record 2: the file ends inside the record", "cut short")

    compressed = gzip.compress(plain)
    path.write_bytes(compressed[:len(compressed) * 3 // 4])
    _refused(project, path, "androidcontrol-tfrecord", str(path), "record 2", "GZIP stream is cut short")

    path.write_bytes(json.dumps(AC_LINE).encode())  # the converter's JSON is not a TFRecord
    _refused(project, path, "androidcontrol-tfrecord", "record 1: the checksum of the record's length does not match",
             "not a TFRecord file")


def test_a_tfrecord_episode_whose_sizes_or_fields_are_wrong_is_refused_by_field(project, tmp_path):
    path = tmp_path / "android_control-00000-of-00001"
    path.write_bytes(gzip.compress(_tfrecord(_released_episodes(widths=540))))
    _refused(project, path, "androidcontrol-tfrecord",
             f"{path}, field 'record 1.screenshot_widths[0], record 1.screenshot_heights[0]': the record gives this "
             "screenshot as 540x2400 pixels, but the image")

    no_goal = _example({"episode_id": [9], "screenshots": [_png()], "actions": [b'{"action_type":"wait"}'],
                        "step_instructions": [b"wait"]})
    path.write_bytes(_tfrecord([_released_episodes()[0], no_goal]))
    _refused(project, path, "androidcontrol-tfrecord", f"{path}, field 'record 2.goal': missing")

    path.write_bytes(_tfrecord([b"\x0a\xff\xff\xff\xff\x0f"]))  # framed well, but no Example inside
    _refused(project, path, "androidcontrol-tfrecord", "record 1 is not a tf.train.Example")


def test_crc32c_is_the_castagnoli_checksum_at_every_length():
    assert crc32c(b"123456789") == 0xE3069283  # the standard check value of CRC-32C
    data = bytes((i * 7919 + 13) % 251 for i in range(70_001))
    for n in (0, 1, 7, 8, 9, 63, 64, 65, 255, 16_384, 70_001):  # around the library's 8- and 64-byte strides
        assert crc32c(data[:n]) == _crc32c_bitwise(data[:n]), n


# ---------------------------------------------------------------- AITW (SeeClick's release)

def _aitw(root: Path, change=None) -> Path:
    data = json.loads((DATA / "aitw" / "aitw_data_test.json").read_text(encoding="utf-8"))
    if change:
        change(data["general"][0])
    path = root / "aitw_data_test.json"
    root.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    for i in range(4):
        make_image(root / "aitw_images" / "general" / f"placeholder_episode_{i}.png", size=(1080, 2400),
                   color=(i * 50, 100, 100))
    return path


def test_aitw_touch_and_lift_become_a_tap_in_pixels(project, tmp_path):
    path = _aitw(tmp_path / "aitw")

    report = import_path(project, path, "aitw")

    assert (report.episodes, report.steps) == (1, 4)
    episode = _episodes(project)["placeholder-episode"]
    assert (episode["goal"], episode["split"], episode["meta"]) == (
        "What's the weather like in New York?", "test", {"aitw": {"category": "general"}})
    click, typed, scroll, done = (s[2] for s in episode["steps"])
    # touch [0.621, 0.497], lift [0.609, 0.477], x first: the midpoint (0.615, 0.487) of a 1080 x 2400 screen
    ((label, kind, box, _text, meta),) = click
    assert (label, kind, meta) == ("gold", "click", {"point": True})
    assert box == pytest.approx((664.2, 1168.8, 664.2, 1168.8))
    assert typed == [("gold", "type", None, "weather in new york", {})]
    assert scroll == [("gold", "scroll", None, "", {"direction": "down"})]
    assert done == [] and episode["steps"][3][3]["aitw"]["status"] == "complete"
    assert episode["steps"][0][3]["aitw"]["annot_position"] == [0.45, 0.52, 0.06, 0.2]  # [y, x, h, w], kept
    assert detect_format(path) == "aitw" and detect_format(path.parent) == "aitw"
    renamed = path.rename(path.with_name("my_split.json"))
    assert detect_format(renamed) == "aitw"  # by its content


def _set(index, key, value):
    def change(episode):
        episode[index][key] = value
    return change


@pytest.mark.parametrize("change, field, words", [
    (_set(0, "touch", [671, 1193]), "general[0][0].touch", "fractions 0-1 of the screen"),
    (_set(0, "touch", [0.6]), "general[0][0].touch", "expected [x, y], two numbers"),
    (_set(1, "action_type_id", 9), "general[0][1].action_type_id", "unknown action_type_id 9"),
    (_set(2, "action_type_text", "swipe"), "general[0][2].action_type_text", "a dual-point action (4) is 'click'"),
    (_set(1, "type_text", None), "general[0][1].type_text", "expected text, got null"),
    (_set(3, "img_filename", "general/not_there"), "general[0][3].img_filename", "--images"),
], ids=["pixels for fractions", "one number", "unknown action", "unknown gesture", "no typed text", "no image"])
def test_broken_aitw_steps_are_refused_by_field(project, tmp_path, change, field, words):
    path = _aitw(tmp_path / "aitw", change)
    message = _refused(project, path, "aitw", words)
    assert message.startswith(f"{path}, field '{field}': "), message


# ---------------------------------------------------------------- GUI-Odyssey

def _odyssey(root: Path, change=None) -> Path:
    """The release's layout: annotations/<episode>.json beside screenshots/<episode>_<step>.png."""
    episode = json.loads((DATA / "gui_odyssey" / "0141544666483837.json").read_text(encoding="utf-8"))
    if change:
        change(episode["steps"])
    path = root / "annotations" / "0141544666483837.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(episode, indent=4), encoding="utf-8")
    for i in range(3):
        make_image(root / "screenshots" / f"0141544666483837_{i}.png", size=(720, 1280), color=(i * 70, 40, 90))
    return path


def test_gui_odyssey_points_on_the_1000_grid_become_pixels(project, tmp_path):
    path = _odyssey(tmp_path / "data")

    report = import_path(project, path.parent, "gui-odyssey")

    assert (report.episodes, report.steps) == (1, 3)
    episode = _episodes(project)["0141544666483837"]
    assert episode["goal"] == ("Use Chrome to check the weather forecast for Beijing tomorrow, then organize your "
                               "to-do list in Google Docs based on the forecast.")
    first, typed, second = (s[2] for s in episode["steps"])
    # [719, 762] on 0-1000 of a 720 x 1280 screenshot: 719 * 0.72 = 517.68, 762 * 1.28 = 975.36
    assert first[0][:2] == ("gold", "click") and first[0][2] == pytest.approx((517.68, 975.36, 517.68, 975.36))
    assert second[0][2] == pytest.approx((301.68, 222.72, 301.68, 222.72))  # [419, 174]
    assert typed == [("gold", "type", None, "the weather in Beijing tomorrow", {})]  # "TEXT"
    assert episode["meta"]["odyssey"]["device_info"]["device_name"] == "Small Phone"
    assert detect_format(path) == "gui-odyssey" and detect_format(path.parent) == "gui-odyssey"


def test_gui_odyssey_sam2_box_is_the_element_when_the_tap_lies_in_it(project, tmp_path):
    def boxes(steps):
        steps[0].update(sam2_bbox=[650, 700, 800, 820], low_level_instruction="Tap the search bar")
        steps[2]["sam2_bbox"] = [0, 0, 100, 100]  # SAM2 cut out something else: the tap stays the truth
    path = _odyssey(tmp_path / "data", boxes)

    import_path(project, path, "gui-odyssey")

    first, _typed, second = _episodes(project)["0141544666483837"]["steps"]
    assert first[0] == "Tap the search bar"
    ((_label, _kind, box, _text, meta),) = first[2]
    assert box == pytest.approx((468, 896, 576, 1049.6)) and meta == {"tap_0_1000": [719, 762]}
    assert second[2][0][2] == pytest.approx((301.68, 222.72, 301.68, 222.72))


def _step(index, **values):
    def change(steps):
        steps[index].update(values)
    return change


@pytest.mark.parametrize("change, field, words", [
    (_step(0, info=[[1200, 5], [1200, 5]]), "steps[0].info[0]", "lies off GUI-Odyssey's 0-1000 grid"),
    (_step(0, sam2_bbox=[700, 700, 1100, 800]), "steps[0].sam2_bbox",
     "box [700, 700, 1100, 800] lies outside the 0-1000 x 0-1000 grid"),
    (_step(1, action="SWIPE"), "steps[1].action", "unknown action \"SWIPE\""),
    (_step(2, info="KEY_POWER"), "steps[2].info", "KEY_HOME"),
    (_step(2, screenshot="elsewhere.png"), "steps[2].screenshot", "--images"),
], ids=["off the grid", "sam2 box off the grid", "unknown action", "unknown key", "no image"])
def test_broken_gui_odyssey_steps_are_refused_by_field(project, tmp_path, change, field, words):
    path = _odyssey(tmp_path / "data", change)
    message = _refused(project, path, "gui-odyssey", words)
    assert message.startswith(f"{path}, field '{field}': "), message


def test_the_odyssey_dataset_folder_is_read_through_its_annotations(project, tmp_path):
    path = _odyssey(tmp_path / "data")
    shutil.copy(path, tmp_path / "loose.json")  # a copy away from screenshots/: only --images finds them
    assert import_path(project, tmp_path / "data", "gui-odyssey").episodes == 1
    with Project.init(tmp_path / "p2") as other:
        _refused(other, tmp_path / "loose.json", "gui-odyssey", "not found", "--images")
        options = ImportOptions(images_dir=tmp_path / "data" / "screenshots")
        assert import_path(other, tmp_path / "loose.json", "gui-odyssey", options).steps == 3


def test_an_id_that_cannot_be_a_file_name_is_exported_under_the_line_number(project, tmp_path):
    """Found by fuzzing: a 400-digit episode id once made the export fail on a file name too long."""
    long_id = "9" * 400
    folder = _converter_folder(tmp_path / "src", {**AC_LINE, "episode_id": [long_id]})
    _episode_2207(folder, episode_id="shop/cart:2207")
    import_path(project, folder, "androidcontrol")

    export_path(project, tmp_path / "out", "androidcontrol")

    lines = [json.loads(t) for t in (tmp_path / "out" / "data.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sorted(str(line["episode_id"][0]) for line in lines) == sorted([long_id, "shop/cart:2207"])
    assert {line["screenshot_path"][0].split("/")[1] for line in lines} == {"episode_0", "episode_1"}
    with Project.init(tmp_path / "again") as again:
        import_path(again, tmp_path / "out", "androidcontrol")
        assert sorted(_episodes(again)) == sorted([long_id, "shop/cart:2207"])
