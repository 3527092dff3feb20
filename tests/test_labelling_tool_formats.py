"""The labelling tools' own formats (issue 18): LabelMe, Label Studio, CVAT for images 1.1, YOLO and COCO.

A team moves between ScreenLab and the tool it already uses: each format imports a real file released with
the tool (tests/data/formats/<format>/README.md names each source) into the boxes a user expects, worked
out by hand from the file's numbers; exports the tool's own layout, which imports back into the same
screens, boxes and labels; and refuses broken input naming the file, the record and the field, with the
project left exactly as it was.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from desktop_app.cli.main import main
from desktop_app.formats.detect import detect_format
from desktop_app.formats.records import FormatError
from desktop_app.formats.transfer import export_path, import_path
from desktop_app.store import label_set
from desktop_app.store.models import ActionBox, Episode, Screen, Step
from desktop_app.store.orm import select
from desktop_app.store.project import Project

from conftest import make_image, snapshot

DATA = Path(__file__).parent / "data" / "formats"


def _copy(sample: str, tmp_path: Path) -> Path:
    target = tmp_path / "data" / sample.replace("/", "-")
    shutil.copytree(DATA / sample, target)
    return target


def _add_labels(project, *names: str) -> None:
    """The tools' label names as the project's classes, spelt as the files spell them."""
    label_set.add_classes(project.engine, list(names))


def _boxes(project) -> list[tuple]:
    """(episode key, name, (x1, y1, x2, y2)) of every box, in the order they were imported; its name is its class,
    or its role when it has none (what a tool's file calls it)."""
    with project.reading() as s:
        rows = s.exec(select(Episode.key, ActionBox).join(Step, ActionBox.step_id == Step.id)
                      .join(Episode, Step.episode_id == Episode.id).order_by(ActionBox.id)).all()
    return [(key, b.category or b.label, (b.x1, b.y1, b.x2, b.y2)) for key, b in rows]


def _keys(project) -> list[str]:
    with project.reading() as s:
        return list(s.exec(select(Episode.key).order_by(Episode.id)))


def _refused(project, path: Path, fmt: str, *words: str) -> str:
    """Import, expect a refusal holding every word and naming the dataset's file; nothing changed."""
    before = snapshot(project)
    with pytest.raises(FormatError) as caught:
        import_path(project, path, fmt)
    message = str(caught.value)
    for word in words:
        assert word in message, message
    assert str(path if path.is_dir() else path.parent) in message, message
    assert snapshot(project) == before
    return message


# --------------------------------------------------------------------------- real samples


def _labelme_sample(tmp_path: Path) -> Path:
    folder = _copy("labelme/bbox_detection", tmp_path)
    make_image(folder / "2011_000003.jpg", size=(500, 338), fmt="JPEG")
    make_image(folder / "2011_000006.jpg", size=(500, 375), color="gray", fmt="JPEG")
    return folder


def test_labelme_release_example_imports_its_rectangles_in_pixels(project, tmp_path):
    """wkentaro/labelme examples/bbox_detection: rectangles labelled person, two points each in pixels."""
    folder = _labelme_sample(tmp_path)
    assert detect_format(folder) == "labelme"
    assert detect_format(folder / "2011_000003.json") == "labelme"
    # the tool's label is not one of the project's: refused with the command that adds it
    _refused(project, folder, "labelme", "2011_000003.json", "field 'shapes[0].points'", "unknown class 'person'",
             "screenlab labels PROJECT --add person", "Edit > Classes of this project")

    _add_labels(project, "person")
    report = import_path(project, folder, "labelme")

    assert (report.episodes, report.classes["person"]) == (2, 6)
    assert _keys(project) == ["2011_000003.jpg", "2011_000006.jpg"]
    boxes = _boxes(project)
    # "points": [[191.0, 107.36900369003689], [313.0, 329.36900369003695]]: opposite corners, in pixels
    assert boxes[0] == ("2011_000003.jpg", "person", (191.0, 107.36900369003689, 313.0, 329.36900369003695))
    # 2011_000006's third rectangle, sub-pixel as LabelMe saved it
    assert boxes[4] == ("2011_000006.jpg", "person",
                        (254.38461538461536, 115.38461538461539, 369.38461538461536, 292.38461538461536))


def test_labelme_shapes_that_are_not_rectangles_are_refused_by_shape(project, tmp_path):
    """examples/primitives/primitives.json: a rectangle, then a circle, polygon, line, point, line strip, mask."""
    folder = _copy("labelme/primitives", tmp_path)
    make_image(folder / "primitives.jpg", size=(560, 450), fmt="JPEG")
    _add_labels(project, "rectangle", "circle")
    _refused(project, folder, "labelme", "primitives.json", "field 'shapes[1].shape_type'", "a circle",
             "axis-aligned rectangles", "redraw it as a rectangle")


def test_label_studio_export_converts_percent_of_the_picture_into_pixels(project, tmp_path):
    """HumanSignal/label-studio's image_urls_with_bboxes_gt.json: two tasks on one 320x240 picture."""
    folder = _copy("label-studio", tmp_path)
    file = folder / "image_urls_with_bboxes_gt.json"
    assert detect_format(file) == "label-studio"
    _refused(project, file, "label-studio", "field '[0].data.image'", "image not found", "image1.jpg", "--images")

    make_image(folder / "image1.jpg", size=(320, 240), fmt="JPEG")
    _add_labels(project, "Cat")  # as the tool spells it: case is kept
    report = import_path(project, file, "label-studio")

    assert report.episodes == 2
    # two tasks name the same picture: each keeps its own boxes, told apart by the task's id
    assert _keys(project) == ["image1.jpg#282278", "image1.jpg#282279"]
    # x 1%, y 1%, width 2%, height 2% of 320x240 -> (3.2, 2.4) to (9.6, 7.2); then 2, 2, 3, 3 percent
    assert _boxes(project) == [("image1.jpg#282278", "Cat", (3.2, 2.4, 9.6, 7.2)),
                               ("image1.jpg#282279", "Cat", (6.4, 4.8, 16.0, 12.0))]


def test_label_studio_refuses_a_picture_of_another_size_than_the_task_says(project, tmp_path):
    folder = _copy("label-studio", tmp_path)
    make_image(folder / "image1.jpg", size=(640, 480), fmt="JPEG")
    _add_labels(project, "Cat")
    _refused(project, folder / "image_urls_with_bboxes_gt.json", "label-studio",
             "field '[0].annotations[0].result[0].original_width'", "is 640x480 pixels, but the file says 320x240")


def _cvat_sample(tmp_path: Path, sample: str = "cvat-images/boxes") -> Path:
    folder = _copy(sample, tmp_path)
    make_image(folder / "images" / "filename000.jpg", size=(1600, 1200), fmt="JPEG")
    return folder


def test_cvat_documentation_example_imports_its_box_with_cvat_s_own_fields_kept(project, tmp_path):
    """The example of CVAT's XML documentation, its other shapes taken out: the box `plate` and a tag."""
    folder = _cvat_sample(tmp_path)
    assert detect_format(folder) == detect_format(folder / "annotations.xml") == "cvat-images"
    _add_labels(project, "plate")

    report = import_path(project, folder, "cvat-images")

    assert report.episodes == 1 and _keys(project) == ["filename000.jpg"]
    # <box label="plate" xtl="797.33" ytl="870.92" xbr="965.52" ybr="928.94" occluded="0" z_order="4">
    assert _boxes(project) == [("filename000.jpg", "plate", (797.33, 870.92, 965.52, 928.94))]
    with project.reading() as s:
        box = s.exec(select(ActionBox)).one()
        step = s.exec(select(Step)).one()
    assert box.meta == {"cvat": {"z_order": "4"}}
    assert step.meta == {"cvat": {"tags": [{"label": "good_frame", "attributes": {}, "source": "manual"}]}}


def test_cvat_documentation_example_with_a_polygon_is_refused_at_its_line(project, tmp_path):
    folder = _cvat_sample(tmp_path, "cvat-images/docs_example")
    _add_labels(project, "plate", "car")
    message = _refused(project, folder, "cvat-images", "annotations.xml, line 83", "field 'polygon'",
                       "a polygon (label \"car\")", "draw it as a box")
    assert "line 83" in message  # the <polygon> element's line in the documentation's file


def _yolo_sample(tmp_path: Path) -> Path:
    folder = _copy("yolo/test_import_yolo_data", tmp_path)
    make_image(folder / "images" / "img_4.jpg", size=(640, 494), fmt="JPEG")
    make_image(folder / "images" / "img_5.jpg", size=(640, 425), color="gray", fmt="JPEG")
    return folder


def test_yolo_labels_of_label_studio_converter_tests_become_pixel_boxes(project, tmp_path):
    """label-studio-converter's YOLO test data: classes.txt + labels/img_4.txt, img_5.txt (CRLF as released)."""
    folder = _yolo_sample(tmp_path)
    assert detect_format(folder) == "yolo"
    # every label the project lacks named in one refusal, with its boxes, and the one command adding them all
    _refused(project, folder, "yolo", "img_4.txt", "3 unknown classes: 'number' (1 box), 'closed_door' (3 boxes), "
             "'bus' (3 boxes)", "screenlab labels PROJECT --add number --add closed_door --add bus", "--add-labels")

    _add_labels(project, "closed_door", "opened_door", "bus", "number")
    report = import_path(project, folder, "yolo")

    assert report.episodes == 2 and sum(report.boxes.values()) == 7
    assert _keys(project) == ["img_4.jpg", "img_5.jpg"]
    boxes = _boxes(project)
    # "3 0.371875 0.5637651821862348 0.034375 0.0708502024291498" on 640x494: centre (238, 278.5), 22 x 35
    assert boxes[0] == ("img_4.jpg", "number", (227.0, 261.0, 249.0, 296.0))
    # "2 0.51640625 0.6194331983805668 0.7046875 0.6558704453441295": centre (330.5, 306), 451 x 324
    assert boxes[3] == ("img_4.jpg", "bus", (105.0, 144.0, 556.0, 468.0))
    # img_5's first line on 640x425: centre (349, 220), 546 x 310
    assert boxes[4] == ("img_5.jpg", "bus", (76.0, 65.0, 622.0, 375.0))


def test_yolo_segmentation_polygons_are_refused(project, tmp_path):
    folder = _copy("yolo/test_import_yolo_seg_data_unif_dims", tmp_path)
    make_image(folder / "images" / "img_1.jpg", size=(640, 480), fmt="JPEG")
    _add_labels(project, "closed_door", "opened_door", "bus", "number")
    _refused(project, folder, "yolo", "img_1.txt, line 1", "8 numbers after the class", "a polygon (YOLO "
             "segmentation)", "axis-aligned rectangles")


def _coco_sample(tmp_path: Path) -> Path:
    folder = _copy("coco", tmp_path)
    for name, size in (("2011_000003", (500, 338)), ("2011_000025", (500, 375)), ("2011_000006", (500, 375))):
        make_image(folder / "JPEGImages" / f"{name}.jpg", size=size, color="gray", fmt="JPEG")
    return folder


def test_coco_file_written_by_labelme2coco_imports_its_bboxes(project, tmp_path):
    """labelme's data_dataset_coco/annotations.json: category ids from 0, polygons with their bbox."""
    folder = _coco_sample(tmp_path)
    file = folder / "annotations.json"
    assert detect_format(file) == "coco"
    _add_labels(project, "person", "bottle", "bus", "car", "chair", "sofa")

    report = import_path(project, file, "coco")

    assert report.episodes == 3 and sum(report.boxes.values()) == 12
    assert _keys(project) == ["JPEGImages/2011_000003.jpg", "JPEGImages/2011_000025.jpg",
                              "JPEGImages/2011_000006.jpg"]
    boxes = _boxes(project)
    # "bbox": [191.0, 107.0, 123.0, 221.0] is x, y, width, height: (191, 107) to (314, 328)
    assert boxes[0] == ("JPEGImages/2011_000003.jpg", "person", (191.0, 107.0, 314.0, 328.0))
    # category 5 (bottle), [369.0, 159.0, 19.0, 54.0]
    assert boxes[2] == ("JPEGImages/2011_000003.jpg", "bottle", (369.0, 159.0, 388.0, 213.0))


# --------------------------------------------------------------------------- round trips

SCREENS = {"a.png": (400, 300), "shots/b.png": (320, 200)}
ACTIONS = {
    "a.png": [
        {"box": [10, 20, 110, 60], "label": "gold", "element_text": "Buy now", "meta": {"attributes": {"state": "on"}}},
        {"box": [150, 20, 250, 60], "label": "distracted", "element_text": "Win a prize"},
        {"box": [10.5, 100.25, 200.75, 160.5], "label": "other"},
        {"box": [0, 250, 400, 300], "label": "ad", "action_type": "type", "type_text": "hello",
         "meta": {"attributes": {"variant": "dark"}}},
        {"box": None, "label": "other", "element_text": "a text-only action, which no tool can hold"},
    ],
    "shots/b.png": [{"box": [0, 0, 320, 200], "label": "gold"}],
}


def _project_with_every_label(tmp_path: Path) -> Project:
    source = tmp_path / "source"
    lines = []
    for i, (name, size) in enumerate(SCREENS.items()):
        make_image(source / name, size=size, color=(40 * i, 100, 200))
        lines.append({"id": name, "goal": f"goal of {name}", "steps": [{"image": name, "actions": ACTIONS[name]}]})
    (source / "episodes.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    project = Project.init(tmp_path / "original")
    _add_labels(project, "ad")
    import_path(project, source, "screenlab")
    return project


def _contents(project) -> list[tuple]:
    """What a round trip keeps: per screen (by its pixels' hash) its key, label, box, texts and attributes."""
    with project.reading() as s:
        rows = s.exec(select(Episode.key, Screen.sha256, ActionBox).join(Step, ActionBox.step_id == Step.id)
                      .join(Episode, Step.episode_id == Episode.id).join(Screen, Step.screen_id == Screen.id)
                      .where(ActionBox.x1.is_not(None))).all()
    return sorted((key, sha, b.label, (b.x1, b.y1, b.x2, b.y2), b.element_text, b.action_type, b.type_text,
                   b.meta.get("attributes", {})) for key, sha, b in rows)


EXPORTED = {  # what each export writes, so the tool itself opens it
    "labelme": ["a.json", "a.png", "shots/b.json", "shots/b.png"],
    "label-studio": ["README.txt", "images/a.png", "images/shots/b.png", "label_config.xml", "tasks.json"],
    "cvat-images": ["annotations.xml", "images/a.png", "images/shots/b.png"],
    # split folders ("default": no split), pictures under their own file names, flat (ADR 0049)
    "yolo": ["classes.txt", "data.yaml", "images/default/a.png", "images/default/b.png", "labels/default/a.txt",
             "labels/default/b.txt"],
    "coco": ["annotations/instances_default.json", "images/default/a.png", "images/default/b.png"],
    "voc": ["Annotations/a.xml", "Annotations/b.xml", "ImageSets/Main/default.txt", "JPEGImages/a.png",
            "JPEGImages/b.png", "labelmap.txt"],
}
# formats that name a picture by its file name alone: a screen comes back keyed by it (shots/b.png: b.png)
BY_FILE_NAME = ("yolo", "voc")


@pytest.mark.parametrize("fmt", ["labelme", "label-studio", "cvat-images", "yolo", "coco", "voc"])
def test_an_export_imports_back_into_the_same_screens_boxes_and_labels(tmp_path, fmt):
    with _project_with_every_label(tmp_path) as original:
        report = export_path(original, tmp_path / "out", fmt)
        expected = _contents(original)
    assert (report.episodes, report.annotations, report.skipped) == (2, 5, 1)  # the text-only action: left out
    written = sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*") if p.is_file())
    if fmt in EXPORTED:
        assert written == EXPORTED[fmt]

    with Project.init(tmp_path / "fresh") as fresh:
        _add_labels(fresh, "ad")
        import_path(fresh, tmp_path / "out", fmt)
        got = _contents(fresh)
        with fresh.reading() as s:
            goals = sorted(s.exec(select(Episode.goal)))

    if fmt in BY_FILE_NAME:
        assert sorted({key for key, *_ in got}) == ["a.png", "b.png"]
        got, expected = sorted(row[1:] for row in got), sorted(row[1:] for row in expected)
    if fmt == "yolo":
        # YOLO keeps label and box only, as fractions with six decimals: a box comes back within
        # width / 2,000,000 px (here under 0.0002 px); texts, actions and attributes have no place in it
        assert [(s, label) for s, label, *_ in got] == [(s, label) for s, label, *_ in expected]
        for (*_, box, _t, _a, _y, _m), (*_, want, _t2, _a2, _y2, _m2) in zip(got, expected, strict=True):
            assert box == pytest.approx(want, abs=0.001)
    else:
        assert got == expected
    # the goal travels where the format has a place for it (Label Studio's task data, COCO's images)
    assert goals == (["goal of a.png", "goal of shots/b.png"] if fmt in ("label-studio", "coco") else ["", ""])


def test_exports_are_the_tools_own_layouts(tmp_path):
    with _project_with_every_label(tmp_path) as original:
        for fmt in ("labelme", "label-studio", "cvat-images", "yolo"):
            export_path(original, tmp_path / fmt, fmt)
    shape = json.loads((tmp_path / "labelme" / "a.json").read_text())
    assert (shape["imagePath"], shape["imageData"], shape["imageWidth"], shape["imageHeight"]) == ("a.png", None, 400, 300)
    assert shape["shapes"][0] == {"label": "gold", "points": [[10, 20], [110, 60]], "group_id": None,
                                  "description": "Buy now", "shape_type": "rectangle", "flags": {}, "mask": None,
                                  "attributes": {"state": "on"}}
    task = json.loads((tmp_path / "label-studio" / "tasks.json").read_text())[0]
    assert task["data"] == {"image": "/data/local-files/?d=images/a.png", "goal": "goal of a.png"}
    rectangle = task["annotations"][0]["result"][0]
    assert (rectangle["original_width"], rectangle["value"]["x"], rectangle["value"]["width"]) == (400, 2.5, 25.0)
    assert '<Label value="ad"/>' in (tmp_path / "label-studio" / "label_config.xml").read_text()
    xml = (tmp_path / "cvat-images" / "annotations.xml").read_text()
    assert "<version>1.1</version>" in xml and "<name>ad</name>" in xml
    assert '<box label="gold" source="manual" occluded="0" xtl="10" ytl="20" xbr="110" ybr="60" z_order="0">' in xml
    data = yaml.safe_load((tmp_path / "yolo" / "data.yaml").read_text())
    assert data["names"] == {0: "gold", 1: "distracted", 2: "other", 3: "ad"}
    assert (tmp_path / "yolo" / "classes.txt").read_text() == "gold\ndistracted\nother\nad\n"
    # gold [10, 20, 110, 60] on 400x300: centre (60, 40), 100 x 40
    assert (tmp_path / "yolo" / "labels" / "default" / "a.txt").read_text().splitlines()[0] == \
        "0 0.15 0.133333 0.25 0.133333"


def test_the_command_line_imports_a_labelling_tool_format(tmp_path, capsys):
    folder = _labelme_sample(tmp_path)
    proj = str(tmp_path / "p")
    assert main(["init", proj]) == 0
    assert main(["labels", proj, "--add", "person"]) == 0
    assert main(["import", proj, str(folder), "--format", "labelme"]) == 0
    assert "imported 2 episodes" in capsys.readouterr().out


# --------------------------------------------------------------------------- refusals


def _edit_json(file: Path, change) -> None:
    data = json.loads(file.read_text())
    change(data)
    file.write_text(json.dumps(data))


def _shape(data, **values):
    data["shapes"][0].update(values)


LABELME_BROKEN = [
    ("missing field", lambda d: d.pop("shapes"), ("field 'shapes'", "missing")),
    ("wrong type", lambda d: _shape(d, points="191,107"), ("field 'shapes[0].points'", "expected list, got str")),
    ("outside the picture", lambda d: _shape(d, points=[[191, 107], [613, 329]]),
     ("field 'shapes[0].points'", "lies outside the 500x338 image")),
    ("normalised", lambda d: _shape(d, points=[[0.382, 0.317], [0.626, 0.975]]),
     ("field 'shapes[0].points'", "look normalised (0-1)", "LabelMe gives pixels", "multiply x by 500")),
    ("rotated", lambda d: _shape(d, shape_type="oriented_rectangle", points=[[200, 100], [300, 150], [280, 190],
                                                                              [180, 140]]),
     ("field 'shapes[0].points'", "rotated by 26.6 degrees")),
    ("another picture's size", lambda d: d.update(imageWidth=1000, imageHeight=676),
     ("field 'imageWidth'", "is 500x338 pixels, but the file says 1000x676")),
    ("unknown label", lambda d: _shape(d, label="Button"),
     ("unknown class 'Button'", "screenlab labels PROJECT --add Button")),
]


@pytest.mark.parametrize("change, words", [c[1:] for c in LABELME_BROKEN], ids=[c[0] for c in LABELME_BROKEN])
def test_broken_labelme_files_are_refused_by_file_and_field(project, tmp_path, change, words):
    folder = _labelme_sample(tmp_path)
    _add_labels(project, "person")
    _edit_json(folder / "2011_000003.json", change)
    _refused(project, folder, "labelme", "2011_000003.json", *words)


def _region(data, **values):
    data[1]["annotations"][0]["result"][0]["value"].update(values)


LABEL_STUDIO_BROKEN = [
    ("missing field", lambda d: d[1]["annotations"][0]["result"][0]["value"].pop("width"),
     ("field '[1].annotations[0].result[0].value.width'", "missing")),
    ("wrong type", lambda d: _region(d, x="2"),
     ("field '[1].annotations[0].result[0].value.x'", "expected")),
    ("pixels given as percent", lambda d: _region(d, x=160, width=32),
     ("field '[1].annotations[0].result[0].value.x'", "160 is over 100", "percentages", "looks like pixels")),
    ("fractions given as percent", lambda d: [_region(d, x=0.02, y=0.02, width=0.03, height=0.03),
                                              d[0]["annotations"][0]["result"][0]["value"].update(
                                                  x=0.01, y=0.01, width=0.02, height=0.02)],
     ("field '[0].annotations[0].result[0].value'", "look like fractions (0-1)", "multiply them by 100")),
    ("outside the picture", lambda d: _region(d, x=90, width=20),
     ("field '[1].annotations[0].result[0].value'", "ends at 110% of the picture's width")),
    ("rotated", lambda d: _region(d, rotation=30),
     ("field '[1].annotations[0].result[0].value.rotation'", "rotated by 30 degrees")),
    ("a polygon", lambda d: d[1]["annotations"][0]["result"][0].update(type="polygonlabels"),
     ("field '[1].annotations[0].result[0].type'", "a polygon region")),
    ("two annotators", lambda d: d[1]["annotations"].append({**d[1]["annotations"][0], "ground_truth": False}) or
     d[1]["annotations"][0].update(ground_truth=False),
     ("field '[1].annotations'", "2 annotations of one task", "mark one as ground truth")),
    ("unknown label", lambda d: _region(d, rectanglelabels=["Dog"]),
     ("field '[1].annotations[0].result[0].value'", "unknown class 'Dog'", "--add Dog")),
]


@pytest.mark.parametrize("change, words", [c[1:] for c in LABEL_STUDIO_BROKEN], ids=[c[0] for c in LABEL_STUDIO_BROKEN])
def test_broken_label_studio_exports_are_refused_by_task_and_field(project, tmp_path, change, words):
    folder = _copy("label-studio", tmp_path)
    make_image(folder / "image1.jpg", size=(320, 240), fmt="JPEG")
    _add_labels(project, "Cat")
    file = folder / "image_urls_with_bboxes_gt.json"
    _edit_json(file, change)
    _refused(project, file, "label-studio", "image_urls_with_bboxes_gt.json", *words)


BOX = '<box label="plate" xtl="797.33" ytl="870.92" xbr="965.52" ybr="928.94" occluded="0" z_order="4">'
CVAT_BROKEN = [
    ("missing field", BOX.replace(' xtl="797.33"', ""), ("line 81", "field 'box.xtl'", "missing")),
    ("wrong type", BOX.replace('"797.33"', '"797,33"'), ("line 81", "field 'box.xtl'", "expected a number")),
    ("outside the picture", BOX.replace('"965.52"', '"1665.52"'),
     ("line 80", "field 'box[0]'", "lies outside the 1600x1200 image")),
    ("normalised", '<box label="plate" xtl="0.498" ytl="0.726" xbr="0.603" ybr="0.774">',
     ("line 81", "field 'box'", "look normalised (0-1)", "CVAT gives pixels")),
    ("rotated", BOX.replace(' z_order="4"', ' z_order="4" rotation="30.00"'),
     ("line 81", "field 'box.rotation'", "rotated by 30 degrees")),
    ("unknown label", BOX.replace('"plate"', '"Licence"'), ("line 80", "unknown class 'Licence'", "--add Licence")),
    ("a video task", None, ("line 80", "field 'track'", "CVAT for video 1.1", "CVAT for images 1.1")),
]


@pytest.mark.parametrize("box, words", [c[1:] for c in CVAT_BROKEN], ids=[c[0] for c in CVAT_BROKEN])
def test_broken_cvat_files_are_refused_by_line_and_attribute(project, tmp_path, box, words):
    folder = _cvat_sample(tmp_path)
    _add_labels(project, "plate")
    file = folder / "annotations.xml"
    text = file.read_text()
    if box is None:  # the video layout: a <track> where an image task has <image>
        text = text.replace('<image id="0" name="filename000.jpg" width="1600" height="1200">', '<track id="0">')
        text = text.replace("</image>", "</track>")
    else:
        text = text.replace(BOX, box)
    file.write_text(text)
    _refused(project, folder, "cvat-images", "annotations.xml", *words)


def test_cvat_entities_are_refused_before_parsing(project, tmp_path):
    folder = _cvat_sample(tmp_path)
    file = folder / "annotations.xml"
    file.write_text(file.read_text().replace('<?xml version="1.0" encoding="utf-8"?>',
                                             '<?xml version="1.0"?>\n<!DOCTYPE a [<!ENTITY b "bbbbbbbb">]>'))
    _refused(project, folder, "cvat-images", "annotations.xml", "DOCTYPE or entities")


YOLO_BROKEN = [
    ("a class index with no name", "7 0.5 0.5 0.1 0.1", ("line 1", "field 'class'", "class 7 has no name",
                                                         "classes.txt names 4: 0-3")),
    ("pixels given as fractions", "3 238 278.5 22 35", ("line 1", "field 'x_center'", "238 is over 1",
                                                         "fractions of the picture (0-1)", "looks like pixels")),
    ("outside the picture", "3 0.98 0.5 0.1 0.1", ("line 1", "reaches outside the picture")),
    ("a missing number", "3 0.371875 0.5637651821862348 0.034375", ("line 1", "4 words",
                                                                     "class x_center y_center width height")),
    ("wrong type", "door 0.5 0.5 0.1 0.1", ("line 1", "field 'class'", "expected a class index")),
]


@pytest.mark.parametrize("line, words", [c[1:] for c in YOLO_BROKEN], ids=[c[0] for c in YOLO_BROKEN])
def test_broken_yolo_labels_are_refused_by_file_line_and_field(project, tmp_path, line, words):
    folder = _yolo_sample(tmp_path)
    _add_labels(project, "closed_door", "opened_door", "bus", "number")
    labels = folder / "labels" / "img_4.txt"
    labels.write_text(line + "\n" + labels.read_text())
    _refused(project, folder, "yolo", "img_4.txt", *words)


def test_yolo_without_class_names_or_with_a_label_file_without_picture_is_refused(project, tmp_path):
    folder = _yolo_sample(tmp_path)
    _add_labels(project, "closed_door", "opened_door", "bus", "number")
    (folder / "labels" / "img_9.txt").write_text("0 0.5 0.5 0.1 0.1\n")
    _refused(project, folder, "yolo", "img_9.txt", "labels without a picture", "images/")
    (folder / "labels" / "img_9.txt").unlink()
    (folder / "classes.txt").unlink()
    _refused(project, folder, "yolo", "no class names", "data.yaml", "classes.txt")


def _annotation(data, **values):
    data["annotations"][0].update(values)


COCO_BROKEN = [
    ("missing field", lambda d: d["annotations"][0].pop("bbox"), ("field 'annotations[0].bbox'", "missing")),
    ("wrong type", lambda d: _annotation(d, bbox="191,107,123,221"),
     ("field 'annotations[0].bbox'", "expected list, got str")),
    ("outside the picture", lambda d: _annotation(d, bbox=[191.0, 107.0, 400.0, 221.0]),
     ("field 'annotations[0].bbox'", "lies outside the 500x338 image")),
    ("normalised", lambda d: _annotation(d, bbox=[0.382, 0.317, 0.246, 0.654]),
     ("field 'annotations[0].bbox'", "look normalised (0-1)", "COCO gives pixels")),
    ("rotated", lambda d: _annotation(d, attributes={"occluded": False, "rotation": 15.0}),
     ("field 'annotations[0].attributes.rotation'", "rotated by 15.0 degrees")),
    ("a category that names nothing", lambda d: _annotation(d, category_id=99),
     ("field 'annotations[0].category_id'", "no category has id 99")),
    ("an image that names nothing", lambda d: _annotation(d, image_id=99),
     ("field 'annotations[0].image_id'", "no image has id 99")),
    ("another picture's size", lambda d: d["images"][0].update(width=1000, height=676),
     ("field 'images[0].width'", "is 500x338 pixels, but the file says 1000x676")),
]


@pytest.mark.parametrize("change, words", [c[1:] for c in COCO_BROKEN], ids=[c[0] for c in COCO_BROKEN])
def test_broken_coco_files_are_refused_by_record_and_field(project, tmp_path, change, words):
    folder = _coco_sample(tmp_path)
    _add_labels(project, "person", "bottle", "bus", "car", "chair", "sofa")
    _edit_json(folder / "annotations.json", change)
    _refused(project, folder / "annotations.json", "coco", "annotations.json", *words)
