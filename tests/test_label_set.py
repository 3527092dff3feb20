"""A project's own labels (issue 21, item 18): added and removed with the rules that keep data whole,
usable in edits, exported as COCO categories, and scored as "other" by every protocol."""

from __future__ import annotations

import json

import pytest
from sqlmodel import select

from desktop_app import api
from desktop_app.cli.main import main
from desktop_app.evaluation.rules.base import target_of
from desktop_app.formats.transfer import export_path, import_path
from desktop_app.store import edits
from desktop_app.store import models as m
from desktop_app.store.label_set import LabelError

from conftest import make_image


def test_own_labels_are_added_used_exported_and_scored_as_other(any_project, tmp_path):
    make_image(tmp_path / "shots" / "a.png", size=(300, 200))
    import_path(any_project, tmp_path / "shots", "images")
    with any_project.reading() as s:
        step = s.exec(select(m.Step)).first()
    with pytest.raises(ValueError, match=r"unknown label 'ad' \(this project's labels: gold, distracted, other\)"):
        edits.create_boxes(any_project, step.id, [{"x1": 1, "y1": 1, "x2": 50, "y2": 40, "label": "ad"}])

    assert api.add_label(any_project, "Ad") == ("gold", "distracted", "other", "ad")
    (box,) = edits.create_boxes(any_project, step.id, [{"x1": 1, "y1": 1, "x2": 50, "y2": 40, "label": "ad"}])
    assert box.label == "ad" and target_of(box).label == "other"  # what a verdict on it would say

    with pytest.raises(LabelError, match="exists already"):
        api.add_label(any_project, "ad")
    with pytest.raises(LabelError, match="1-16 lowercase"):
        api.add_label(any_project, "no spaces please")
    with pytest.raises(LabelError, match="1 box use 'ad'; relabel them first"):
        api.remove_label(any_project, "ad")
    with pytest.raises(LabelError, match="cannot be removed"):
        api.remove_label(any_project, "other")

    export_path(any_project, tmp_path / "coco", "coco")
    coco = json.loads((tmp_path / "coco" / "annotations.json").read_text())
    assert [c["name"] for c in coco["categories"]] == ["gold", "distracted", "other", "ad"]
    assert coco["annotations"][0]["category_id"] == 4

    edits.update_boxes(any_project, [(box.id, {"label": "other"})])
    assert api.remove_label(any_project, "ad") == ("gold", "distracted", "other")


def test_the_command_line(project, capsys):
    where = str(project.folder)
    assert main(["labels", where, "--add", "ad", "--add", "login-wall"]) == 0
    assert capsys.readouterr().out.strip() == "gold distracted other ad login-wall"
    assert main(["labels", where, "--remove", "gold"]) == 2
    assert "cannot be removed" in capsys.readouterr().err
    assert main(["labels", where, "--remove", "ad"]) == 0
    assert capsys.readouterr().out.strip() == "gold distracted other login-wall"


@pytest.mark.gui
def test_the_window_adds_a_label_and_key_4_applies_it(qtbot, demo_copy):

    from desktop_app.ui.labels_dialog import LabelsDialog
    from desktop_app.ui.palette import EXTRA_COLOURS

    from gui_helpers import click, key
    from test_gui_editing import open_window, stored

    window = open_window(qtbot, demo_copy)
    window.labels_dialog()
    dialog = window.findChild(LabelsDialog)
    dialog.name.setText("ad")
    dialog.add()
    assert dialog.list.count() == 4 and "ad" in dialog.list.item(3).text()
    dialog.name.setText("gold")
    dialog.add()
    assert "exists already" in dialog.error.text()
    dialog.close()
    window.activateWindow()  # the window manager gives the window back its keys
    assert window.properties.label.findData("ad") == 3

    box_id = min(window.ws.boxes)
    rect = window.scene.items_by_id[box_id].rect()
    window.view.setFocus()
    click(window.view, rect.center().x(), rect.center().y())  # select it on the canvas, as a user does
    assert window.scene.selected_ids() == [box_id]
    key(window, "4")
    assert stored(demo_copy, window.ws.episode.key)[box_id].label == "ad"
    assert window.properties.label.currentData() == "ad"
    assert window.scene.style.colors["ad"].name().lower() == EXTRA_COLOURS[0].lower()
    window.grab()  # paints the box in its own colour, with its caption, without a missing pen
    key(window, "5")
    assert "no label no. 5" in window.statusBar().currentMessage()
    window.close()
