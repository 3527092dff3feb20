"""File > Import (issue 21, item 12): the dialog proposes the format the chosen file or folder holds and
says so, falls back on the format used last (remembered across sessions), browses a file or a folder
whatever the format, and after an import refused for unreadable screenshots names every one and offers
to import the others."""

from __future__ import annotations

import json

import pytest
from PySide6.QtWidgets import QDialogButtonBox, QFileDialog, QPushButton

from desktop_app.paths import demo_dataset_dir, judge_demo_dataset_dir, sphinx_demo_dataset_dir
from desktop_app.settings import load_settings, settings_path
from desktop_app.store.models import Episode
from desktop_app.store.orm import select
from desktop_app.ui.transfer_dialogs import CANNOT_TELL, DETECT, ImportDialog

from conftest import make_image, snapshot
from test_gui_editing import open_window

pytestmark = pytest.mark.gui


# -- one small sample of each format a user may bring ------------------------------------------------
def _images_folder(root):
    make_image(root / "home.png", color="red")
    make_image(root / "deeper" / "menu.jpg", color="blue", fmt="JPEG")
    (root / "notes.txt").write_text("captured on the test phone")
    return root


def _one_screenshot(root):
    return make_image(root / "shot.png")


def _screenspot_file(root):
    make_image(root / "screenspot_imgs" / "mob.png", size=(400, 800))
    path = root / "screenspot_mobile.json"
    path.write_text(json.dumps([{"img_filename": "mob.png", "bbox": [10, 20, 100, 50], "instruction": "open settings",
                                 "data_type": "icon", "data_source": "android"}]))
    return path


def _screenspot_pro_folder(root):
    make_image(root / "images" / "vscode" / "s1.png", size=(1920, 1080))
    (root / "annotations").mkdir(parents=True)
    (root / "annotations" / "vscode_windows.json").write_text(json.dumps([
        {"id": "vscode_1", "img_filename": "vscode/s1.png", "img_size": [1920, 1080], "bbox": [100, 200, 180, 230],
         "instruction": "run the tests", "platform": "windows", "ui_type": "icon"}]))
    return root / "annotations"


def _envdistraction_file(root):
    make_image(root / "images" / "popupbox_2b" / "m1.png", size=(300, 200))
    path = root / "output_test.jsonl"
    path.write_text(json.dumps({"target": "popupbox_2b", "goal": "Read the news", "modified_file": "m1.html",
                                "label": {"gold": [["No thanks", [10, 10, 90, 40]]], "bad": []}}) + "\n")
    return path


def _mind2web_folder(root):
    make_image(root / "shots" / "a0.png", size=(1280, 900))
    (root / "tasks.json").write_text(json.dumps([
        {"annotation_id": "task-a", "confirmed_task": "Find a flight", "actions": [
            {"action_uid": "u1", "operation": {"op": "CLICK", "value": ""}, "screenshot": "shots/a0.png",
             "bbox": {"x": 100, "y": 300, "width": 200, "height": 40}}]}]))
    return root


def _androidcontrol_file(root):
    shots = [f"shots/{i}.png" for i in range(2)]
    for i, shot in enumerate(shots):
        make_image(root / shot, size=(1080, 2400), color=(i * 90, 40, 40))
    path = root / "episode_7.json"
    path.write_text(json.dumps({"episode_id": 7, "goal": "Go home", "step_instructions": ["go to the home screen"],
                                "screenshots": shots, "actions": [{"action_type": "navigate_home"}]}))
    return path


def _naviplus_file(root):
    make_image(root / "images" / "s0.png", size=(400, 300))
    path = root / "ambiguous.jsonl"  # not the name our export writes: the lines say what it is
    path.write_text(json.dumps({"episode": "shoes-0", "original_task": "Order the blue shoes in size 42",
                                "ambiguous_task": "Order the blue shoes", "steps": [{"image": "images/s0.png"}],
                                "qa_pairs": []}) + "\n")
    return path


SAMPLES = {
    "images folder": (_images_folder, "images"),
    "one screenshot": (_one_screenshot, "images"),
    "screenlab folder": (lambda root: demo_dataset_dir(), "screenlab"),
    "screenlab file": (lambda root: demo_dataset_dir() / "episodes.jsonl", "screenlab"),
    "screenspot file": (_screenspot_file, "screenspot"),
    "screenspot-pro annotations": (_screenspot_pro_folder, "screenspot"),
    "envdistraction file": (_envdistraction_file, "envdistraction"),
    "mind2web folder": (_mind2web_folder, "mind2web"),
    "androidcontrol file": (_androidcontrol_file, "androidcontrol"),
    "naviplus file": (_naviplus_file, "naviplus"),
    "unified-trajectory folder": (lambda root: judge_demo_dataset_dir(), "unified-trajectory"),
    "sphinx folder": (lambda root: sphinx_demo_dataset_dir(), "sphinx"),
}


def _dialog(qtbot, project, **kwargs) -> ImportDialog:
    dialog = ImportDialog(project, **kwargs)
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def _wait(qtbot, dialog, start) -> None:
    """Start an import (OK, or another button) and wait until it has finished or failed."""
    start()
    qtbot.waitUntil(dialog.buttons.button(QDialogButtonBox.Ok).isEnabled, timeout=60000)


def _episode_keys(project):
    with project.reading() as s:
        return sorted(e.key for e in s.exec(select(Episode)))


# -- the format proposed ------------------------------------------------------------------------------
@pytest.mark.parametrize("sample", SAMPLES)
def test_the_format_a_source_holds_is_selected_and_imports(qtbot, project, tmp_path, sample):
    build, expected = SAMPLES[sample]
    source = build(tmp_path / "data")
    dialog = _dialog(qtbot, project)

    dialog.source.setText(str(source))

    assert dialog.format.currentData() == expected
    assert dialog.format_hint.text() == "detected"
    _wait(qtbot, dialog, dialog.start)  # and that format reads it
    assert dialog.report is not None, dialog.result.text()
    assert dialog.report.episodes > 0


def test_a_typed_folder_of_screenshots_is_detected_as_images(qtbot, project, tmp_path):
    source = _images_folder(tmp_path / "phone shots")
    dialog = _dialog(qtbot, project)
    assert dialog.format.currentData() == DETECT  # as `screenlab import` without --format

    qtbot.keyClicks(dialog.source, str(source))  # each partial path on the way is looked at too

    assert dialog.format.currentData() == "images"
    assert dialog.format_hint.text() == "detected"


def test_a_source_it_cannot_tell_leaves_the_choice_to_the_user(qtbot, project, tmp_path):
    both = _images_folder(tmp_path / "both")
    _screenspot_file(both)  # screenshots beside a grounding file: an images import, or a ScreenSpot one
    dialog = _dialog(qtbot, project)
    dialog.source.setText(str(_images_folder(tmp_path / "shots")))
    assert dialog.format.currentData() == "images"

    dialog.source.setText(str(both))

    assert dialog.format.currentData() == DETECT  # not the guess about the last source
    assert dialog.format_hint.text() == CANNOT_TELL


def test_file_and_folder_can_be_browsed_whatever_the_format(qtbot, project, tmp_path, monkeypatch):
    folder = _images_folder(tmp_path / "shots")
    asked = []
    monkeypatch.setattr(QFileDialog, "getExistingDirectory",
                        lambda *args, **kwargs: asked.append("folder") or str(folder))
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        lambda *args, **kwargs: asked.append("file") or (str(demo_dataset_dir() / "episodes.jsonl"), ""))
    dialog = _dialog(qtbot, project)
    buttons = {b.text(): b for b in dialog.findChildren(QPushButton)}

    dialog.format.setCurrentIndex(dialog.format.findData("screenlab"))  # a format read from a file...
    buttons["Folder..."].click()  # ...and still a folder can be chosen
    assert asked == ["folder"] and dialog.source.text() == str(folder)
    assert dialog.format.currentData() == "images" and dialog.format_hint.text() == "detected"

    buttons["File..."].click()  # with "images" selected, a file can be chosen too
    assert asked == ["folder", "file"]
    assert dialog.format.currentData() == "screenlab" and dialog.format_hint.text() == "detected"


# -- a source it cannot tell, and the format remembered ------------------------------------------------
def test_a_source_of_unknown_shape_is_refused_as_the_command_line_refuses_it(qtbot, project, tmp_path, capsys):
    """Detection is the same in every door: the dialog does not read a JSON of unknown shape with the
    format used last; it says what `screenlab import` says, and imports nothing."""
    from desktop_app.cli.main import main

    mystery = tmp_path / "mystery.json"
    mystery.write_text(json.dumps({"rows": [{"picture": "a.png"}]}))
    dialog = _dialog(qtbot, project)
    dialog.source.setText(str(mystery))
    assert dialog.format.currentData() == DETECT and dialog.format_hint.text() == CANNOT_TELL
    dialog.start()
    shown = dialog.result.text()
    assert "cannot tell which format this holds" in shown and "screenspot" in shown and "steps" not in shown
    assert dialog.report is None and _episode_keys(project) == []
    assert main(["import", str(project.folder), str(mystery)]) == 2
    said = capsys.readouterr().err.strip()
    assert said.endswith(shown.split("cannot tell", 1)[1]), (said, shown)  # word for word


def test_the_format_used_last_is_listed_first_but_never_chosen_by_itself(qtbot, project, tmp_path, monkeypatch):
    monkeypatch.setenv("SCREENLAB_CONFIG_DIR", str(tmp_path / "config"))
    # a settings file from before the dialog remembered anything
    settings_path().write_text(json.dumps({"annotator": "Ada", "theme": "dark"}))
    first = _dialog(qtbot, project)  # no window: it reads the settings file
    assert first.format.currentData() == DETECT and first.format_hint.text() == ""

    first.source.setText(str(_screenspot_file(tmp_path / "ss")))
    _wait(qtbot, first, first.start)
    assert first.report is not None
    first.close()

    reopened = _dialog(qtbot, project, settings=load_settings())  # as a new session would
    assert reopened.format.currentData() == DETECT
    assert reopened.format.itemData(1) == "screenspot"  # one key away
    assert load_settings().annotator == "Ada"  # the rest of the file is kept
    reopened.source.setText(str(_images_folder(tmp_path / "shots")))
    assert reopened.format.currentData() == "images" and reopened.format_hint.text() == "detected"


def test_the_window_keeps_the_remembered_format_when_it_saves_its_settings(qtbot, demo_copy, tmp_path):
    window = open_window(qtbot, demo_copy)
    dialog = ImportDialog(window.project, window)  # as File > Import opens it
    qtbot.addWidget(dialog)
    dialog.source.setText(str(_images_folder(tmp_path / "shots")))
    _wait(qtbot, dialog, dialog.start)
    assert dialog.report is not None
    dialog.close()

    window.close()  # saves the window's settings

    assert load_settings().last_import_format == "images"


# -- unreadable screenshots ----------------------------------------------------------------------------
def _folder_with_three_bad_files(root):
    make_image(root / "shot1.png", color="red")
    make_image(root / "shot2.png", color="green")
    make_image(root / "whole.png", size=(300, 200), color=None)
    data = (root / "whole.png").read_bytes()
    (root / "whole.png").unlink()
    bad = [root / "cut.png", root / "notes.png", root / "old" / "empty.png"]
    bad[0].write_bytes(data[: len(data) // 2])
    bad[1].write_bytes(b"meeting notes saved as .png by mistake")
    bad[2].parent.mkdir()
    bad[2].write_bytes(b"")
    return root, bad


def test_a_refused_import_names_every_bad_file_and_offers_the_rest(qtbot, project, tmp_path):
    source, bad = _folder_with_three_bad_files(tmp_path / "ux" / "bad")
    before = snapshot(project)
    dialog = _dialog(qtbot, project)
    dialog.source.setText(str(source))
    assert dialog.format.currentData() == "images"
    assert not dialog.import_rest.isVisible()

    _wait(qtbot, dialog, dialog.start)

    shown = dialog.result.text() + dialog.details.toPlainText()
    assert "Nothing was changed" in shown and "3 image files cannot be imported" in shown
    for path in bad:
        assert str(path) in shown
    assert "object at 0x" not in shown and "BytesIO" not in shown
    assert snapshot(project) == before
    assert dialog.import_rest.isVisible() and dialog.import_rest.text() == "Import the 2 good files"

    _wait(qtbot, dialog, dialog.import_rest.click)

    assert dialog.report is not None and dialog.report.episodes == 2
    assert _episode_keys(project) == ["shot1.png", "shot2.png"]
    shown = dialog.result.text() + dialog.details.toPlainText()
    assert "skipped 3 images that cannot be read" in shown and all(str(p) in shown for p in bad)
    assert not dialog.import_rest.isVisible()


def test_the_offer_goes_away_when_the_source_changes(qtbot, project, tmp_path):
    source, _ = _folder_with_three_bad_files(tmp_path / "bad")
    dialog = _dialog(qtbot, project)
    dialog.source.setText(str(source))
    _wait(qtbot, dialog, dialog.start)
    assert dialog.import_rest.isVisible()

    dialog.source.setText(str(_images_folder(tmp_path / "other")))

    assert not dialog.import_rest.isVisible()  # it would import the other folder's files, unchecked


def test_a_box_past_the_picture_s_edge_is_refused_until_clipping_is_ticked(qtbot, project, tmp_path):
    make_image(tmp_path / "screenspot_imgs" / "mob.png", size=(400, 800))
    path = tmp_path / "screenspot_mobile.json"
    path.write_text(json.dumps([{"img_filename": "mob.png", "bbox": [350, 20, 100, 50], "instruction": "open menu",
                                 "data_type": "icon", "data_source": "android"}]))  # x 350 + width 100 > 400
    dialog = _dialog(qtbot, project)
    dialog.source.setText(str(path))
    before = snapshot(project)

    _wait(qtbot, dialog, dialog.start)
    assert dialog.report is None and "Clip boxes at the picture's edge" in dialog.result.text()
    assert snapshot(project) == before

    dialog.clip_boxes.setChecked(True)
    _wait(qtbot, dialog, dialog.start)
    assert dialog.report is not None and dialog.report.episodes == 1
    assert "clipped 1 boxes" in dialog.result.text() + dialog.details.toPlainText()


def test_other_shapes_and_new_labels_are_chosen_in_the_dialog_as_on_the_command_line(qtbot, project, tmp_path):
    """A LabelMe file with a polygon, whose label the project lacks: refused naming both choices; with
    'Take each as its bounding box' and 'Add the classes the file names', it imports and says what it did (the
    class as the file spells it: Icon)."""
    make_image(tmp_path / "shot.png", size=(200, 100))
    (tmp_path / "shot.json").write_text(json.dumps({
        "version": "5.7.0", "flags": {}, "imagePath": "shot.png", "imageData": None, "imageHeight": 100,
        "imageWidth": 200, "shapes": [{"label": "Icon", "points": [[10, 20], [60, 25], [30, 70]],
                                       "shape_type": "polygon", "group_id": None, "description": "", "flags": {}}]}))
    dialog = _dialog(qtbot, project)
    dialog.source.setText(str(tmp_path / "shot.json"))
    assert dialog.format.currentData() == "labelme"
    assert dialog.form.isRowVisible(dialog.shapes)  # LabelMe reads the choice; COCO, say, does not
    before = snapshot(project)

    _wait(qtbot, dialog, dialog.start)
    shown = dialog.result.text() + dialog.details.toPlainText()
    assert dialog.report is None and "a polygon" in shown and "'Other shapes'" in shown
    assert snapshot(project) == before

    dialog.shapes.setCurrentIndex(dialog.shapes.findData("bbox"))
    _wait(qtbot, dialog, dialog.start)
    shown = dialog.result.text() + dialog.details.toPlainText()
    assert dialog.report is None and "unknown class 'Icon' (1 box)" in shown
    assert "'Add the classes the file names'" in shown and dialog.add_labels.text() == "Add the classes the file names"

    dialog.add_labels.setChecked(True)
    _wait(qtbot, dialog, dialog.start)
    shown = dialog.result.text() + dialog.details.toPlainText()
    assert dialog.report is not None, shown
    assert "1 polygon taken as its bounding box" in shown and "classes added to the project: Icon" in shown

    dialog.source.setText(str(_coco_folder(tmp_path / "coco")))
    assert dialog.format.currentData() == "coco" and not dialog.form.isRowVisible(dialog.shapes)


def _coco_folder(root):
    make_image(root / "images" / "val" / "a.png")
    (root / "annotations").mkdir(parents=True)
    (root / "annotations" / "instances_val.json").write_text(json.dumps({
        "images": [{"id": 1, "file_name": "a.png", "width": 200, "height": 100}], "annotations": [],
        "categories": [{"id": 1, "name": "icon"}]}))
    return root
