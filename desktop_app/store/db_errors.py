"""What a database error means for the user: another writer holds the lock, or the server is gone.

Its own module so that the store's listeners (box_listeners.py) can tell a lost server without importing
project.py, which imports them."""

from __future__ import annotations

from sqlalchemy.exc import OperationalError


def is_locked(exc: Exception) -> bool:
    """The database is busy with another process's write (SQLite) or a lock wait ran out (PostgreSQL)."""
    text = str(exc).lower()
    return "database is locked" in text or "database table is locked" in text or "lock timeout" in text


def is_connection_lost(exc: BaseException) -> bool:
    """The server could not be reached or dropped the connection (not a refused or conflicting write)."""
    from sqlalchemy.exc import DBAPIError

    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    text = str(exc).lower()
    return isinstance(exc, OperationalError) and any(
        s in text for s in ("connection refused", "server closed the connection", "could not connect",
                            "connection failed", "terminating connection", "connection timeout", "timeout expired"))
