"""File > Record a task…: where the task starts (a flow site, a URL or a saved page), its goal, Record; and
Replay and check on a recorded episode. Only wiring over api.record / api.replay (desktop_app/record/).

A recording runs headed Chromium off the UI thread; the browser window is its progress (the person acts
there until the page bar's Stop or the window closes), so the Task shows no wait of its own. Closing this
dialog while recording asks the recorder to stop too: what was recorded so far is kept."""

from __future__ import annotations

import threading

from PySide6.QtCore import Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
)

from desktop_app import api
from desktop_app.ui.tasks import Task, run_in_background

NO_SCREEN = ("Recording needs a screen: there is no display here (DISPLAY and WAYLAND_DISPLAY are unset). "
             "Record from a script instead: api.record(project, start, goal, actions=[...]).")
RECORDING = "Recording in the browser window: act, then press Stop in the page's bar or close the window."


def _on_its_own_driver(work):
    """`work()` on a worker thread that browses once: its Playwright driver (a Node.js process, one per
    thread) stops with it rather than lasting until the program exits."""
    from desktop_app.render.renderer import stop_driver

    def run():
        try:
            return work()
        finally:
            stop_driver()

    return run


class RecordTaskDialog(QDialog):
    recorded = Signal(int)  # the new episode's id (the window selects it in the sample list)
    replayed = Signal(object)  # the ReplayReport shown, or None when the replay failed (tests wait on it)

    def __init__(self, project, episode_id: int | None = None, browser_path: str = "", parent=None):
        super().__init__(parent)
        self.setWindowTitle("Record a task")
        self.project = project
        self.episode_id = episode_id  # what Replay and check replays: the one recorded here, else the list's
        self.browser_path = browser_path
        self.report = None
        self._stop = threading.Event()
        self._task: Task | None = None

        self.start = QComboBox()
        self.start.setEditable(True)  # a flow site from the list, or a URL / saved page typed in
        self.start.addItems([f"flow:{name}" for name in api.flow_sites()])
        self.start.lineEdit().setPlaceholderText("flow:NAME, https://…, or a saved page (.html or its folder)")
        self.start.setToolTip("Where the task starts: a flow site, a web address, or a page saved on disk")
        browse = QPushButton("Saved page…")
        browse.clicked.connect(self._choose_page)
        start_row = QHBoxLayout()
        start_row.addWidget(self.start, 1)
        start_row.addWidget(browse)
        self.goal = QLineEdit()
        self.goal.setPlaceholderText("What the task does, e.g. Sign in and save the profile")
        form = QFormLayout()
        form.addRow("Start", start_row)
        form.addRow("Goal", self.goal)

        self.state = QLabel("" if api.can_record_headed() else NO_SCREEN)
        self.state.setWordWrap(True)
        self.episode_label = QLabel()
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.FixedFont))
        self.text.setMinimumSize(480, 120)
        self.buttons = QDialogButtonBox(QDialogButtonBox.Close)
        self.record_button = QPushButton("Record")
        self.record_button.setToolTip("Open a browser window on the start and record what you do there")
        self.replay_button = QPushButton("Replay and check")
        self.replay_button.setToolTip("Replay the recorded episode in the browser: which steps no longer match, "
                                      "and whether its evaluator passes")
        self.buttons.addButton(self.record_button, QDialogButtonBox.ActionRole)
        self.buttons.addButton(self.replay_button, QDialogButtonBox.ActionRole)
        self.buttons.rejected.connect(self.reject)
        self.record_button.clicked.connect(self.record)
        self.replay_button.clicked.connect(self.replay)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        for widget in (self.state, self.episode_label, self.text, self.buttons):
            layout.addWidget(widget)
        self._show_episode()

    def _show_episode(self) -> None:
        self.replay_button.setEnabled(self.episode_id is not None and self._task is None)
        self.episode_label.setText(f"Replay and check acts on episode {self.episode_id}."
                                   if self.episode_id is not None else "No episode chosen to replay.")

    def _choose_page(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "A saved page", "", "Web pages (*.html *.htm *.html.j2)")
        if path:
            self.start.setCurrentText(path)

    def _busy(self, on: bool) -> None:
        self.record_button.setEnabled(not on)
        self.replay_button.setEnabled(not on and self.episode_id is not None)

    # recording -------------------------------------------------------------------------------------------
    def record(self) -> None:
        if not api.can_record_headed():
            self.state.setText(NO_SCREEN)
            return
        project, start, goal = self.project, self.start.currentText().strip(), self.goal.text()
        browser_path, stop = self.browser_path, self._stop
        stop.clear()
        self.state.setText(RECORDING)
        self._busy(True)
        work = _on_its_own_driver(lambda: api.record(project, start, goal, headed=True, browser_path=browser_path,
                                                     should_stop=stop.is_set))
        task = Task(lambda _progress: work(), self, name="record", wait=None)  # the browser window is the progress
        task.finished.connect(self._recorded)
        task.failed.connect(self._failed)
        self._task = task
        task.start()

    def _recorded(self, episode_id: int) -> None:
        self._task = None
        self.episode_id = episode_id
        self.state.setText(f"Recorded episode {episode_id}.")
        self._busy(False)
        self._show_episode()
        self.recorded.emit(episode_id)
        self._free_when_closed()

    def _failed(self, exc: Exception) -> None:
        self._task = None
        self.state.setText(f"The recording could not finish: {exc}")
        self._busy(False)
        self._free_when_closed()

    def done(self, result: int) -> None:
        self._stop.set()  # closing the dialog ends a recording under way (what it holds is kept)
        super().done(result)
        self._free_when_closed()

    def _free_when_closed(self) -> None:
        # Not WA_DeleteOnClose: a recording stopped by closing still ends here, and the window still
        # selects the episode it stored; the dialog goes once it is closed and nothing is under way.
        if self._task is None and not self.isVisible():
            self.deleteLater()

    # replaying -------------------------------------------------------------------------------------------
    def replay(self) -> None:
        project, episode_id, browser_path = self.project, self.episode_id, self.browser_path
        self.state.setText(f"Replaying episode {episode_id} in a browser…")
        self._busy(True)
        run_in_background(self, _on_its_own_driver(lambda: api.replay(project, episode_id, browser_path=browser_path)),
                          self._replayed, self._replay_failed, wait="Replaying the recorded task")

    def _replayed(self, report) -> None:
        self.report = report
        self.state.setText(report.summary())
        self.text.setPlainText("\n".join(report.lines()))
        self._busy(False)
        self.replayed.emit(report)

    def _replay_failed(self, exc: Exception) -> None:
        self.state.setText(f"Cannot replay episode {self.episode_id}: {exc}")
        self._busy(False)
        self.replayed.emit(None)
