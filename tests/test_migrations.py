from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlmodel import SQLModel

from desktop_app.store import models  # noqa: F401


def test_migrations_build_exactly_the_schema_the_code_uses(project):
    """A model change without a migration would corrupt users' projects on upgrade."""
    with project.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), SQLModel.metadata)
    assert diff == []
