"""The Runs menu (issue 33, item 8): Write report… writes what `screenlab report` writes (summary.md, tables,
plots) into a folder the user picks, off the UI thread, with progress and a "written to <folder>" message;
and the New run dialog opens with the agents, protocol and samples chosen the last time (kept in Settings)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtWidgets import QApplication, QDialogButtonBox

from desktop_app import api
from desktop_app.cli.main import main
from desktop_app.settings import Settings, load_settings
from desktop_app.store.project import Project
from desktop_app.ui.eval.run_dialog import RunDialog
from desktop_app.ui.tasks import wait_all

from gui_helpers import key
from test_gui_editing import open_window

pytestmark = pytest.mark.gui


@pytest.fixture(autouse=True)
def _background_calls_end():
    yield
    wait_all()


def choose_folder(window, folder) -> None:
    dialog = window.reports.dialog
    assert dialog is not None and dialog.isVisible()
    dialog.selectFile(str(folder))
    dialog.accept()
    window.activateWindow()  # back in the window, as after any dialog
    QApplication.processEvents()


def message(window) -> str:
    return window.statusBar().currentMessage()


def test_write_report_from_the_runs_menu_writes_what_the_cli_writes(qtbot, demo_copy, tmp_path):
    window = open_window(qtbot, demo_copy, Settings(annotator="ann", show_suggestions=False))
    runs_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Runs")
    report = next(a for a in runs_menu.actions() if a.text() == "Write report (plots and summary.md)…")
    assert report.isEnabled()
    (tmp_path / "none").mkdir()
    report.trigger()  # Runs > Write report…: no run yet, and it says so
    choose_folder(window, tmp_path / "none")
    qtbot.waitUntil(lambda: window.reports.task is None, timeout=30000)
    assert message(window) == "No report written: this project has no runs yet (start one with `screenlab run`)"

    with Project.open(demo_copy) as project:  # two baselines ran (here by the API: any door stores the same runs)
        api.run(project, "center")
        api.run(project, "random")
    out = tmp_path / "from the window"
    out.mkdir()
    said, bar = [], []  # what the status bar says while it writes
    window.statusBar().messageChanged.connect(said.append)
    window.reports.progress.valueChanged.connect(lambda v: bar.append((v, window.reports.progress.maximum())))
    report.trigger()
    choose_folder(window, out)
    assert window.reports.task is not None and window.reports.progress.isVisible()
    key(window, "D")  # the window answers while the report is being written: the next screen
    qtbot.waitUntil(lambda: window.reports.task is None, timeout=60000)
    assert message(window) == f"Report written to {out} ({len(list(out.iterdir()))} files, summary.md first)"
    assert not window.reports.progress.isVisible()
    assert window.browser.current_row() == 1
    steps = [m for m in said if m.startswith("Writing the report: ")]
    total = bar[-1][1]
    assert f"Writing the report: summary.md (0/{total})…" in steps and total >= 5
    assert f"Writing the report: plot_overall.png (2/{total})…" in steps
    assert bar[-1] == (total, total)

    cli = tmp_path / "from the cli"
    assert main(["report", str(demo_copy), "--out", str(cli)]) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in cli.iterdir())
    assert {"summary.md", "plot_overall.png", "table_by_scenario.csv"} <= {p.name for p in out.iterdir()}
    for name in ("summary.md", "table_by_scenario.md", "plot_overall.png"):
        assert (out / name).read_bytes() == (cli / name).read_bytes(), name


def run_dialog_shown(qtbot, open_it, handle) -> None:
    """Open the modal New run dialog with `open_it`, and act in it with handle(dialog) as a user would."""
    failed = []

    def act() -> None:
        dialog = QApplication.activeModalWidget()
        try:
            assert isinstance(dialog, RunDialog)
            handle(dialog)
        except BaseException as exc:  # never leave a modal dialog open: the test would hang
            failed.append(exc)
        if dialog is not None and dialog.isVisible():
            dialog.reject()

    QTimer.singleShot(0, act)
    open_it()
    if failed:
        raise failed[0]


def click_radio(qtbot, button) -> None:
    """On its circle (the button is as wide as its column; a click beyond its text does nothing)."""
    qtbot.mouseClick(button, Qt.LeftButton, pos=QPoint(8, button.height() // 2))
    assert button.isChecked()


def tick_agent(dialog: RunDialog, name: str) -> None:
    names = [dialog.agent_list.item(i).data(Qt.UserRole) for i in range(dialog.agent_list.count())]
    dialog.agent_list.setCurrentRow(names.index(name))
    key(dialog.agent_list, "Space")


def test_the_new_run_dialog_offers_the_last_agents_protocol_and_samples_again(qtbot, demo_copy):
    window = open_window(qtbot, demo_copy, Settings(annotator="ann", show_suggestions=False))
    window.left_tabs.setCurrentWidget(window.runs)

    def first(dialog: RunDialog) -> None:
        assert dialog.checked_agent_names() == [] and dialog.protocol_choice() is None
        assert dialog.source() == "ids"  # the screen shown
        tick_agent(dialog, "center")
        click_radio(qtbot, dialog.protocol_buttons["screen"])
        click_radio(qtbot, dialog.source_buttons["all"])
        dialog.status_combo.setFocus()
        key(dialog.status_combo, "Down")  # "Accepted only"
        assert dialog.checked_agent_names() == ["center"] and dialog.status_combo.currentData() == "accepted"
        qtbot.waitUntil(lambda: dialog.counted, timeout=10000)
        qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.Ok), Qt.LeftButton)  # Start

    run_dialog_shown(qtbot, lambda: qtbot.mouseClick(window.runs.new_button, Qt.LeftButton), first)
    qtbot.waitUntil(lambda: not window.runs.running_ids(), timeout=60000)
    assert [r.agent for r in window.runs.run_rows()] == ["center"]
    kept = load_settings().new_run
    assert (kept["agents"], kept["protocol"], kept["source"], kept["statuses"]) == (["center"], "screen", "all",
                                                                                      "accepted")

    def again(dialog: RunDialog) -> None:
        assert dialog.checked_agent_names() == ["center"] and dialog.protocol_choice() == "screen"
        assert dialog.source() == "all" and dialog.status_combo.currentData() == "accepted"
        qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.Cancel), Qt.LeftButton)

    window.close_project()  # another time, by the Runs menu: the same choices
    assert window.open_project(demo_copy)
    run_dialog_shown(qtbot, window.menu_actions["new_run"].trigger, again)
    assert len(window.runs.run_rows()) == 1  # cancelled: nothing started
