"""Verifying grounding tasks in the window: the queue shows the model's text, E edits it, A accepts
(recorded as edited when the text or box changed, read from the store), R rejects with a reason."""

from __future__ import annotations

import json

from PySide6.QtWidgets import QApplication

from desktop_app import api
from desktop_app.formats.transfer import import_path
from desktop_app.paths import sphinx_demo_dataset_dir
from desktop_app.store import models as m
from desktop_app.store.orm import select
from desktop_app.store.project import Project
from desktop_app.synth.llm import LlmEndpoint
from desktop_app.ui.grounding_review import GroundingReviewPanel

from gui_helpers import key
from openai_server import FakeOpenAI, Response
from test_gui_editing import open_window


def written_project(tmp_path, monkeypatch):
    monkeypatch.setenv("SCREENLAB_TEST_KEY", "sk-test")
    path = tmp_path / "p"
    with Project.init(path) as project:
        import_path(project, sphinx_demo_dataset_dir(), "sphinx")
        api.extract_grounding_tasks(project)
        with FakeOpenAI(lambda body, n: Response(text=json.dumps(
                {"marked_element": "x", "instruction": f"Tap item {n}."}))) as server:
            report = api.write_grounding_instructions(
                project, LlmEndpoint(server.base_url, "writer", api_key_env="SCREENLAB_TEST_KEY"), limit=3)
        assert report.written == 3
    return path


def status_of(window, key_: str) -> str:
    with window.project.reading() as s:
        return s.exec(select(m.Episode).where(m.Episode.key == key_)).one().review_status


def test_the_grounding_queue_by_keys(qtbot, tmp_path, monkeypatch):
    window = open_window(qtbot, written_project(tmp_path, monkeypatch))
    window.browser.scenario.setCurrentIndex(window.browser.scenario.findData("grounding"))
    key(window, "Ctrl+Shift+V")  # Review > Verification queue: pending tasks only
    QApplication.processEvents()
    panel = window.review
    assert isinstance(panel, GroundingReviewPanel) and window._review_stack.currentWidget() is panel
    first = window.ws.episode.key
    assert panel.written.text().startswith("Tap item") and panel.instruction.text() == panel.written.text()
    assert "written by the model: kept 0" in panel.progress.text()

    key(window, "Y")  # as written
    assert status_of(window, first) == "accepted"
    second = window.ws.episode.key
    assert second != first
    key(window, "E")  # edit the instruction, save, accept
    assert panel.instruction.hasFocus()
    panel.instruction.setText("Tap the blue colour swatch.")
    key(panel.instruction, "Return")
    assert window.ws.episode.goal == "Tap the blue colour swatch."
    key(window, "Y")
    assert status_of(window, second) == "edited"
    third = window.ws.episode.key
    panel.reject_current("unclear screenshot")
    assert status_of(window, third) == "rejected"
    assert "kept 2 (revised 1), removed 1" in panel.progress.text()
