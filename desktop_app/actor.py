"""Who is at the keyboard when nothing better says so: SCREENLAB_USER, else the OS login.

A module of its own, free of the database's imports, because the settings read it at launch, before the
splash (ui/splash.py) could show; store/audit.py writes it next to every change."""

from __future__ import annotations

import getpass
import os


def current_actor() -> str:
    name = os.environ.get("SCREENLAB_USER")
    if name:
        return name
    try:
        return getpass.getuser()
    except Exception:  # no login name (some containers): still record something
        return "unknown"
