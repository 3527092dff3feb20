"""Leaving the window while work goes on: Ctrl+Q during a run asks first; "Keep working" leaves the run
running, "Stop and quit" stops it with its answers kept (the run ends cancelled, resumable)."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from desktop_app.agents.profiles import AgentProfile
from desktop_app.api import init_project
from desktop_app.formats.transfer import import_path
from desktop_app.paths import demo_dataset_dir
from desktop_app.runs.engine import RunRequest
from desktop_app.runs.state import RunState
from desktop_app.settings import Settings
from desktop_app.store import models as m
from desktop_app.ui.tasks import wait_all

from gui_helpers import key
from openai_server import FakeOpenAI, Response

pytestmark = pytest.mark.gui


def _slow(body, n) -> Response:
    return Response(text=json.dumps({"action_type": "click", "point": [10, 10]}), delay=0.3)


def _answer_the_question(with_button: str, asked: list) -> None:
    box = next((w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()), None)
    if box is None:  # not up yet
        QTimer.singleShot(50, lambda: _answer_the_question(with_button, asked))
        return
    asked.append(box.text())
    next(b for b in box.buttons() if b.text() == with_button).click()


def test_ctrl_q_during_a_run_asks_and_keeps_working_or_stops_it(qtbot, tmp_path):
    from desktop_app.ui.main_window import MainWindow

    with init_project(tmp_path / "p") as project:
        import_path(project, demo_dataset_dir(), "screenlab")
    window = MainWindow(Settings(annotator="ann", show_suggestions=False))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    assert window.open_project(tmp_path / "p")
    window.view.setFocus()
    with FakeOpenAI(_slow) as server:
        agent = AgentProfile(name="slowpoke", base_url=server.base_url, model="m", convention="point-px",
                             concurrency=1, max_retries=0, timeout_s=5)
        (run_id,) = window.runs.start_runs([RunRequest(agent)], "slow run")
        qtbot.waitUntil(lambda: len(server.requests) >= 4, timeout=10000)

        asked: list[str] = []
        try:
            QTimer.singleShot(0, lambda: _answer_the_question("Keep working", asked))
            key(window, "Ctrl+Q")
            assert asked and "still running" in asked[0] and "slow run" in asked[0], asked
            assert window.isVisible() and window.runs.running_ids() == [run_id]  # nothing stopped

            window.activateWindow()  # back from the question
            qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)
            QTimer.singleShot(0, lambda: _answer_the_question("Stop and quit", asked))
            key(window, "Ctrl+Q")
            assert not window.isVisible(), "still open"
            assert len(asked) == 2
        finally:  # a failed step must not leave the question up for the teardown's close
            if window.isVisible():
                window.runs.cancel(run_id)
                qtbot.waitUntil(lambda: not window.runs.running_ids(), timeout=10000)
    wait_all()
    with init_project.__globals__["Project"].open(tmp_path / "p") as again, again.reading() as s:
        run = s.get(m.Run, run_id)
        assert run.status == RunState.CANCELLED  # resumable; its answers so far are kept
        assert 1 <= s.query(m.Prediction).filter(m.Prediction.run_id == run_id).count() < 28
