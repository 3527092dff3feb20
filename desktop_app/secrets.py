"""API keys: read from the environment or the OS keyring at the moment they are needed.

Keys are never written to a project, an export, a settings file or a log.
"""

from __future__ import annotations

import os

KEYRING_SERVICE = "ScreenLab"


class MissingKey(ValueError):
    pass


def resolve_key(owner: str, env_var: str = "", use_keyring: bool = False) -> str:
    """owner: the profile's name; it is also the keyring user name."""
    if env_var:
        value = os.environ.get(env_var)
        if value:
            return value
        raise MissingKey(f"{owner}: environment variable {env_var} is not set")
    if use_keyring:
        import keyring

        value = keyring.get_password(KEYRING_SERVICE, owner)
        if value:
            return value
        raise MissingKey(f"{owner}: no key in the OS keyring (service {KEYRING_SERVICE}, user {owner})")
    return "not-needed"  # local servers (vLLM, Ollama, LM Studio) accept any key


def store_key(owner: str, key: str) -> None:
    import keyring

    keyring.set_password(KEYRING_SERVICE, owner, key)
