"""Starting the app, multi-step episodes, and the help and settings dialogs."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from PIL import Image
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QDialogButtonBox

from desktop_app.formats.transfer import import_path
from desktop_app.settings import Settings, load_settings
from desktop_app.store.project import Project

from conftest import make_image
from test_gui_editing import open_window

pytestmark = pytest.mark.gui


def _screenlab(*args, env_dirs):
    """The timeout only catches a hang (a first start makes the demo project and reads a screen with OCR: one
    CI run on a loaded machine needed more than 120 s); start-up time is measured in benchmarks/cold_start.py."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", **env_dirs)
    return subprocess.run([sys.executable, "-m", "desktop_app", *args], capture_output=True, text=True,
                          env=env, timeout=300)


def test_bare_screenlab_opens_the_demo_project_from_the_user_data_folder(tmp_path):
    dirs = {"SCREENLAB_DATA_DIR": str(tmp_path / "data"), "SCREENLAB_CONFIG_DIR": str(tmp_path / "cfg"),
            "SCREENLAB_SMOKE_SCREENSHOT": str(tmp_path / "shot.png")}
    result = _screenlab("--smoke", env_dirs=dirs)
    assert result.returncode == 0, result.stderr
    assert "smoke: ok" in result.stdout and "demo-project" in result.stdout
    assert re.search(r"rapidocr read [1-9]\d* words", result.stdout)  # the models that ship, run fresh
    assert (tmp_path / "data" / "demo-project" / "screenlab.sqlite").is_file()
    assert Image.open(tmp_path / "shot.png").size[0] >= 1000
    # the app remembers the project it opened
    settings = json.loads((tmp_path / "cfg" / "settings.json").read_text())
    assert settings["last_project"].endswith("demo-project")


def test_screenlab_gui_opens_the_named_project(tmp_path):
    path = tmp_path / "mine"
    with Project.init(path) as project:
        make_image(tmp_path / "shots" / "one.png", size=(640, 400))
        import_path(project, tmp_path / "shots", "images")
    dirs = {"SCREENLAB_DATA_DIR": str(tmp_path / "data"), "SCREENLAB_CONFIG_DIR": str(tmp_path / "cfg"),
            "SCREENLAB_SMOKE_SCREENSHOT": str(tmp_path / "shot.png")}
    result = _screenlab("gui", str(path), "--smoke", env_dirs=dirs)
    # an image without boxes is a valid project, but the smoke check wants boxes drawn
    assert "project mine" in result.stdout and not (tmp_path / "data" / "demo-project").exists()


def test_filmstrip_walks_the_steps_of_a_multi_step_episode(qtbot, tmp_path):
    folder = tmp_path / "multi"
    steps = []
    for i, color in enumerate(("red", "green", "blue")):
        make_image(folder / "images" / f"s{i}.png", size=(400, 300), color=color)
        steps.append({"image": f"images/s{i}.png", "instruction": f"step {i}",
                      "actions": [{"box": [10 * i, 10, 10 * i + 50, 60], "label": "gold", "element_text": f"b{i}"}]})
    (folder / "episodes.jsonl").write_text(json.dumps({"id": "trip", "goal": "three screens", "steps": steps}) + "\n")
    with Project.init(tmp_path / "p") as project:
        import_path(project, folder, "screenlab")
    window = open_window(qtbot, tmp_path / "p")
    assert window.filmstrip.isVisible() and window.filmstrip.count() == 3
    assert not window.filmstrip.item(1).icon().isNull()  # thumbnails are drawn
    window.filmstrip.setCurrentRow(2)
    assert window.ws.step_index == 2
    assert [i.text for i in window.scene.items_by_id.values()] == ["b2"]
    window.go_step(-1)
    assert window.ws.step_index == 1 and window.filmstrip.currentRow() == 1


def test_shortcuts_dialog_lists_the_bindings_in_force(qapp):
    from desktop_app.ui.settings_dialog import ShortcutsDialog

    dialog = ShortcutsDialog({"label.gold": "G"})
    rows = {dialog.table.item(r, 1).text(): dialog.table.item(r, 2).text() for r in range(dialog.table.rowCount())}
    assert rows["Label gold"] == "G"
    assert rows["Redo"] == "Ctrl+Shift+Z  or  Ctrl+Y"
    assert rows["Draw a box (drag)"] == "W  or  R"


def test_settings_dialog_refuses_a_key_bound_twice_and_saves_choices(qapp, tmp_path):
    from desktop_app.ui.settings_dialog import SettingsDialog

    settings = Settings()
    dialog = SettingsDialog(settings)
    dialog.editors["label.gold"].setKeySequence(QKeySequence("D"))  # D already means "next screen"
    assert not dialog.buttons.button(QDialogButtonBox.Ok).isEnabled()
    assert "bound to 2 actions" in dialog.warning.text()
    dialog.editors["label.gold"].setKeySequence(QKeySequence("G"))
    assert dialog.buttons.button(QDialogButtonBox.Ok).isEnabled()
    dialog.annotator.setText("Ada")
    dialog.palette.setCurrentIndex(dialog.palette.findData("colorblind"))
    dialog.snap_on_draw.setChecked(True)
    dialog.llm.base_url.setText("http://localhost:8000/v1")
    dialog.llm.model.setText("writer")
    assert dialog.tabs.tabText(dialog.tabs.indexOf(dialog.llm)) == "LLM && browser"
    assert "unavailable" in dialog.ocr_engine.itemText(dialog.ocr_engine.findData("easyocr"))  # not installed here
    dialog.apply_to(settings)
    assert settings.snap_on_draw and settings.ocr_engine == "rapidocr"
    assert (settings.llm_base_url, settings.llm_model) == ("http://localhost:8000/v1", "writer")
    assert (settings.annotator, settings.palette, settings.shortcuts) == ("Ada", "colorblind", {"label.gold": "G"})


def test_settings_survive_a_damaged_file(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text("{not json")
    assert load_settings(path) == Settings()
    assert (tmp_path / "settings.json.damaged").exists()


def test_import_dialog_runs_off_the_ui_thread_and_reports(qtbot, tmp_path):
    from desktop_app.ui.transfer_dialogs import ImportDialog

    with Project.init(tmp_path / "p") as project:
        dialog = ImportDialog(project)
        qtbot.addWidget(dialog)
        dialog.format.setCurrentIndex(dialog.format.findData("images"))
        make_image(tmp_path / "shots" / "a.png")
        (tmp_path / "shots" / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n not really")
        dialog.source.setText(str(tmp_path / "shots"))
        dialog.start()
        qtbot.waitUntil(lambda: dialog.buttons.button(QDialogButtonBox.Ok).isEnabled(), timeout=10000)
        assert "Nothing was changed" in dialog.result.text() and "broken.png" in dialog.result.text()
        (tmp_path / "shots" / "broken.png").unlink()
        dialog.start()
        qtbot.waitUntil(lambda: dialog.report is not None, timeout=10000)
        assert "imported 1 episodes" in dialog.result.text()
