"""A lead manages the team's people on a PostgreSQL server: each person a login with their own password
(shown once, or kept in the keyring), a role they can be moved between, out of the team again; a lost
password reset; one's own password changed. Through the API and the CLI, as the lead and as people who
may not. A project made before this change gets the team's rules from `screenlab migrate`, by its owner."""

from __future__ import annotations

import pytest
from sqlalchemy import select, text

from desktop_app import api
from desktop_app.cli.main import main
from desktop_app.store.models import AuditEntry
from desktop_app.store.project import NotAllowed, Project

from secrets_sweep import VAULT_FILE_VAR, FileKeyring

on_server = pytest.mark.parametrize("backend", ["postgresql"])  # the team fixture on the server only


def _url(team, login, password=None):
    from sqlalchemy.engine import make_url

    url = make_url(team.location).set(username=login)
    return (url.set(password=password) if password else url).render_as_string(hide_password=False)


def _no_login(team, login) -> None:
    """Drop a login an earlier test of this server session left (as the owner, a superuser here)."""
    with team.open("owner").engine.begin() as conn:
        conn.exec_driver_sql(f'DROP ROLE IF EXISTS "{login}"')


def _cannot_open(team, login, password, match):
    with pytest.raises(Exception, match=match):
        Project.open(_url(team, login, password), team.media).close()


@on_server
def test_a_lead_adds_moves_and_removes_a_person_who_logs_in_with_their_own_password(team):
    lena = team.open("lena")
    _no_login(team, "cara")
    added = api.add_member(lena, "cara", "annotator")
    assert (added.login, added.role, added.created) == ("cara", "annotator", True)
    assert len(added.password) >= 20
    with Project.open(_url(team, "cara", added.password), team.media) as cara:
        assert (api.whoami(cara).user, api.whoami(cara).role) == ("cara", "annotator")
    assert ("cara", "annotator") in [(m.login, m.role) for m in api.members(lena)]
    assert api.members(lena)[0].role == "owner"
    # a new role takes effect at her next login; her password stays
    api.set_member_role(lena, "cara", "reviewer")
    with Project.open(_url(team, "cara", added.password), team.media) as cara:
        assert api.whoami(cara).role == "reviewer"
    # out of the team: the login this project made for her goes with her, so the server lets her in nowhere
    assert api.remove_member(lena, "cara") is True
    assert api.remove_member(lena, "cara") is False
    _cannot_open(team, "cara", added.password, "password authentication failed")
    # the wrong password never opens a project
    _cannot_open(team, "ana", "guessed", "password authentication failed")
    with lena.reading() as s:
        trail = [(e.actor, e.action, e.changes.get("login")) for e in
                 s.execute(select(AuditEntry).where(AuditEntry.entity == "team").order_by(AuditEntry.id)).scalars()]
        stored = " ".join(str(row) for row in s.execute(text("SELECT * FROM audit_log")).all())
    assert trail[-3:] == [("lena", "add_member", "cara"), ("lena", "add_member", "cara"),
                          ("lena", "remove_member", "cara")]
    assert added.password not in stored  # the password is in no table of ours


@on_server
def test_only_the_lead_manages_people_and_no_one_can_be_made_an_administrator(team):
    for who in ("ana", "rita"):
        project = team.open(who)
        with pytest.raises(NotAllowed, match=f"you are {who} .*only the team's lead manages its people"):
            api.add_member(project, "mallory", "lead")
        with pytest.raises(NotAllowed):
            api.reset_password(project, "ben")
    lena = team.open("lena")
    with pytest.raises(NotAllowed, match="owner, an administrator or not a person's login"):
        api.add_member(lena, team.owner_login, "annotator")  # the owner (a superuser here)
    with pytest.raises(NotAllowed, match="not a person's login"):
        api.add_member(lena, "pg_read_server_files", "annotator")
    with pytest.raises(Exception, match="a login is 1-63 lower-case letters"):
        api.add_member(lena, "Robert'); DROP TABLE episode; --", "annotator")
    with pytest.raises(ValueError, match="unknown role 'admin'"):
        api.add_member(lena, "mallory", "admin")
    assert {m.login for m in api.members(lena)} == {team.owner_login, "lena", "rita", "ana", "ben"}


@on_server
def test_a_lost_password_is_reset_by_the_lead_but_not_for_someone_in_another_team(team, pg_server, tmp_path):
    from team_server import make_team

    lena = team.open("lena")
    new = api.reset_password(lena, "ana")
    _cannot_open(team, "ana", team.passwords["ana"], "password authentication failed")
    with Project.open(_url(team, "ana", new), team.media) as ana:
        assert api.whoami(ana).user == "ana"
    team.passwords["ana"] = new
    # ana joins a second project's team: this lead may no longer change her password there and here
    other = make_team("postgresql", pg_server.new_database(), tmp_path / "other-media", pg_server, same_people=team)
    try:
        with pytest.raises(NotAllowed, match="rights beyond this project"):
            api.reset_password(lena, "ana")
    finally:
        other.close()


@on_server
def test_a_person_changes_their_own_password_into_the_keyring(team, tmp_path, monkeypatch):
    import keyring

    monkeypatch.setenv(VAULT_FILE_VAR, str(tmp_path / "vault.json"))
    previous = keyring.get_keyring()
    keyring.set_keyring(FileKeyring())
    try:
        ben = team.open("ben")
        api.change_password(ben)  # kept in the keyring for ben's URL
        monkeypatch.delenv("SCREENLAB_DB_PASSWORD", raising=False)
        with Project.open(_url(team, "ben"), team.media) as again:  # no password given: the keyring's
            assert api.whoami(again).user == "ben"
        _cannot_open(team, "ben", team.passwords["ben"], "password authentication failed")
        # a lead adding someone can put the new password in this computer's keyring instead of showing it
        lena = team.open("lena")
        _no_login(team, "dan")
        assert api.add_member(lena, "dan", "annotator", keyring=True).password
        with Project.open(_url(team, "dan"), team.media) as dan:
            assert api.whoami(dan).role == "annotator"
    finally:
        keyring.set_keyring(previous)


@on_server
def test_people_through_the_command_line(team, monkeypatch, capsys):
    def as_(who, *argv, password=None):
        monkeypatch.setenv("SCREENLAB_DB_PASSWORD", password or team.passwords[who])
        return main([*argv[0].split(), _url(team, who), "--media", str(team.media), *argv[1:]])

    _no_login(team, "eve")
    capsys.readouterr()
    assert as_("lena", "team add-member", "eve", "--role", "reviewer") == 0
    out = capsys.readouterr().out
    password = next(line.split(": ", 1)[1] for line in out.splitlines() if "password (shown once" in line)
    assert f"they open: {_url(team, 'eve')}" in out
    assert as_("eve", "team whoami", password=password) == 0
    assert capsys.readouterr().out.strip() == "eve (reviewer)"
    assert as_("lena", "team set-role", "eve", "annotator") == 0
    assert as_("lena", "team members") == 0
    listed = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert ["eve", "annotator"] in listed and ["lena", "lead"] in listed
    # an annotator is refused in one line, with nothing changed
    assert as_("ana", "team remove-member", "ben") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "only the team's lead manages its people" in err
    assert as_("lena", "team reset-password", "eve") == 0
    new = next(line.split(": ", 1)[1] for line in capsys.readouterr().out.splitlines() if "shown once" in line)
    assert as_("eve", "team whoami", password=password) == 3  # the old password: refused at the door
    assert "refused the login: " in capsys.readouterr().err
    assert as_("eve", "team password", "--show", password=new) == 0
    newest = capsys.readouterr().out.split(": ", 1)[1].strip()
    assert as_("eve", "team whoami", password=newest) == 0
    assert as_("lena", "team remove-member", "eve") == 0
    assert as_("eve", "team whoami", password=newest) == 3


def test_an_older_server_project_gets_the_rules_from_its_owner_and_nobody_else(pg_server, tmp_path, monkeypatch,
                                                                                capsys):
    """A project made before migration 0013, whose team used the owner's login with typed names: opening
    it as someone else says who must upgrade it; `screenlab migrate` with the owner's login does it."""
    from alembic import command

    from desktop_app.store import migrate
    from desktop_app.store.db import make_engine

    url = pg_server.new_database()
    engine = make_engine(url)
    cfg = migrate._config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0012")
        conn.exec_driver_sql('DROP ROLE IF EXISTS "old_hand"')
        conn.exec_driver_sql("CREATE ROLE old_hand LOGIN PASSWORD 'pw'")
        conn.exec_driver_sql("GRANT ALL ON ALL TABLES IN SCHEMA public TO old_hand")
    engine.dispose()
    hand = url.replace("screenlab:team-secret@", "old_hand:pw@")
    with pytest.raises(migrate.SchemaNeedsOwner, match="only its owner can upgrade it"):
        Project.open(hand, tmp_path / "media")
    monkeypatch.setenv("SCREENLAB_DB_PASSWORD", "team-secret")
    bare = url.replace(":team-secret@", "@")
    assert main(["migrate", bare, "--media", str(tmp_path / "media")]) == 0
    assert f"from schema 0012 to {migrate.head_revision()} (as screenlab)" in capsys.readouterr().out
    assert main(["migrate", bare, "--media", str(tmp_path / "media")]) == 0
    assert "nothing to do" in capsys.readouterr().out
    with Project.open(url, tmp_path / "media") as owner:
        assert api.whoami(owner).role == "owner"
        with owner.engine.begin() as conn:
            conn.exec_driver_sql("REVOKE ALL ON ALL TABLES IN SCHEMA public FROM old_hand")
            conn.exec_driver_sql("DROP ROLE old_hand")
