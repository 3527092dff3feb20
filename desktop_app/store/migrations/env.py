"""Alembic environment. ScreenLab runs migrations itself (store/migrate.py) and
hands over an open connection; the CLI `alembic` entry point is not used."""

from alembic import context
from sqlmodel import SQLModel

from desktop_app.store import models  # noqa: F401  (registers the tables)

config = context.config
connection = config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=SQLModel.metadata,
    render_as_batch=True,  # SQLite needs table rebuilds for most ALTERs
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
