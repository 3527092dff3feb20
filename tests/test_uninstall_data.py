"""Removing a user's ScreenLab data (issue 38) from the three doors: `screenlab uninstall-data`, api.uninstall_data
and Help > About's "Remove my data…". Settings, caches and logs go; projects only when asked; never a folder
that holds the home folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from desktop_app import api
from desktop_app.cli.main import main
from desktop_app.paths import user_dir_locations
from desktop_app.settings import Settings, save_settings
from desktop_app.store.project import Project


def _a_used_install() -> dict[str, Path]:
    """What a user's first weeks leave: settings, a project in the data folder, the unpacked driver, a crash log."""
    where = user_dir_locations()
    save_settings(Settings(annotator="ann"))
    Project.init(where["projects"] / "demo-project").close()
    node = where["cache"] / "node-1.65-31000000" / "node"
    node.parent.mkdir(parents=True)
    node.write_bytes(b"\0" * 4096)
    where["logs"].mkdir(parents=True, exist_ok=True)
    (where["logs"] / "crash-20261124-1-1.log").write_text("a crash")
    return where


def test_the_command_lists_first_removes_nothing_unasked_and_keeps_projects(capsys):
    where = _a_used_install()
    assert main(["uninstall-data", "--dry-run"]) == 0
    listed = capsys.readouterr().out
    for kind in ("settings", "cache", "logs"):
        assert f"{kind} " in listed and str(where[kind]) in listed
    assert "kept      1 project(s)" in listed and "--projects" in listed
    assert main(["uninstall-data"]) == 1  # no terminal to answer and no --yes: nothing happens
    assert "add --yes" in capsys.readouterr().err
    assert all(path.exists() for path in where.values())

    assert main(["uninstall-data", "--yes"]) == 0
    assert "removed 3 item(s)" in capsys.readouterr().out
    assert not where["settings"].exists() and not where["cache"].exists() and not where["logs"].exists()
    assert (where["projects"] / "demo-project" / "screenlab.sqlite").is_file()

    assert main(["uninstall-data", "--yes", "--projects"]) == 0
    assert "demo-project" in capsys.readouterr().out
    assert not where["projects"].exists()
    assert main(["uninstall-data", "--yes"]) == 0
    assert "nothing to remove" in capsys.readouterr().out


def test_settings_sharing_the_projects_folder_go_file_by_file(monkeypatch, capsys):
    """Windows keeps settings and projects both in %LOCALAPPDATA%\\ScreenLab: keeping the projects keeps it."""
    monkeypatch.setenv("SCREENLAB_CONFIG_DIR", os.environ["SCREENLAB_DATA_DIR"])
    where = _a_used_install()
    (where["projects"] / "agents.json").write_text("[]")
    assert main(["uninstall-data", "--yes"]) == 0
    assert not (where["projects"] / "settings.json").exists() and not (where["projects"] / "agents.json").exists()
    assert (where["projects"] / "demo-project" / "screenlab.sqlite").is_file()


def test_a_data_folder_set_to_the_home_folder_is_never_removed(monkeypatch, tmp_path, capsys):
    home = tmp_path / "home"
    (home / "Documents").mkdir(parents=True)
    (home / "Documents" / "thesis.tex").write_text("years of work")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("SCREENLAB_DATA_DIR", str(home))
    assert main(["uninstall-data", "--yes", "--projects"]) == 0
    assert (home / "Documents" / "thesis.tex").read_text() == "years of work"


def test_the_api_plans_and_removes_the_same(capsys):
    where = _a_used_install()
    assert api.user_folders() == where
    plan = api.uninstall_data(dry_run=True)
    assert {item.kind for item in plan.items} == {"settings", "cache", "logs"}
    assert [p.name for p in plan.projects] == ["demo-project"] and where["settings"].exists()
    report = api.uninstall_data(projects=True)
    assert not report.failed and {item.kind for item in report.removed} == {"settings", "cache", "logs", "projects"}
    assert not any(path.exists() for path in where.values())


@pytest.mark.gui
def test_about_shows_the_version_and_folders_opens_them_and_removes_the_data(qtbot, demo_copy):
    from PySide6.QtCore import QObject, QTimer, Slot
    from PySide6.QtGui import QDesktopServices
    from PySide6.QtWidgets import QApplication, QMessageBox

    from desktop_app import __version__
    from desktop_app.ui.about_dialog import AboutDialog

    from test_gui_editing import open_window

    where = _a_used_install()
    window = open_window(qtbot, demo_copy, Settings(annotator="ann", show_suggestions=False))

    class Opened(QObject):  # what the system's file manager would be asked to open
        urls: list[str] = []

        @Slot("QUrl")
        def open(self, url) -> None:
            self.urls.append(url.toLocalFile())

    opened = Opened()
    QDesktopServices.setUrlHandler("file", opened, "open")
    steps = []

    def in_about() -> None:
        about = QApplication.activeModalWidget()
        steps.append(about)
        if not isinstance(about, AboutDialog):
            return
        text = " ".join(label.text() for label in about.findChildren(type(about.paths["cache"])))
        assert f"ScreenLab {__version__}" in text
        for kind in ("projects", "settings", "cache", "logs"):
            assert about.paths[kind].text() == str(where[kind])
        about.open_buttons["logs"].click()
        QTimer.singleShot(50, confirm)
        about.remove_button.click()

    def confirm() -> None:
        box = QApplication.activeModalWidget()
        steps.append(box)
        assert isinstance(box, QMessageBox) and str(where["cache"]) in box.text()
        assert box.checkBox().isEnabled() and "1 project(s)" in box.checkBox().text()
        box.checkBox().setChecked(True)
        box.button(QMessageBox.Yes).click()

    try:
        QTimer.singleShot(50, in_about)
        help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
        next(a for a in help_menu.actions() if a.text() == "About ScreenLab").trigger()
        qtbot.waitUntil(lambda: window.data_removed is not None, timeout=5000)
    finally:
        QDesktopServices.unsetUrlHandler("file")
    assert isinstance(steps[0], AboutDialog) and isinstance(steps[1], QMessageBox)
    assert opened.urls == [str(where["logs"])]
    assert not window.isVisible() and not window.data_removed.failed
    assert not any(path.exists() for path in where.values())  # the settings the closing window saved too
    assert (demo_copy / "screenlab.sqlite").is_file()  # a project outside the data folder: the user's own
