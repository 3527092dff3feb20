"""Per-box attributes (issue 21, item 18): free key-value pairs on a box, typed in the Properties panel,
undoable, searchable, exported, and reachable from the command line and the API."""

from __future__ import annotations

import json

import pytest
from PySide6.QtWidgets import QApplication

from desktop_app import api
from desktop_app.cli.main import main
from desktop_app.formats.transfer import export_path
from desktop_app.store.attributes import with_attributes

from gui_helpers import key
from test_gui_editing import open_window, stored


def test_names_and_values_are_checked():
    assert with_attributes({"point": True}, {"state": "disabled"}) == {"point": True,
                                                                      "attributes": {"state": "disabled"}}
    assert with_attributes({"attributes": {"state": "on"}}, {"state": ""}) == {}
    with pytest.raises(ValueError, match="attribute name ''"):
        with_attributes({}, {" ": "x"})
    with pytest.raises(ValueError, match="at most 2000"):
        with_attributes({}, {"note": "x" * 2001})


@pytest.mark.gui
def test_typed_in_the_properties_undone_found_and_exported(qtbot, demo_copy, tmp_path):
    window = open_window(qtbot, demo_copy)
    episode = window.ws.episode.key
    box_id = min(window.ws.boxes)
    window.scene.select_ids([box_id])
    QApplication.processEvents()
    table = window.properties.attributes
    assert table.isEnabled() and table.rowCount() == 1  # the empty row for a new attribute
    table.item(0, 0).setText("state")
    table.item(0, 1).setText("disabled")
    assert stored(demo_copy, episode)[box_id].meta["attributes"] == {"state": "disabled"}
    assert table.rowCount() == 2 and table.item(0, 0).text() == "state"

    # the search of the list finds it
    window.browser.search.setText("disabled")
    window.browser.apply_filter()
    assert window.browser.model.rowCount() == 1
    window.browser.search.clear()
    window.browser.apply_filter()

    # exported with the box, in our JSONL and in COCO
    with api.open_project(demo_copy) as project:
        export_path(project, tmp_path / "coco", "coco", api.where(ids=[window.ws.episode.id]))
    coco = json.loads((tmp_path / "coco" / "annotations" / "instances_default.json").read_text())
    assert any(a["attributes"].get("state") == "disabled" for a in coco["annotations"])

    key(window, "Ctrl+Z")
    assert "attributes" not in stored(demo_copy, episode)[box_id].meta
    window.close()


def test_the_command_line_and_the_api(demo_copy, capsys):
    with api.open_project(demo_copy) as project:
        box_id = 1  # the demo's first box
        api.set_box_attributes(project, box_id, {"variant": "dark", "size": "small"}, actor="ann")
    assert main(["box-attributes", str(demo_copy), str(box_id), "size=", "state=on"]) == 0
    assert json.loads(capsys.readouterr().out) == {"state": "on", "variant": "dark"}
    assert main(["box-attributes", str(demo_copy), "999999"]) == 2
    assert "no box 999999" in capsys.readouterr().err
    assert main(["box-attributes", str(demo_copy), str(box_id), "=x"]) == 2
