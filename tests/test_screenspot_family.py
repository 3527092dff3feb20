"""The ScreenSpot family as each release ships it, and OmniACT (issue 18).

Real records (sources in each folder's README): ScreenSpot-v2's official layout and the HF mirror's 0-1 boxes
(tests/data/real_formats), the HF mirror's Parquet row 0 (tests/data/formats/screenspot_parquet), VLMEvalKit's
ScreenSpot TSV rows (tests/data/formats/vlmevalkit_tsv), OmniACT's documented task 2849
(tests/data/formats/omniact). Screenshots are placeholders of the release's size. Each test checks what a user
gets: the episodes, the gold box in pixels worked out by hand from the release's numbers, the words of a
refusal and a project left exactly as it was; and the Import dialog's "Box layout" choice.
"""

from __future__ import annotations

import base64
import csv
import io
import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image

from desktop_app import api
from desktop_app.formats.detect import detect_format
from desktop_app.formats.ingest import ImportOptions
from desktop_app.formats.records import FormatError
from desktop_app.formats.transfer import export_path, import_path
from desktop_app.store.models import ActionBox, Episode, Screen, Step
from desktop_app.store.orm import select
from desktop_app.store.project import Project

from conftest import make_image, snapshot

DATA = Path(__file__).parent / "data"
REAL = DATA / "real_formats"
FORMATS_DATA = DATA / "formats"


def _boxes(project) -> dict[str, list[tuple]]:
    """episode key -> [(label, action type, (x1, y1, x2, y2) or None, element text, meta)]"""
    with project.reading() as s:
        rows = s.exec(select(ActionBox, Episode.key).join(Step, ActionBox.step_id == Step.id)
                      .join(Episode, Step.episode_id == Episode.id)).all()
    found: dict[str, list[tuple]] = {}
    for box, key in rows:
        found.setdefault(key, []).append((box.label, box.action_type, None if box.x1 is None else
                                          (box.x1, box.y1, box.x2, box.y2), box.element_text, box.meta))
    return found


def _episodes(project) -> dict[str, Episode]:
    with project.reading() as s:
        return {e.key: e for e in s.exec(select(Episode))}


def _png(size, color=(235, 235, 240)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, format="PNG")
    return out.getvalue()


def _refused(project, path, fmt, options=None) -> str:
    before = snapshot(project)
    with pytest.raises(FormatError) as caught:
        import_path(project, path, fmt, options or ImportOptions())
    assert snapshot(project) == before
    return str(caught.value)


# -- ScreenSpot JSON as released ------------------------------------------------------------------------------
def test_screenspot_v2_official_layout_finds_its_image_folder_beside_the_file(project):
    report = import_path(project, REAL / "screenspot_v2" / "screenspot_desktop_v2.json", "screenspot")

    assert report.episodes == 1  # no --images: screenspotv2_image/ sits beside the file
    # [910, 78, 44, 34] = left, top, width, height -> x2 = 910 + 44, y2 = 78 + 34
    assert _boxes(project)["screenspot_desktop_v2-00000"][0][2] == (910, 78, 954, 112)


def test_the_hf_mirrors_0_1_boxes_are_refused_as_pixels_and_read_when_said_normalised(project, tmp_path):
    source = REAL / "ss_hf" / "screenspot_desktop.json"
    message = _refused(project, source, "screenspot")
    assert str(source) in message and "[0].bbox" in message
    assert "960x540" in message and "normalised" in message
    assert "--bbox-format xyxy-normalised" in message and 'Box layout "normalised 0-1' in message

    api.import_data(project, source, "screenspot", bbox_format="xyxy-normalised")

    # [0.9479, 0.1444, 0.99375, 0.2074] of a 960 x 540 screenshot: 0.9479 * 960 = 909.98, 0.1444 * 540 = 77.98,
    # 0.99375 * 960 = 954, 0.2074 * 540 = 112.0 -- the v2 file's own [910, 78, 954, 112]
    (label, action, box, _, meta), = _boxes(project)["screenspot_desktop-00000"]
    assert (label, action) == ("gold", "click") and meta == {"data_type": "icon"}
    assert box == pytest.approx((910, 78, 954, 112), abs=0.05)

    with Project.init(tmp_path / "again") as fresh:
        export_path(project, tmp_path / "out", "screenspot")
        exported = json.loads((tmp_path / "out" / "screenspot.json").read_text())
        assert exported[0]["bbox"] == pytest.approx([910, 78, 44, 34], abs=0.05)  # written back as pixels
        import_path(fresh, tmp_path / "out", "screenspot")
        assert _boxes(fresh)["screenspot_desktop-00000"][0][2] == pytest.approx((910, 78, 954, 112), abs=0.05)
        assert _episodes(fresh)["screenspot_desktop-00000"].goal == "close"


def test_the_command_line_takes_the_normalised_layout(project, capsys):
    from desktop_app.cli.main import main

    source = REAL / "ss_hf" / "screenspot_desktop.json"
    assert main(["import", str(project.folder), str(source), "--format", "screenspot", "--quiet"]) == 2
    assert "--bbox-format xyxy-normalised" in capsys.readouterr().err

    assert main(["import", str(project.folder), str(source), "--format", "screenspot", "--quiet",
                 "--bbox-format", "xyxy-normalised"]) == 0
    assert _boxes(project)["screenspot_desktop-00000"][0][2] == pytest.approx((910, 78, 954, 112), abs=0.05)


def test_pixel_boxes_said_normalised_are_refused_naming_the_pixel_layouts(project):
    source = REAL / "screenspot_v1" / "screenspot_web.json"  # SeeClick's [42, 1102, 197, 70] on 1920 x 1200

    message = _refused(project, source, "screenspot", ImportOptions(bbox_format="xyxy-normalised"))

    assert "[0].bbox" in message and "not normalised" in message
    assert "--bbox-format xyxy" in message and "--bbox-format xywh" in message


def test_an_unknown_layout_is_refused_with_the_known_ones(project):
    message = _refused(project, REAL / "screenspot_v1" / "screenspot_web.json", "screenspot",
                       ImportOptions(bbox_format="cxcywh"))
    assert "xywh, xyxy, xyxy-normalised" in message


# -- the HF mirror's Parquet ----------------------------------------------------------------------------------
def _parquet_rows() -> list[dict]:
    return json.loads((FORMATS_DATA / "screenspot_parquet" / "rows.json").read_text())


def _write_parquet(path: Path, rows: list[dict], columns=None) -> Path:
    """A Parquet file as the HF datasets library writes one: `image` a struct of bytes and path."""
    table = [{k: v for k, v in row.items() if k != "image_size"} |
             {"image": {"bytes": _png(tuple(row["image_size"])), "path": None}} for row in rows]
    schema = pa.schema([("file_name", pa.string()), ("bbox", pa.list_(pa.float64())), ("instruction", pa.string()),
                        ("data_type", pa.string()), ("data_source", pa.string()),
                        ("image", pa.struct([("bytes", pa.binary()), ("path", pa.string())]))])
    if columns is not None:
        schema = pa.schema([f for f in schema if f.name in columns])
        table = [{k: v for k, v in row.items() if k in columns} for row in table]
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(table, schema=schema), path)
    return path


def test_the_parquet_mirror_imports_with_its_0_1_boxes_in_pixels(project, tmp_path):
    row = _parquet_rows()[0]
    second = dict(row, instruction="close the window again")  # the mirror repeats the picture on every row
    source = _write_parquet(tmp_path / "ScreenSpot" / "data" / "test-00000-of-00003.parquet", [row, second])
    assert detect_format(source) == "screenspot-parquet"
    assert detect_format(tmp_path / "ScreenSpot") == "screenspot-parquet"  # the repository: data/*.parquet

    report = import_path(project, tmp_path / "ScreenSpot", "screenspot-parquet")

    assert (report.episodes, report.screens_new) == (2, 1)
    episode = _episodes(project)["test-00000-of-00003-00000"]
    assert episode.goal == "close this window"
    assert episode.meta["screenspot"]["file_name"] == "pc_ede36f9b-1154-4f76-b7f8-c15d7d3f9b6e.png"
    # [0.9479, 0.1444, 0.9938, 0.2074] x (960, 540) = (909.98, 77.98, 954.05, 112.0)
    (label, _, box, _, meta), = _boxes(project)["test-00000-of-00003-00000"]
    assert label == "gold" and meta == {"data_type": "icon"}
    assert box == pytest.approx((909.984, 77.976, 954.048, 111.996), abs=1e-3)
    with project.reading() as s:
        screen = s.exec(select(Screen)).one()
    assert (screen.width, screen.height, screen.platform, screen.source) == (
        960, 540, "desktop", "pc_ede36f9b-1154-4f76-b7f8-c15d7d3f9b6e.png")


def test_a_parquet_import_round_trips_through_a_screenspot_export(project, tmp_path):
    import_path(project, _write_parquet(tmp_path / "test.parquet", _parquet_rows()), "screenspot-parquet")
    export_path(project, tmp_path / "out", "screenspot")
    with Project.init(tmp_path / "fresh") as fresh:
        import_path(fresh, tmp_path / "out", "screenspot")
        (_, _, box, _, _), = _boxes(fresh)["test-00000"]
        assert box == pytest.approx((909.984, 77.976, 954.048, 111.996), abs=1e-3)
        assert _episodes(fresh)["test-00000"].goal == "close this window"


def test_a_parquet_mirror_that_kept_pixels_is_refused_unless_the_layout_says_so(project, tmp_path):
    row = dict(_parquet_rows()[0], bbox=[910.0, 78.0, 954.0, 112.0])
    source = _write_parquet(tmp_path / "pixels.parquet", [row])

    message = _refused(project, source, "screenspot-parquet")
    assert str(source) in message and "[0].bbox" in message and "--bbox-format xyxy" in message

    import_path(project, source, "screenspot-parquet", ImportOptions(bbox_format="xyxy"))
    assert _boxes(project)["pixels-00000"][0][2] == (910, 78, 954, 112)


@pytest.mark.parametrize("change, words", [
    (lambda path: _write_parquet(path, _parquet_rows(), columns={"file_name", "bbox", "image"}),
     ["no column 'instruction'", "bbox, instruction, image"]),
    (lambda path: _write_parquet(path, [dict(_parquet_rows()[0], bbox=None)]), ["[0].bbox", "expected 4 numbers"]),
    (lambda path: _write_parquet(path, [dict(_parquet_rows()[0], bbox=[0.9, 0.1, 0.99])]), ["[0].bbox", "got [0.9"]),
    (lambda path: _write_parquet(path, [dict(_parquet_rows()[0], bbox=[0.99, 0.1, 0.9, 0.2])]),
     ["[0].bbox", "x2 < x1"]),
    (lambda path: path.write_bytes(_write_parquet(path, _parquet_rows()).read_bytes()[:-100]),
     ["cannot be read as Parquet", "PAR1"]),
], ids=["no instruction column", "bbox null", "three numbers", "x2 before x1", "cut short"])
def test_broken_parquet_files_are_refused_naming_file_row_and_column(project, tmp_path, change, words):
    path = tmp_path / "broken.parquet"
    change(path)
    message = _refused(project, path, "screenspot-parquet")
    assert str(path) in message
    for word in words:
        assert word in message, message


# -- VLMEvalKit's TSV -----------------------------------------------------------------------------------------
def _write_tsv(path: Path, rows: list[dict], pictures: dict[int, bytes]) -> Path:
    """As vlmeval/smp/file.py dumps a TSV: pandas to_csv, tab-separated, every field quoted. A row without a
    picture of its own names the row whose picture it shares."""
    header = ["index", "image", *[k for k in rows[0] if k != "index"]]
    out = io.StringIO()
    writer = csv.writer(out, delimiter="\t", quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        image = (base64.b64encode(pictures[row["index"]]).decode() if row["index"] in pictures
                 else str(min(pictures)))
        writer.writerow([row["index"], image, *[row[k] for k in header[2:]]])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


def _tsv_rows() -> list[dict]:
    return json.loads((FORMATS_DATA / "vlmevalkit_tsv" / "rows.json").read_text())


def test_vlmevalkits_screenspot_tsv_imports_with_its_base64_screenshots(project, tmp_path):
    source = _write_tsv(tmp_path / "ScreenSpot_Web.tsv", _tsv_rows(), {1: _png((1920, 1200))})
    assert detect_format(source) == "vlmevalkit-tsv"

    report = import_path(project, source, "vlmevalkit-tsv")

    assert (report.episodes, report.screens_new) == (2, 1)  # row 2 shares row 1's screenshot by its index
    boxes = _boxes(project)
    # left, top, width, height: [42, 1102, 197, 70] -> (42, 1102, 239, 1172); [93, 74, 86, 132] -> (93, 74, 179, 206)
    assert boxes["ScreenSpot_Web-1"][0][:3] == ("gold", "click", (42, 1102, 239, 1172))
    assert boxes["ScreenSpot_Web-2"][0][2] == (93, 74, 179, 206)
    assert boxes["ScreenSpot_Web-2"][0][4] == {"data_type": "icon"}
    episodes = _episodes(project)
    assert episodes["ScreenSpot_Web-1"].goal == "view the details of the item"
    assert episodes["ScreenSpot_Web-2"].meta["screenspot"]["data_source"] == "shop"
    with project.reading() as s:
        screen = s.exec(select(Screen)).one()
    assert (screen.width, screen.height, screen.platform) == (1920, 1200, "web")
    assert screen.source == "web_3b0ad239-da6b-4f6f-8f12-f674dc90ff33.png"


def test_a_screenspot_pro_tsv_is_read_as_corners(project, tmp_path):
    # ScreenSpot-Pro's android_studio_macos_0 (tests/data/real_formats/screenspot_pro): x1, y1, x2, y2 on 3840 x 2160
    row = {"index": 1, "image_path": "android_studio_mac/screenshot_2024-11-28_15-16-55.png",
           "bbox": "[1774, 1586, 2113, 1618]",
           "question": "modify the highlights of the photo with in the virtual android machine in android studio",
           "data_type": "icon", "category": "Dev"}
    source = _write_tsv(tmp_path / "ScreenSpot_Pro_Development.tsv", [row], {1: _png((3840, 2160))})

    import_path(project, source, "vlmevalkit-tsv")

    assert _boxes(project)["ScreenSpot_Pro_Development-1"][0][2] == (1774, 1586, 2113, 1618)
    assert _episodes(project)["ScreenSpot_Pro_Development-1"].meta["screenspot"]["category"] == "Dev"
    with project.reading() as s:
        assert s.exec(select(Screen)).one().platform == "desktop"  # ScreenSpot-Pro is desktop software


def test_a_tsv_coordinate_of_minus_one_is_read_as_the_edge_as_vlmevalkit_does(project, tmp_path):
    # vlmeval/dataset/GUI/screenspot.py, make_safe: "we can tolerate -1 as a special value and normalize it to 0"
    rows = [dict(_tsv_rows()[0], bbox="[-1, 1102, 197, 70]")]
    import_path(project, _write_tsv(tmp_path / "ScreenSpot_Web.tsv", rows, {1: _png((1920, 1200))}), "vlmevalkit-tsv")
    # corners first (-1 + 197 = 196), then the -1 edge to 0
    assert _boxes(project)["ScreenSpot_Web-1"][0][2] == (0, 1102, 196, 1172)


def test_a_tsv_import_round_trips_through_a_screenspot_export(project, tmp_path):
    import_path(project, _write_tsv(tmp_path / "ScreenSpot_Web.tsv", _tsv_rows(), {1: _png((1920, 1200))}),
                "vlmevalkit-tsv")
    export_path(project, tmp_path / "out", "screenspot")
    with Project.init(tmp_path / "fresh") as fresh:
        import_path(fresh, tmp_path / "out", "screenspot")
        assert {k: v[0][2] for k, v in _boxes(fresh).items()} == {k: v[0][2] for k, v in _boxes(project).items()}
        assert {k: e.goal for k, e in _episodes(fresh).items()} == {k: e.goal for k, e in _episodes(project).items()}


NOT_BASE64 = "not base64 at all, and longer than sixty-four characters, so not a row's index either"


@pytest.mark.parametrize("row, field, value, words", [
    (1, "bbox", "[42, 1102, 197]", ["line 2", "field 'bbox'", "four numbers"]),
    (1, "bbox", "__import__('os').system('touch HACKED')", ["line 2", "field 'bbox'", "four numbers"]),
    (1, "bbox", "[42, 1102, -197, 70]", ["line 2", "field 'bbox'", "negative width"]),
    (1, "bbox", "[1800, 1102, 197, 70]", ["line 2", "field 'bbox'", "lies outside the 1920x1200 image"]),
    (1, "question", "", ["line 2", "field 'question'", "empty instruction"]),
    (1, "image", NOT_BASE64, ["line 2", "field 'image'", "base64"]),
    (2, "image", "7", ["line 3", "field 'image'", 'row "7"']),
], ids=["three numbers", "code", "negative width", "outside the image", "no question", "not base64", "no row 7"])
def test_broken_tsv_rows_are_refused_naming_line_and_column(project, tmp_path, row, field, value, words):
    source = _write_tsv(tmp_path / "ScreenSpot_Web.tsv", _tsv_rows(), {1: _png((1920, 1200))})
    lines = source.read_text().split("\n")
    cells = lines[row].split("\t")
    cells[lines[0].split("\t").index(f'"{field}"')] = f'"{value}"'
    lines[row] = "\t".join(cells)
    source.write_text("\n".join(lines))

    message = _refused(project, source, "vlmevalkit-tsv")

    assert str(source) in message
    for word in words:
        assert word in message, message
    assert not (tmp_path / "HACKED").exists() and not Path("HACKED").exists()


def test_a_tsv_of_0_1_boxes_read_as_pixels_is_refused_naming_the_layout(project, tmp_path):
    rows = [dict(_tsv_rows()[0], bbox="[0.02, 0.91, 0.1, 0.06]")]
    source = _write_tsv(tmp_path / "ScreenSpot_Web.tsv", rows, {1: _png((1920, 1200))})
    message = _refused(project, source, "vlmevalkit-tsv")
    assert "1920x1200" in message and "--bbox-format xyxy-normalised" in message


def test_files_of_other_benchmarks_in_the_same_containers_are_not_guessed_as_these(tmp_path):
    mmbench = tmp_path / "MMBench_DEV_EN.tsv"  # VLMEvalKit's TSV of another benchmark: no bbox
    mmbench.write_text('"index"\t"question"\t"A"\t"B"\t"answer"\t"image"\n"1"\t"q"\t"a"\t"b"\t"A"\t"iVBO"\n')
    pq.write_table(pa.table({"image": [b"x"], "caption": ["a cat"]}), tmp_path / "captions.parquet")  # no bbox
    assert detect_format(tmp_path / "captions.parquet") is None
    assert detect_format(mmbench) is None
    (tmp_path / "train.json").write_text(json.dumps({"0": {"question": "q", "image": "i.png"}}))
    assert detect_format(tmp_path / "train.json") is None


# -- OmniACT --------------------------------------------------------------------------------------------------
def _omniact(tmp_path: Path) -> Path:
    root = tmp_path / "omniact"
    shutil.copytree(FORMATS_DATA / "omniact", root)
    make_image(root / "data" / "data" / "desktop" / "ibooks" / "screen_1.png", size=(2560, 1600))
    make_image(root / "data" / "data" / "web" / "asics" / "screen1.png", size=(1280, 800), color="gray")
    return root


def test_omniact_tasks_become_episodes_whose_gold_is_the_element_the_script_points_at(project, tmp_path):
    root = _omniact(tmp_path)
    assert detect_format(root) == "omniact" and detect_format(root / "train.json") == "omniact"

    report = import_path(project, root, "omniact")

    assert report.episodes == 2
    episodes = _episodes(project)
    assert episodes["omniact-train-2849"].goal == "Navigate to see the upcoming titles"
    assert episodes["omniact-train-2849"].split == "train"
    boxes = _boxes(project)
    # moveTo(1881.5, 1116.0) is the centre of upcoming_titles (1822 + 1941) / 2, (1098 + 1134) / 2; the toolbar
    # holds the point too, and the smaller badge, but neither is centred on it
    (label, action, box, text, meta), = boxes["omniact-train-2849"]
    assert (label, action, box, text) == ("gold", "hover", (1822, 1098, 1941, 1134), "upcoming_titles")
    assert meta == {"call": "moveTo", "x": 1881.5, "y": 1116.0, "element": "upcoming_titles"}
    # the web task: screen1.png and screen1_boxes.json for the split file's screen_1; its click hits no element
    (label, action, box, _, meta), = boxes["omniact-train-17"]
    assert (label, action, box) == ("gold", "click", (640, 88, 640, 88)) and meta["point"] is True
    with project.reading() as s:
        step = s.exec(select(Step).join(Episode).where(Episode.key == "omniact-train-17")).one()
        screen = s.get(Screen, step.screen_id)
    assert step.meta["omniact"]["script"] == ["pyautogui.click(640.0,88.0)", 'pyautogui.write("running shoes")',
                                              'pyautogui.press("enter")']
    assert (screen.platform, screen.width) == ("web", 1280)


def _task(root: Path, text: str) -> None:
    (root / "data" / "tasks" / "desktop" / "ibooks" / "task_1.30.txt").write_text(text)


@pytest.mark.parametrize("breakage, words", [
    (lambda root: _task(root, "Navigate to see the upcoming titles\npyautogui.moveTo(1881.5,1116.0)\n"),
     ["task_1.30.txt", "line 1", "'Task: <what to do>'"]),
    (lambda root: _task(root, "Task: Navigate\nOutput Script:\n"), ["task_1.30.txt", "no pyautogui call"]),
    (lambda root: _task(root, "Task: Navigate\nOutput Script:\npyautogui.click(1e400, 5)\n"),
     ["task_1.30.txt", "line 3", "not finite"]),
    (lambda root: _task(root, "Task: Navigate\nOutput Script:\npyautogui.click(3000, 5)\n"),
     ["train.json", "field '2849.task'", "lies outside the 2560x1600 image"]),
    (lambda root: (root / "data" / "metadata" / "desktop" / "boxes" / "ibooks" / "screen_1.json").unlink(),
     ["train.json", "field '2849.box'", "box file not found", "unzip data.zip"]),
    (lambda root: (root / "data" / "metadata" / "desktop" / "boxes" / "ibooks" / "screen_1.json").write_text(
        '{"toolbar": {"top_left": [1700.0], "bottom_right": [1960.0, 1142.0]}}'),
     ["screen_1.json", "field 'toolbar.top_left'", "two numbers"]),
    (lambda root: (root / "data" / "data" / "desktop" / "ibooks" / "screen_1.png").unlink(),
     ["train.json", "field '2849.image'", "image not found", "--images"]),
    (lambda root: (root / "train.json").write_text('{"2849": {"task": "data/tasks/desktop/ibooks/task_1.30.txt"}}'),
     ["train.json", "field '2849.image'", "missing"]),
], ids=["no Task line", "no call", "1e400", "point outside the screenshot", "no box file", "half a corner",
        "no screenshot", "no image path"])
def test_broken_omniact_files_are_refused_naming_the_file_and_what_to_do(project, tmp_path, breakage, words):
    root = _omniact(tmp_path)
    breakage(root)
    message = _refused(project, root, "omniact")
    for word in words:
        assert word in message, message


def test_an_omniact_script_is_read_never_run(project, tmp_path):
    root = _omniact(tmp_path)
    marker = tmp_path / "ran"
    _task(root, f"Task: Navigate\nOutput Script:\npyautogui.click(__import__('os').system('touch {marker}'), 7)\n"
                "pyautogui.moveTo(1881.5,1116.0)\n")

    import_path(project, root / "train.json", "omniact")

    assert not marker.exists()
    assert _boxes(project)["omniact-train-2849"][0][2] == (1822, 1098, 1941, 1134)  # the call with a point


# -- the Import dialog's Box layout ---------------------------------------------------------------------------
@pytest.mark.gui
def test_the_import_dialog_offers_the_box_layout_for_the_formats_that_read_it(qtbot, project, tmp_path):
    from PySide6.QtWidgets import QDialogButtonBox

    from desktop_app.ui.transfer_dialogs import ImportDialog

    dialog = ImportDialog(project, settings=None)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.format.setCurrentIndex(dialog.format.findData("omniact"))
    assert not dialog.box_layout.isVisible()  # OmniACT's boxes are pixels by definition

    source = REAL / "ss_hf" / "screenspot_desktop.json"
    dialog.source.setText(str(source))
    assert dialog.format.currentData() == "screenspot" and dialog.box_layout.isVisible()
    assert dialog.box_layout.currentData() is None  # detect: the format's own rule
    before = snapshot(project)
    dialog.start()
    qtbot.waitUntil(dialog.buttons.button(QDialogButtonBox.Ok).isEnabled, timeout=60000)
    shown = dialog.result.text() + dialog.details.toPlainText()
    assert "Nothing was changed" in shown and "normalised" in shown and "Box layout" in shown
    assert snapshot(project) == before

    normalised = [dialog.box_layout.itemText(i) for i in range(dialog.box_layout.count())
                  if dialog.box_layout.itemData(i) == "xyxy-normalised"]
    assert normalised and f'Box layout "{normalised[0]}"' in shown  # the words of the refusal are the item's
    dialog.box_layout.setCurrentIndex(dialog.box_layout.findData("xyxy-normalised"))
    dialog.start()
    qtbot.waitUntil(dialog.buttons.button(QDialogButtonBox.Ok).isEnabled, timeout=60000)

    assert dialog.report is not None and dialog.report.episodes == 1, dialog.result.text()
    assert _boxes(project)["screenspot_desktop-00000"][0][2] == pytest.approx((910, 78, 954, 112), abs=0.05)

    dialog.format.setCurrentIndex(dialog.format.findData("images"))
    assert not dialog.box_layout.isVisible()
    dialog.format.setCurrentIndex(dialog.format.findData("screenspot-parquet"))
    assert dialog.box_layout.isVisible()
