"""Every labelling-tool export loads in a reader its tool's users have, with the same boxes and classes
(issue 35, item 6; ADR 0049).

One project, with classes whose case differs ("Button", "button"), a class with a space, boxes of every role,
classed gold and distracted boxes, two different pictures named login.png and a split, goes out to COCO,
YOLO, CVAT, Pascal VOC, LabelMe and Label Studio. Each export is read by a reader that is not ours:
pycocotools for COCO, Label Studio's own converter (label-studio-converter, given label_config.xml and the
folder the README says to serve) for Label Studio, and globox, a third-party reader of detection formats,
for CVAT, VOC, YOLO and LabelMe: the tools' own readers (datumaro, labelme, ultralytics) cannot be installed
beside this project (ADR 0049 says why). What YOLO's and VOC's loaders demand of the layout itself is
checked against their rules, as read in ultralytics' check_det_dataset and datumaro's yolo and voc plugins.
Each reader must give the boxes, with their class names, that the project holds; and our own importer must
give back every role and class.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import globox
import pytest
import yaml
from pycocotools.coco import COCO

from desktop_app import api
from desktop_app.cli.main import main
from desktop_app.formats.ingest import ImportOptions
from desktop_app.formats.transfer import export_path, import_path
from desktop_app.store import label_set
from desktop_app.store.models import ActionBox, Episode, Screen, Step
from desktop_app.store.orm import select
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter

from conftest import make_image

CLASSES = ["Button", "close icon", "Ad", "button"]  # "Button" and "button" are two classes: case is kept
PICTURES = {"login.png": ((400, 300), (10, 100, 200)), "shots/login.png": ((320, 200), (200, 10, 10)),
            "home.png": ((200, 100), (10, 200, 10))}
EPISODES = [
    {"id": "login.png", "goal": "log in", "steps": [{"image": "login.png", "actions": [
        {"box": [10, 20, 110, 60], "label": "gold", "category": "Button", "element_text": "Sign in"},
        {"box": [150, 20, 250, 60], "label": "distracted", "category": "close icon"},
        {"box": [10.5, 100.25, 200.75, 160.5], "label": "other"},
        {"box": [0, 250, 400, 300], "label": "other", "category": "Ad"},
        {"box": [300, 100, 380, 140], "label": "gold"},
        {"box": [20, 200, 60, 240], "label": "distracted"},
        {"box": None, "label": "other", "element_text": "a text-only action: no tool can hold it"}]}]},
    # another picture with the same file name, in the same (no) split: renamed login~2.png where names are flat
    {"id": "shots/login.png", "steps": [{"image": "shots/login.png", "actions": [
        {"box": [0, 0, 320, 200], "label": "gold", "category": "button"}]}]},
    {"id": "home.png", "split": "val", "steps": [{"image": "home.png", "actions": [
        {"box": [5, 5, 50, 40], "label": "other", "category": "Ad"}]}]},
]
BOXES = 8  # with a box: the text-only action is left out


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """The project and its export to every format: {format: (folder, report)}."""
    root = tmp_path_factory.mktemp("oracles")
    source = root / "source"
    for name, (size, color) in PICTURES.items():
        make_image(source / name, size=size, color=color)
    (source / "episodes.jsonl").write_text("".join(json.dumps(e) + "\n" for e in EPISODES))
    project = Project.init(root / "project")
    label_set.add_classes(project.engine, CLASSES)
    import_path(project, source, "screenlab")
    # through the Python API's door (the command line and the dialogs are below)
    outs = {fmt: (root / fmt, api.export_data(project, root / fmt, fmt))
            for fmt in ("coco", "yolo", "voc", "cvat-images", "labelme", "label-studio")}
    yield project, outs
    project.close()


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _rounded(box) -> tuple:
    return tuple(round(v, 3) for v in box)


def _project_boxes(project) -> list[tuple]:
    """(picture's SHA-256, name a tool gives the box, (x1, y1, x2, y2)) of every box with coordinates."""
    with project.reading() as s:
        rows = s.exec(select(Screen.sha256, ActionBox).join(Step, ActionBox.step_id == Step.id)
                      .join(Screen, Step.screen_id == Screen.id).where(ActionBox.x1.is_not(None))).all()
    return sorted((sha, label_set.category_of(b.label, b.category), _rounded((b.x1, b.y1, b.x2, b.y2)))
                  for sha, b in rows)


def _roles_and_classes(project) -> list[tuple]:
    with project.reading() as s:
        rows = s.exec(select(Screen.sha256, ActionBox).join(Step, ActionBox.step_id == Step.id)
                      .join(Screen, Step.screen_id == Screen.id).where(ActionBox.x1.is_not(None))).all()
    return sorted((sha, b.label, b.category, _rounded((b.x1, b.y1, b.x2, b.y2))) for sha, b in rows)


def _globox_boxes(annotation, picture: Path, names=None) -> list[tuple]:
    return [(_sha(picture), names[int(b.label)] if names else b.label, _rounded(b.ltrb)) for b in annotation.boxes]


# --------------------------------------------------------------------------- each tool's reader


def test_coco_export_loads_in_pycocotools_with_its_boxes_and_classes(exported):
    project, outs = exported
    out, report = outs["coco"]
    files = sorted((out / "annotations").glob("*.json"))
    assert [f.name for f in files] == ["instances_default.json", "instances_val.json"]  # COCO's own layout
    got = []
    for file in files:
        coco = COCO(str(file))
        split = file.stem.removeprefix("instances_")
        names = {c["id"]: c["name"] for c in coco.loadCats(coco.getCatIds())}
        assert list(names.values()) == ["gold", "distracted", "other", *CLASSES]
        for image in coco.loadImgs(coco.getImgIds()):
            picture = out / "images" / split / image["file_name"]  # where datumaro's coco importer looks
            for ann in coco.loadAnns(coco.getAnnIds(imgIds=image["id"])):
                x, y, w, h = ann["bbox"]
                got.append((_sha(picture), names[ann["category_id"]], _rounded((x, y, x + w, y + h))))
    assert sorted(got) == _project_boxes(project) and len(got) == BOXES
    # the pictures keep their own names; the second login.png is told apart, and the report says so
    assert sorted(p.relative_to(out / "images").as_posix() for p in (out / "images").rglob("*.png")) == \
        ["default/login.png", "default/login~2.png", "val/home.png"]
    assert report.renamed == ["default/login.png -> default/login~2.png (episode shots/login.png)"]


def _ultralytics_rules(out: Path) -> dict:
    """What ultralytics' check_det_dataset (8.4.190, data/utils.py) demands of data.yaml, and how its loader
    pairs a picture with its labels (img2label_paths: the last images/ of the path becomes labels/). Read
    from its source: ultralytics needs torch, which this project does not install."""
    data = yaml.safe_load((out / "data.yaml").read_text(encoding="utf-8"))
    assert "train" in data and "val" in data, "'train' and 'val' are required in all data YAMLs"
    assert "path" not in data  # so the YAML's own folder is the root, wherever the folder is moved
    assert data["nc"] == len(data["names"])
    assert sorted(data["names"]) == list(range(len(data["names"])))  # check_class_names: indexes 0..n-1
    for key in ("train", "val", "test"):
        for folder in (data.get(key) if isinstance(data.get(key), list) else [data.get(key)] if data.get(key) else []):
            assert (out / folder).is_dir(), f"{key}: {folder} must exist"
            for picture in (out / folder).iterdir():
                assert (out / folder.replace("images", "labels", 1) / f"{picture.stem}.txt").is_file()
    return data


def _datumaro_yolo_rules(out: Path) -> None:
    """What datumaro's yolo_ultralytics importer (1.13.12, plugins/data_formats/yolo/) demands: data.yaml beside
    labels/<subset>/*.txt and images/<subset>/ at most two folders deep, every line five fields that are
    numbers after a plain split at spaces."""
    assert (out / "data.yaml").is_file()
    for picture in (out / "images").rglob("*.png"):
        assert len(picture.relative_to(out).parts) == 3  # images/<subset>/<name>
    for labels in (out / "labels").rglob("*.txt"):
        assert len(labels.relative_to(out).parts) == 3
        for line in labels.read_bytes().decode().split("\n")[:-1]:
            fields = line.split(" ")
            assert len(fields) == 5 and all(f.replace(".", "").isdigit() for f in fields), line


def test_yolo_export_is_a_dataset_ultralytics_and_datumaro_take_and_globox_reads_its_boxes(exported):
    project, outs = exported
    out, report = outs["yolo"]
    data = _ultralytics_rules(out)
    _datumaro_yolo_rules(out)
    # one split besides val: train is default's pictures, val the val split's
    assert (data["train"], data["val"]) == ("images/default", "images/val")
    names = data["names"]
    assert list(names.values()) == ["gold", "distracted", "other", *CLASSES]
    assert (out / "classes.txt").read_text().splitlines() == list(names.values())
    got = []
    for split in ("default", "val"):
        found = globox.AnnotationSet.from_yolo_v5(out / "labels" / split, image_folder=out / "images" / split,
                                                  image_extension=".png")
        for annotation in found:
            got += _globox_boxes(annotation, out / "images" / split / annotation.image_id, names)
    # six decimals of fractions: within 0.0002 px here
    assert [(sha, name) for sha, name, _ in sorted(got)] == [(sha, name) for sha, name, _ in _project_boxes(project)]
    for (*_, box), (*_, want) in zip(sorted(got), _project_boxes(project), strict=True):
        assert box == pytest.approx(want, abs=0.001)
    assert report.renamed == ["default/login.png -> default/login~2.png (episode shots/login.png)"]


def test_a_yolo_export_of_one_split_validates_on_what_it_trains_on(tmp_path, exported):
    project, _ = exported
    out = tmp_path / "yolo-default"
    export_path(project, out, "yolo", EpisodeFilter(splits=("",)))
    data = _ultralytics_rules(out)
    assert (data["train"], data["val"]) == ("images/default", "images/default")
    assert "no val split" in (out / "data.yaml").read_text()


def _voc_rules(out: Path) -> None:
    """What datumaro's voc importer (1.13.12, plugins/data_formats/voc/) demands: ImageSets/Main/<subset>.txt
    naming ids whose Annotations/<id>.xml exist, and labelmap.txt declaring every <name> used, one
    'name:color:parts:actions' a line (without it only VOC's 20 classes are known)."""
    declared = [line.split(":") for line in (out / "labelmap.txt").read_text().splitlines() if not line.startswith("#")]
    assert all(len(fields) == 4 for fields in declared)
    names = {fields[0] for fields in declared}
    for listed in (out / "ImageSets" / "Main").glob("*.txt"):
        for item in listed.read_text().splitlines():
            xml = (out / "Annotations" / f"{item}.xml").read_text()
            assert all(f"<name>{name}</name>" not in xml or name in names for name in names)
    used = {a.label for a in globox.AnnotationSet.from_pascal_voc(out / "Annotations") for a in a.boxes}
    assert used <= names


def test_voc_export_loads_in_globox_with_its_boxes_and_classes(exported):
    project, outs = exported
    out, report = outs["voc"]
    _voc_rules(out)
    assert sorted((out / "ImageSets" / "Main").glob("*.txt")) == [out / "ImageSets" / "Main" / "default.txt",
                                                                   out / "ImageSets" / "Main" / "val.txt"]
    got = []
    for annotation in globox.AnnotationSet.from_pascal_voc(out / "Annotations"):
        got += _globox_boxes(annotation, out / "JPEGImages" / annotation.image_id)
    assert sorted(got) == _project_boxes(project) and len(got) == BOXES
    assert report.renamed == ["login.png -> login~2.png (episode shots/login.png)"]


def test_cvat_export_loads_in_globox_with_its_boxes_and_classes(exported):
    project, outs = exported
    out, _ = outs["cvat-images"]
    got = []
    for annotation in globox.AnnotationSet.from_cvat(out / "annotations.xml"):
        got += _globox_boxes(annotation, out / "images" / annotation.image_id)
    assert sorted(got) == _project_boxes(project) and len(got) == BOXES


def test_labelme_export_loads_in_globox_with_its_boxes_and_classes(exported):
    project, outs = exported
    out, _ = outs["labelme"]
    got = []
    for file in sorted(out.rglob("*.json")):
        annotation = globox.Annotation.from_labelme(file)
        got += _globox_boxes(annotation, file.parent / annotation.image_id)  # imagePath: beside its file
    assert sorted(got) == _project_boxes(project) and len(got) == BOXES


CONVERT = """
import json, sys
from label_studio_converter import Converter
folder, out = sys.argv[1], sys.argv[2]
converter = Converter(config=open(folder + "/label_config.xml").read(), project_dir=folder)
converter.convert_to_coco(folder + "/tasks.json", out, is_dir=False)
"""


def test_label_studio_export_converts_with_label_studio_s_converter_as_its_readme_says(exported, tmp_path):
    """The converter reads label_config.xml and tasks.json, and finds the pictures through the local-files
    root the README tells Label Studio to serve (LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT=<this folder>)."""
    project, outs = exported
    out, _ = outs["label-studio"]
    readme = (out / "README.txt").read_text()
    assert "LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT=<this folder>" in readme and "label_config.xml" in readme
    env = {**os.environ, "LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT": str(out)}
    done = subprocess.run([sys.executable, "-c", CONVERT, str(out), str(tmp_path / "coco")], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    doc = json.loads((tmp_path / "coco" / "result.json").read_text())
    names = {c["id"]: c["name"] for c in doc["categories"]}
    # the labelling interface declares every name, as the converter reads it from the config
    assert sorted(names.values()) == sorted(["gold", "distracted", "other", *CLASSES])
    pictures = {image["id"]: Path(image["file_name"]) for image in doc["images"]}
    assert all(picture.is_relative_to(out) for picture in pictures.values())
    got = [(_sha(pictures[a["image_id"]]), names[a["category_id"]],
            _rounded((a["bbox"][0], a["bbox"][1], a["bbox"][0] + a["bbox"][2], a["bbox"][1] + a["bbox"][3])))
           for a in doc["annotations"]]
    assert sorted(got) == _project_boxes(project) and len(got) == BOXES


# --------------------------------------------------------------------------- back into ScreenLab

ROLE_FIELD = ("coco", "voc", "cvat-images", "labelme", "label-studio")  # a box's attributes: its role travels


@pytest.mark.parametrize("fmt", ["coco", "yolo", "voc", "cvat-images", "labelme", "label-studio"])
def test_each_export_imports_back_with_its_roles_and_classes(exported, tmp_path, fmt):
    project, outs = exported
    out, _ = outs[fmt]
    with Project.init(tmp_path / "again") as again:
        report = import_path(again, out, None, ImportOptions(add_labels=True))  # the format is detected
        assert report.format == fmt
        got = _roles_and_classes(again)
        classes = label_set.classes(again.engine)
        with again.reading() as s:
            splits = dict(s.exec(select(Episode.key, Episode.split)).all())
    expected = _roles_and_classes(project)
    if fmt == "yolo":  # YOLO has no field for a role: a classed box comes back as its class, role other
        expected = sorted((sha, "other" if category else role, category, box) for sha, role, category, box in expected)
        assert [row[:3] for row in got] == [row[:3] for row in expected]
        for (*_, box), (*_, want) in zip(got, expected, strict=True):  # six decimals of fractions
            assert box == pytest.approx(want, abs=0.001)
    else:
        assert got == expected
    # the classes come back spelt as they were, in the project's order where the file lists them
    assert (list(classes) if fmt != "labelme" else sorted(classes)) == (CLASSES if fmt != "labelme" else sorted(CLASSES))
    if fmt in ("coco", "yolo", "voc", "cvat-images"):  # the formats with a place for a split
        assert sorted(splits.values()) == ["", "", "val"]


# --------------------------------------------------------------------------- the three doors


def test_the_command_line_exports_voc_and_prints_the_renamed_picture(exported, tmp_path, capsys):
    project, _ = exported
    assert main(["export", str(project.folder), str(tmp_path / "voc"), "--format", "voc"]) == 0
    printed = capsys.readouterr().out
    assert "[voc]" in printed and "renamed 1 picture" in printed and "login.png -> login~2.png" in printed
    proj = str(tmp_path / "fresh")
    assert main(["init", proj]) == 0
    assert main(["import", proj, str(tmp_path / "voc"), "--add-labels", "--quiet"]) == 0  # detected as voc
    assert "Pascal VOC: 3 annotation files" in capsys.readouterr().out


def test_the_export_and_import_dialogs_offer_voc(qtbot, exported, tmp_path):
    from PySide6.QtWidgets import QDialogButtonBox

    from desktop_app.ui.transfer_dialogs import ExportDialog, ImportDialog

    project, _ = exported
    dialog = ExportDialog(project, EpisodeFilter())
    qtbot.addWidget(dialog)
    dialog.format.setCurrentIndex(dialog.format.findData("voc"))
    dialog.out.setText(str(tmp_path / "voc"))
    dialog.start()
    qtbot.waitUntil(dialog.buttons.button(QDialogButtonBox.Ok).isEnabled, timeout=60000)
    shown = dialog.result.text() + "\n" + dialog.details.toPlainText()  # long results: their first line, then details
    assert "[voc]" in shown and "login.png -> login~2.png (episode shots/login.png)" in shown
    with Project.init(tmp_path / "fresh") as fresh:
        label_set.add_classes(fresh.engine, CLASSES)
        importing = ImportDialog(fresh)
        qtbot.addWidget(importing)
        importing.source.setText(str(tmp_path / "voc"))
        assert importing.format.currentData() == "voc"  # detected
        importing.start()
        qtbot.waitUntil(importing.buttons.button(QDialogButtonBox.Ok).isEnabled, timeout=60000)
        assert importing.result.text().startswith("imported 3 episodes"), importing.result.text()


def test_names_that_differ_only_in_case_or_suffix_are_told_apart_and_yaml_keeps_every_class_name(tmp_path):
    """Shot.png and shot.jpg would share labels/default/shot.txt (and one file on a case-insensitive disk);
    class names YAML would read as something else (no, 1e3, a colon, a quote) stay the names they are."""
    source = tmp_path / "source"
    make_image(source / "a" / "Shot.png", size=(40, 30), color=(1, 2, 3))
    make_image(source / "b" / "shot.jpg", size=(40, 30), color=(200, 2, 3), fmt="JPEG")
    tricky = ["no", "1e3", "menu: open", "it's", 'say "hi"', "日本語"]
    lines = [{"id": f"{d}/{n}", "steps": [{"image": f"{d}/{n}", "actions": [
        {"box": [1, 1, 20, 20], "label": "other", "category": tricky[i]}]}]}
        for i, (d, n) in enumerate((("a", "Shot.png"), ("b", "shot.jpg")))]
    (source / "episodes.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    with Project.init(tmp_path / "p") as project:
        label_set.add_classes(project.engine, tricky)
        import_path(project, source, "screenlab")
        report = export_path(project, tmp_path / "yolo", "yolo")
    assert sorted(p.name for p in (tmp_path / "yolo" / "labels" / "default").iterdir()) == ["Shot.txt", "shot~2.txt"]
    assert report.renamed == ["default/shot.jpg -> default/shot~2.jpg (episode b/shot.jpg)"]
    names = yaml.safe_load((tmp_path / "yolo" / "data.yaml").read_text(encoding="utf-8"))["names"]
    assert list(names.values()) == ["gold", "distracted", "other", *tricky]
