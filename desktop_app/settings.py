"""User settings shared by all projects: a JSON file in the user's config folder.

Never holds secrets: API keys live in the environment or the OS keyring.
Writes are atomic (temp file + rename), so a crash never leaves half a file.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from desktop_app.actor import current_actor
from desktop_app.paths import user_config_dir

FILE_NAME = "settings.json"
MAX_RECENT = 10


@dataclass
class Settings:
    annotator: str = ""
    theme: str = "system"  # system, light, dark
    palette: str = "default"  # default, colorblind
    shortcuts: dict[str, str] = field(default_factory=dict)  # action id -> key sequence, overrides only
    recent_projects: list[str] = field(default_factory=list)
    server_media: dict[str, str] = field(default_factory=dict)  # a server project's URL (no password) -> media
    last_project: str = ""
    last_import_format: str = ""  # the Import dialog's choice when it cannot tell what a source holds
    window_geometry: str = ""  # base64 of Qt's saveGeometry()
    window_state: str = ""
    snap_on_draw: bool = False
    show_suggestions: bool = True  # the OCR suggestions layer (runs OCR in the background per screen)
    box_captions: str = "always"  # captions on the canvas: always, hover (hovered/selected boxes only), never
    ocr_engine: str = "rapidocr"
    ocr_language: str = "en"
    easyocr_model_dir: str = ""
    allow_downloads: bool = False
    # the LLM that writes synthetic samples (the agents under test have their own profiles)
    llm_base_url: str = ""
    llm_model: str = ""
    llm_temperature: float = 1.0
    llm_api_key_env: str = ""
    llm_use_keyring: bool = False
    browser_path: str = ""  # a Chromium/Chrome/Edge to use when Playwright's own is absent
    # accepting an ambiguous task with an empty checklist or an unasked removed detail: "warn" or "block"
    ambiguous_problems: str = "warn"
    list_columns: list[str] = field(default_factory=list)  # the sample list's columns shown (empty: the default)
    # the New run dialog's last choices (agents, patterns, protocol, samples), offered again next time
    new_run: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)  # keys later versions add, kept on save

    def add_recent(self, location: str) -> None:
        self.recent_projects = [location] + [p for p in self.recent_projects if p != location]
        del self.recent_projects[MAX_RECENT:]
        self.last_project = location


def settings_path() -> Path:
    return user_config_dir() / FILE_NAME


def annotator_name(settings: Settings) -> str:
    """Who edits and labels: the name in Settings, else the OS user (the audit log's actor)."""
    return settings.annotator.strip() or current_actor()


def load_settings(path: Path | None = None) -> Settings:
    path = path or settings_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Settings()
    except (OSError, ValueError):
        # A damaged settings file must not stop the app; keep it for inspection.
        path.replace(path.with_suffix(".json.damaged"))
        return Settings()
    if not isinstance(data, dict):
        return Settings()
    known = {f.name for f in fields(Settings)}
    settings = Settings()
    for key, value in data.items():
        if key in known and key != "extra":
            default = getattr(settings, key)
            if isinstance(value, type(default)):
                setattr(settings, key, value)
        elif key not in known:
            settings.extra[key] = value
    return settings


def save_settings(settings: Settings, path: Path | None = None) -> None:
    path = path or settings_path()
    data = asdict(settings)
    extra = data.pop("extra")
    data.update({k: v for k, v in extra.items() if k not in data})
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".settings-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2, sort_keys=True)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
