"""A dialog's "Test connection" button and the line under it: agents/endpoint_check.py in a Task, the same
words and colours in every dialog that tests an endpoint (the agent profile, the LLM settings).

    self.tester = EndpointTester(self.test_button, self.test_result, self)
    self.tester.finished.connect(self.testFinished)          # (ok, message)
    self.tester.start(EndpointCheck(url, model, key), key=lambda: resolve_key(...))   # or .show(False, why)
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QLabel, QPushButton

from desktop_app.agents.endpoint_check import EndpointCheck, EndpointReport, check_endpoint, describe_error
from desktop_app.ui.tasks import Task

OK_STYLE, BAD_STYLE, BUSY_STYLE = "color: #2e7d32", "color: #c62828", "color: gray"


class EndpointTester(QObject):
    finished = Signal(bool, str)  # ok, the message shown

    def __init__(self, button: QPushButton, result: QLabel, parent=None,
                 can_test: Callable[[], bool] = lambda: True):
        super().__init__(parent)
        self.button, self.result = button, result
        self.can_test = can_test  # whether the button is enabled again afterwards (e.g. only for some kinds)
        self._task: Task | None = None

    def is_running(self) -> bool:
        return self._task is not None

    def start(self, check: EndpointCheck, key: Callable[[], str] | None = None) -> None:
        if self._task is not None:
            return
        self.button.setEnabled(False)
        self.result.setStyleSheet(BUSY_STYLE)
        self.result.setText(f"Sending one short request to {check.base_url} ...")
        task = Task(lambda _progress: check_endpoint(check, key), self, name="endpoint-test",
                    wait="Testing the endpoint")
        task.finished.connect(lambda report: self._done(report))
        task.failed.connect(lambda exc: self._done(EndpointReport(False, describe_error(exc, check))))
        self._task = task
        task.start()

    def _done(self, report: EndpointReport) -> None:
        self._task = None
        self.show(report.ok, report.message)

    def show(self, ok: bool, message: str) -> None:
        """The outcome under the button (also what a dialog says when its fields cannot be tested)."""
        self.button.setEnabled(self.can_test())
        self.result.setStyleSheet(OK_STYLE if ok else BAD_STYLE)
        self.result.setText(message)
        self.finished.emit(ok, message)
