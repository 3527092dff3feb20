"""The Recorded task tab: a task's evaluators checked on its reference, edited (checked before saving,
undoable), and a step's completion label overridden and undone."""

from __future__ import annotations

import json

from PySide6.QtWidgets import QApplication

from desktop_app.formats.transfer import import_path
from desktop_app.paths import sphinx_demo_dataset_dir
from desktop_app.store import models as m
from desktop_app.store.orm import select
from desktop_app.store.project import Project

from gui_helpers import key
from test_gui_a11y import show_episode
from test_gui_editing import open_window


def test_evaluators_are_checked_edited_and_undone_and_completion_overridden(qtbot, tmp_path):
    path = tmp_path / "p"
    with Project.init(path) as project:
        import_path(project, sphinx_demo_dataset_dir(), "sphinx")
    window = open_window(qtbot, path)
    show_episode(window, "sphinx-1-stride")
    panel = window.task_panel
    window.right_tabs.setCurrentWidget(panel)
    assert "passes all 4 evaluators" in panel.summary.text() and panel.checks.count() == 4
    assert all(panel.checks.item(i).text().startswith("✓") for i in range(4))

    original = json.loads(panel.editor.toPlainText())
    panel.editor.setPlainText(json.dumps([{"type": "findtext"}]))
    panel.check_button.click()
    assert "unknown" in panel.verdict.text() and "[0].type" in panel.verdict.text()
    panel.editor.setPlainText("[{")
    panel.save_button.click()
    assert "Not JSON" in panel.verdict.text()

    # an evaluator the reference fails: said before and after saving
    failing = original + [{"type": "lastaction", "check_type": "equal", "check_rules": {"text": "Cancel"}}]
    panel.editor.setPlainText(json.dumps(failing))
    panel.save_button.click()
    assert "fails 1 of 5" in panel.summary.text() and panel.checks.item(4).text().startswith("✗")
    with window.project.reading() as s:
        stored = s.exec(select(m.Episode).where(m.Episode.key == "sphinx-1-stride")).one()
    assert len(stored.meta["capability"]["evaluators"]) == 5
    key(window, "Ctrl+Z")
    QApplication.processEvents()
    assert "passes all 4" in panel.summary.text()
    assert json.loads(panel.editor.toPlainText()) == original

    # unsaved typing survives a look at another step of the task
    panel.editor.setPlainText("[]  ")
    window.ws.load_step(2)
    QApplication.processEvents()
    assert panel.editor.toPlainText() == "[]  "
    window.ws.load_step(0)
    panel.revert_button.click()
    assert json.loads(panel.editor.toPlainText()) == original

    # completion: the first step is derived "continue"; the annotator says stop, then undoes it
    assert panel.completion.currentData() == "continue" and "derived" in panel.completion_note.text()
    panel.completion.setCurrentIndex(panel.completion.findData("stop"))
    panel.completion.activated.emit(panel.completion.currentIndex())
    assert "set by hand" in panel.completion_note.text()
    with window.project.reading() as s:
        step = s.exec(select(m.Step).where(m.Step.id == window.ws.step.id)).one()
    assert step.meta["completion"] == "stop"
    key(window, "Ctrl+Z")
    QApplication.processEvents()
    with window.project.reading() as s:
        step = s.exec(select(m.Step).where(m.Step.id == window.ws.step.id)).one()
    assert step.meta["completion"] == "continue" and panel.completion.currentData() == "continue"

    show_episode(window, "sphinx-grounding-1")  # not a recorded task
    assert panel.empty.isVisible() or not panel.summary.isVisible()


def test_what_the_agent_reads_in_each_mode(qtbot, tmp_path):
    path = tmp_path / "p"
    with Project.init(path) as project:
        import_path(project, sphinx_demo_dataset_dir(), "sphinx")
    window = open_window(qtbot, path)
    show_episode(window, "sphinx-4-pocketly")
    window.ws.load_step(1)
    window.observe_action.trigger()  # Capability > What the agent reads…
    view = window.observation_view
    assert "[3] LinearLayout id contact" in view.text.toPlainText() and view.text.isVisibleTo(view)
    view.mode.setCurrentIndex(view.mode.findData("list"))
    assert view.text.toPlainText().startswith("[0] ")
    view.mode.setCurrentIndex(view.mode.findData("marks"))
    assert view.scroll.isVisibleTo(view) and not view.picture.pixmap().isNull()
    view.close()
