"""The knowledge-probe editor: write a probe, edit its key (undoable), verify by keys; the store agrees."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from desktop_app import api
from desktop_app.formats.transfer import import_path
from desktop_app.paths import sphinx_demo_dataset_dir
from desktop_app.store.project import Project

from gui_helpers import key
from test_gui_editing import open_window


def test_probes_are_written_edited_undone_and_verified(qtbot, tmp_path):
    path = tmp_path / "p"
    with Project.init(path) as project:
        import_path(project, sphinx_demo_dataset_dir(), "sphinx")
    window = open_window(qtbot, path)
    window.probes_action.trigger()  # Capability > Knowledge probes…
    editor = window.probe_editor
    qtbot.waitExposed(editor)
    editor.activateWindow()  # keys go to the editor's window, as when a user clicks into it
    qtbot.waitUntil(lambda: QApplication.activeWindow() is editor, timeout=3000)
    assert editor.list.count() == 6 and "6 probes (3 about the goal, 3 about the app)" in editor.status.text()

    key(editor, "Alt+N")  # a new probe, typed in
    editor.question.setPlainText("Which tab lists the alarms you set?")
    for letter, text in zip("ABCD", ("Alarm", "Timer", "Stopwatch", "Bedtime"), strict=True):
        editor.options[letter].setText(text)
    editor.level.setCurrentIndex(editor.level.findData("app"))
    editor.apps.setText("Clock")
    key(editor, "Ctrl+S")
    assert editor.list.count() == 7
    with Project.open(path) as project:
        new = next(p for p in api.probes(project) if p.question.startswith("Which tab"))
    assert (new.answer, new.level, new.apps, new.status) == ("A", "app", ["Clock"], "pending")

    editor.answer.setCurrentText("C")  # a wrong key, saved, then undone
    key(editor, "Ctrl+S")
    with Project.open(path) as project:
        assert next(p for p in api.probes(project) if p.episode_id == new.episode_id).answer == "C"
    key(editor, "Ctrl+Z")
    QApplication.processEvents()
    assert editor.answer.currentText() == "A"
    key(editor, "Ctrl+Return")  # accept: it was edited after it was added
    editor.reject_probe("")  # a rejection without a reason is refused
    assert "needs a reason" in editor.status.text()
    with Project.open(path) as project:
        status = {p.episode_id: p.status for p in api.probes(project)}
    assert status[new.episode_id] == "edited"

    editor.options["B"].setText("")  # an empty option is not saved, and says why
    key(editor, "Ctrl+S")
    assert "none empty" in editor.status.text()
    editor.close()
