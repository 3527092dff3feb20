"""Who is working on a project, as the database knows it (ADR 0029).

On a PostgreSQL server a person is a database login, and what they may do follows from their team role:
three group roles per project database (lead, reviewer, annotator), created by migration 0013 with the
grants, row-level security policies and identity triggers that enforce the team's rules on the server.
Who did something is the server's `session_user`, written by triggers; the client only reads it here to
show it and to pick the person's queue.

A SQLite project is one person's file: there the user is the name in SCREENLAB_USER or the OS login
(audit.current_actor), and they may do everything (role "owner").
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.engine import Engine

ROLES = ("lead", "reviewer", "annotator")  # what a lead may give a person
STAFF = ("owner", "lead", "reviewer")  # see everyone's work; may reopen, accept and return it
OWNER = "owner"  # the login that created the project (or a superuser): every right, runs migrations
MAX_NAME = 63  # PostgreSQL's identifier length (NAMEDATALEN - 1)


@dataclass(frozen=True)
class Identity:
    user: str  # the login (server) or the typed / OS name (SQLite)
    role: str  # owner | lead | reviewer | annotator | none

    @property
    def is_staff(self) -> bool:
        return self.role in STAFF

    @property
    def can_assign(self) -> bool:
        return self.role in (OWNER, "lead")

    def __str__(self) -> str:
        return f"{self.user} ({self.role})"


def group_name(database: str, role: str) -> str:
    """The group role of `role` in this project database: `sl:<database>:<role>`, readable in `psql \\du`;
    a long database name is cut and made unique by a hash so the name fits PostgreSQL's 63 bytes."""
    if role not in ROLES:
        raise ValueError(f"unknown team role '{role}' (one of {', '.join(ROLES)})")
    name = f"sl:{database}:{role}"
    if len(name.encode()) <= MAX_NAME:
        return name
    digest = hashlib.sha256(database.encode()).hexdigest()[:8]
    room = MAX_NAME - len(f"sl:~{digest}:{role}".encode())
    head = database.encode()[:room].decode(errors="ignore")
    return f"sl:{head}~{digest}:{role}"


def has_team_security(engine: Engine) -> bool:
    """Whether the server enforces the team's rules in this database (migration 0013 ran on it)."""
    if engine.dialect.name != "postgresql":
        return False
    with engine.connect() as conn:
        return conn.execute(text("SELECT to_regprocedure('screenlab_role()') IS NOT NULL")).scalar_one()


def identity(engine: Engine) -> Identity:
    """Who this connection is: the server's session_user and their team role; on SQLite, the local user."""
    if engine.dialect.name != "postgresql":
        from desktop_app.store.audit import current_actor

        return Identity(current_actor(), OWNER)
    with engine.connect() as conn:
        user = conn.execute(text("SELECT session_user")).scalar_one()
        secured = conn.execute(text("SELECT to_regprocedure('screenlab_role()') IS NOT NULL")).scalar_one()
        # a project from before migration 0013: whoever can open it may do everything
        role = conn.execute(text("SELECT screenlab_role()")).scalar_one() if secured else OWNER
    return Identity(user, role)
