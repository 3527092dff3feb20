"""Create or edit an agent profile (agents.json in the user's settings, shared by all projects).

The API key is never written by this dialog: a profile names an environment variable, or says
"OS keyring" - then a key typed here goes to the keyring (secrets.store_key) on Save and the
field is cleared. "Test connection" asks the endpoint for its models and one tiny completion
(agents/endpoint_check.py, in a Task through ui/endpoint_tester.py, as the LLM settings do) and shows
the answer (or what went wrong) under the button.

    dialog = AgentProfileDialog(existing_profile_or_None, parent=window)
    dialog.saved.connect(lambda profile: ...)   # after agents.json was written
    dialog.exec()
"""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
)

from desktop_app import secrets
from desktop_app.agents.conventions import CONVENTIONS
from desktop_app.agents.endpoint_check import TEST_TIMEOUT_S, EndpointCheck, check_fields
from desktop_app.agents.profiles import (
    KINDS,
    PATTERNS,
    AgentProfile,
    ProfileError,
    load_profiles,
    save_profiles,
)
from desktop_app.ui.endpoint_tester import EndpointTester

KEY_SOURCES = (("none", "No key (local server)"), ("env", "Environment variable"), ("keyring", "OS keyring"))


def parse_extra_body(text: str) -> dict:
    """The extra request fields: empty, or one JSON object. Raises ValueError with a readable message."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise ValueError("must be a JSON object, e.g. {\"skip_special_tokens\": false}")
    return value


class AgentProfileDialog(QDialog):
    """saved(AgentProfile): written to agents.json. testFinished(bool ok, str message)."""

    saved = Signal(object)
    testFinished = Signal(bool, str)

    def __init__(self, profile: AgentProfile | None = None, parent=None, profiles_path: Path | None = None):
        super().__init__(parent)
        self.original = profile
        self.profiles_path = profiles_path
        self.setWindowTitle(f"Agent: {profile.name}" if profile else "New agent")
        mono = QFontDatabase.systemFont(QFontDatabase.FixedFont)

        # the agent
        self.name = QLineEdit()
        self.kind = QComboBox()
        self.kind.addItems(KINDS)
        self.kind.setToolTip("openai: any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, LM Studio, ...)")
        self.base_url = QLineEdit()
        self.base_url.setPlaceholderText("http://localhost:8000/v1")
        self.model = QLineEdit()
        self.model.setPlaceholderText("e.g. gpt-4o, ByteDance-Seed/UI-TARS-1.5-7B")
        self.convention = QComboBox()
        for c in CONVENTIONS.values():
            self.convention.addItem(f"{c.name} — {c.family}", c.name)
            self.convention.setItemData(self.convention.count() - 1, f"{c.description}\nspace: {c.space}",
                                        Qt.ToolTipRole)
        self.convention_help = QLabel()
        self.convention_help.setWordWrap(True)
        self.convention.currentIndexChanged.connect(self._convention_changed)
        self.pattern = QComboBox()
        self.pattern.addItems(PATTERNS)

        # the request
        self.temperature = QDoubleSpinBox()
        self.temperature.setRange(0.0, 2.0)
        self.temperature.setSingleStep(0.1)
        self.max_tokens = QSpinBox()
        self.max_tokens.setRange(1, 131072)
        self.image_detail = QComboBox()
        self.image_detail.addItems(("auto", "low", "high"))
        self.extra_body = QPlainTextEdit()
        self.extra_body.setFont(mono)
        self.extra_body.setPlaceholderText('{"skip_special_tokens": false}')
        self.extra_body.setMaximumHeight(70)
        self.extra_body.textChanged.connect(self._validate)
        self.extra_error = QLabel()
        self.extra_error.setWordWrap(True)
        self.extra_error.setStyleSheet("color: #d04040")

        # the key
        self.key_source = QComboBox()
        for key, text in KEY_SOURCES:
            self.key_source.addItem(text, key)
        self.key_source.currentIndexChanged.connect(self._key_source_changed)
        self.api_key_env = QLineEdit()
        self.api_key_env.setPlaceholderText("OPENAI_API_KEY")
        self.key_field = QLineEdit()
        self.key_field.setEchoMode(QLineEdit.Password)
        self.key_field.setPlaceholderText("paste to store in the keyring on Save (empty: keep the stored key)")
        self.key_note = QLabel("The key goes to the OS keyring (service ScreenLab, user = agent name), "
                               "never to a file.")
        self.key_note.setWordWrap(True)

        # resize and limits
        self.factor, self.min_pixels, self.max_pixels = (self._optional_int(28 * 28 * 16384) for _ in range(3))
        self.factor.setToolTip("smart_resize factor for resized-pixel conventions (0: the model's default)")
        self.concurrency = QSpinBox()
        self.concurrency.setRange(1, 512)
        self.rpm, self.tpm = self._optional_int(10_000_000, "no limit"), self._optional_int(100_000_000, "no limit")
        self.timeout = QDoubleSpinBox()
        self.timeout.setRange(1.0, 3600.0)
        self.timeout.setSuffix(" s")
        self.max_retries = QSpinBox()
        self.max_retries.setRange(0, 20)
        self.price_in, self.price_out = QDoubleSpinBox(), QDoubleSpinBox()
        for spin in (self.price_in, self.price_out):
            spin.setRange(0.0, 1000.0)
            spin.setDecimals(3)
            spin.setPrefix("$")
            spin.setSuffix(" / M tokens")

        # test
        self.test_button = QPushButton("Test connection")
        self.test_button.clicked.connect(self.test_connection)
        self.test_result = QLabel()
        self.test_result.setWordWrap(True)
        self.test_result.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.tester = EndpointTester(self.test_button, self.test_result, self,
                                     can_test=lambda: self.kind.currentText() == "openai")
        self.tester.finished.connect(self.testFinished)
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #d04040")
        self.buttons = QDialogButtonBox(QDialogButtonBox.Save | QDialogButtonBox.Cancel)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)

        agent = QGroupBox("Agent")
        form = QFormLayout(agent)
        form.addRow("Name", self.name)
        form.addRow("Kind", self.kind)
        form.addRow("Base URL", self.base_url)
        form.addRow("Model", self.model)
        form.addRow("Output convention", self.convention)
        form.addRow("", self.convention_help)
        form.addRow("Working pattern", self.pattern)
        request = QGroupBox("Request")
        form = QFormLayout(request)
        form.addRow("Temperature", self.temperature)
        form.addRow("Max tokens", self.max_tokens)
        form.addRow("Image detail", self.image_detail)
        form.addRow("Extra body (JSON)", self.extra_body)
        form.addRow("", self.extra_error)
        key = QGroupBox("API key")
        form = QFormLayout(key)
        form.addRow("Source", self.key_source)
        form.addRow("Variable", self.api_key_env)
        form.addRow("Key", self.key_field)
        form.addRow("", self.key_note)
        limits = QGroupBox("Resize and limits")
        form = QFormLayout(limits)
        form.addRow("Resize factor", self.factor)
        form.addRow("Min pixels", self.min_pixels)
        form.addRow("Max pixels", self.max_pixels)
        form.addRow("Concurrency", self.concurrency)
        form.addRow("Requests / minute", self.rpm)
        form.addRow("Tokens / minute", self.tpm)
        form.addRow("Timeout", self.timeout)
        form.addRow("Retries", self.max_retries)
        form.addRow("Price in", self.price_in)
        form.addRow("Price out", self.price_out)

        left, right = QVBoxLayout(), QVBoxLayout()
        left.addWidget(agent)
        left.addWidget(request)
        right.addWidget(key)
        right.addWidget(limits)
        columns = QHBoxLayout()
        columns.addLayout(left, 1)
        columns.addLayout(right, 1)
        test_row = QHBoxLayout()
        test_row.addWidget(self.test_button)
        test_row.addWidget(self.test_result, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(columns)
        layout.addLayout(test_row)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)

        self.kind.currentIndexChanged.connect(self._kind_changed)
        self.set_profile(profile or AgentProfile(name=""))

    @staticmethod
    def _optional_int(maximum: int, zero_text: str = "default") -> QSpinBox:
        spin = QSpinBox()
        spin.setRange(0, maximum)
        spin.setSpecialValueText(zero_text)  # shown at 0
        return spin

    # profile <-> fields ---------------------------------------------------------------
    def set_profile(self, p: AgentProfile) -> None:
        self.name.setText(p.name)
        self.kind.setCurrentText(p.kind)
        self.base_url.setText(p.base_url)
        self.model.setText(p.model)
        self.convention.setCurrentIndex(max(0, self.convention.findData(p.convention)))
        self.pattern.setCurrentText(p.pattern)
        self.temperature.setValue(p.temperature)
        self.max_tokens.setValue(p.max_tokens)
        self.image_detail.setCurrentText(p.image_detail)
        self.extra_body.setPlainText(json.dumps(p.extra_body) if p.extra_body else "")
        source = "keyring" if p.use_keyring else "env" if p.api_key_env else "none"
        self.key_source.setCurrentIndex(self.key_source.findData(source))
        self.api_key_env.setText(p.api_key_env)
        self.key_field.clear()
        self.factor.setValue(p.factor or 0)
        self.min_pixels.setValue(p.min_pixels or 0)
        self.max_pixels.setValue(p.max_pixels or 0)
        self.concurrency.setValue(p.concurrency)
        self.rpm.setValue(p.rpm)
        self.tpm.setValue(p.tpm)
        self.timeout.setValue(p.timeout_s)
        self.max_retries.setValue(p.max_retries)
        self.price_in.setValue(p.price_in_per_mtok)
        self.price_out.setValue(p.price_out_per_mtok)
        self._convention_changed()
        self._kind_changed()
        self._key_source_changed()
        self._validate()

    def profile(self) -> AgentProfile:
        """The profile the fields describe. Raises ValueError (bad extra body) or ProfileError."""
        source = self.key_source.currentData()
        kept = {f.name: getattr(self.original, f.name) for f in fields(AgentProfile)} if self.original else {}
        profile = AgentProfile(**{
            **kept,  # fields this dialog does not show survive an edit
            "name": self.name.text().strip(), "kind": self.kind.currentText(),
            "base_url": self.base_url.text().strip(), "model": self.model.text().strip(),
            "convention": self.convention.currentData(), "pattern": self.pattern.currentText(),
            "temperature": self.temperature.value(), "max_tokens": self.max_tokens.value(),
            "image_detail": self.image_detail.currentText(),
            "extra_body": parse_extra_body(self.extra_body.toPlainText()),
            "api_key_env": self.api_key_env.text().strip() if source == "env" else "",
            "use_keyring": source == "keyring",
            "factor": self.factor.value() or None, "min_pixels": self.min_pixels.value() or None,
            "max_pixels": self.max_pixels.value() or None, "concurrency": self.concurrency.value(),
            "rpm": self.rpm.value(), "tpm": self.tpm.value(), "timeout_s": self.timeout.value(),
            "max_retries": self.max_retries.value(), "price_in_per_mtok": self.price_in.value(),
            "price_out_per_mtok": self.price_out.value()})
        profile.validate()
        if source == "env" and not profile.api_key_env:
            raise ProfileError("name the environment variable that holds the key")
        return profile

    # reactions ----------------------------------------------------------------------
    def _convention_changed(self) -> None:
        c = CONVENTIONS.get(self.convention.currentData())
        self.convention_help.setText(f"{c.family}: {c.description} (coordinates: {c.space})" if c else "")

    def _kind_changed(self) -> None:
        remote = self.kind.currentText() == "openai"
        for widget in (self.base_url, self.model, self.convention, self.temperature, self.max_tokens,
                       self.image_detail, self.extra_body, self.key_source, self.api_key_env, self.key_field,
                       self.test_button, self.rpm, self.tpm, self.timeout, self.max_retries):
            widget.setEnabled(remote)
        if remote:
            self._key_source_changed()

    def _key_source_changed(self) -> None:
        source = self.key_source.currentData()
        self.api_key_env.setEnabled(source == "env")
        self.key_field.setEnabled(source == "keyring")
        self.key_note.setVisible(source == "keyring")

    def _validate(self) -> bool:
        try:
            parse_extra_body(self.extra_body.toPlainText())
        except ValueError as exc:
            self.extra_error.setText(f"Extra body {exc}")
            self.extra_error.show()
            self.buttons.button(QDialogButtonBox.Save).setEnabled(False)
            return False
        self.extra_error.hide()
        self.buttons.button(QDialogButtonBox.Save).setEnabled(True)
        return True

    # test connection ------------------------------------------------------------------
    def test_connection(self) -> None:
        """The endpoint as this dialog describes it (agents/endpoint_check.py), not yet saved: a key typed
        here is used as is, a stored one is read by the test."""
        try:
            extra = parse_extra_body(self.extra_body.toPlainText())
            base_url, model = self.base_url.text().strip(), self.model.text().strip()
            check_fields(base_url, model)
        except ValueError as exc:  # a bad field: shown, not raised
            self.tester.show(False, str(exc))
            return
        source, typed = self.key_source.currentData(), self.key_field.text()
        name, env = self.name.text().strip() or "(unnamed)", self.api_key_env.text().strip()
        check = EndpointCheck(base_url, model, typed if source == "keyring" else "", extra_body=extra,
                              timeout_s=min(self.timeout.value(), TEST_TIMEOUT_S))
        self.tester.start(check, lambda: secrets.resolve_key(name, env if source == "env" else "",
                                                             source == "keyring"))

    # save ---------------------------------------------------------------------------
    def save(self) -> bool:
        """Write agents.json (and the key to the keyring); closes the dialog on success."""
        try:
            profile = self.profile()
            profiles = load_profiles(self.profiles_path)
            renamed_from = self.original.name if self.original and self.original.name != profile.name else None
            if profile.name in profiles and (self.original is None or renamed_from):
                raise ProfileError(f"an agent named '{profile.name}' exists already")
            if profile.use_keyring and self.key_field.text():
                try:
                    secrets.store_key(profile.name, self.key_field.text())
                except Exception as exc:  # no keyring backend, locked keyring, ...
                    raise ProfileError(f"could not store the key in the OS keyring: {exc}") from None
                self.key_field.clear()
            if renamed_from:
                profiles.pop(renamed_from, None)
            profiles[profile.name] = profile
            save_profiles(profiles, self.profiles_path)
        except (ValueError, OSError) as exc:  # ProfileError is a ValueError
            self.error.setText(str(exc))
            return False
        self.error.clear()
        self.original = profile
        self.saved.emit(profile)
        self.accept()
        return True
