"""A team on one project, for the tests: a lead (lena), a reviewer (rita) and two annotators (ana, ben).

On PostgreSQL each person is a login of the test server, added by the project's owner with api.add_member
(their passwords made by ScreenLab, as a lead's are); every door is used as that person: a Project opened
with their login, the CLI with their URL and SCREENLAB_DB_PASSWORD, a raw psycopg connection for attacks.
On SQLite (one person's file) the same people are names: a Project opened with user=name, the CLI with
SCREENLAB_USER.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy.engine import make_url

PEOPLE = {"lena": "lead", "rita": "reviewer", "ana": "annotator", "ben": "annotator"}


@dataclass
class Team:
    backend: str
    location: str  # the folder, or the URL without a password
    media: Path | None
    server: object = None  # tests/pg_server.PgServer on PostgreSQL
    passwords: dict[str, str] = field(default_factory=dict)
    owner_login: str = "owner"  # the login that created the project (the test server's superuser)
    opened: list = field(default_factory=list)

    @property
    def on_server(self) -> bool:
        return self.backend == "postgresql"

    def url(self, who: str, password: bool = True) -> str:
        """Where `who` opens the project: their own login (with their password when asked)."""
        if not self.on_server:
            return self.location
        login = self.owner_login if who == "owner" else who
        url = make_url(self.location).set(username=login)  # the location holds no password
        if password:
            url = url.set(password=self.passwords[who])
        return url.render_as_string(hide_password=False)

    def open(self, who: str):
        from desktop_app import api

        project = api.open_project(self.url(who), self.media, user=who)  # as every door opens it
        self.opened.append(project)
        return project

    def cli_args(self, who: str) -> list[str]:
        """The project argument as `who` types it (no password in it)."""
        return [self.url(who, password=False)] + (["--media", str(self.media)] if self.media else [])

    def env(self, who: str) -> dict[str, str]:
        """What `who`'s shell holds: their password (server) or their name (SQLite)."""
        if self.on_server:
            return {"SCREENLAB_DB_PASSWORD": self.passwords[who], "SCREENLAB_USER": "someone-else"}
        return {"SCREENLAB_USER": who}

    def connect(self, who: str):
        """A raw psycopg connection as `who`, straight to the server (what an attacker with their password has)."""
        import psycopg

        url = make_url(self.location)
        return psycopg.connect(host=url.host, port=url.port, dbname=url.database, autocommit=True,
                               user=self.owner_login if who == "owner" else who, password=self.passwords[who])

    def close(self) -> None:
        for project in self.opened:
            project.close()
        self.opened.clear()


def make_team(backend: str, location, media, server=None, same_people: Team | None = None) -> Team:
    """A new project holding nothing yet, and its four people (on a server: four new logins, or the logins
    of `same_people`'s team, who then have a second project with the same passwords)."""
    from desktop_app.store.project import Project
    from desktop_app.teams import members

    if backend == "sqlite":
        Project.init(location).close()
        return Team(backend, str(location), None)
    owner_url = str(location)
    from desktop_app.store.db import public_url

    bare = public_url(owner_url)  # (URL.set(password=None) would keep the password)
    team = Team(backend, bare, Path(media), server)
    with Project.init(owner_url, media) as owner:
        if same_people is not None:
            for who, role in PEOPLE.items():
                members.add_member(owner, who, role)
            team.passwords.update(same_people.passwords)
        else:
            with owner.engine.begin() as conn:  # logins left by an earlier test of this server session
                for who in PEOPLE:
                    conn.exec_driver_sql(f'DROP ROLE IF EXISTS "{who}"')
            for who, role in PEOPLE.items():
                team.passwords[who] = members.add_member(owner, who, role).password
    team.passwords["owner"] = make_url(owner_url).password
    team.owner_login = make_url(owner_url).username
    return team


def step_of(project, episode_id: int):
    """The first step of an episode (every screen these tests make has one)."""
    from sqlalchemy import select

    from desktop_app.store.models import Step

    with project.reading() as s:
        return s.execute(select(Step).where(Step.episode_id == episode_id).order_by(Step.index)).scalars().first()
