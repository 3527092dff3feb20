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


class MissingKey(ValueError):
    pass


def resolve_key(owner: str, env_var: str = "", use_keyring: bool = False) -> str:
    """owner: the profile's name; it is also the keyring user name. Every key handed out is remembered
    (in memory only) so redact() can take it out of any text, a keyring-held one included."""
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


def store_key(owner: str, key: str) -> None:
    import keyring

    keyring.set_password(KEYRING_SERVICE, owner, key)


# -- keeping keys out of what is stored or shown ------------------------------------------------------
_handed_out: set[str] = set()  # keys resolve_key returned in this process (never written anywhere)
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH", re.IGNORECASE)
_SECRET_PATTERNS = [
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}"), "sk-***"),  # OpenAI-style keys (sk-proj-..., sk-ant-...)
    (re.compile(r"\b(gsk|xai|hf|ghp|gho|github_pat|glpat|r8)_[A-Za-z0-9_\-]{8,}"), r"\1_***"),  # Groq, xAI, HF, ...
    (re.compile(r"\bAIza[A-Za-z0-9_\-]{20,}"), "AIza***"),  # Google API keys
    (re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=\-]{8,}"), r"\1 ***"),
    (re.compile(r"(?i)\b(api[_-]?key|token|secret|password)\s*([=:])\s*['\"]?[^\s'\",;]{4,}"), r"\1\2***"),
    (re.compile(r"(://[^/\s:@]+):[^/\s@]+@"), r"\1:***@"),  # postgresql://user:password@host
]


def redact(text: str, known: tuple[str, ...] = ()) -> str:
    """`text` with anything that looks like a secret replaced by ***: the keys handed out in this process,
    the values of environment variables named like secrets, `known` values, and key-shaped strings."""
    values = set(known) | _handed_out | {v for n, v in os.environ.items() if _SECRET_NAME.search(n)}
    for value in sorted((v for v in values if v and len(v) >= 6 and v != "not-needed"), key=len, reverse=True):
        if value in text:
            text = text.replace(value, "***")
    for pattern, replacement in _SECRET_PATTERNS:
        text = pattern.sub(replacement, text)
    return text
