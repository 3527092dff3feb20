"""API keys: read from the environment or the OS keyring at the moment they are needed.

Keys are never written to a project, an export, a settings file or a log.
"""

from __future__ import annotations

import os
import re

KEYRING_SERVICE = "ScreenLab"
# what an environment variable's name looks like: a key pasted into a "variable name" field is
# refused instead of saved in a settings or profile file
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
ENV_NAME_RULE = ("The variable name may hold only letters, digits and _ (e.g. OPENAI_API_KEY). "
                 "Put the key itself in the OS keyring or in that environment variable.")
# a key pasted where a variable's name belongs: refused by name_of_key_variable in every door (agent profiles,
# Settings > LLM endpoint, `synth --api-key-env`), before it can be saved, stored with a run or printed back
LOOKS_LIKE_KEY = ("this looks like a key itself; put it in the keyring (`screenlab agents set-key NAME`, or the "
                  "agent dialog's OS keyring choice) or in an environment variable and give its name")
# prefixes providers put on their keys; a variable's name may start so too (hf_HOME), so the rest must be long
# and look random (a digit or both cases) before a name is taken for a key
KEY_PREFIXES = ("sk-", "hf_", "ghp_", "gho_", "ghs_", "ghu_", "github_pat_", "xoxb-", "xoxp-", "AKIA", "AIza",
                "gsk_", "xai-", "glpat-", "r8_")
_PREFIX_REST = 16
_RANDOM_RUN = re.compile(r"[A-Za-z0-9]{20,}")  # a long run with no _ between words: how a key is written
RANDOM_KEY_CHARS = 32


def _looks_random(text: str) -> bool:
    return any(c.islower() for c in text) and any(c.isupper() for c in text) and any(c.isdigit() for c in text)


def looks_like_key(text: str) -> bool:
    """Whether `text` (given as an environment variable's name) is rather a key: a provider's prefix followed
    by a long random-looking rest, or a long string mixing lower case, upper case and digits with a long
    run between underscores (OpenAI_Api_Key_For_Team2 is a name; Zr4Kp9Tq2Wm7Xv5Bn8Lc3Hd6Fg1Js0Ay a key)."""
    text = text.strip()
    for prefix in KEY_PREFIXES:
        rest = text[len(prefix):]
        if text.startswith(prefix) and len(rest) >= _PREFIX_REST and (
                any(c.isdigit() for c in rest) or (any(c.islower() for c in rest) and any(c.isupper() for c in rest))):
            return True
    return len(text) >= RANDOM_KEY_CHARS and _looks_random(text) and any(
        _looks_random(run) for run in _RANDOM_RUN.findall(text))


def check_variable_name(name: str) -> None:
    """Raise ValueError when `name` cannot be an environment variable's name: a key pasted there
    (LOOKS_LIKE_KEY), or characters a name never has (ENV_NAME_RULE). The message never repeats `name`."""
    if looks_like_key(name):
        raise ValueError(LOOKS_LIKE_KEY)
    if not ENV_NAME.fullmatch(name):
        raise ValueError(ENV_NAME_RULE)


class MissingKey(ValueError):
    pass


def resolve_key(owner: str, env_var: str = "", use_keyring: bool = False) -> str:
    """owner: the profile's name (LLM_ENDPOINT_OWNER for Settings > LLM endpoint); it is also the keyring user
    name. Every key handed out is remembered (in memory only) so redact() can take it out of any text, a
    keyring-held one included."""
    if env_var:
        value = os.environ.get(env_var)
        if value:
            _handed_out.add(value)
            return value
        raise MissingKey(f"{owner}: environment variable {env_var} is not set")
    if use_keyring:
        import keyring

        value = keyring.get_password(KEYRING_SERVICE, owner)
        if value:
            _handed_out.add(value)
            return value
        raise MissingKey(f"{owner}: no key in the OS keyring (service {KEYRING_SERVICE}, user {owner})")
    return "not-needed"  # local servers (vLLM, Ollama, LM Studio) accept any key


# keyring's stand-ins for "no OS keyring here": they store nothing (fail raises, null forgets)
_NO_STORE = {"keyring.backends.fail", "keyring.backends.null"}


def keyring_report() -> tuple[bool, str]:
    """(whether keys can be kept in an OS keyring here, what the keyring is): the self-check and Settings say
    it, because keyring falls back to a back end that stores nothing when no OS keyring service runs (a
    desktop without GNOME Keyring or KWallet, a server), and a key "saved" there is gone."""
    import keyring

    backend = keyring.get_keyring()
    chain = getattr(backend, "backends", None)  # the chainer: usable when any of its back ends is
    real = [b for b in (chain if chain is not None else [backend]) if type(b).__module__ not in _NO_STORE]
    name = f"{type(backend).__module__}.{type(backend).__name__}"
    if not real:
        return False, (f"no OS keyring: only {name}, which stores nothing (no Secret Service such as GNOME "
                       "Keyring or KWallet is running); give API keys as environment variables instead")
    return True, name + (" (" + ", ".join(type(b).__name__ for b in real) + ")" if chain is not None else "")


def store_key(owner: str, key: str) -> None:
    import keyring

    keyring.set_password(KEYRING_SERVICE, owner, key)
    _handed_out.add(key)  # typed into a dialog and stored: this process holds it now, as if it had read it


# -- keeping keys out of what is stored or shown ------------------------------------------------------
_handed_out: set[str] = set()  # keys resolve_key returned or store_key stored in this process (never written)
MIN_KEY_CHARS = 8  # a shorter value is no real key, and taking it out would cut common words out of answers
# where the keys come from: the agent profiles and Settings > LLM endpoint (agents/profiles.FILE_NAME and
# settings.FILE_NAME; not imported, since both import this module or the store, and a crash handler must stay light)
PROFILE_FILES = ("agents.json", "settings.json")
LLM_ENDPOINT_OWNER = "llm-endpoint"  # the keyring user of the LLM that writes synthetic samples (Settings)
_references_cache: dict[tuple, tuple[frozenset[str], frozenset[str]]] = {}
_keyring_cache: dict[tuple[int, str], str] = {}  # (back end, owner) -> value or "": each entry read once
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH", re.IGNORECASE)
_SECRET_PATTERNS = [
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}"), "sk-***"),  # OpenAI-style keys (sk-proj-..., sk-ant-...)
    (re.compile(r"\b(gsk|xai|hf|ghp|gho|ghs|ghu|github_pat|glpat|r8)_[A-Za-z0-9_\-]{8,}"), r"\1_***"),  # Groq, HF, ...
    (re.compile(r"\b(xox[abposr])-[A-Za-z0-9\-]{8,}"), r"\1-***"),  # Slack tokens
    (re.compile(r"\bAIza[A-Za-z0-9_\-]{20,}"), "AIza***"),  # Google API keys
    (re.compile(r"\b(AKIA|ASIA)[0-9A-Z]{16}\b"), r"\1***"),  # AWS access key ids
    # a long run mixing lower case, upper case and digits: a key of no known shape (a local server's, a
    # proxy's); hex digests and ids (one case) and words are left alone
    (re.compile(r"\b(?=[A-Za-z0-9]*[a-z])(?=[A-Za-z0-9]*[A-Z])(?=[A-Za-z0-9]*[0-9])[A-Za-z0-9]{32,}\b"), "***"),
    (re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=\-]{8,}"), r"\1 ***"),
    (re.compile(r"(?i)\b(api[_-]?key|token|secret|password)\s*([=:])\s*['\"]?[^\s'\",;]{4,}"), r"\1\2***"),
    (re.compile(r"(://[^/\s:@]+):[^/\s@]+@"), r"\1:***@"),  # postgresql://user:password@host
]


def known_keys(known: tuple[str, ...] = ()) -> set[str]:
    """Every key value this process can tell: `known`, the keys handed out or stored here, the values of the
    environment variables the profiles and Settings read keys from, and their keyring entries (when this process
    already uses the keyring). A key need not have a known shape, nor have been asked for here: a library may
    read the environment or the keyring itself and put the key in an error."""
    env_names, owners = _references()
    values = set(known) | _handed_out | {os.environ.get(name, "") for name in env_names} | _keyring_values(owners)
    return {v for v in values if len(v) >= MIN_KEY_CHARS and v != "not-needed"}


def redact_keys(text: str, known: tuple[str, ...] = ()) -> str:
    """`text` with every known key value (known_keys) replaced by ***, and nothing else changed. For what a
    model or a server wrote, which is data: key-shaped patterns would also cut `password: ...` out of a
    synthesized login page."""
    for value in sorted(known_keys(known), key=len, reverse=True):
        if value in text:
            text = text.replace(value, "***")
    return text


def redact(text: str, known: tuple[str, ...] = ()) -> str:
    """`text` with anything that looks like a secret replaced by ***: the known keys (known_keys), the values of
    environment variables named like secrets, and key-shaped strings. For errors, logs and messages."""
    named = tuple(v for n, v in os.environ.items() if _SECRET_NAME.search(n))
    text = redact_keys(text, tuple(known) + named)
    for pattern, replacement in _SECRET_PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def _references() -> tuple[frozenset[str], frozenset[str]]:
    """(environment variable names, keyring owners) the agent profiles and Settings read keys from; the files
    are parsed again only when they change (this runs for every answer of a run)."""
    try:
        from desktop_app.paths import user_config_dir

        paths = [user_config_dir() / name for name in PROFILE_FILES]
        stamp = tuple((str(p), *_stat(p)) for p in paths)
    except Exception:  # no config folder: no references
        return frozenset(), frozenset()
    cached = _references_cache.get(stamp)
    if cached is not None:
        return cached
    env_names, owners = set(), set()
    agents, settings = (_read_json(p) for p in paths)
    for profile in agents.get("agents", []) if isinstance(agents.get("agents"), list) else []:
        if isinstance(profile, dict):
            _reference(env_names, owners, profile.get("name"), profile.get("api_key_env"), profile.get("use_keyring"))
    _reference(env_names, owners, LLM_ENDPOINT_OWNER, settings.get("llm_api_key_env"), settings.get("llm_use_keyring"))
    _references_cache.clear()
    _references_cache[stamp] = frozenset(env_names), frozenset(owners)
    return _references_cache[stamp]


def _reference(env_names: set, owners: set, owner, env_var, use_keyring) -> None:
    if isinstance(env_var, str) and ENV_NAME.fullmatch(env_var) and not looks_like_key(env_var):
        env_names.add(env_var)
    if use_keyring and isinstance(owner, str) and owner:
        owners.add(owner)


def _stat(path) -> tuple[int, int]:
    try:
        st = path.stat()
    except OSError:
        return (0, -1)
    return (st.st_mtime_ns, st.st_size)


def _read_json(path) -> dict:
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _keyring_values(owners: frozenset[str]) -> set[str]:
    """The keyring entries of these owners, only when this process has imported the keyring already (a process
    that never did cannot hold a keyring-held key): a redaction, a crash handler's among them, never brings in a
    keyring back end, which may wait on a desktop service or ask to unlock. Each entry is read once."""
    import sys

    module = sys.modules.get("keyring")
    if module is None or not owners:
        return set()
    try:
        backend = module.get_keyring()
    except Exception:
        return set()
    values = set()
    for owner in owners:
        slot = (id(backend), owner)
        if slot not in _keyring_cache:
            try:
                _keyring_cache[slot] = backend.get_password(KEYRING_SERVICE, owner) or ""
            except Exception:  # locked, no back end: nothing to take out
                _keyring_cache[slot] = ""
        values.add(_keyring_cache[slot])
    return values
