"""One connection tester (agents/endpoint_check.py) for every dialog that tests an endpoint, and the one
way the window runs work off the UI thread (ui/tasks.py)."""

from __future__ import annotations

import ast
import threading
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtWidgets import QApplication, QWidget

from desktop_app.agents.endpoint_check import EndpointCheck, check_endpoint, check_fields
from desktop_app.settings import Settings

from openai_server import FakeOpenAI, Response

SECRET = "sk-test-ABCDEF0123456789"
UI = Path(__file__).resolve().parents[1] / "desktop_app" / "ui"


def test_a_listed_model_that_answers_is_connected():
    with FakeOpenAI(lambda body, n: Response(text="  OK \n"), models=["qwen", "llama"]) as server:
        report = check_endpoint(EndpointCheck(server.base_url, "qwen", SECRET, temperature=0.2,
                                              extra_body={"skip_special_tokens": False}))
        [body] = server.requests
    assert report.ok and report.models == ("qwen", "llama") and report.answer == "OK"
    assert report.message.startswith("Connected in ") and "qwen answered \u201cOK\u201d." in report.message
    assert body["temperature"] == 0.2 and body["skip_special_tokens"] is False and body["max_tokens"] == 16
    assert server.auth_headers == [f"Bearer {SECRET}"]


def test_a_model_the_server_does_not_list_is_named_with_what_it_lists():
    with FakeOpenAI(lambda body, n: Response(text="OK"), models=[f"m{i}" for i in range(10)]) as server:
        report = check_endpoint(EndpointCheck(server.base_url, "qwen"))
    assert report.ok and "does not list this model (it lists: m0, m1" in report.message
    assert "m7 and 2 more" in report.message
    with FakeOpenAI(lambda body, n: Response(status=404), models=["llama"]) as server:
        report = check_endpoint(EndpointCheck(server.base_url, "qwen"))
    assert not report.ok and "Not found (404)" in report.message and "The server lists: llama." in report.message


def test_a_server_without_a_model_list_is_judged_by_its_completion():
    with FakeOpenAI(lambda body, n: Response(text="OK")) as server:
        report = check_endpoint(EndpointCheck(server.base_url, "qwen"))
    assert report.ok and report.models is None and "does not list" not in report.message
    assert server.auth_headers == ["Bearer not-needed"]  # no key: local servers take any


def test_failures_say_what_to_do_and_never_show_the_key():
    with FakeOpenAI(lambda body, n: Response(status=401)) as server:
        report = check_endpoint(EndpointCheck(server.base_url, "m", SECRET))
    assert not report.ok and "refused the API key (401)" in report.message and SECRET not in report.message
    report = check_endpoint(EndpointCheck("http://127.0.0.1:9/v1", "m", SECRET, timeout_s=5))
    assert not report.ok and report.message.startswith("Could not connect to http://127.0.0.1:9/v1")
    with FakeOpenAI(lambda body, n: Response(status=500)) as server:
        report = check_endpoint(EndpointCheck(server.base_url, "m", SECRET))
    assert not report.ok and report.message.startswith("The server answered 500: injected 500")


def test_a_stored_key_is_read_by_the_test_and_a_missing_one_is_said():
    with FakeOpenAI(lambda body, n: Response(text="OK")) as server:
        assert check_endpoint(EndpointCheck(server.base_url, "m"), key=lambda: SECRET).ok
        assert server.auth_headers == [f"Bearer {SECRET}"]

    def missing() -> str:
        raise KeyError("no key in the OS keyring")

    report = check_endpoint(EndpointCheck("http://127.0.0.1:9/v1", "m"), key=missing)
    assert not report.ok and report.message.startswith("Could not read the API key")


@pytest.mark.parametrize(("url", "model", "says"), [
    ("localhost:8000/v1", "m", "starting with http://"), ("", "m", "Enter the base URL"),
    ("http://x/v1", " ", "Enter the model name")])
def test_fields_that_name_no_endpoint_are_refused_before_any_request(url, model, says):
    with pytest.raises(ValueError, match=says):
        check_fields(url, model)


@pytest.mark.gui
def test_both_dialogs_test_through_the_same_tester_with_the_same_words(qtbot):
    from desktop_app.ui.endpoint_tester import EndpointTester
    from desktop_app.ui.eval.profile_dialog import AgentProfileDialog
    from desktop_app.ui.llm_settings import LlmSettingsPage

    with FakeOpenAI(lambda body, n: Response(status=401)) as server:
        page = LlmSettingsPage(Settings(llm_model="m", llm_base_url=server.base_url))
        dialog = AgentProfileDialog()
        for widget in (page, dialog):
            qtbot.addWidget(widget)
        page.key_source.setCurrentIndex(page.key_source.findData("none"))
        dialog.base_url.setText(server.base_url)
        dialog.model.setText("m")
        messages = []
        for widget in (page, dialog):
            assert isinstance(widget.tester, EndpointTester)
            with qtbot.waitSignal(widget.testFinished, timeout=10000) as signal:
                widget.test_button.click()
                assert not widget.test_button.isEnabled()
            messages.append((signal.args, widget.test_result.text(), widget.test_result.styleSheet()))
    assert messages[0] == messages[1] and messages[0][0][0] is False
    assert "refused the API key (401)" in messages[0][1]


# -- the one way off the UI thread -----------------------------------------------------------------------------
@pytest.mark.gui
def test_a_task_reports_on_the_ui_thread_and_outlives_its_owner_quietly(qtbot):
    from desktop_app.ui.tasks import Task, run_in_background, wait_all

    ui_thread = threading.current_thread()
    seen = []
    task = Task(lambda progress: (progress("half", 1, 2), threading.current_thread())[1], wait=None)
    task.progress.connect(lambda *args: seen.append(("progress", args, threading.current_thread())))
    with qtbot.waitSignal(task.finished, timeout=5000) as done:
        task.start()
    worker = done.args[0]
    assert worker is not ui_thread and worker.daemon  # a daemon: never blocks or aborts quitting
    assert seen == [("progress", ("half", 1, 2), ui_thread)]

    failing = Task(lambda _progress: 1 / 0, wait=None)
    with qtbot.waitSignal(failing.failed, timeout=5000) as failed:
        failing.start()
    assert isinstance(failed.args[0], ZeroDivisionError)

    owner = QWidget()
    release = threading.Event()
    called = []
    run_in_background(owner, lambda: release.wait(5), called.append, called.append, wait=None)
    shiboken6.delete(owner)  # the dialog closes while its request runs
    release.set()
    wait_all()
    QApplication.processEvents()
    assert called == []  # nobody left to tell, and nothing crashed


THREADS = ("QThread", "QThreadPool", "QRunnable", "ThreadPoolExecutor", "ProcessPoolExecutor", "Thread")
# render_service.py: Playwright's sync API belongs to the thread that started the browser; thumbnail_grid.py:
# thousands of tiny decodes on Qt's pool (ui/tasks.py says why each cannot be a Task)
EXCEPTIONS = {"render_service.py", "thumbnail_grid.py"}


def test_only_tasks_run_work_off_the_ui_thread():
    found = []
    for path in sorted(UI.rglob("*.py")):
        if path.name in EXCEPTIONS or path.name == "tasks.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
            if name in THREADS:
                found.append(f"{path.relative_to(UI)}:{node.lineno}: {name}")
    assert not found, "threads outside ui/tasks.py:\n" + "\n".join(found)
