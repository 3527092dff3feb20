"""Engine creation: one place that knows SQLite pragmas, URL handling and database passwords.

A server's password is never part of a project's stored or shown URL: it comes from the URL the user
typed for this session only, SCREENLAB_DB_PASSWORD, or the OS keyring (service "ScreenLab database",
user "<user>@<host>:<port>/<database>"), in that order.
"""

from __future__ import annotations

import os

from sqlalchemy import create_engine, event
from sqlalchemy.engine import URL, Engine, make_url

PASSWORD_ENV = "SCREENLAB_DB_PASSWORD"
KEYRING_SERVICE = "ScreenLab database"
SERVER_URL_EXAMPLE = "postgresql+psycopg://ann@db.lab.example:5432/screens"


def _sqlite_pragmas(dbapi_conn, _record) -> None:
    cur = dbapi_conn.cursor()
    # WAL lets the GUI read while a background import or run writes.
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA busy_timeout=10000")
    cur.close()


def keyring_user(url: URL) -> str:
    return f"{url.username}@{url.host}:{url.port or 5432}/{url.database}"


def public_url(url: str) -> str:
    """The URL without its password: what a project remembers, shows and logs."""
    if url.startswith("sqlite"):
        return url
    u = make_url(url)
    bare = URL.create(u.drivername, u.username, None, u.host, u.port, u.database, u.query)
    return bare.render_as_string(hide_password=False)


def _with_password(url: str) -> URL:
    parsed = make_url(url)
    if parsed.password or parsed.get_backend_name() == "sqlite":
        return parsed
    password = os.environ.get(PASSWORD_ENV)
    if not password:
        try:
            import keyring

            password = keyring.get_password(KEYRING_SERVICE, keyring_user(parsed))
        except Exception:  # no keyring on this machine: the server says if a password was needed
            password = None
    return parsed.set(password=password) if password else parsed


def server_url(text: str, password: str = "") -> str:
    """A server project's URL as typed, with the password typed for this session (never stored); ValueError
    with what to type when it is not a PostgreSQL URL."""
    try:
        url = make_url(text)
    except Exception:  # sqlalchemy's ArgumentError, or a port that is no number
        raise ValueError(f"Not a database URL. It looks like {SERVER_URL_EXAMPLE}") from None
    if url.get_backend_name() != "postgresql":
        raise ValueError(f"A server project is on PostgreSQL: {SERVER_URL_EXAMPLE}")
    if password:
        url = url.set(password=password)
    return url.render_as_string(hide_password=False)


def store_password(url: str, password: str) -> None:
    """Keep a server password in the OS keyring for the URL's user, host and database."""
    import keyring

    keyring.set_password(KEYRING_SERVICE, keyring_user(make_url(url)), password)


def make_engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    # a server that went away is noticed on the next checkout (pre-ping) rather than as a failed edit;
    # connect_timeout keeps a dead server from freezing the window for the OS's TCP timeout. One pooled
    # connection: a lab of 50 open windows holds 50 connections, not 250 (the server's default limit is 100);
    # a burst of work (a run's workers, a count beside the list) opens more and closes them when done.
    return create_engine(_with_password(url), pool_pre_ping=True, pool_size=1, max_overflow=15,
                         connect_args={"connect_timeout": 5, "application_name": "ScreenLab"})
