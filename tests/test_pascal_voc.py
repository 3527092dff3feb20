"""Pascal VOC import (issue 35): labelme's own VOC example imports into the boxes its numbers say, the same
boxes as the LabelMe files it was made from; broken files are refused naming the file, the line and the field,
with the project left as it was; a VOC export's parts and attributes come back."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from desktop_app.formats.detect import detect_format
from desktop_app.formats.ingest import ImportOptions
from desktop_app.formats.records import FormatError
from desktop_app.formats.transfer import export_path, import_path
from desktop_app.store import label_set
from desktop_app.store.models import ActionBox, Episode, Step
from desktop_app.store.orm import select
from desktop_app.store.project import Project

from conftest import make_image, snapshot

DATA = Path(__file__).parent / "data" / "formats"
SIZES = {"2011_000003": (500, 338), "2011_000006": (500, 375), "2011_000025": (500, 375)}


def _voc_sample(tmp_path: Path) -> Path:
    folder = tmp_path / "voc"
    shutil.copytree(DATA / "voc" / "labelme_bbox_detection", folder)
    for name, size in SIZES.items():
        make_image(folder / "JPEGImages" / f"{name}.jpg", size=size, color="gray", fmt="JPEG")
    return folder


def _boxes(project) -> list[tuple]:
    with project.reading() as s:
        rows = s.exec(select(Episode.key, ActionBox).join(Step, ActionBox.step_id == Step.id)
                      .join(Episode, Step.episode_id == Episode.id).order_by(ActionBox.id)).all()
    return [(key, b.label, b.category, (b.x1, b.y1, b.x2, b.y2)) for key, b in rows]


def _refused(project, path: Path, *words: str, **options) -> str:
    before = snapshot(project)
    with pytest.raises(FormatError) as caught:
        import_path(project, path, "voc", ImportOptions(**options))
    message = str(caught.value)
    for word in words:
        assert word in message, message
    assert snapshot(project) == before
    return message


def test_labelme_s_voc_example_imports_its_boxes_as_written(project, tmp_path):
    """examples/bbox_detection/data_dataset_voc: person, bus and car boxes, coordinates as labelme holds them."""
    folder = _voc_sample(tmp_path)
    assert detect_format(folder) == detect_format(folder / "Annotations") == "voc"
    assert detect_format(folder / "Annotations" / "2011_000025.xml") == "voc"
    _refused(project, folder, "2011_000003.xml", "field 'object[0].bndbox'", "3 unknown classes: 'person' (6 boxes), "
             "'bus' (2 boxes), 'car' (1 box)", "--add-labels")

    report = import_path(project, folder, "voc", ImportOptions(add_labels=True))

    assert report.episodes == 3 and report.classes == {"person": 6, "bus": 2, "car": 1}
    assert report.layout == "Pascal VOC: 3 annotation files in Annotations/"
    # the classes are added in the dataset's order (class_names.txt: bus 6, car 7, person 15), not as met
    assert label_set.classes(project.engine) == ("bus", "car", "person")
    boxes = _boxes(project)
    # <xmin>191.0</xmin> <ymin>107.36900369003689</ymin> <xmax>313.0</xmax> <ymax>329.36900369003695</ymax>
    assert boxes[0] == ("2011_000003.jpg", "other", "person", (191.0, 107.36900369003689, 313.0, 329.36900369003695))
    # 2011_000025's second bus starts at xmin 1.0: taken as it is (0-based, as labelme and datumaro write it)
    assert ("2011_000025.jpg", "other", "bus", (1.0, 99.0, 107.0, 282.0)) in boxes
    with project.reading() as s:
        assert all(b.meta == {} for b in s.exec(select(ActionBox)))  # empty <pose/>, <truncated/>: defaults


def test_voc_boxes_are_the_labelme_boxes_they_were_made_from(tmp_path):
    """labelme2voc wrote data_dataset_voc from data_annotated: both import into the same boxes."""
    voc = _voc_sample(tmp_path)
    labelme = tmp_path / "labelme"
    shutil.copytree(DATA / "labelme" / "bbox_detection", labelme)
    for name in ("2011_000003", "2011_000006"):
        shutil.copy(voc / "JPEGImages" / f"{name}.jpg", labelme / f"{name}.jpg")
    (voc / "Annotations" / "2011_000025.xml").unlink()  # its LabelMe file is not in the sample
    with Project.init(tmp_path / "a") as a, Project.init(tmp_path / "b") as b:
        import_path(a, voc, "voc", ImportOptions(add_labels=True))
        import_path(b, labelme, "labelme", ImportOptions(add_labels=True))
        assert _boxes(a) == _boxes(b) and len(_boxes(a)) == 6


def _edit(folder: Path, old: str | tuple, new: str | tuple, name: str = "2011_000003") -> None:
    file = folder / "Annotations" / f"{name}.xml"
    text = file.read_text()
    for before, after in zip(*((old, new) if isinstance(old, tuple) else ((old,), (new,))), strict=True):
        assert before in text
        text = text.replace(before, after, 1)
    file.write_text(text)


BROKEN = [
    ("missing name", "<name>person</name>", "", ("line 13", "field 'object[0].name'", "missing")),
    ("missing coordinate", "<xmin>191.0</xmin>", "", ("line 18", "field 'object[0].bndbox.xmin'", "missing")),
    ("wrong type", "<xmin>191.0</xmin>", "<xmin>191,0</xmin>",
     ("line 19", "field 'object[0].bndbox.xmin'", "expected a number")),
    ("xmax before xmin", "<xmax>313.0</xmax>", "<xmax>13.0</xmax>",
     ("line 18", "field 'object[0].bndbox'", "xmax 13 is less than xmin 191")),
    ("outside the picture", "<xmax>313.0</xmax>", "<xmax>613.0</xmax>", ("lies outside the 500x338 image",)),
    ("normalised", "<xmin>191.0</xmin>\n      <ymin>107.36900369003689</ymin>\n      <xmax>313.0</xmax>\n      "
                   "<ymax>329.36900369003695</ymax>",
     "<xmin>0.38</xmin>\n      <ymin>0.31</ymin>\n      <xmax>0.62</xmax>\n      <ymax>0.97</ymax>",
     ("field 'object[0].bndbox'", "look normalised (0-1)", "Pascal VOC gives pixels")),
    ("another picture's size", "<width>500</width>", "<width>1000</width>",
     ("line 7", "field 'size.width'", "is 500x338 pixels, but the file says 1000x338")),
    ("not VOC", ("<annotation>", "</annotation>"), ("<annotations>", "</annotations>"),
     ("line 1", "the root element is <annotations>, not <annotation>")),
    ("not XML", "</annotation>", "</annotatio>", ("not well-formed XML",)),
    ("rotated", "<difficult/>\n    <bndbox>",
     "<difficult/>\n    <attributes><attribute><name>rotation</name><value>30</value></attribute></attributes>"
     "\n    <bndbox>", ("line 18", "field 'object[0].attributes.rotation'", "rotated by 30 degrees")),
    ("entities", "<annotation>", '<!DOCTYPE a [<!ENTITY b "bbbbbbbb">]>\n<annotation>', ("DOCTYPE or entities",)),
    ("a part", "<difficult/>\n    <bndbox>",
     "<difficult/>\n    <part><name>head</name><bndbox><xmin>200</xmin><ymin>110</ymin><xmax>240</xmax>"
     "<ymax>150</ymax></bndbox></part>\n    <bndbox>",
     ("line 18", "field 'object[0].part[0]'", 'a part (name "head")', "--shapes bbox")),
]


@pytest.mark.parametrize("old, new, words", [c[1:] for c in BROKEN], ids=[c[0] for c in BROKEN])
def test_broken_voc_files_are_refused_by_file_line_and_field(project, tmp_path, old, new, words):
    folder = _voc_sample(tmp_path)
    label_set.add_classes(project.engine, ["bus", "car", "person", "head"])
    _edit(folder, old, new)
    _refused(project, folder, "2011_000003.xml", *words)


def test_a_part_is_a_box_of_its_own_with_shapes_bbox_and_left_out_with_skip(project, tmp_path):
    folder = _voc_sample(tmp_path)
    _edit(folder, "<difficult/>\n    <bndbox>", "<difficult/>\n    <part><name>head</name><bndbox><xmin>200</xmin>"
          "<ymin>110</ymin><xmax>240</xmax><ymax>150</ymax></bndbox></part>\n    <bndbox>")
    with Project.init(tmp_path / "skip") as skip:
        report = import_path(skip, folder, "voc", ImportOptions(add_labels=True, shapes="skip"))
        assert report.shapes_skipped == {"part": 1} and len(_boxes(skip)) == 9
    report = import_path(project, folder, "voc", ImportOptions(add_labels=True, shapes="bbox"))
    assert report.shapes_as_boxes == {"part": 1}
    assert ("2011_000003.jpg", "other", "head", (200.0, 110.0, 240.0, 150.0)) in _boxes(project)


def test_splits_come_from_image_sets_and_a_listed_id_needs_its_file(project, tmp_path):
    folder = _voc_sample(tmp_path)
    sets = folder / "ImageSets" / "Main"
    sets.mkdir(parents=True)
    (sets / "train.txt").write_text("2011_000003\n2011_000006\n")
    (sets / "val.txt").write_text("2011_000025\n2011_000099\n")
    (sets / "person_train.txt").write_text("2011_000003  1\n2011_000006  1\n")  # a class's list, not a split
    _refused(project, folder, "val.txt", "line 2", 'id "2011_000099" has no annotation file',
             add_labels=True)
    (sets / "val.txt").write_text("2011_000025\n")
    import_path(project, folder, "voc", ImportOptions(add_labels=True))
    with project.reading() as s:
        assert dict(s.exec(select(Episode.key, Episode.split)).all()) == {
            "2011_000003.jpg": "train", "2011_000006.jpg": "train", "2011_000025.jpg": "val"}


def test_a_voc_export_keeps_voc_s_own_fields_and_attributes(project, tmp_path):
    folder = _voc_sample(tmp_path)
    _edit(folder, "<pose/>\n    <truncated/>\n    <difficult/>",
          "<pose>Frontal</pose>\n    <truncated>1</truncated>\n    <difficult/>\n    <attributes><attribute>"
          "<name>colour</name><value> dark red </value></attribute><attribute><name>role</name><value>gold"
          "</value></attribute></attributes>")
    import_path(project, folder, "voc", ImportOptions(add_labels=True))
    with project.reading() as s:
        box = s.exec(select(ActionBox).order_by(ActionBox.id)).first()
    assert (box.label, box.category) == ("gold", "person")  # the role attribute gives the classed box its role
    assert box.meta == {"attributes": {"colour": " dark red "}, "voc": {"pose": "Frontal", "truncated": "1"}}
    export_path(project, tmp_path / "out", "voc")
    xml = (tmp_path / "out" / "Annotations" / "2011_000003.xml").read_text()
    assert "<pose>Frontal</pose>" in xml and "<truncated>1</truncated>" in xml
    with Project.init(tmp_path / "again") as again:
        import_path(again, tmp_path / "out", None, ImportOptions(add_labels=True))
        with again.reading() as s:
            back = s.exec(select(ActionBox).order_by(ActionBox.id)).first()
        assert (back.label, back.category, back.meta) == (box.label, box.category, box.meta)


def test_a_class_holding_a_colon_is_exported_with_a_note_that_labelmap_cannot_list_it(project, tmp_path):
    folder = _voc_sample(tmp_path)
    import_path(project, folder, "voc", ImportOptions(add_labels=True))
    label_set.add_classes(project.engine, ["menu: open"])
    report = export_path(project, tmp_path / "out", "voc")
    assert not (tmp_path / "out" / "labelmap.txt").exists()
    assert "labelmap.txt not written: the class 'menu: open' holds ':'" in report.summary()
