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
