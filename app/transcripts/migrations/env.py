"""Alembic environment: migrates the transcript database named by ``sqlalchemy.url``."""

from __future__ import annotations

from alembic import context

from app.transcripts.db import make_engine
from app.transcripts.models import Base

config = context.config
target_metadata = Base.metadata


def run_offline() -> None:
    """Write the SQL to standard output instead of running it (``alembic upgrade --sql``)."""
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    """Run the migrations on a connection; SQLite alters tables in batch mode (copy and swap)."""
    url = config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("sqlalchemy.url is not set in the Alembic configuration")
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            if connection.dialect.name == "sqlite":
                # Batch mode copies a table and drops the old one; with foreign keys enforced,
                # that drop would cascade to the rows that refer to it (a message's ratings and
                # passages). Off for the migration only (a no-op inside a transaction).
                connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
                connection.commit()
            context.configure(
                connection=connection,
                target_metadata=target_metadata,
                render_as_batch=connection.dialect.name == "sqlite",
                compare_type=True,
            )
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
