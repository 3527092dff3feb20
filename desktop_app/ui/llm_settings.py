"""Settings for the synthesis LLM endpoint and the browser, with checks that say what is wrong.

    from desktop_app.ui.llm_settings import LlmSettingsDialog, LlmSettingsPage

    # as its own dialog (e.g. Edit > "LLM endpoint and browser..."):
    dialog = LlmSettingsDialog(window.settings, window)
    if dialog.exec():                       # OK: fields applied, a typed key stored in the keyring
        save_settings(window.settings)
        if window._render_service is not None: ...  # browser_path changed: restart the render service

    # or as a tab of SettingsDialog: page = LlmSettingsPage(settings); tabs.addTab(page, "LLM && browser")
    # and in SettingsDialog.accept(): page.apply_to(settings) (it raises KeyStoreError; keep the dialog open)

Fields: base URL, model, temperature, where the API key comes from (OS keyring / an environment
variable / none for local servers), the key itself (only ever handed to the keyring through
`desktop_app.secrets.store_key("llm-endpoint", key)`, never put in Settings), and the browser path.

"Test connection" sends one tiny chat request with the real `openai` client on a worker thread
(the window stays responsive) and shows the answer or what went wrong; the key never appears in
the message. "Check" says which browser will be used or, when there is none, what to install.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.secrets import ENV_NAME, ENV_NAME_RULE
from desktop_app.settings import Settings

KEY_OWNER = "llm-endpoint"  # the keyring user name LlmEndpoint.client() reads
TEST_TIMEOUT_S = 20.0
TEST_PROMPT = "This is a connection test. Reply with the single word: OK"
SOURCES = (("keyring", "OS keyring (stored securely by your system)"),
           ("env", "Environment variable"),
           ("none", "No key (local server: vLLM, Ollama, LM Studio)"))
_OK_STYLE, _BAD_STYLE, _BUSY_STYLE = "color: #2e7d32", "color: #c62828", "color: gray"
_RUNNING: set = set()  # result objects of running tests (one stays if its page closed first: a few bytes)


class KeyStoreError(RuntimeError):
    """The typed key could not be put in the OS keyring, or the fields would store a key in the open."""


@dataclass
class ConnectionCheck:
    base_url: str
    model: str
    temperature: float
    api_key: str


def send_test_request(check: ConnectionCheck, timeout_s: float = TEST_TIMEOUT_S) -> str:
    """Send one tiny chat request; returns a one-line success message, raises on failure.
    Blocking: run it off the UI thread."""
    import openai

    client = openai.OpenAI(base_url=check.base_url, api_key=check.api_key, timeout=timeout_s, max_retries=0)
    started = time.perf_counter()
    response = client.chat.completions.create(
        model=check.model, messages=[{"role": "user", "content": TEST_PROMPT}],
        temperature=check.temperature, max_tokens=16)
    seconds = time.perf_counter() - started
    answer = (response.choices[0].message.content or "").strip() if response.choices else ""
    answer = " ".join(answer.split())
    if len(answer) > 120:
        answer = answer[:117] + "..."
    return f"Connected in {seconds:.1f} s: {check.model} answered \u201c{answer or '(empty)'}\u201d."


def describe_error(exc: BaseException, check: ConnectionCheck | None = None) -> str:
    """A sentence an annotator can act on; never contains the key."""
    import openai

    from desktop_app.secrets import redact

    url = check.base_url if check else "the server"
    if isinstance(exc, openai.AuthenticationError):
        text = "The server refused the API key (401). Check the key, or where it is read from."
    elif isinstance(exc, openai.PermissionDeniedError):
        text = "The key has no access to this model or endpoint (403)."
    elif isinstance(exc, openai.NotFoundError):
        text = (f"Not found (404): check the base URL (it usually ends in /v1) and the model name "
                f"'{check.model if check else ''}'.")
    elif isinstance(exc, openai.RateLimitError):
        text = "The server was reached but is rate-limiting or out of quota (429). Try again later."
    elif isinstance(exc, openai.APITimeoutError):
        text = f"No answer from {url} within {TEST_TIMEOUT_S:.0f} s."
    elif isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        text = f"Could not connect to {url}" + (f": {cause}" if cause else ".")
    elif isinstance(exc, openai.APIStatusError):
        text = f"The server answered {exc.status_code}: {_api_message(exc)}"
    else:
        text = f"{type(exc).__name__}: {exc}"
    if check and check.api_key and len(check.api_key) >= 4:
        text = text.replace(check.api_key, "***")
    return redact(text)


def _api_message(exc) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
    return str(exc)


def browser_report(configured: str, find: Callable | None = None) -> tuple[bool, str]:
    """(found, message): which browser rendering will use, or what to install."""
    from desktop_app.render.browser import INSTALL_HINT, BrowserNotFound, find_browser

    find = find or find_browser
    configured = configured.strip()
    note = ""
    if configured and not os.path.isfile(configured):
        note = f"The browser path set here does not exist: {configured}. "
    try:
        path = find(None, configured)
    except BrowserNotFound as exc:
        message = str(exc)
        if INSTALL_HINT not in message:
            message += " " + INSTALL_HINT
        return False, note + message
    if configured and os.path.isfile(configured) and os.path.abspath(path) != os.path.abspath(configured):
        note += "An installed browser is found first and will be used instead of the path set here. "
    return True, note + f"Rendering will use: {path}"


class LlmSettingsPage(QWidget):
    testFinished = Signal(bool, str)  # ok, message (shown in test_result)

    def __init__(self, settings: Settings, parent=None, *, store_key: Callable[[str, str], None] | None = None,
                 find_browser: Callable | None = None):
        super().__init__(parent)
        self.settings = settings
        self._store_key = store_key
        self._find_browser = find_browser
        self._task = None

        self.base_url = QLineEdit(settings.llm_base_url)
        self.base_url.setPlaceholderText("https://api.openai.com/v1  or  http://localhost:8000/v1")
        self.model = QLineEdit(settings.llm_model)
        self.model.setPlaceholderText("e.g. gpt-4o-mini, Qwen/Qwen2.5-7B-Instruct")
        self.temperature = QDoubleSpinBox()
        self.temperature.setRange(0.0, 2.0)
        self.temperature.setSingleStep(0.1)
        self.temperature.setDecimals(2)
        self.temperature.setValue(float(settings.llm_temperature))
        self.key_source = QComboBox()
        for key, text in SOURCES:
            self.key_source.addItem(text, key)
        source = "env" if settings.llm_api_key_env else "keyring" if settings.llm_use_keyring else "none"
        self.key_source.setCurrentIndex(self.key_source.findData(source))
        self.api_key = QLineEdit()
        self.api_key.setEchoMode(QLineEdit.Password)
        self.api_key.setPlaceholderText("paste a key to store it in the keyring; empty keeps the stored one")
        self.env_var = QLineEdit(settings.llm_api_key_env)
        self.env_var.setPlaceholderText("e.g. OPENAI_API_KEY")
        self.env_status = QLabel()
        self.env_status.setStyleSheet(_BUSY_STYLE)
        self.test_button = QPushButton("Test connection")
        self.test_result = QLabel()
        self.test_result.setWordWrap(True)
        self.test_result.setTextInteractionFlags(Qt.TextSelectableByMouse)

        self.browser_path = QLineEdit(settings.browser_path)
        self.browser_path.setPlaceholderText("empty: find Chrome, Edge or Chromium automatically")
        browse = QPushButton("Browse...")
        self.check_button = QPushButton("Check")
        self.browser_result = QLabel()
        self.browser_result.setWordWrap(True)
        self.browser_result.setTextInteractionFlags(Qt.TextSelectableByMouse)

        form = QFormLayout()
        form.addRow(QLabel("<b>LLM that writes synthetic samples</b> (any OpenAI-compatible endpoint)"))
        form.addRow("Base URL", self.base_url)
        form.addRow("Model", self.model)
        form.addRow("Temperature", self.temperature)
        form.addRow("API key from", self.key_source)
        self.api_key_label = QLabel("API key")
        form.addRow(self.api_key_label, self.api_key)
        self.env_label = QLabel("Variable name")
        env_row = QHBoxLayout()
        env_row.addWidget(self.env_var, 1)
        env_row.addWidget(self.env_status)
        form.addRow(self.env_label, env_row)
        test_row = QHBoxLayout()
        test_row.addWidget(self.test_button)
        test_row.addStretch(1)
        form.addRow("", test_row)
        form.addRow("", self.test_result)
        form.addRow(QLabel("<b>Browser</b> (renders synthetic screens; ScreenLab never downloads one)"))
        browser_row = QHBoxLayout()
        browser_row.addWidget(self.browser_path, 1)
        browser_row.addWidget(browse)
        browser_row.addWidget(self.check_button)
        form.addRow("Browser path", browser_row)
        form.addRow("", self.browser_result)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addStretch(1)

        self.key_source.currentIndexChanged.connect(self._source_changed)
        self.env_var.textChanged.connect(self._env_changed)
        self.test_button.clicked.connect(self.start_test)
        self.check_button.clicked.connect(self.check_browser)
        browse.clicked.connect(self._browse)
        self._source_changed()
        self._env_changed()

    # ------------------------------------------------------------------ state
    def source(self) -> str:
        return self.key_source.currentData()

    def _source_changed(self, *_args) -> None:
        source = self.source()
        for widget in (self.api_key_label, self.api_key):
            widget.setVisible(source == "keyring")
        for widget in (self.env_label, self.env_var, self.env_status):
            widget.setVisible(source == "env")

    def _env_changed(self, *_args) -> None:
        name = self.env_var.text().strip()
        if not name:
            self.env_status.setText("")
        else:
            self.env_status.setText("set" if os.environ.get(name) else "not set for ScreenLab")

    def apply_to(self, settings: Settings) -> None:
        """Write the fields into `settings` (the caller saves them) and put a typed key in the
        OS keyring. Raises KeyStoreError when the keyring refuses; settings are then unchanged."""
        source = self.source()
        key = self.api_key.text().strip()
        name = self.env_var.text().strip()
        if source == "env" and not ENV_NAME.fullmatch(name):
            # a key pasted into the name field would otherwise be saved in the settings file
            raise KeyStoreError(ENV_NAME_RULE)
        if source == "keyring" and key:
            try:
                (self._store_key or _default_store_key)(KEY_OWNER, key)
            except Exception as exc:  # keyring.errors.*, D-Bus errors, a locked keychain
                raise KeyStoreError(
                    f"The key could not be stored in the OS keyring ({type(exc).__name__}: "
                    f"{describe_plain(exc, key)}). Use an environment variable instead, or unlock/install "
                    "a keyring (Linux: GNOME Keyring or KWallet).") from None
            self.api_key.clear()
        settings.llm_base_url = self.base_url.text().strip()
        settings.llm_model = self.model.text().strip()
        settings.llm_temperature = round(float(self.temperature.value()), 2)
        settings.llm_use_keyring = source == "keyring"
        settings.llm_api_key_env = name if source == "env" else ""
        settings.browser_path = self.browser_path.text().strip()

    # ------------------------------------------------------------------ test connection
    def connection_check(self) -> ConnectionCheck:
        """What the test will send; raises ValueError with a message for the user."""
        url, model = self.base_url.text().strip(), self.model.text().strip()
        if not url.startswith(("http://", "https://")):
            raise ValueError("Enter the base URL, starting with http:// or https:// (usually ending in /v1).")
        if not model:
            raise ValueError("Enter the model name.")
        source = self.source()
        if source == "env":
            name = self.env_var.text().strip()
            if not name:
                raise ValueError("Enter the name of the environment variable that holds the key.")
            key = os.environ.get(name, "")
            if not key:
                raise ValueError(f"The environment variable {name} is not set for ScreenLab. Set it before "
                                 "starting ScreenLab, or store the key in the OS keyring.")
        elif source == "keyring":
            key = self.api_key.text().strip()  # typed, not stored yet; else read from the keyring on the worker
        else:
            key = "not-needed"
        return ConnectionCheck(url, model, round(float(self.temperature.value()), 2), key)

    def start_test(self) -> None:
        if self._task is not None:
            return
        try:
            check = self.connection_check()
        except ValueError as exc:
            self._show_test(False, str(exc))
            return
        from_keyring = self.source() == "keyring" and not check.api_key

        def run(result: _TestResult):
            try:
                if from_keyring:
                    from desktop_app.secrets import resolve_key

                    check.api_key = resolve_key(KEY_OWNER, "", True)
                message = send_test_request(check)
            except Exception as exc:
                result.failed.emit(describe_error(exc, check))
            else:
                result.finished.emit(message)

        self.test_button.setEnabled(False)
        self.test_result.setStyleSheet(_BUSY_STYLE)
        self.test_result.setText(f"Sending one short request to {check.base_url} ...")
        # A daemon thread, not a QThread: a QThread still running when the app quits (the request
        # can take its whole timeout) aborts the process. The result object outlives this page and is
        # released on the UI thread (a QObject must not be deleted from another thread).
        result = _TestResult()
        result.finished.connect(self._test_done)
        result.failed.connect(self._test_failed)
        _RUNNING.add(result)
        self._task = result
        threading.Thread(target=run, args=(result,), name="llm-connection-test", daemon=True).start()

    def _test_done(self, message) -> None:
        _RUNNING.discard(self._task)
        self._task = None
        self.test_button.setEnabled(True)
        self._show_test(True, str(message))

    def _test_failed(self, message) -> None:
        _RUNNING.discard(self._task)
        self._task = None
        self.test_button.setEnabled(True)
        self._show_test(False, str(message))

    def _show_test(self, ok: bool, message: str) -> None:
        self.test_result.setStyleSheet(_OK_STYLE if ok else _BAD_STYLE)
        self.test_result.setText(message)
        self.testFinished.emit(ok, message)

    def is_testing(self) -> bool:
        return self._task is not None

    # ------------------------------------------------------------------ browser
    def check_browser(self) -> bool:
        found, message = browser_report(self.browser_path.text(), self._find_browser)
        self.browser_result.setStyleSheet(_OK_STYLE if found else _BAD_STYLE)
        self.browser_result.setText(message)
        return found

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Choose Chrome, Edge or Chromium")
        if path:
            self.browser_path.setText(path)
            self.check_browser()


class _TestResult(QObject):
    """Carries the outcome of a connection test from its thread to the UI thread."""

    finished = Signal(str)
    failed = Signal(str)


def describe_plain(exc: BaseException, key: str = "") -> str:
    from desktop_app.secrets import redact

    text = str(exc) or type(exc).__name__
    if key and len(key) >= 4:
        text = text.replace(key, "***")
    return redact(text)


def _default_store_key(owner: str, key: str) -> None:
    from desktop_app.secrets import store_key

    store_key(owner, key)


class LlmSettingsDialog(QDialog):
    """The page with OK / Cancel. OK applies the fields to `settings` (the caller saves them);
    when the keyring refuses the key, the dialog says why and stays open."""

    def __init__(self, settings: Settings, parent=None, **page_options):
        super().__init__(parent)
        self.setWindowTitle("LLM endpoint and browser")
        self.settings = settings
        self.page = LlmSettingsPage(settings, self, **page_options)
        self.buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.page)
        layout.addWidget(self.buttons)
        self.resize(640, self.sizeHint().height())

    def accept(self) -> None:
        try:
            self.page.apply_to(self.settings)
        except KeyStoreError as exc:
            QMessageBox.warning(self, "API key not stored", str(exc))
            return
        super().accept()
