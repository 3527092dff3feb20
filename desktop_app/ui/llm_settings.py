"""Settings for the synthesis LLM endpoint and the browser, with checks that say what is wrong.

    from desktop_app.ui.llm_settings import LlmSettingsDialog, LlmSettingsPage

    # as its own dialog (e.g. Edit > "LLM endpoint and browser..."):
    dialog = LlmSettingsDialog(window.settings, window)
    if dialog.exec():                       # OK: fields applied, a typed key stored in the keyring
        save_settings(window.settings)
        window.stop_render_service()        # browser_path changed: the next render starts the new one

    # or as a tab of SettingsDialog: page = LlmSettingsPage(settings); tabs.addTab(page, "LLM && browser")
    # and in SettingsDialog.accept(): page.apply_to(settings) (it raises KeyStoreError; keep the dialog open)

Fields: base URL, model, temperature, where the API key comes from (OS keyring / an environment
variable / none for local servers), the key itself (only ever handed to the keyring through
`desktop_app.secrets.store_key("llm-endpoint", key)`, never put in Settings), and the browser path.

"Test connection" asks the endpoint for its models and one tiny completion with the real `openai` client
in a Task (agents/endpoint_check.py through ui/endpoint_tester.py, as the agent profile dialog does): the
window stays responsive and the answer or what went wrong is shown; the key never appears in the message.
"Check" says which browser will be used or, when there is none, what to install.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
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

from desktop_app.agents.endpoint_check import EndpointCheck, check_fields
from desktop_app.secrets import check_variable_name
from desktop_app.settings import Settings
from desktop_app.ui.endpoint_tester import BAD_STYLE, BUSY_STYLE, OK_STYLE, EndpointTester

KEY_OWNER = "llm-endpoint"  # the keyring user name LlmEndpoint.client() reads
SOURCES = (("keyring", "OS keyring (stored securely by your system)"),
           ("env", "Environment variable"),
           ("none", "No key (local server: vLLM, Ollama, LM Studio)"))

class KeyStoreError(RuntimeError):
    """The typed key could not be put in the OS keyring, or the fields would store a key in the open."""


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
        self.env_status.setStyleSheet(BUSY_STYLE)
        self.test_button = QPushButton("Test connection")
        self.test_result = QLabel()
        self.test_result.setWordWrap(True)
        self.test_result.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.tester = EndpointTester(self.test_button, self.test_result, self)
        self.tester.finished.connect(self.testFinished)

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
        if source == "env":
            try:  # a key pasted into the name field would otherwise be saved in the settings file
                check_variable_name(name)
            except ValueError as exc:
                raise KeyStoreError(str(exc)[0].upper() + str(exc)[1:]) from None
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
    def connection_check(self) -> tuple[EndpointCheck, Callable[[], str] | None]:
        """What the test will send, and how to read a stored key (off the UI thread); raises ValueError with
        a message for the user."""
        url, model = self.base_url.text().strip(), self.model.text().strip()
        check_fields(url, model)
        source, key, read_key = self.source(), "", None
        if source == "env":
            name = self.env_var.text().strip()
            if not name:
                raise ValueError("Enter the name of the environment variable that holds the key.")
            key = os.environ.get(name, "")
            if not key:
                raise ValueError(f"The environment variable {name} is not set for ScreenLab. Set it before "
                                 "starting ScreenLab, or store the key in the OS keyring.")
        elif source == "keyring":
            key = self.api_key.text().strip()  # typed, not stored yet; else read from the keyring by the test
            if not key:
                def read_key() -> str:
                    from desktop_app.secrets import resolve_key

                    return resolve_key(KEY_OWNER, "", True)
        return EndpointCheck(url, model, key, round(float(self.temperature.value()), 2)), read_key

    def start_test(self) -> None:
        try:
            check, read_key = self.connection_check()
        except ValueError as exc:
            self.tester.show(False, str(exc))
            return
        self.tester.start(check, read_key)

    def is_testing(self) -> bool:
        return self.tester.is_running()

    # ------------------------------------------------------------------ browser
    def check_browser(self) -> bool:
        found, message = browser_report(self.browser_path.text(), self._find_browser)
        self.browser_result.setStyleSheet(OK_STYLE if found else BAD_STYLE)
        self.browser_result.setText(message)
        return found

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Choose Chrome, Edge or Chromium")
        if path:
            self.browser_path.setText(path)
            self.check_browser()


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
