"""The Mind2Web family (issue 18): SeeClick's release, the official JSON with the raw dump's screenshots, and
Multimodal-Mind2Web's Parquet shards. Records come from public releases (tests/data/formats/mind2web*/README.md
names each source); the screenshots, which are not public, are placeholders of a size that holds the boxes.
Every box below is worked out by hand from the release's numbers: x, y, width, height -> x1, y1, x2, y2."""

from __future__ import annotations

import base64
import io
import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image

from desktop_app.formats.detect import detect_format
from desktop_app.formats.ingest import ImportOptions
from desktop_app.formats.records import FormatError
from desktop_app.formats.transfer import export_path, import_path
from desktop_app.store.models import ActionBox, Episode, Screen, Step
from desktop_app.store.orm import select
from desktop_app.store.project import Project

from conftest import make_image, snapshot

DATA = Path(__file__).parent / "data" / "formats"
SEECLICK = DATA / "mind2web-seeclick" / "mind2web_data_test_task.json"
OFFICIAL = DATA / "mind2web" / "test_task_0.json"
ROWS = json.loads((DATA / "mind2web-parquet" / "rows.json").read_text(encoding="utf-8"))

FLIGHTAWARE = "8a39a66d-cd0c-4741-b616-d2d7be631abf"  # Compare available plans for the AeroAPI.
RAPTORS = "353ab375-d3e0-4842-9ae9-b7502b95c53a"  # Find the last game of the season for the Toronto Raptors.
UNITED = "401c4e6f-6b0b-47b4-8157-92d7ca468bbc"


def _episodes(project) -> dict[str, tuple[Episode, list]]:
    """key -> (episode, [(screen size, [(label, action type, box, typed text, element text, meta)])])."""
    out = {}
    with project.reading() as s:
        for episode in s.exec(select(Episode)).all():
            steps = []
            rows = s.exec(select(Step, Screen).join(Screen, Screen.id == Step.screen_id)
                          .where(Step.episode_id == episode.id).order_by(Step.index)).all()
            for step, screen in rows:
                boxes = s.exec(select(ActionBox).where(ActionBox.step_id == step.id).order_by(ActionBox.id)).all()
                steps.append(((screen.width, screen.height), step.meta,
                              [(b.label, b.action_type, None if b.x1 is None else (b.x1, b.y1, b.x2, b.y2),
                                b.type_text, b.element_text, b.meta) for b in boxes]))
            out[episode.key] = (episode, steps)
    return out


def _refused(project, path, fmt, options=None) -> str:
    before = snapshot(project)
    with pytest.raises(FormatError) as caught:
        import_path(project, path, fmt, options or ImportOptions())
    assert snapshot(project) == before, "a refused import changed the project"
    return str(caught.value)


def _jpeg(size, color="white") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, format="JPEG")
    return out.getvalue()


# ---------- SeeClick's release ----------

def _seeclick(folder: Path, skip=("069e33e2-b8ae-47ec-af79-0d323ce51297",), size=(1280, 1000)) -> Path:
    """The two released tasks with their screenshots in mind2web_imgs/ (SeeClick's crops are 1280 x 1000), all but
    `skip` (an action without bbox whose screenshot SeeClick has no use for)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / SEECLICK.name
    shutil.copy(SEECLICK, path)
    for n, task in enumerate(json.loads(SEECLICK.read_text(encoding="utf-8"))):
        for i, action in enumerate(task["actions"]):
            if action["action_uid"] not in skip:
                make_image(folder / "mind2web_imgs" / f"{task['annotation_id']}-{action['action_uid']}.jpg", size=size,
                           color=(40 * n, 20 * i, 90), fmt="JPEG")
    return path


def test_seeclick_release_imports_with_boxes_from_bbox(project, tmp_path):
    path = _seeclick(tmp_path / "m2w")
    assert detect_format(path) == "mind2web-seeclick"

    report = import_path(project, path, "mind2web-seeclick")

    # 3 + 4 actions; 069e33e2 has neither bbox nor screenshot (SeeClick skips it too): left out, and said so
    assert (report.episodes, report.steps) == (2, 6)
    episodes = _episodes(project)
    flightaware, steps = episodes[FLIGHTAWARE]
    assert (flightaware.goal, flightaware.split, flightaware.scenario) == (
        "Compare available plans for the AeroAPI.", "test_task", "navigation")
    assert flightaware.meta["mind2web"]["left_out"] == ["069e33e2-b8ae-47ec-af79-0d323ce51297"]
    assert flightaware.meta["mind2web"]["website"] == "flightaware"
    # bbox {155, 87.390625, 63, 38.65625}: x2 = 155 + 63, y2 = 87.390625 + 38.65625; a HOVER is scored as a click
    assert steps[0][2] == [("gold", "click", (155, 87.390625, 218, 126.046875), "", "Products",
                            {"action_uid": "18ea9dbd-cc49-40b6-a105-0cfd47100d29", "original_op": "HOVER",
                             "backend_node_id": "1396", "tag": "a"})]
    # bbox {916.59375, 555.640625, 165, 40}
    assert steps[1][2][0][2:5] == ((916.59375, 555.640625, 1081.59375, 595.640625), "", "Compare Tiers Now")
    _, steps = episodes[RAPTORS]
    # action 1 has no bbox but its screenshot is there: a step without a box
    assert [s[2][0][2] for s in steps] == [(398, 117.5, 429, 134.5), None, (123, 451.5, 178, 493.53125),
                                           (40.5, 517.125, 164.484375, 667.125)]
    assert steps[1][2][0][5]["no_box"] is True
    # the last box is SeeClick's, in its cut-out picture: the page's bounding_box_rect says y 957.125, not 517.125
    assert steps[3][2][0][4] == "9 vsMIL 56-22 BSW, SN 5:00 PM"


def test_seeclick_screenshots_are_looked_for_in_images_option_and_refused_when_absent(project, tmp_path):
    shots = _seeclick(tmp_path / "elsewhere") .parent / "mind2web_imgs"
    folder = tmp_path / "annotations"
    folder.mkdir()
    path = folder / SEECLICK.name
    shutil.copy(SEECLICK, path)

    message = _refused(project, path, "mind2web-seeclick")
    assert message.startswith(f"{path}, field '[0].actions[0].action_uid': screenshot not found")
    assert f"mind2web_imgs/{FLIGHTAWARE}-18ea9dbd-cc49-40b6-a105-0cfd47100d29.jpg" in message
    assert "none of the 5 screenshots this file names is there" in message
    assert "{annotation_id}-{action_uid}.jpg" in message and "--images" in message

    report = import_path(project, path, "mind2web-seeclick", ImportOptions(images_dir=shots))
    assert (report.episodes, report.steps) == (2, 6)


def test_seeclick_export_writes_its_layout_and_imports_again_the_same(project, tmp_path):
    import_path(project, _seeclick(tmp_path / "m2w"), "mind2web-seeclick")
    out = tmp_path / "out"

    report = export_path(project, out, "mind2web-seeclick")

    assert (report.episodes, report.annotations, report.images) == (2, 5, 6)
    tasks = json.loads((out / "mind2web_data_test_task.json").read_text(encoding="utf-8"))
    released = json.loads(SEECLICK.read_text(encoding="utf-8"))
    first = tasks[0]["actions"][0]
    assert first["bbox"] == released[0]["actions"][0]["bbox"] == {"x": 155, "y": 87.390625, "width": 63,
                                                                    "height": 38.65625}
    assert first["operation"] == released[0]["actions"][0]["operation"]
    assert tasks[0]["action_reprs"] == released[0]["action_reprs"][::2]  # the left-out action has no step
    assert (out / "mind2web_imgs" / f"{RAPTORS}-f5320526-cc2c-43ac-aaa2-d22b1ab3e9bc.jpg").is_file()
    assert "bbox" not in tasks[1]["actions"][1]  # the step without a box stays without one
    assert detect_format(out) == "mind2web-seeclick"

    with Project.init(tmp_path / "again") as again:
        import_path(again, out, "mind2web-seeclick")
        assert _without_left_out(_episodes(again)) == _without_left_out(_episodes(project))


def _without_left_out(episodes):
    """Episodes as a user sees them; the exported file no longer names the action that was left out on import."""
    return {k: ({**e.meta["mind2web"], "left_out": None, "action_reprs": None}, e.goal, e.split, steps)
            for k, (e, steps) in episodes.items()}


def _edited(tmp_path, change) -> Path:
    path = _seeclick(tmp_path / "bad")
    tasks = json.loads(path.read_text(encoding="utf-8"))
    change(tasks)
    path.write_text(json.dumps(tasks), encoding="utf-8")
    return path


def test_seeclick_broken_records_are_refused_by_field(project, tmp_path):
    def no_operation(tasks):
        del tasks[1]["actions"][2]["operation"]
    message = _refused(project, _edited(tmp_path / "1", no_operation), "mind2web-seeclick")
    assert "field '[1].actions[2].operation': missing" in message

    def width_as_text(tasks):
        tasks[0]["actions"][0]["bbox"]["width"] = "63"
    message = _refused(project, _edited(tmp_path / "2", width_as_text), "mind2web-seeclick")
    assert "field '[0].actions[0].bbox': expected x, y, width, height" in message

    def past_the_picture(tasks):
        tasks[1]["actions"][3]["bbox"]["x"] = 1200.5  # + 123.984375 reaches past 1280
    message = _refused(project, _edited(tmp_path / "3", past_the_picture), "mind2web-seeclick")
    assert "field '[1].actions[3].bbox': box [1200.5, 517.125, 1324.48, 667.125] lies outside the 1280x1000 image" \
        in message


def test_seeclick_boxes_given_as_fractions_are_refused_not_read_as_pixels(project, tmp_path):
    def fractions(tasks):
        for task in tasks:
            for action in task["actions"]:
                if "bbox" in action:
                    b = action["bbox"]
                    action["bbox"] = {"x": b["x"] / 1280, "y": b["y"] / 1000, "width": b["width"] / 1280,
                                      "height": b["height"] / 1000}
    message = _refused(project, _edited(tmp_path, fractions), "mind2web-seeclick")
    assert "field '[0].actions[0].bbox': every box of this file lies within 0-1.5" in message
    assert "screenshots are 1280x1000 pixels" in message and "Convert them to pixels" in message


def test_seeclick_file_given_as_the_official_layout_names_the_right_format(project, tmp_path):
    message = _refused(project, _seeclick(tmp_path / "m2w"), "mind2web")
    assert "field '[0].actions[0].bbox'" in message and "--format mind2web-seeclick" in message


# ---------- the official JSON and the raw dump ----------

PAGE = (1280, 1200)  # Mind2Web's window is 1280 wide; the page of the last action reaches y = 1107.125


def _raw_dump(root: Path, task: dict, size=PAGE, drop=()) -> Path:
    """raw_dump/task/{annotation_id}/processed/screenshot.json: each action's before / after picture in base64."""
    entries = [{"action_uid": a["action_uid"],
                "before": {"screenshot": base64.b64encode(_jpeg(size, (i * 50, 80, 80))).decode("ascii")},
                "after": {"screenshot": base64.b64encode(_jpeg(size, "black")).decode("ascii")}}
               for i, a in enumerate(task["actions"]) if a["action_uid"] not in drop]
    path = root / "task" / task["annotation_id"] / "processed" / "screenshot.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(entries), encoding="utf-8")
    return path


def _official(tmp_path) -> tuple[Path, Path]:
    folder = tmp_path / "data"
    folder.mkdir()
    shutil.copy(OFFICIAL, folder / OFFICIAL.name)
    _raw_dump(tmp_path / "raw_dump", json.loads(OFFICIAL.read_text(encoding="utf-8"))[0])
    return folder / OFFICIAL.name, tmp_path / "raw_dump"


def test_official_task_takes_page_boxes_and_the_raw_dumps_before_pictures(project, tmp_path):
    path, dump = _official(tmp_path)
    assert detect_format(path) == "mind2web"

    report = import_path(project, path, "mind2web", ImportOptions(images_dir=dump))

    assert (report.episodes, report.steps) == (1, 4)
    episode, steps = _episodes(project)[RAPTORS]
    assert (episode.goal, episode.split) == ("Find the last game of the season for the Toronto Raptors.", "test_task")
    assert {s[0] for s in steps} == {PAGE}
    # bounding_box_rect "398,117.5,31,17", none for action 1, "123,451.5,55,42.03125", "40.5,957.125,123.984375,150":
    # page coordinates, 440 px below SeeClick's bbox for the last one
    assert [s[2][0][2] for s in steps] == [(398, 117.5, 429, 134.5), None, (123, 451.5, 178, 493.53125),
                                           (40.5, 957.125, 164.484375, 1107.125)]
    assert steps[0][2][0][5] == {"action_uid": "224779fb-fab2-442d-aa64-6789310ec681", "original_op": "HOVER",
                                 "backend_node_id": "143", "tag": "a"}
    # the "before" picture, not the "after" one (black)
    with project.reading() as s:
        screen = s.exec(select(Screen).join(Step, Step.screen_id == Screen.id)
                        .where(Step.index == 1)).first()
    pixel = Image.open(io.BytesIO(project.media.read(screen.sha256, screen.ext))).getpixel((5, 5))
    assert pixel[0] > 30


def test_official_task_without_its_raw_dump_says_where_the_screenshots_are(project, tmp_path):
    path, _ = _official(tmp_path)
    message = _refused(project, path, "mind2web")
    assert message.startswith(f"{path}, field '[0].actions[0].screenshot': screenshot not found")
    assert "task/{annotation_id}/processed/screenshot.json" in message and "--images" in message
    assert "(4 of the file's 4 actions have no screenshot)" in message

    # SeeClick's crops in the folder given: their coordinates are not these, and the message says so
    make_image(tmp_path / "crops" / f"{RAPTORS}-224779fb-fab2-442d-aa64-6789310ec681.jpg", size=(1280, 1000))
    message = _refused(project, path, "mind2web", ImportOptions(images_dir=tmp_path / "crops"))
    assert "SeeClick's picture of this action" in message and "--format mind2web-seeclick" in message


def test_official_raw_dump_problems_are_named_in_the_dump_file(project, tmp_path):
    path, dump = _official(tmp_path)
    shot = dump / "task" / RAPTORS / "processed" / "screenshot.json"
    entries = json.loads(shot.read_text())
    entries[2]["before"]["screenshot"] = "not base64 !"
    shot.write_text(json.dumps(entries))
    message = _refused(project, path, "mind2web", ImportOptions(images_dir=dump))
    assert message == f"{shot}, field '[2].before.screenshot': not a base64 picture"

    shutil.rmtree(dump)
    _raw_dump(dump, json.loads(OFFICIAL.read_text())[0], drop=("82adf12c-8126-4bde-95dd-90ccd4653a04",))
    message = _refused(project, path, "mind2web", ImportOptions(images_dir=dump))
    assert "field '[0].actions[2].screenshot': screenshot not found" in message


def test_official_box_past_the_page_is_refused(project, tmp_path):
    path, dump = _official(tmp_path)
    shutil.rmtree(dump)
    _raw_dump(dump, json.loads(OFFICIAL.read_text())[0], size=(1280, 1000))  # a page too short for y = 1107.125
    message = _refused(project, path, "mind2web", ImportOptions(images_dir=dump))
    assert ("field '[0].actions[3].pos_candidates[0].bounding_box_rect': box [40.5, 957.125, 164.484, 1107.12] lies "
            "outside the 1280x1000 image") in message


def test_official_export_writes_the_json_and_raw_dump_and_imports_again_the_same(project, tmp_path):
    path, dump = _official(tmp_path)
    import_path(project, path, "mind2web", ImportOptions(images_dir=dump))
    out = tmp_path / "out"

    report = export_path(project, out, "mind2web")

    assert (report.episodes, report.annotations, report.images) == (1, 3, 4)
    task = json.loads((out / "test_task_0.json").read_text(encoding="utf-8"))[0]
    released = json.loads(OFFICIAL.read_text(encoding="utf-8"))[0]
    assert {k: task[k] for k in ("annotation_id", "website", "domain", "subdomain", "confirmed_task",
                                  "action_reprs")} == {k: released[k] for k in task if k != "actions"}
    candidate = task["actions"][3]["pos_candidates"][0]
    assert json.loads(candidate["attributes"])["bounding_box_rect"] == "40.5,957.125,123.984375,150"
    assert task["actions"][1]["pos_candidates"] == []
    assert (out / "raw_dump" / "task" / RAPTORS / "processed" / "screenshot.json").is_file()
    assert detect_format(out) == "mind2web"

    with Project.init(tmp_path / "again") as again:
        import_path(again, out, "mind2web")  # the raw dump is found beside the JSON
        assert _episodes(again)[RAPTORS][1] == _episodes(project)[RAPTORS][1]
        with again.reading() as s, project.reading() as t:  # the very pictures, byte for byte
            assert sorted(s.exec(select(Screen.sha256)).all()) == sorted(t.exec(select(Screen.sha256)).all())


def test_official_first_task_too_big_to_parse_in_the_head_is_still_recognised(tmp_path):
    task = json.loads(OFFICIAL.read_text(encoding="utf-8"))[0]
    big = {"annotation_id": task["annotation_id"], "confirmed_task": task["confirmed_task"],
           "actions": [{"action_uid": "a", "raw_html": "<div>" * 100_000}]}
    path = tmp_path / "train_0.json"
    path.write_text(json.dumps([big]))
    assert detect_format(path) == "mind2web"
    assert detect_format(tmp_path) == "mind2web"


# ---------- Multimodal-Mind2Web Parquet ----------

_TYPES = pa.schema([("action_uid", pa.string()), ("raw_html", pa.string()), ("cleaned_html", pa.string()),
                    ("operation", pa.string()), ("pos_candidates", pa.list_(pa.string())),
                    ("neg_candidates", pa.list_(pa.string())), ("website", pa.string()), ("domain", pa.string()),
                    ("subdomain", pa.string()), ("annotation_id", pa.string()), ("confirmed_task", pa.string()),
                    ("screenshot", pa.struct([("bytes", pa.binary()), ("path", pa.string())])),
                    ("action_reprs", pa.list_(pa.string())), ("target_action_index", pa.string()),
                    ("target_action_reprs", pa.string())])


def _shard(path: Path, rows: list[dict], size=(1280, 1000), schema=_TYPES) -> Path:
    """A shard as the dataset lays it out: one row per action, the HTML columns too (stand-ins here)."""
    full = [{"raw_html": "<html></html>", "cleaned_html": "<html></html>", "neg_candidates": [],
             "screenshot": {"bytes": _jpeg(size, (9 * i, 60, 60)), "path": None}, **row}
            for i, row in enumerate(rows)]
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(full, schema=schema), path, row_group_size=2)
    return path


def _shards(folder: Path) -> Path:
    """Task 8a39a66d split over two shards and out of order; the united row in the second shard."""
    task = ROWS["seeclick_task_8a39a66d"]
    _shard(folder / "test_task-00000-of-00002-4d11798d.parquet", [task[2], task[0]])
    _shard(folder / "test_task-00001-of-00002-2011d8e7.parquet", [task[1], ROWS["hf_viewer_united_row"]])
    return folder


def test_parquet_rows_become_tasks_in_action_order_across_shards(project, tmp_path):
    folder = _shards(tmp_path / "data")
    assert detect_format(folder) == "mind2web-parquet"
    assert detect_format(next(folder.glob("*.parquet"))) == "mind2web-parquet"

    report = import_path(project, tmp_path, "mind2web-parquet")  # the repository's root: shards under data/

    assert (report.episodes, report.steps) == (2, 4)
    episodes = _episodes(project)
    episode, steps = episodes[FLIGHTAWARE]
    assert (episode.goal, episode.split, episode.meta["mind2web"]["website"]) == (
        "Compare available plans for the AeroAPI.", "test_task", "flightaware")
    assert [s[1]["target_action_index"] for s in steps] == [0, 1, 2]
    # "155,87.390625,63,38.65625" and "916.59375,555.640625,165,40"; action 1 has no candidate
    assert [s[2][0][1:5] for s in steps] == [
        ("click", (155, 87.390625, 218, 126.046875), "", "Products"),
        ("click", None, "", "AeroAPI"),
        ("click", (916.59375, 555.640625, 1081.59375, 595.640625), "", "Compare Tiers Now")]
    assert steps[0][2][0][5]["original_op"] == "HOVER"
    episode, steps = episodes[UNITED]
    assert (episode.goal, steps[0][2][0][4]) == ("rent a car in Brooklyn - Central, NY on from April 9 to April 15.",
                                                 "CAR")  # the element's text from target_action_reprs


def test_parquet_and_seeclick_agree_on_a_task_whose_page_starts_in_view(project, tmp_path):
    import_path(project, _shards(tmp_path / "data"), "mind2web-parquet")
    with Project.init(tmp_path / "other") as other:
        import_path(other, _seeclick(tmp_path / "m2w", skip=()), "mind2web-seeclick")
        seeclick = [s[2][0][2] for s in _episodes(other)[FLIGHTAWARE][1]]
    assert [s[2][0][2] for s in _episodes(project)[FLIGHTAWARE][1]] == seeclick


def test_parquet_problems_are_refused_with_the_shard_and_row(project, tmp_path):
    task = ROWS["seeclick_task_8a39a66d"]
    shard = _shard(tmp_path / "a" / "test_task-00000-of-00001.parquet", [task[0], {**task[1], "operation": "CLICK"}])
    assert _refused(project, shard, "mind2web-parquet") == f"{shard}, field '[1].operation': not JSON: \"CLICK\""

    no_shot = pa.schema([f for f in _TYPES if f.name != "screenshot"])
    shard = tmp_path / "b" / "x.parquet"
    shard.parent.mkdir()
    pq.write_table(pa.Table.from_pylist(task, schema=no_shot), shard)
    assert "no screenshot column: not a Multimodal-Mind2Web shard" in _refused(project, shard, "mind2web-parquet")

    good = _shard(tmp_path / "c" / "test_task-00000-of-00001.parquet", task)
    shutil.copy(good, tmp_path / "c" / "copy.parquet")  # the same shard twice
    message = _refused(project, tmp_path / "c", "mind2web-parquet")
    assert "action 18ea9dbd-cc49-40b6-a105-0cfd47100d29 of task 8a39a66d" in message and "comes twice" in message

    damaged = tmp_path / "d" / "train-00000-of-00001.parquet"
    damaged.parent.mkdir()
    damaged.write_bytes(good.read_bytes()[: len(good.read_bytes()) // 2])
    message = _refused(project, damaged, "mind2web-parquet")
    assert message.startswith(f"{damaged}: cannot be read as Parquet") and "Errno" not in message


def test_parquet_box_past_its_screenshot_and_fractions_are_refused(project, tmp_path):
    task = ROWS["seeclick_task_8a39a66d"]
    shard = _shard(tmp_path / "a" / "test_task-00000-of-00001.parquet", task, size=(1024, 768))
    message = _refused(project, shard, "mind2web-parquet")
    assert ("field '[2].pos_candidates[0].bounding_box_rect': box [916.594, 555.641, 1081.59, 595.641] lies outside "
            "the 1024x768 image") in message

    as_fractions = [dict(row) for row in task]
    for row in as_fractions:
        row["pos_candidates"] = [c.replace("155,87.390625,63,38.65625", "0.1211,0.0874,0.0492,0.0387")
                                  .replace("916.59375,555.640625,165,40", "0.7161,0.5556,0.1289,0.04")
                                 for c in row["pos_candidates"]]
    shard = _shard(tmp_path / "b" / "test_task-00000-of-00001.parquet", as_fractions)
    message = _refused(project, shard, "mind2web-parquet")
    assert "field '[0].pos_candidates[0].bounding_box_rect': every box of this file lies within 0-1.5" in message
