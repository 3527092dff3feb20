"""Getting started in the window (issue 21, item 11): a new project in a folder typed by name, an empty
project that says how to fill it, and no figures left over from the project before."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from desktop_app.store.project import is_project_folder

from test_gui_editing import open_window

pytestmark = pytest.mark.gui


def test_a_new_project_in_a_typed_folder_that_says_how_to_fill_it(qtbot, demo_copy, tmp_path):
    window = open_window(qtbot, demo_copy)
    window.ocr.status.emit("OCR: rapidocr, 31 words, 4 elements (812 ms)")  # figures about a demo screen
    window.new_project()
    dialog = window.new_project_dialog
    assert dialog.isVisible()
    target = tmp_path / "march"  # typed: no such folder yet
    dialog.selectFile(str(target))
    dialog.accept()
    QApplication.processEvents()
    assert is_project_folder(target) and window.project.folder == target
    assert window.ocr_label.text() == ""
    assert window.browser.model.rowCount() == 0
    hint = window.scene.background.reason
    assert "This project is empty" in hint and "File > Import" in hint and "Ctrl+I" in hint
    # a filter that selects nothing is not an empty project
    window.browser.search.setText("no such goal")
    window.browser.apply_filter()
    window.ws.load_episode(None)
    assert window.scene.background.reason == "No sample matches the list's filter"
    window.close()


def test_a_folder_that_is_not_empty_is_refused_by_name(qtbot, demo_copy, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    said = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text: said.append(text))
    window = open_window(qtbot, demo_copy)
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    window.create_project(str(tmp_path / "busy"))
    assert said and "is not an empty folder" in said[0] and str(tmp_path / "busy") in said[0]
    assert window.project.folder == demo_copy and not is_project_folder(tmp_path / "busy")
    window.close()
