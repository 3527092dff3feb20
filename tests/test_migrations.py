from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlmodel import SQLModel

from desktop_app.store import models  # noqa: F401


def test_migrations_build_exactly_the_schema_the_code_uses(any_project):
    """A model change without a migration would corrupt users' projects on upgrade (on either back end)."""
    project = any_project
    with project.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), SQLModel.metadata)
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
