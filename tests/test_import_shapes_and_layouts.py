"""Issue 35, its import side: a labelling tool's file imports in one command, as it is.

Every label the project lacks is named in one refusal (with its boxes and the one command adding them all),
or added with --add-labels within the project's limit; a shape that is not a rectangle (LabelMe's circle,
CVAT's polyline, Label Studio's polygon...) is refused naming --shapes, taken as its bounding box, or left out,
each kind counted in the summary; COCO's own layout, a CVAT task exported under another name and a folder
holding Label Studio's data.json are told apart by the one detection rule, and the summary says which layout
was read. The files are written here from the formats' documents, or are the tools' released samples
(tests/data/formats/<format>/README.md names each source).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from desktop_app import api
from desktop_app.cli.main import main
from desktop_app.formats.detect import detect_format
from desktop_app.formats.records import FormatError
from desktop_app.formats.transfer import import_path
from desktop_app.store import label_set
from desktop_app.store.models import ActionBox, Episode, Step
from desktop_app.store.orm import select

from conftest import make_image, snapshot

DATA = Path(__file__).parent / "data" / "formats"


def _boxes(project) -> list[tuple]:
    """(episode key, class or else role, (x1, y1, x2, y2)) of every box, in the order they were imported."""
    with project.reading() as s:
        rows = s.exec(select(Episode.key, ActionBox).join(Step, ActionBox.step_id == Step.id)
                      .join(Episode, Step.episode_id == Episode.id).order_by(ActionBox.id)).all()
    return [(key, b.category or b.label, tuple(round(v, 3) for v in (b.x1, b.y1, b.x2, b.y2))) for key, b in rows]


def _cli(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def _labelme_file(folder: Path, name: str, labels: list[str]) -> None:
    make_image(folder / f"{name}.png", size=(200, 100))
    shapes = [{"label": label, "points": [[10 + i, 10], [40 + i, 30]], "shape_type": "rectangle", "group_id": None,
               "description": "", "flags": {}} for i, label in enumerate(labels)]
    (folder / f"{name}.json").write_text(json.dumps({
        "version": "5.7.0", "flags": {}, "shapes": shapes, "imagePath": f"{name}.png", "imageData": None,
        "imageHeight": 100, "imageWidth": 200}))


# --------------------------------------------------------------------------- 1. unknown labels, all at once


def test_every_unknown_class_is_named_in_one_refusal_then_added_with_add_labels(project, tmp_path, capsys):
    folder = tmp_path / "shots"
    _labelme_file(folder, "a", ["Button", "icon", "button"])
    _labelme_file(folder, "b", ["text", "icon", "Gold"])  # "Gold" is the role, whatever its case
    before = snapshot(project)

    code, out, err = _cli(capsys, "import", tmp_path / "proj", folder, "-q")

    # one attempt names all of them, case kept ("Button" and "button" are two), with how many boxes each, and
    # the one command that adds them
    assert code != 0 and out == ""
    assert "4 unknown classes: 'Button' (1 box), 'icon' (2 boxes), 'button' (1 box), 'text' (1 box)" in err, err
    assert "screenlab labels PROJECT --add Button --add icon --add button --add text" in err
    assert "--add-labels" in err and "Traceback" not in err
    assert snapshot(project) == before and label_set.classes(project.engine) == ()

    code, out, err = _cli(capsys, "import", tmp_path / "proj", folder, "-q", "--add-labels")

    assert code == 0, err
    assert "classes added to the project: Button, icon, button, text" in out
    assert "actions: 6 (1 gold, 5 other; classes: 2 icon, 1 Button, 1 button, 1 text)" in out, out
    assert label_set.classes(project.engine) == ("Button", "icon", "button", "text")
    assert [b[1] for b in _boxes(project)] == ["Button", "icon", "button", "text", "icon", "gold"]
    with project.reading() as s:
        assert list(s.exec(select(ActionBox.label).order_by(ActionBox.id))) == ["other"] * 5 + ["gold"]


def test_coco_s_80_classes_and_10000_boxes_import_in_one_run(project, tmp_path):
    """What the six-label limit stopped: a COCO file naming 80 categories (ids with COCO's gaps) imports with
    --add-labels in one run, every class with its case, in the file's order (not the order its boxes name them:
    the first box here is Class_2's)."""
    folder = tmp_path / "coco"
    names = [f"Class_{i}" for i in range(1, 81)]
    images, annotations = [], []
    for i in range(20):
        make_image(folder / f"shot{i}.png", size=(400, 300))
        images.append({"id": i + 1, "file_name": f"shot{i}.png", "width": 400, "height": 300})
    categories = [{"id": i + 1 + i // 10 * 2, "name": name} for i, name in enumerate(names)]  # gaps, as COCO's
    for n in range(10_000):
        x, y = (n * 7) % 380, (n * 13) % 280
        annotations.append({"id": n + 1, "image_id": n % 20 + 1, "category_id": categories[(n + 1) % 80]["id"],
                            "bbox": [x, y, 10, 10], "area": 100, "iscrowd": 0})
    (folder / "instances.json").write_text(json.dumps({"images": images, "annotations": annotations,
                                                       "categories": categories}))

    report = api.import_data(project, folder / "instances.json", "coco", add_labels=True)

    assert report.labels_added == names and label_set.classes(project.engine) == tuple(names)
    assert sum(report.boxes.values()) == 10_000 and sum(report.classes.values()) == 10_000
    with project.reading() as s:
        assert s.exec(select(ActionBox.category).where(ActionBox.id == 1)).one() == names[1]


def test_a_name_that_cannot_be_a_class_is_refused_and_none_is_added(project, tmp_path):
    folder = tmp_path / "shots"
    _labelme_file(folder, "a", ["icon", "x" * 65])

    with pytest.raises(FormatError, match="class 'x{65}': 1 to 64 characters"):
        api.import_data(project, folder, add_labels=True)
    assert label_set.classes(project.engine) == ()  # icon was not added either


# --------------------------------------------------------------------------- 2. shapes that are not boxes


def _primitives(tmp_path: Path) -> Path:
    """LabelMe's examples/primitives: a rectangle, then a circle, polygon, line, point, line strip, mask."""
    folder = tmp_path / "primitives"
    shutil.copytree(DATA / "labelme" / "primitives", folder)
    make_image(folder / "primitives.jpg", size=(560, 450), fmt="JPEG")
    return folder


def test_labelme_shapes_are_refused_naming_the_option_then_taken_as_bounding_boxes(project, tmp_path, capsys):
    folder = _primitives(tmp_path)
    file = folder / "primitives.json"
    doc = json.loads(file.read_text())
    for shape in doc["shapes"]:  # seven labels, one per shape, are more than a project's six of its own
        shape["label"] = "box" if shape["shape_type"] == "rectangle" else "shape"
    file.write_text(json.dumps(doc))

    code, _, err = _cli(capsys, "import", tmp_path / "proj", folder, "-q", "--add-labels")
    assert code != 0 and "a circle" in err and "--shapes bbox" in err and "--shapes skip" in err, err
    assert "shapes[1].shape_type" in err

    code, out, err = _cli(capsys, "import", tmp_path / "proj", folder, "-q", "--shapes", "bbox", "--add-labels")

    assert code == 0, err
    assert "classes added to the project: box, shape" in out
    assert ("other shapes: 1 circle taken as its bounding box, 1 line taken as its bounding box, 1 line strip "
            "taken as its bounding box, 1 mask taken as its bounding box, 1 point taken as its bounding box, "
            "1 polygon taken as its bounding box") in out, out
    assert [b[2] for b in _boxes(project)] == [
        (32.0, 35.0, 132.0, 135.0),  # the rectangle
        # the circle: centre [195, 84], a point of its edge [225, 125]: radius hypot(30, 41) = 50.804
        (144.196, 33.196, 245.804, 134.804),
        (391.0, 33.0, 542.0, 135.0),  # the second rectangle
        (45.0, 318.0, 198.0, 406.0),  # the polygon [[69, 318], [45, 403], [173, 406], [198, 321]]
        (160.0, 178.0, 188.0, 224.0),  # the line
        (345.0, 174.0, 345.0, 174.0),  # the point: a box of no size, where it is
        (402.537, 181.463, 544.537, 275.463),  # the line strip
        (417.398, 305.0, 516.398, 404.0),  # the mask: the rectangle LabelMe placed it in
    ]


def test_labelme_shapes_skipped_leave_the_rectangles_and_are_counted(project, tmp_path):
    folder = _primitives(tmp_path)
    label_set.add_class(project.engine, "rectangle")

    report = api.import_data(project, folder, shapes="skip")

    assert [b[1:] for b in _boxes(project)] == [("rectangle", (32.0, 35.0, 132.0, 135.0)),
                                                ("rectangle", (391.0, 33.0, 542.0, 135.0))]
    assert dict(report.shapes_skipped) == {"circle": 1, "polygon": 1, "line": 1, "point": 1, "line strip": 1,
                                           "mask": 1}
    assert "1 circle skipped" in report.summary() and not report.shapes_as_boxes


def test_cvat_documentation_example_takes_every_shape_as_its_bounding_box(project, tmp_path):
    """CVAT's XML documentation example: a box, a polygon, two polylines, points, a tag, a skeleton and a mask."""
    folder = tmp_path / "cvat"
    shutil.copytree(DATA / "cvat-images" / "docs_example", folder)
    make_image(folder / "images" / "filename000.jpg", size=(1600, 1200), fmt="JPEG")
    before = snapshot(project)
    with pytest.raises(FormatError, match="--shapes bbox"):
        api.import_data(project, folder, add_labels=True)
    assert snapshot(project) == before

    report = api.import_data(project, folder, shapes="bbox", add_labels=True)

    # in the order the file's <meta> declares them, not as the boxes name them (ADR 0049)
    assert report.labels_added == ["car", "traffic_line", "wheel", "plate", "s1"]
    assert dict(report.shapes_as_boxes) == {"polygon": 1, "polyline": 2, "set of points": 1, "skeleton": 1, "mask": 1}
    assert "2 polylines taken as their bounding boxes" in report.summary()
    assert [b[1:] for b in _boxes(project)] == [
        ("plate", (797.33, 870.92, 965.52, 928.94)),
        ("car", (528.4, 264.91, 1225.77, 985.31)),  # the polygon's extreme points
        ("traffic_line", (126.8, 0.0, 462.1, 1200.0)),  # points="462.10,0.00;126.80,1200.00"
        ("traffic_line", (1212.4, 0.0, 1568.66, 1200.0)),
        ("wheel", (574.9, 445.26, 1170.16, 939.48)),
        ("s1", (54.47, 62.85, 125.87, 162.34)),  # its three <points>
        ("car", (707.0, 888.0, 720.0, 903.0)),  # left 707 top 888 width 13 height 15
    ]


def _label_studio_task(folder: Path) -> Path:
    """A task as Label Studio's JSON export writes it (docs task_format.md), on a 200x100 picture: a rectangle,
    a polygon and a key point, in percent of the picture."""
    make_image(folder / "shot.png", size=(200, 100))
    common = {"original_width": 200, "original_height": 100, "image_rotation": 0, "from_name": "label",
              "to_name": "image"}
    result = [
        {**common, "id": "r1", "type": "rectanglelabels",
         "value": {"x": 5, "y": 10, "width": 20, "height": 30, "rotation": 0, "rectanglelabels": ["Button"]}},
        {**common, "id": "p1", "type": "polygonlabels",
         "value": {"points": [[10, 20], [50, 20], [30, 60]], "polygonlabels": ["Icon"]}},
        {**common, "id": "k1", "type": "keypointlabels", "value": {"x": 75, "y": 50, "width": 1,
                                                                   "keypointlabels": ["Icon"]}},
    ]
    (folder / "data.json").write_text(json.dumps([{"id": 1, "data": {"image": "/data/local-files/?d=shot.png"},
                                                   "annotations": [{"id": 1, "result": result}]}]))
    return folder


def test_label_studio_polygon_and_key_point_as_bounding_boxes_or_skipped(project, tmp_path):
    folder = _label_studio_task(tmp_path / "ls")
    label_set.add_classes(project.engine, ["Button", "Icon"])  # as the file spells them
    with pytest.raises(FormatError, match=r"a polygon region.*--shapes bbox"):
        api.import_data(project, folder)

    report = api.import_data(project, folder, shapes="bbox")

    assert [b[1:] for b in _boxes(project)] == [
        ("Button", (10.0, 10.0, 50.0, 40.0)),
        ("Icon", (20.0, 20.0, 100.0, 60.0)),  # x 10-50 % of 200, y 20-60 % of 100
        ("Icon", (150.0, 50.0, 150.0, 50.0)),  # the key point at 75 %, 50 %
    ]
    assert "1 key point taken as its bounding box, 1 polygon taken as its bounding box" in report.summary()


# --------------------------------------------------------------------------- 3. layouts


def _coco(file: Path, pictures: list[str]) -> None:
    """A COCO file (cocodataset.org/#format-data) naming each picture by its file name, one box each."""
    file.parent.mkdir(parents=True, exist_ok=True)
    images = [{"id": i + 1, "file_name": name, "width": 200, "height": 100} for i, name in enumerate(pictures)]
    annotations = [{"id": i + 1, "image_id": i + 1, "category_id": 1, "bbox": [10, 20, 30, 40], "area": 1200,
                    "iscrowd": 0} for i in range(len(pictures))]
    file.write_text(json.dumps({"images": images, "annotations": annotations,
                                "categories": [{"id": 1, "name": "icon"}]}))


def test_coco_s_own_layout_is_detected_and_read_with_its_pictures_in_images_split(project, tmp_path, capsys):
    folder = tmp_path / "coco"
    _coco(folder / "annotations" / "instances_val.json", ["a.png", "b.png"])
    _coco(folder / "annotations" / "instances_train.json", ["c.png"])
    for split, name in (("val", "a.png"), ("val", "b.png"), ("train", "c.png")):
        make_image(folder / "images" / split / name)
    (folder / "annotations" / "captions_val.json").write_text(json.dumps({"images": [], "annotations": []}))
    assert detect_format(folder) == "coco"

    code, out, err = _cli(capsys, "import", tmp_path / "proj", folder, "-q", "--add-labels")

    assert code == 0, err
    assert "read: COCO's own layout: annotations/instances_train.json (pictures looked for in images/train/" in out
    assert "annotations/instances_val.json (pictures looked for in images/val/" in out
    with project.reading() as s:
        episodes = {e.key: e.split for e in s.exec(select(Episode))}
    assert episodes == {"train/c.png": "train", "val/a.png": "val", "val/b.png": "val"}  # the split its file names


def test_coco_2017_pictures_are_found_in_val2017_beside_annotations(project, tmp_path):
    folder = tmp_path / "coco2017"
    _coco(folder / "annotations" / "instances_val2017.json", ["000000000139.jpg"])
    make_image(folder / "val2017" / "000000000139.jpg", fmt="JPEG")
    label_set.add_class(project.engine, "icon")
    assert detect_format(folder) == "coco"

    report = api.import_data(project, folder)  # the format detected, as the CLI without --format does

    assert report.episodes == 1 and report.classes["icon"] == 1
    # the file given by itself finds its pictures in ../val2017 too
    report = api.import_data(project, folder / "annotations" / "instances_val2017.json", "coco")
    assert report.existing_episodes_skipped == 1


def test_a_cvat_task_exported_as_train_xml_is_detected_by_its_content(project, tmp_path):
    folder = tmp_path / "task"
    xml = (DATA / "cvat-images" / "boxes" / "annotations.xml").read_text()
    (folder / "images").mkdir(parents=True)
    (folder / "train.xml").write_text(xml)
    make_image(folder / "images" / "filename000.jpg", size=(1600, 1200), fmt="JPEG")

    assert detect_format(folder) == detect_format(folder / "train.xml") == "cvat-images"
    report = api.import_data(project, folder, add_labels=True)
    assert report.classes["plate"] == 1 and report.layout == "CVAT for images 1.1: train.xml"
    assert "read: CVAT for images 1.1: train.xml" in report.summary()


def test_a_folder_holding_label_studio_s_data_json_and_its_pictures_is_detected(project, tmp_path):
    folder = _label_studio_task(tmp_path / "ls")
    assert detect_format(folder) == "label-studio"  # the pictures beside it do not make it a folder of screenshots

    report = api.import_data(project, folder, shapes="skip", add_labels=True)

    assert report.format == "label-studio" and report.layout == "Label Studio JSON export: data.json"
    assert report.labels_added == ["Button"] and dict(report.shapes_skipped) == {"polygon": 1, "key point": 1}


def test_a_shapes_value_it_does_not_know_is_refused(project, tmp_path):
    from desktop_app.formats.ingest import ImportOptions

    folder = _label_studio_task(tmp_path / "ls")
    with pytest.raises(FormatError, match="shapes 'box': one of refuse, bbox, skip"):
        import_path(project, folder, None, ImportOptions(shapes="box"))
