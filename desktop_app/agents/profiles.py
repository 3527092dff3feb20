"""Agent profiles: the user's settings, shared by all projects (agents.json in the config folder).

A profile never holds an API key, only where to find one: an environment variable
name, or the OS keyring (service "ScreenLab", the profile name as user name).
A run keeps a frozen copy of its profile in the project, for provenance.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from desktop_app.paths import user_config_dir
from desktop_app.secrets import KEYRING_SERVICE, MissingKey, check_variable_name, resolve_key

FILE_NAME = "agents.json"
PATTERNS = ("direct", "cot", "action_annotation", "goal_tagged")
KINDS = ("openai", "random", "center", "ocr-match")  # openai = any OpenAI-compatible endpoint


class ProfileError(ValueError):
    pass


@dataclass
class AgentProfile:
    name: str
    kind: str = "openai"
    base_url: str = ""
    model: str = ""
    convention: str = "json-text"
    pattern: str = "direct"
    temperature: float = 0.0
    max_tokens: int = 512
    image_detail: str = "auto"  # auto, low, high
    extra_body: dict[str, Any] = field(default_factory=dict)  # e.g. {"skip_special_tokens": false} for vLLM
    api_key_env: str = ""  # name of the environment variable holding the key
    use_keyring: bool = False
    factor: int | None = None  # smart_resize parameters for resized-pixel conventions
    min_pixels: int | None = None
    max_pixels: int | None = None
    timeout_s: float = 60.0
    max_retries: int = 4
    concurrency: int = 8
    rpm: int = 0  # requests per minute, 0 = no limit
    tpm: int = 0  # tokens per minute, 0 = no limit
    price_in_per_mtok: float = 0.0  # for the cost estimate
    price_out_per_mtok: float = 0.0

    def validate(self) -> None:
        from desktop_app.agents.conventions import CONVENTIONS

        if not self.name.strip():
            raise ProfileError("an agent needs a name")
        if self.kind not in KINDS:
            raise ProfileError(f"unknown agent kind '{self.kind}' (one of {', '.join(KINDS)})")
        if self.pattern not in PATTERNS:
            raise ProfileError(f"unknown working pattern '{self.pattern}' (one of {', '.join(PATTERNS)})")
        if self.convention not in CONVENTIONS:
            raise ProfileError(f"unknown output convention '{self.convention}' "
                               f"(one of {', '.join(CONVENTIONS)}; see `screenlab agents`)")
        if self.api_key_env:
            try:  # never echo the value: it may be the key itself
                check_variable_name(self.api_key_env)
            except ValueError as exc:
                raise ProfileError(f"API key variable: {exc}") from None
        if self.kind == "openai" and not (self.base_url and self.model):
            raise ProfileError("an OpenAI-compatible agent needs --base-url and --model")

    def snapshot(self) -> dict[str, Any]:
        """What a run stores: everything but secrets (there are none to leave out by design)."""
        return asdict(self)

    @property
    def api_key_ref(self) -> str:
        if self.use_keyring:
            return f"keyring:{KEYRING_SERVICE}/{self.name}"
        return f"env:{self.api_key_env}" if self.api_key_env else ""


def profiles_path() -> Path:
    return user_config_dir() / FILE_NAME


def _from_dict(data: dict) -> AgentProfile:
    known = {f.name for f in fields(AgentProfile)}
    return AgentProfile(**{k: v for k, v in data.items() if k in known})


def load_profiles(path: Path | None = None) -> dict[str, AgentProfile]:
    path = path or profiles_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except ValueError as exc:
        raise ProfileError(f"{path} is not valid JSON ({exc}); fix or delete it") from None
    return {p["name"]: _from_dict(p) for p in data.get("agents", []) if isinstance(p, dict) and "name" in p}


def save_profiles(profiles: dict[str, AgentProfile], path: Path | None = None) -> None:
    path = path or profiles_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".agents-")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump({"agents": [asdict(p) for p in profiles.values()]}, fh, indent=2)
    os.replace(tmp, path)


def get_profile(name: str) -> AgentProfile:
    profiles = load_profiles()
    if name in profiles:
        return profiles[name]
    if name in BASELINES:
        return BASELINES[name]
    raise ProfileError(f"no agent named '{name}' (add one with `screenlab agents add`; "
                       f"built-in baselines: {', '.join(BASELINES)})")


def resolve_api_key(profile: AgentProfile) -> str:
    """The key for a request, read at the last moment and never stored or logged."""
    try:
        return resolve_key(profile.name, profile.api_key_env, profile.use_keyring)
    except MissingKey as exc:
        raise ProfileError(str(exc)) from None


# Reference rows that need no network (runner.py implements them).
BASELINES = {
    "random": AgentProfile(name="random", kind="random", convention="point-px"),
    "center": AgentProfile(name="center", kind="center", convention="point-px"),
    "ocr-match": AgentProfile(name="ocr-match", kind="ocr-match", convention="point-px"),
}
