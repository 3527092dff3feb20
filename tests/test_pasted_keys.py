"""Issue 34, finding 3: a key pasted where a variable's name belongs is refused in every door, and a key no
profile names (a gateway's, echoed in an error) is taken out of what is stored and printed.

Every check ends in the same search: the project folder (its SQLite database as a `.dump` too), the config,
data and log folders (agents file, settings, crash logs) and everything printed, for any 12 characters of the key.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sqlite3
import sys
from contextlib import closing
from pathlib import Path

import keyring
import pytest
from scoped_env import environment

from desktop_app import api, crash
from desktop_app.agents.profiles import ProfileError, load_profiles, profiles_path, save_profiles
from desktop_app.cli.main import main
from desktop_app.formats.transfer import import_path
from desktop_app.paths import demo_dataset_dir
from desktop_app.secrets import LOOKS_LIKE_KEY, looks_like_key, redact
from desktop_app.store.project import Project

from openai_server import FakeOpenAI, Response
from secrets_sweep import VAULT_FILE_VAR, FileKeyring

HF_KEY = "hf_kQ3vT8zLm2Rx9YpW4nB7cJ5dF1gH6sA0eU"  # a Hugging Face token's shape: identifier-like
GATEWAY_KEY = "Qm7Xc2Vb9Nz4Lk8Jh3Gf6Ds1Ap5Ow0Ie2Ry"  # no prefix, no profile names it: only its shape tells
FRAGMENT = 12


def cli(printed: list[str], *args: str) -> int:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    printed.append(out.getvalue() + err.getvalue())
    return code


def places(key: str, folders: list[Path], printed: list[str]) -> list[str]:
    """Where any FRAGMENT characters of `key` occur: files under `folders` (SQLite ones as a .dump too) and
    the printed outputs."""
    pieces = [key[i:i + FRAGMENT] for i in range(len(key) - FRAGMENT + 1)]
    texts = [(f"printed #{n}", text) for n, text in enumerate(printed)]
    for folder in folders:
        for path in sorted(folder.rglob("*")) if folder.exists() else ():
            if not path.is_file():
                continue
            data = path.read_bytes()
            texts.append((str(path), data.decode("utf-8", "replace")))
            if data.startswith(b"SQLite format 3\x00"):
                with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
                    texts.append((f"{path} (.dump)", "\n".join(db.iterdump())))
    return [where for where, text in texts if any(p in text for p in pieces)]


def user_folders() -> list[Path]:
    return [Path(os.environ[v]) for v in ("SCREENLAB_CONFIG_DIR", "SCREENLAB_DATA_DIR", "SCREENLAB_LOG_DIR")]


@pytest.mark.parametrize("name", [
    HF_KEY, "ghp_" + "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6", "github_pat_11ABCDEFG0abcdefghijklmnop",
    "AKIAIOSFODNN7EXAMPLE", "AIzaSyA1bC2dE3fG4hI5jK6lM7nO8pQ9rS0tU1v", GATEWAY_KEY,
    "sk-proj-N4vQ7rT2xW9zB6cE1gH8jK3mP5sU0yA7dF2hJ9", "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp"])
def test_a_key_shaped_variable_name_is_refused(name):
    assert looks_like_key(name)


@pytest.mark.parametrize("name", ["OPENAI_API_KEY", "HF_TOKEN", "hf_home", "GROQ_LLM", "AKIA", "sk_live",
                                  "OpenAI_Api_Key_For_Team_Number2", "MY_VERY_LONG_PROVIDER_API_KEY_NAME_2024"])
def test_an_ordinary_variable_name_is_kept(name):
    assert not looks_like_key(name)


def test_agents_add_refuses_a_pasted_key_and_keeps_it_nowhere(tmp_path):
    printed: list[str] = []
    code = cli(printed, "agents", "add", "hf", "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
               "--api-key-env", HF_KEY)
    assert code == 2 and LOOKS_LIKE_KEY in printed[-1] and printed[-1].count("\n") == 1
    assert "`screenlab agents set-key NAME`" in printed[-1]
    assert "hf" not in load_profiles()
    # the Python door says the same, and `synth --api-key-env` too
    with pytest.raises(ProfileError, match="looks like a key itself"):
        api.agent(name="hf", base_url="http://127.0.0.1:9/v1", model="m", api_key_env=HF_KEY)
    Project.init(tmp_path / "p").close()
    assert cli(printed, "synth", "popup", str(tmp_path / "p"), "--base-url", "http://127.0.0.1:9/v1",
               "--model", "m", "--api-key-env", HF_KEY) == 2
    assert LOOKS_LIKE_KEY in printed[-1]
    assert places(HF_KEY, [tmp_path, *user_folders()], printed) == []


def test_the_set_key_command_the_message_names_stores_the_key_in_the_keyring(tmp_path, monkeypatch):
    monkeypatch.setenv(VAULT_FILE_VAR, str(tmp_path / "vault.json"))  # the "OS keyring" (not searched)
    previous = keyring.get_keyring()
    keyring.set_keyring(FileKeyring())
    try:
        printed: list[str] = []
        assert cli(printed, "agents", "add", "hf", "--base-url", "http://127.0.0.1:9/v1", "--model", "m") == 0
        monkeypatch.setattr(sys, "stdin", io.StringIO(HF_KEY + "\n"))
        assert cli(printed, "agents", "set-key", "hf") == 0
        assert keyring.get_password("ScreenLab", "hf") == HF_KEY and load_profiles()["hf"].use_keyring
        assert cli(printed, "agents", "set-key", "nobody") == 2 and "no agent named 'nobody'" in printed[-1]
    finally:
        keyring.set_keyring(previous)
    assert places(HF_KEY, [*user_folders()], printed) == []


def test_a_profile_saved_before_the_refusal_runs_nothing_and_shows_no_key(tmp_path):
    """An agents file written by an older ScreenLab (or by hand) with a key as the variable's name: `agents`
    lists it without the key, `run` refuses it before a run row (with its "env:..." reference) is stored."""
    project = tmp_path / "p"
    with Project.init(project) as p:
        import_path(p, demo_dataset_dir(), "screenlab")
    profiles_path().parent.mkdir(parents=True, exist_ok=True)
    profiles_path().write_text(json.dumps({"agents": [{"name": "old", "base_url": "http://127.0.0.1:9/v1",
                                                       "model": "m", "api_key_env": HF_KEY}]}))
    printed: list[str] = []
    assert cli(printed, "agents") == 0 and "old" in printed[-1]
    assert cli(printed, "run", str(project), "--agent", "old") == 2 and LOOKS_LIKE_KEY in printed[-1]
    with Project.open(project) as p:
        assert api.runs(p) == []
    save_profiles({})  # the user removes it, as the message says
    assert places(HF_KEY, [project, *user_folders()], printed) == []


def test_a_key_the_server_echoes_in_its_errors_is_stored_and_printed_nowhere(tmp_path):
    """A gateway's own key, which no profile names, echoed in a 401 by a real HTTP server: the run's stored
    errors, `eval`, `export` and a crash log carry it nowhere."""
    project = tmp_path / "p"
    with Project.init(project) as p:
        import_path(p, demo_dataset_dir(), "screenlab")

    def respond(body, n):
        if n % 2:
            return Response(text='{"action_type": "click", "point": [640, 400]}')
        message = f"Upstream refused the gateway key {GATEWAY_KEY} (rotate it)"
        return Response(status=401, raw_body=json.dumps({"error": {"message": message}}).encode())

    printed: list[str] = []
    with environment(LOCAL_LLM="not-a-real-key"), FakeOpenAI(respond) as server:
        assert cli(printed, "agents", "add", "gw", "--base-url", server.base_url, "--model", "m",
                   "--convention", "point-px", "--api-key-env", "LOCAL_LLM") == 0
        cli(printed, "run", str(project), "--agent", "gw", "--where", "scenario=popup")
        assert len(server.requests) >= 2
    assert "failed requests" in printed[-1]
    for args in (["eval", str(project)], ["eval", str(project), "--per-sample"],
                 ["export", str(project), str(tmp_path / "out"), "--format", "screenlab"]):
        assert cli(printed, *args) == 0
    with Project.open(project) as p, p.reading() as s:
        from sqlalchemy import select

        from desktop_app.store import models as m

        errors = s.execute(select(m.Prediction.error).where(m.Prediction.error != "")).scalars().all()
    assert errors and all("gateway key *** (rotate it)" in e for e in errors)

    # a crash with the key in its message: the log and what is printed
    log_dir = Path(os.environ["SCREENLAB_LOG_DIR"])
    crash.install(log_dir, dialog=False)
    err = io.StringIO()
    try:
        raise RuntimeError(f"the gateway said: key {GATEWAY_KEY} refused; token {HF_KEY}")
    except RuntimeError:
        with contextlib.redirect_stderr(err):
            sys.excepthook(*sys.exc_info())
    finally:
        crash.uninstall()
    printed.append(err.getvalue())
    assert list(log_dir.glob("crash-*.log"))
    for key in (GATEWAY_KEY, HF_KEY):
        assert places(key, [tmp_path, *user_folders()], printed) == []


def test_redaction_leaves_hashes_ids_and_words_alone():
    text = ("sha256 0f3a9c2e4b6d8f1a3c5e7b9d2f4a6c8e0b1d3f5a7c9e2b4d6f8a0c2e4b6d8f1a, run 12, "
            "episode demo-popup-0003, OpenAI_Api_Key_For_Team_Number2, https://example.test/v1/chat/completions")
    assert redact(text) == text
    assert redact(f"key {GATEWAY_KEY}.") == "key ***."


def test_the_gui_dialogs_refuse_a_pasted_key(qtbot):
    from desktop_app.settings import Settings
    from desktop_app.ui.eval.profile_dialog import AgentProfileDialog
    from desktop_app.ui.llm_settings import KeyStoreError, LlmSettingsPage

    dialog = AgentProfileDialog()
    qtbot.addWidget(dialog)
    dialog.name.setText("hf")
    dialog.base_url.setText("http://127.0.0.1:9/v1")
    dialog.model.setText("m")
    dialog.key_source.setCurrentIndex(dialog.key_source.findData("env"))
    dialog.api_key_env.setText(HF_KEY)
    assert not dialog.save() and "looks like a key itself" in dialog.error.text()
    assert HF_KEY[:FRAGMENT] not in dialog.error.text() and "hf" not in load_profiles()

    settings = Settings()
    page = LlmSettingsPage(settings)
    qtbot.addWidget(page)
    page.env_var.setText(HF_KEY)
    page.key_source.setCurrentIndex(page.key_source.findData("env"))
    with pytest.raises(KeyStoreError, match="looks like a key itself"):
        page.apply_to(settings)
    assert settings.llm_api_key_env != HF_KEY
