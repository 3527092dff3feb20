from datetime import UTC

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DatabaseError

from desktop_app.store import audit, edits
from desktop_app.store.migrate import current_revision, head_revision
from desktop_app.store.models import ActionBox, AuditEntry, Episode, Screen, Step
from desktop_app.store.orm import select
from desktop_app.store.project import DB_FILE, Project, ProjectError


def test_init_creates_sqlite_and_media_at_schema_head(tmp_path):
    with Project.init(tmp_path / "p") as project:
        assert (tmp_path / "p" / DB_FILE).is_file()
        assert (tmp_path / "p" / "media").is_dir()
        assert current_revision(project.engine) == head_revision()


def test_sqlite_runs_in_wal_mode_with_foreign_keys(project):
    with project.engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1


def test_both_back_ends_refuse_a_step_of_no_episode(any_project):
    project = any_project
    with pytest.raises(DatabaseError), project.transaction() as s:
        s.add(Step(episode_id=999, index=0, screen_id=999))  # no such episode/screen


def test_open_refuses_a_folder_without_a_project(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(ProjectError, match="not a ScreenLab project"):
        Project.open(tmp_path / "empty")


def test_init_refuses_an_existing_project(tmp_path):
    Project.init(tmp_path / "p").close()
    with pytest.raises(ProjectError, match="already holds"):
        Project.init(tmp_path / "p")


def test_each_edit_is_committed_at_once_and_survives_reopening(new_location):
    location, media = new_location()
    project = Project.init(location, media)
    with project.transaction() as s:
        screen = Screen(sha256="a" * 64, ext="png", width=10, height=10)
        episode = Episode(key="e1", goal="buy a lamp")
        s.add_all([screen, episode])
        s.flush()
        step = Step(episode_id=episode.id, screen_id=screen.id)
        s.add(step)
        s.flush()
        s.add(ActionBox(step_id=step.id, x1=1, y1=2, x2=3, y2=4, label="gold"))
    # a second connection sees the edit without any save step
    with Project.open(location, media) as again, again.reading() as s:
        box = s.exec(select(ActionBox)).one()
        assert (box.x1, box.y2, box.label) == (1, 4, "gold")
        assert box.created_at.tzinfo is not None and box.created_at.utcoffset() == UTC.utcoffset(None)
    project.close()


def test_database_rejects_incomplete_and_inverted_boxes_and_the_store_unknown_labels(any_project):
    """The schema keeps boxes whole and their role one of three (ADR 0047); the class is the project's
    vocabulary's to check (store/label_set.py), so an edit naming a class the project lacks is refused before it
    reaches the database."""
    project = any_project
    with project.transaction() as s:
        screen = Screen(sha256="b" * 64, ext="png", width=10, height=10)
        episode = Episode(key="e")
        s.add_all([screen, episode])
        s.flush()
        step = Step(episode_id=episode.id, screen_id=screen.id)
        s.add(step)
    for bad in (dict(label="gold", x1=5, y1=0, x2=1, y2=1), dict(label="gold", x1=1), dict(label="great")):
        with pytest.raises(DatabaseError), project.transaction() as s:
            s.add(ActionBox(step_id=step.id, **bad))
    with pytest.raises(ValueError, match="unknown role 'great'"):
        edits.create_boxes(project, step.id, [{"label": "great"}])
    with pytest.raises(ValueError, match="unknown class 'Car'"):
        edits.create_boxes(project, step.id, [{"label": "gold", "category": "Car"}])


def test_audit_log_is_append_only(any_project):
    project = any_project
    with project.transaction() as s:
        audit.record(s, "update", "action_box", 1, {"label": ["other", "gold"]})
    with project.reading() as s:
        entry = s.exec(select(AuditEntry)).one()
        # SCREENLAB_USER on SQLite; on a server the login, written by the server whatever the client sends
        assert entry.actor == ("screenlab" if project.on_server else "tester")
    for statement in ("UPDATE audit_log SET actor = 'mallory'", "DELETE FROM audit_log"):
        with pytest.raises(DatabaseError, match="append-only"), project.engine.begin() as conn:
            conn.execute(text(statement))


def test_a_row_made_in_python_has_its_defaults_at_once_and_a_core_insert_gets_its_times(project):
    """The tables are plain SQLAlchemy made as dataclasses (ADR 0067), as SQLModel made them before: the code reads
    a new row's defaults before it is flushed (its meta to fill in, its times), and a Core insert that leaves the
    time out still gets one."""
    from sqlalchemy import insert

    episode = Episode(key="e1")
    assert (episode.id, episode.kind, episode.meta, episode.version) == (None, "sample", {}, 1)
    assert episode.created_at.tzinfo is UTC
    episode.meta["source"] = "typed"  # a fresh dict each, not one shared by every row
    assert Episode(key="e2").meta == {}
    with pytest.raises(TypeError):
        Episode("e3")  # by keyword only, as before
    with project.transaction() as s:
        s.add(episode)
        s.flush()
        s.execute(insert(Screen).values(sha256="a" * 64, ext="png", width=1, height=1, meta={}))
    with project.reading() as s:
        stored = s.exec(select(Episode).where(Episode.key == "e1")).one()
        assert stored.meta == {"source": "typed"} and stored.id is not None
        screen = s.exec(select(Screen)).one()
        assert screen.created_at.tzinfo is UTC and screen.platform == "web"
        assert s.exec(select(Episode.key)).all() == ["e1"]  # one column: the values themselves
        assert s.exec(select(Episode.key, Episode.kind)).all() == [("e1", "sample")]  # several: rows
