"""The people of a team: on a server project each is a PostgreSQL login in one of the project's group roles
(lead, reviewer, annotator; store/server_roles.py). A lead adds them, changes their role, removes them and
resets a forgotten password through functions the server runs with the owner's rights (migration 0013),
so a lead needs no server rights of their own.

A new password is made here, shown once to the lead (or put in this computer's keyring), and reaches the
server only as a SCRAM-SHA-256 verifier computed by libpq: no file, log or table of ours holds it.

A SQLite project is one person's file: its people are the names its assignments carry.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from desktop_app.store import audit
from desktop_app.store.project import NotAllowed, Project
from desktop_app.store.server_roles import OWNER, ROLES, STAFF

NOT_ON_SQLITE = ("a SQLite project is one person's file: a team shares a project on a PostgreSQL server "
                 "(screenlab init postgresql://you@server/db), where each person has their own login")


@dataclass(frozen=True)
class Member:
    login: str
    role: str  # owner | lead | reviewer | annotator


@dataclass(frozen=True)
class Added:
    login: str
    role: str
    created: bool  # a new login; False: the login existed on the server and keeps its password
    password: str | None  # the new login's password, to hand over once; None when it existed


def new_password() -> str:
    return secrets.token_urlsafe(15)  # 120 bits, 20 characters a person can type


def _verifier(conn, login: str, password: str) -> str:
    """The SCRAM-SHA-256 verifier of a password, computed by libpq on this connection (as psql's \\password)."""
    raw = conn.connection.dbapi_connection
    return raw.pgconn.encrypt_password(password.encode(), login.encode(), b"scram-sha-256").decode()


def _on_server(project: Project, work: Callable[[Any], Any]) -> Any:
    """work(conn) in one transaction; the server's refusal said in its own words (NotAllowed for a right the
    caller lacks, ValueError for a bad name or role), never with the statement's parameters (a verifier)."""
    try:
        with project.engine.begin() as conn:
            return work(conn)
    except DBAPIError as exc:
        state = getattr(exc.orig, "sqlstate", None)
        reason = (str(exc.orig).splitlines() or ["refused"])[0]
        if state == "42501":
            me = project.identity
            raise NotAllowed(f"the server refused this for {me.user} ({me.role}): {reason}") from None
        if state == "22023":
            raise ValueError(reason) from None
        raise


def _require_server(project: Project, lead: bool = True) -> None:
    """A server project, and (for managing people) a lead: said here in words; the server refuses anyway
    (the functions are executable by the lead's group only, and check the caller's role)."""
    if not project.on_server:
        raise ValueError(NOT_ON_SQLITE)
    me = project.identity
    if lead and me.role not in (OWNER, "lead"):
        raise NotAllowed(f"you are {me.user} ({me.role}): only the team's lead manages its people")


def members(project: Project) -> list[Member]:
    """Everyone in the project's team with their role, the owner first."""
    if not project.on_server:
        from sqlalchemy import select

        from desktop_app.store.models import Assignment

        with project.reading() as s:
            names = s.execute(select(Assignment.annotator).distinct().order_by(Assignment.annotator)).scalars().all()
        return [Member(project.user, OWNER)] + [Member(n, "annotator") for n in names if n != project.user]
    with project.engine.connect() as conn:
        owner = conn.execute(text("SELECT pg_get_userbyid(relowner) FROM pg_class "
                                  "WHERE oid = 'public.episode'::regclass")).scalar_one()
        rows = conn.execute(text(
            "SELECT m.rolname, CASE g.rolname WHEN screenlab_group('lead') THEN 'lead' "
            "WHEN screenlab_group('reviewer') THEN 'reviewer' ELSE 'annotator' END "
            "FROM pg_auth_members a JOIN pg_roles g ON g.oid = a.roleid JOIN pg_roles m ON m.oid = a.member "
            "WHERE g.rolname IN (screenlab_group('lead'), screenlab_group('reviewer'), screenlab_group('annotator')) "
            "AND m.rolcanlogin AND m.rolname <> :owner ORDER BY 2, 1"), {"owner": owner}).all()
    order = {r: i for i, r in enumerate(ROLES)}
    return [Member(owner, OWNER)] + sorted((Member(login, role) for login, role in rows),
                                           key=lambda m: (order[m.role], m.login))


def role_of(project: Project, login: str) -> str | None:
    return next((m.role for m in members(project) if m.login == login), None)


def add_member(project: Project, login: str, role: str, password: str | None = None) -> Added:
    """Add a person (a new login with a password made here, or an existing login of the server) with this
    role; a member already in the team gets the new role. Only the lead (or the owner) may."""
    _require_server(project)
    if role not in ROLES:
        raise ValueError(f"unknown role '{role}' (one of {', '.join(ROLES)})")
    password = password or new_password()
    created = _on_server(project, lambda conn: conn.execute(
        text("SELECT screenlab_add_member(:login, :role, :verifier)"),
        {"login": login, "role": role, "verifier": _verifier(conn, login, password)}).scalar_one())
    _audited(project, "add_member", {"login": login, "role": role, "new_login": created})
    return Added(login, role, created, password if created else None)


def _audited(project: Project, action: str, changes: dict) -> None:
    """Who changed the team is kept with everything else (never a password)."""
    with project.transaction() as s:
        audit.record(s, action, "team", None, changes, project.actor())


def set_role(project: Project, login: str, role: str) -> Member:
    """Change a member's role (they keep their login and password)."""
    if role_of(project, login) is None:
        raise ValueError(f"'{login}' is not in this project's team ({', '.join(m.login for m in members(project))})")
    add_member(project, login, role)
    return Member(login, role)


def remove_member(project: Project, login: str) -> bool:
    """Take a person out of the team (their login stays on the server, with no access to this project);
    False when they were not in it. Their work and its history stay."""
    _require_server(project)
    was = _on_server(project, lambda conn: conn.execute(text("SELECT screenlab_remove_member(:login)"),
                                                        {"login": login}).scalar_one())
    if was:
        _audited(project, "remove_member", {"login": login})
    return was


def reset_password(project: Project, login: str, password: str | None = None) -> str:
    """A new password for a member who lost theirs (only for logins in no other team on the server)."""
    _require_server(project)
    password = password or new_password()
    _on_server(project, lambda conn: conn.execute(text("SELECT screenlab_reset_password(:login, :verifier)"),
                                                  {"login": login, "verifier": _verifier(conn, login, password)}))
    _audited(project, "reset_password", {"login": login})
    return password


def change_own_password(project: Project, password: str | None = None) -> str:
    """The logged-in person's own new password (PostgreSQL lets every login change its own)."""
    _require_server(project, lead=False)
    password = password or new_password()

    def change(conn) -> None:
        quoted = "'" + _verifier(conn, project.user, password).replace("'", "''") + "'"
        conn.exec_driver_sql(f"ALTER ROLE CURRENT_USER PASSWORD {quoted}")
    _on_server(project, change)
    return password


class PasswordNotKept(RuntimeError):
    """A new password is in force but the keyring could not keep it: `password` must be shown to the person."""

    def __init__(self, password: str, why: Exception):
        self.password = password
        super().__init__(f"the new password is in force, but this computer's keyring could not keep it ({why})")


def member_url(project: Project, login: str) -> str:
    """The project's URL for this person's own login (no password): what they open."""
    return make_url(project.url).set(username=login).render_as_string(hide_password=False)  # project.url has none


def keep_in_keyring(project: Project, login: str, password: str) -> None:
    """Put a member's password in this computer's keyring, where opening the project finds it (store/db.py);
    PasswordNotKept when it cannot (the password is already in force: it must not be lost)."""
    from desktop_app.store.db import store_password

    try:
        store_password(member_url(project, login), password)
    except Exception as exc:  # no keyring on this machine, or a locked one
        raise PasswordNotKept(password, exc) from exc


def person(project: Project, name: str | None) -> str:
    """Whose work a command is about: yourself when no name is given; someone else only if you are staff and
    they are in the team (a typo never makes a new annotator)."""
    me = project.identity
    if not name or name == me.user:
        return me.user
    people = members(project)
    if name not in {m.login for m in people}:
        known = ", ".join(m.login for m in people) or "nobody yet"
        raise ValueError(f"'{name}' is not in this project's team (people: {known})")
    if me.role not in STAFF:
        raise ValueError(f"you are {me.user} ({me.role}): you can only act on your own work, not {name}'s")
    return name
