"""Who changed what. Rows are only ever appended (the database enforces it)."""

from __future__ import annotations

import getpass
import os
from typing import Any

from sqlmodel import Session

from desktop_app.store.models import AuditEntry


def current_actor() -> str:
    name = os.environ.get("SCREENLAB_USER")
    if name:
        return name
    try:
        return getpass.getuser()
    except Exception:  # no login name (some containers): still record something
        return "unknown"


def record(session: Session, action: str, entity: str, entity_id: int | None = None,
           changes: dict[str, Any] | None = None, actor: str | None = None) -> None:
    session.add(AuditEntry(actor=actor or current_actor(), action=action, entity=entity,
                           entity_id=entity_id, changes=changes or {}))
