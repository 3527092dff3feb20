"""What the installer build relies on in the app: crash logs, the crash dialog, the welcome dialog
and the LLM endpoint / browser settings. (The PyInstaller build itself is packaging/build_linux.sh
plus packaging/smoke_test.sh, not part of this suite.)"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from desktop_app import crash
from desktop_app.settings import Settings, load_settings, save_settings

from openai_server import FakeOpenAI, Response

SECRET = "sk-test-9f8e7d6c5b4a3f2e1d0c"


@pytest.fixture
def crash_dir(tmp_path):
    folder = tmp_path / "logs"
    crash.install(folder, dialog=False)
    yield folder
    crash.uninstall()


def _raise_in_function():
    def load_widget_state():
        raise ValueError(f"could not parse the answer (key was {SECRET})")

    load_widget_state()


def _logs(folder: Path) -> list[Path]:
    return sorted(folder.glob("crash-*.log"))


# --------------------------------------------------------------------------- crash logs


def test_unhandled_exception_writes_a_crash_log_with_the_traceback_and_no_secret(crash_dir, monkeypatch, capsys):
    monkeypatch.setenv("SCREENLAB_TEST_API_KEY", SECRET)
    monkeypatch.setenv("SOME_TOKEN", "tok-value-123456")
    try:
        _raise_in_function()
    except ValueError:
        sys.excepthook(*sys.exc_info())  # what Python / PySide6 do with an uncaught exception
    [log] = _logs(crash_dir)
    text = log.read_text(encoding="utf-8")
    assert "ValueError: could not parse the answer" in text
    assert "Traceback" in text and "load_widget_state" in text and "_raise_in_function" in text
    assert "ScreenLab 0.1.0" in text and "Python 3." in text
    # the system, its release and the machine, as a bug report needs them (read without `uname -p`'s subprocess)
    assert f"platform: {platform.system()} {platform.release()} ({platform.machine()}, " in text
    assert SECRET not in text and "tok-value-123456" not in text
    assert "SCREENLAB_TEST_API_KEY" not in text and "SOME_TOKEN" not in text  # no environment dump
    err = capsys.readouterr().err
    assert str(log) in err and SECRET not in err


def test_exception_in_a_worker_thread_is_logged_with_the_thread_name(crash_dir):
    def work():
        raise RuntimeError("worker blew up")

    thread = threading.Thread(target=work, name="ocr-worker")
    thread.start()
    thread.join()
    [log] = _logs(crash_dir)
    text = log.read_text(encoding="utf-8")
    assert "thread: ocr-worker" in text and "RuntimeError: worker blew up" in text


def test_keyboard_interrupt_is_not_a_crash(crash_dir, monkeypatch):
    seen = []
    monkeypatch.setattr(crash._state, "previous_sys_hook", lambda *exc: seen.append(exc[0]))
    try:
        raise KeyboardInterrupt
    except KeyboardInterrupt:
        sys.excepthook(*sys.exc_info())
    assert seen == [KeyboardInterrupt] and _logs(crash_dir) == []


def test_redact_hides_keys_urls_and_secret_env_values(monkeypatch):
    monkeypatch.setenv("MY_SERVICE_PASSWORD", "hunter2-correct-horse")
    text = crash.redact("postgresql+psycopg://ann:pw123@db/x Bearer abcdefghijkl "
                        f"{SECRET} api_key=abcd1234 hunter2-correct-horse")
    assert "pw123" not in text and "abcdefghijkl" not in text and SECRET not in text
    assert "abcd1234" not in text and "hunter2" not in text
    assert "ann:***@db" in text


def test_uninstall_restores_the_previous_hooks(tmp_path):
    before_sys, before_thread = sys.excepthook, threading.excepthook
    crash.install(tmp_path, dialog=False)
    crash.install(tmp_path, dialog=False)  # idempotent
    assert sys.excepthook is not before_sys
    crash.uninstall()
    assert sys.excepthook is before_sys and threading.excepthook is before_thread
    assert list(tmp_path.glob("faulthandler-*.log")) == []  # a clean session leaves no file


def _run_python(code: str, log_dir: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env["SCREENLAB_TEST_API_KEY"] = SECRET
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code).format(log=str(log_dir))],
                          capture_output=True, text=True, env=env, timeout=60)


def test_startup_crash_in_a_fresh_process_exits_nonzero_and_leaves_a_log(tmp_path):
    result = _run_python("""
        from desktop_app import crash
        crash.install({log!r})
        raise RuntimeError("cannot open the demo project")
    """, tmp_path)
    assert result.returncode == 1
    [log] = _logs(tmp_path)
    assert "RuntimeError: cannot open the demo project" in log.read_text(encoding="utf-8")
    assert str(log) in result.stderr
    assert list(tmp_path.glob("faulthandler-*.log")) == []


def test_segfault_leaves_a_faulthandler_log_that_the_next_start_reports(tmp_path):
    result = _run_python("""
        import faulthandler
        from desktop_app import crash
        crash.install({log!r})
        def render_canvas():
            faulthandler._sigsegv()
        render_canvas()
    """, tmp_path)
    assert result.returncode != 0
    [dump] = tmp_path.glob("faulthandler-*.log")
    text = dump.read_text(encoding="utf-8")
    assert "Fatal Python error: Segmentation fault" in text and "render_canvas" in text
    assert SECRET not in text
    # the next start turns it into a crash log, once
    [reported] = crash.previous_hard_crashes(tmp_path)
    assert reported.name.startswith("crash-") and reported.name.endswith("-native.log")
    assert crash.previous_hard_crashes(tmp_path) == []


def _next_start_says(qtbot, monkeypatch, log_dir: Path) -> tuple[str, str]:
    """What the next start's window tells about the last session (its box's title and text), closed after."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

    from desktop_app.ui.app import report_previous_hard_crash

    parent = QWidget()
    qtbot.addWidget(parent)
    seen = []

    def read_and_close():  # the box may be modal (exec): read it from the event loop it runs
        box = next((w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()), None)
        if box is None:
            QTimer.singleShot(50, read_and_close)
            return
        seen.append((box.windowTitle(), box.text()))
        box.close()

    monkeypatch.setenv("SCREENLAB_LOG_DIR", str(log_dir))  # the next start's log folder
    QTimer.singleShot(0, read_and_close)
    report_previous_hard_crash(parent)
    qtbot.waitUntil(lambda: bool(seen), timeout=5000)
    return seen[0]


@pytest.mark.gui
def test_a_window_that_could_not_start_is_not_reported_as_a_crash(qtbot, monkeypatch, tmp_path):
    """A display that would not open (here: a platform plugin that does not exist; under X a display that is
    not there) aborts inside Qt. The next start said "The last session ended in a crash"."""
    env = {**os.environ, "QT_QPA_PLATFORM": "nosuchdisplay", "SCREENLAB_LOG_DIR": str(tmp_path / "log"),
           "SCREENLAB_DATA_DIR": str(tmp_path / "data"), "SCREENLAB_CONFIG_DIR": str(tmp_path / "config")}
    failed = subprocess.run([sys.executable, "-m", "desktop_app", "gui"], env=env, capture_output=True, text=True,
                            timeout=120)
    assert failed.returncode != 0 and "nosuchdisplay" in failed.stderr  # Qt's own words still reach the terminal
    title, text = _next_start_says(qtbot, monkeypatch, tmp_path / "log")
    assert "ended in a crash" not in text and "crash" not in title.lower()
    assert text.startswith("The window could not start: ") and "nosuchdisplay" in text
    [log] = _logs(tmp_path / "log")
    assert str(log) in text


@pytest.mark.gui
def test_a_crash_after_the_window_was_up_is_still_reported_as_a_crash(qtbot, monkeypatch, tmp_path):
    result = _run_python("""
        import faulthandler
        from desktop_app import crash
        crash.install({log!r})
        crash.note(crash.STARTING)
        crash.note(crash.STARTED)
        faulthandler._sigsegv()
    """, tmp_path)
    assert result.returncode != 0
    title, text = _next_start_says(qtbot, monkeypatch, tmp_path)
    assert text.startswith("The last session ended in a crash.") and "could not start" not in text


@pytest.mark.gui
def test_crash_dialog_opens_from_the_event_loop_and_points_to_the_log(qtbot, tmp_path):
    from desktop_app.ui import crash_dialog

    crash.install(tmp_path)  # with the default dialog hook, and the window's dialog registered as run_gui does
    crash.register_window_dialog(crash_dialog.show_crash_dialog)
    try:
        try:
            raise OSError("disk full while saving a thumbnail")
        except OSError:
            sys.excepthook(*sys.exc_info())
        qtbot.waitUntil(lambda: crash_dialog.current_dialog() is not None, timeout=3000)
        dialog = crash_dialog.current_dialog()
        [log] = _logs(tmp_path)
        assert dialog.path_field.text() == str(log)
        assert "OSError: disk full" in dialog.summary.text()
        # a second error while it is open does not stack a second dialog
        worker = threading.Thread(target=lambda: (_ for _ in ()).throw(RuntimeError("again")), name="w")
        worker.start()
        worker.join()
        qtbot.waitUntil(lambda: dialog.repeats == 1, timeout=3000)
        assert crash_dialog.current_dialog() is dialog
        dialog.keep.click()
        qtbot.waitUntil(lambda: crash_dialog.current_dialog() is None, timeout=3000)
    finally:
        crash.register_window_dialog(None)
        crash.uninstall()


# --------------------------------------------------------------------------- welcome dialog


@pytest.mark.gui
def test_welcome_dialog_shows_the_keys_in_force_and_where_to_find_it_again(qtbot):
    from PySide6.QtWidgets import QLabel

    from desktop_app.ui.welcome import WelcomeDialog

    settings = Settings(shortcuts={"nav.next": "L"})  # a rebinding is what the dialog shows
    dialog = WelcomeDialog(settings.shortcuts)
    qtbot.addWidget(dialog)
    text = dialog.keys.text()
    for key in ("<b>W</b>", "<b>1</b>", "<b>2</b>", "<b>3</b>", "<b>Return</b>", "<b>A</b>", "<b>L</b>",
                "<b>Ctrl+Shift+V</b>", "<b>R</b>"):
        assert key in text, key
    assert "<b>D</b>" not in text
    assert "Help &gt; Welcome" in "".join(label.text() for label in dialog.findChildren(QLabel))


@pytest.mark.gui
def test_the_welcome_shows_at_the_first_start_only_and_help_opens_it_again(qtbot, demo_copy):
    """Issue 38: it came back at every start until a box was ticked. Now: the first start shows it, the next
    starts do not (nothing to tick), and Help > Welcome… still opens it."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from desktop_app.ui.app import show_welcome_once
    from desktop_app.ui.welcome import WelcomeDialog

    from test_gui_editing import open_window

    seen = []

    def settings() -> Settings:  # what the last start saved; OCR suggestions off (no background OCR here)
        saved = load_settings()
        saved.show_suggestions = False
        return saved

    def answer() -> None:
        dialog = QApplication.activeModalWidget()
        seen.append(isinstance(dialog, WelcomeDialog))
        if isinstance(dialog, WelcomeDialog):
            dialog.accept()

    for _start in range(3):  # three starts, each with the settings as the last one saved them
        window = open_window(qtbot, demo_copy, settings())
        QTimer.singleShot(50, answer)
        show_welcome_once(window)
        qtbot.wait(100)
        window.close()
    assert seen == [True, False, False]
    window = open_window(qtbot, demo_copy, settings())
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    welcome = next(a for a in help_menu.actions() if a.text().startswith("Welcome"))
    QTimer.singleShot(50, answer)
    welcome.trigger()
    assert seen[-1] is True


# --------------------------------------------------------------------------- LLM endpoint + browser


def _page(qtbot, settings, **options):
    from desktop_app.ui.llm_settings import LlmSettingsPage

    page = LlmSettingsPage(settings, **options)
    qtbot.addWidget(page)
    return page


@pytest.mark.gui
def test_test_connection_talks_to_the_endpoint_off_the_ui_thread(qtbot):
    settings = Settings(llm_model="tiny-model", llm_temperature=0.3)
    with FakeOpenAI(lambda body, n: Response(text="OK", delay=0.3)) as server:
        page = _page(qtbot, settings)
        page.base_url.setText(server.base_url)
        page.key_source.setCurrentIndex(page.key_source.findData("keyring"))
        page.api_key.setText(SECRET)  # typed, not stored yet: the test uses it
        with qtbot.waitSignal(page.testFinished, timeout=10000) as signal:
            page.test_button.click()
            assert page.is_testing() and not page.test_button.isEnabled()  # the UI thread is free
        ok, message = signal.args
        assert ok, message
        assert "tiny-model answered \u201cOK\u201d" in page.test_result.text()
        [body] = server.requests
        assert body["model"] == "tiny-model" and body["temperature"] == 0.3
        assert server.auth_headers == [f"Bearer {SECRET}"]
        assert page.test_button.isEnabled()


@pytest.mark.gui
def test_test_connection_explains_errors_without_showing_the_key(qtbot, monkeypatch):
    monkeypatch.setenv("SCREENLAB_LLM_KEY", SECRET)
    settings = Settings(llm_model="m", llm_api_key_env="SCREENLAB_LLM_KEY")
    with FakeOpenAI(lambda body, n: Response(status=401)) as server:
        page = _page(qtbot, settings)
        assert page.source() == "env" and page.env_status.text() == "set"
        page.base_url.setText(server.base_url)
        with qtbot.waitSignal(page.testFinished, timeout=10000) as signal:
            page.test_button.click()
        ok, message = signal.args
        assert not ok and "refused the API key (401)" in message and SECRET not in message
        assert server.auth_headers == [f"Bearer {SECRET}"]
    # nothing listening: a connection error names the URL
    page.base_url.setText("http://127.0.0.1:9/v1")
    with qtbot.waitSignal(page.testFinished, timeout=15000) as signal:
        page.test_button.click()
    ok, message = signal.args
    assert not ok and "Could not connect to http://127.0.0.1:9/v1" in message
    # missing input is reported without a request
    page.env_var.setText("SCREENLAB_NOT_SET_ANYWHERE")
    with qtbot.waitSignal(page.testFinished, timeout=1000) as signal:
        page.test_button.click()
    assert "SCREENLAB_NOT_SET_ANYWHERE is not set" in signal.args[1]


@pytest.mark.gui
def test_apply_puts_the_key_in_the_keyring_never_in_settings(qtbot, tmp_path):
    from desktop_app.ui.llm_settings import KeyStoreError, LlmSettingsDialog

    stored = []
    settings = Settings()
    dialog = LlmSettingsDialog(settings, store_key=lambda owner, key: stored.append((owner, key)))
    qtbot.addWidget(dialog)
    page = dialog.page
    page.base_url.setText(" https://llm.example/v1 ")
    page.model.setText("writer")
    page.temperature.setValue(0.7)
    page.key_source.setCurrentIndex(page.key_source.findData("keyring"))
    page.api_key.setText(SECRET)
    page.browser_path.setText("/opt/chrome/chrome")
    dialog.accept()
    assert dialog.result() == dialog.DialogCode.Accepted
    assert stored == [("llm-endpoint", SECRET)] and page.api_key.text() == ""
    assert (settings.llm_base_url, settings.llm_model, settings.llm_temperature) == ("https://llm.example/v1",
                                                                                     "writer", 0.7)
    assert settings.llm_use_keyring and settings.llm_api_key_env == ""
    assert settings.browser_path == "/opt/chrome/chrome"
    path = tmp_path / "settings.json"
    save_settings(settings, path)
    assert SECRET not in path.read_text()

    def refuse(owner, key):
        raise RuntimeError(f"No recommended backend was available (got {key})")

    page2 = _page(qtbot, Settings(), store_key=refuse)
    page2.key_source.setCurrentIndex(page2.key_source.findData("keyring"))
    page2.api_key.setText(SECRET)
    with pytest.raises(KeyStoreError) as info:
        page2.apply_to(Settings())
    assert "environment variable" in str(info.value) and SECRET not in str(info.value)


@pytest.mark.gui
def test_browser_check_says_what_to_install_when_none_is_found(qtbot, tmp_path):
    from desktop_app.render.browser import INSTALL_HINT, BrowserNotFound

    def none_found(playwright, configured):
        raise BrowserNotFound(f"No Chromium, Chrome or Edge found. {INSTALL_HINT}")

    page = _page(qtbot, Settings(browser_path=str(tmp_path / "missing")), find_browser=none_found)
    assert page.check_browser() is False
    text = page.browser_result.text()
    assert "does not exist" in text and "sudo apt-get install chromium" in text and "Edge" in text

    chrome = tmp_path / "chrome"
    chrome.write_text("")
    page = _page(qtbot, Settings(), find_browser=lambda playwright, configured: configured or str(chrome))
    page.browser_path.setText(str(chrome))
    assert page.check_browser() is True
    assert page.browser_result.text() == f"Rendering will use: {chrome}"


def test_quitting_while_a_connection_test_waits_exits_cleanly(tmp_path):
    # a server that accepts the connection and never answers: the test request waits for its timeout
    script = tmp_path / "quit_during_test.py"
    script.write_text(textwrap.dedent("""
        import socket, sys, time
        from PySide6.QtWidgets import QApplication
        from desktop_app.settings import Settings
        from desktop_app.ui.llm_settings import LlmSettingsPage

        silent = socket.socket()
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        app = QApplication([])
        page = LlmSettingsPage(Settings(llm_model="m"))
        page.base_url.setText(f"http://127.0.0.1:{silent.getsockname()[1]}/v1")
        page.key_source.setCurrentIndex(page.key_source.findData("none"))
        page.test_button.click()
        end = time.monotonic() + 0.5
        while time.monotonic() < end:
            app.processEvents()
        assert page.is_testing()
        print("quitting while testing", flush=True)
        del page
        sys.exit(0)
    """))
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=60)
    assert "quitting while testing" in result.stdout, result.stderr
    assert result.returncode == 0, result.stderr


@pytest.mark.gui
def test_a_key_typed_as_the_variable_name_is_refused(qtbot):
    from desktop_app.ui.llm_settings import KeyStoreError

    page = _page(qtbot, Settings())
    page.key_source.setCurrentIndex(page.key_source.findData("env"))
    page.env_var.setText(SECRET)
    settings = Settings()
    with pytest.raises(KeyStoreError):
        page.apply_to(settings)
    assert SECRET not in json.dumps(settings.__dict__)
    page.env_var.setText("MY_LLM_KEY")
    page.apply_to(settings)
    assert settings.llm_api_key_env == "MY_LLM_KEY"


# --------------------------------------------------------------------------- keyring in the self-check


def _selfcheck_keyring_line(capsys) -> tuple[str, str]:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "bundle_selfcheck_keyring", Path(__file__).resolve().parent.parent / "packaging" / "bundle_selfcheck.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.keyring_backend()
    status, _name, detail, _s = module.RESULTS[-1]
    capsys.readouterr()
    return status, detail


def test_the_self_check_does_not_call_a_keyring_that_stores_nothing_ok(capsys):
    """Issue 38: "ok" was printed for keyring's fallback, where a key "saved" from Settings is gone."""
    import keyring
    from keyring.backends import fail

    from secrets_sweep import FileKeyring

    previous = keyring.get_keyring()
    try:
        keyring.set_keyring(fail.Keyring())
        status, detail = _selfcheck_keyring_line(capsys)
        assert status == "warn"
        assert "keyring.backends.fail.Keyring" in detail and "stores nothing" in detail
        assert "environment variables" in detail  # what to do instead
        keyring.set_keyring(FileKeyring())  # a back end that keeps what it is given
        status, detail = _selfcheck_keyring_line(capsys)
        assert status == "ok" and "FileKeyring" in detail
    finally:
        keyring.set_keyring(previous)
