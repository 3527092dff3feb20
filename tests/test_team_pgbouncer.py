"""A lab of 50 puts PgBouncer (session mode) in front of the server: each person still logs in with their own
login and password (SCRAM, verified by PgBouncer against the server), the server still knows who they are
(session_user), and its row-level security, identity triggers and stale-write refusals work unchanged."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.engine import make_url

from desktop_app import api
from desktop_app.cli.main import main
from desktop_app.formats.transfer import import_path
from desktop_app.store.db import public_url
from desktop_app.store.models import AuditEntry, Step
from desktop_app.store.project import Project

from conftest import make_image

pytestmark = pytest.mark.parametrize("backend", ["postgresql"])


@pytest.fixture
def bouncer(pg_server):
    from pg_server import PgBouncer

    started = PgBouncer(pg_server).start()
    yield started
    started.stop()


def test_the_team_through_pgbouncer_in_session_mode(team, bouncer, tmp_path, monkeypatch, capsys):
    for i in range(3):
        make_image(tmp_path / "shots" / f"s{i}.png", size=(300, 200), color=(i * 70, 10, 10))
    database = make_url(team.location).database
    via = {who: bouncer.url(database, who, team.passwords[who]) for who in ("lena", "ana", "ben")}
    with Project.open(via["lena"], team.media) as lena:
        assert (api.whoami(lena).user, api.whoami(lena).role) == ("lena", "lead")
        import_path(lena, tmp_path / "shots", "images")
        with lena.reading() as s:
            from desktop_app.store.queries import EpisodeFilter, episode_ids

            first, second, third = episode_ids(s, EpisodeFilter())
        api.assign(lena, ["ana"], {"ids": [first]})
        api.assign(lena, ["ben"], {"ids": [second, third]})
    with Project.open(via["ana"], team.media) as ana:
        assert (api.whoami(ana).user, api.whoami(ana).role) == ("ana", "annotator")
        assert [e.id for e in api.queue(ana)] == [first]  # row-level security, through the pooler
        with ana.reading() as s:
            step = s.execute(select(Step).where(Step.episode_id == first)).scalars().first()
        shown = api.screen(ana, step.id)
        api.add_boxes(ana, step.id, [{"x1": 5, "y1": 5, "x2": 60, "y2": 40, "label": "gold"}],
                      expected_version=shown.version)
        with pytest.raises(api.StaleEdit):
            api.add_boxes(ana, step.id, [{"x1": 5, "y1": 5, "x2": 60, "y2": 40, "label": "gold"}],
                          expected_version=shown.version)
    # the CLI through the pooler, the password from the environment
    monkeypatch.setenv("SCREENLAB_DB_PASSWORD", team.passwords["ben"])
    bare = public_url(via["ben"])
    assert main(["team", "whoami", bare, "--media", str(team.media)]) == 0
    assert capsys.readouterr().out.strip() == "ben (annotator)"
    with Project.open(via["lena"], team.media) as lena, lena.reading() as s:
        actors = [e.actor for e in s.execute(select(AuditEntry).where(AuditEntry.entity == "action_box")).scalars()]
    assert actors == ["ana"]
