from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from desktop_app.store import models


def test_migrations_build_exactly_the_schema_the_code_uses(any_project):
    """A model change without a migration would corrupt users' projects on upgrade (on either back end)."""
    project = any_project
    with project.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), models.Base.metadata)
    assert diff == []


def test_runs_written_before_typed_runs_keep_their_fields(tmp_path):
    """Migration 0003 moves Run.meta into columns: a project made by the previous version opens with its
    runs' agents, totals, failures and protocols intact, and no run left 'running' or 'created'."""
    import json

    from alembic import command
    from sqlalchemy import create_engine, select, text

    from desktop_app.store import migrate
    from desktop_app.store import models as m
    from desktop_app.store.project import Project

    url = f"sqlite:///{tmp_path / 'old.sqlite'}"
    engine = create_engine(url)
    cfg = migrate._config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0002")
        conn.execute(text("INSERT INTO agent_profile (id, name, base_url, model, pattern, convention, api_key_ref, "
                          "params, created_at) VALUES (1, 'gpt', '', 'gpt-4o', 'cot', 'json-text', '', '{}', "
                          "'2026-11-01 00:00:00')"))
        old = [("created", {"agent": "gpt", "pattern": "cot", "model": "gpt-4o", "convention": "json-text"}),
               ("running", {"agent": "gpt", "mode": "navi", "allow_ask": False, "prompt_tokens": 1200,
                            "completion_tokens": 40, "cost": 0.5, "executions": 2}),
               ("failed", {"agent": "gpt", "last_error": "ProfileError: no key"})]
        for i, (status, meta) in enumerate(old, 1):
            conn.execute(text("INSERT INTO run (id, name, profile_id, selection, status, meta, created_at) VALUES "
                              "(:id, :name, 1, '{}', :status, :meta, '2026-11-01 00:00:00')"),
                         {"id": i, "name": f"old {i}", "status": status, "meta": json.dumps(meta)})
    engine.dispose()
    with Project(url, tmp_path / "media") as project:
        migrate.upgrade(project.engine)
        with project.reading() as s:
            runs = {r.id: r for r in s.execute(select(m.Run)).scalars()}
    assert [runs[i].status for i in (1, 2, 3)] == ["pending", "cancelled", "failed"]
    assert (runs[1].protocol, runs[1].pattern, runs[1].model, runs[1].convention) == ("screen", "cot", "gpt-4o",
                                                                                      "json-text")
    assert (runs[2].protocol, runs[2].options) == ("episode", {"allow_ask": False})
    assert (runs[2].prompt_tokens, runs[2].completion_tokens, runs[2].cost, runs[2].executions) == (1200, 40, 0.5, 2)
    assert runs[3].failure == "ProfileError: no key"


def _schema(path) -> list[tuple]:
    import sqlite3

    with sqlite3.connect(path) as db:
        return db.execute("SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name").fetchall()


def test_a_new_project_copied_from_the_first_is_the_database_alembic_made(tmp_path):
    """ADR 0063: the first new SQLite project of a process runs every migration; the next ones get a copy of that
    empty database at head. The copy has the first one's schema to the byte (and so the models' schema), nothing in
    it but the revision and its own media choice, WAL mode, passes SQLite's check, takes an import and shares
    nothing with the first."""
    import sqlite3

    from sqlalchemy import text

    from desktop_app.formats.transfer import import_path
    from desktop_app.paths import demo_dataset_dir
    from desktop_app.store import migrate
    from desktop_app.store.project import Project

    migrate._EMPTY_AT_HEAD.clear()  # whatever earlier tests of this process made: the first is migrated here
    Project.init(tmp_path / "first").close()
    assert set(migrate._EMPTY_AT_HEAD) == {migrate.head_on_disk()}
    with Project.init(tmp_path / "copied") as project:
        with project.engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), models.Base.metadata)
        assert diff == []
        import_path(project, demo_dataset_dir(), "screenlab")
    first = _schema(tmp_path / "first" / "screenlab.sqlite")
    assert len(first) > 50 and _schema(tmp_path / "copied" / "screenlab.sqlite") == first
    with sqlite3.connect(tmp_path / "copied" / "screenlab.sqlite") as db:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [(migrate.head_on_disk(),)]
        assert db.execute("SELECT count(*) FROM episode").fetchone()[0] > 0  # the import went in
    db.close()
    with Project.open(tmp_path / "first") as first_project, first_project.reading() as s:
        assert s.execute(text("SELECT count(*) FROM episode")).scalar() == 0


def test_a_database_with_anything_in_it_is_migrated_never_overwritten_by_the_copy(tmp_path):
    """A SQLite file that holds a table but no schema revision (someone's own database chosen by mistake) goes
    through Alembic as before: the kept copy only ever fills a database with nothing in it."""
    import sqlite3

    from sqlalchemy import create_engine

    from desktop_app.store import migrate
    from desktop_app.store.project import Project

    Project.init(tmp_path / "any").close()  # a copy to offer is kept by now
    assert migrate._EMPTY_AT_HEAD
    path = tmp_path / "mine.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE notes (body TEXT)")
        db.execute("INSERT INTO notes VALUES ('keep me')")
    db.close()
    engine = create_engine(f"sqlite:///{path}")
    assert migrate.upgrade(engine)
    engine.dispose()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT body FROM notes").fetchall() == [("keep me",)]
        assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [(migrate.head_on_disk(),)]
    db.close()
