"""Engines, sessions and migrations for the transcript database (a SQLite file or PostgreSQL)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import URL, Engine, create_engine, event, make_url
from sqlalchemy import exc as sa_exc
from sqlalchemy.orm import Session, sessionmaker

from app.errors import ConfigurationError

logger = logging.getLogger(__name__)

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
CONNECT_TIMEOUT_S = 5


# What "the database is unreachable" looks like: anything else is a fault of the work itself.
_UNREACHABLE = (
    sa_exc.OperationalError,
    sa_exc.InterfaceError,
    sa_exc.DisconnectionError,
    sa_exc.TimeoutError,
    TimeoutError,
    OSError,
)


def is_unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` says the database could not be reached (down, cut off, too slow)."""
    if isinstance(exc, sa_exc.DBAPIError) and exc.connection_invalidated:
        return True
    return isinstance(exc, _UNREACHABLE)


def normalise_url(url: str) -> URL:
    """The URL with PostgreSQL pointed at psycopg 3 (``postgresql://`` and ``postgres://`` are
    accepted as written in most hosting consoles)."""
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def _enable_sqlite_foreign_keys(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA foreign_keys=ON")
    finally:
        cursor.close()


def make_engine(url: str) -> Engine:
    """An engine for ``url``; a SQLite file gets its folder created and foreign keys enforced.
    Connects to nothing yet; a URL no engine can be made from is a ``ConfigurationError``."""
    try:
        parsed = normalise_url(url)
        parsed.get_dialect().import_dbapi()  # an unknown scheme or a missing driver fails here
    except (sa_exc.ArgumentError, ImportError) as exc:
        raise ConfigurationError(
            f"SHOPDESK_DATABASE_URL cannot be used ({exc}); give a SQLAlchemy URL such as "
            "postgresql://user@host/db or sqlite:///path/transcripts.sqlite3"
        ) from exc
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database or ""
        if database and database != ":memory:" and not database.startswith("file:"):
            Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            parsed, connect_args={"check_same_thread": False}, pool_pre_ping=True
        )
        event.listen(engine, "connect", _enable_sqlite_foreign_keys)
    else:
        # A database that stops answering must fail a write in seconds, not hang a worker
        # thread: the turn is then queued in the outbox (libpq counts whole seconds).
        engine = create_engine(
            parsed, pool_pre_ping=True, connect_args={"connect_timeout": CONNECT_TIMEOUT_S}
        )
    logger.info("Transcript database: %s", parsed.render_as_string(hide_password=True))
    return engine


def alembic_config(url: str) -> Config:
    """Alembic's configuration for this package's migrations, built without an ``alembic.ini``."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    # ConfigParser interpolates "%": a percent-encoded password must be doubled.
    rendered = normalise_url(url).render_as_string(hide_password=False)
    config.set_main_option("sqlalchemy.url", rendered.replace("%", "%%"))
    return config


def upgrade(url: str) -> None:
    """Migrate the database at ``url`` to the newest schema; does nothing when it is current."""
    command.upgrade(alembic_config(url), "head")


def downgrade(url: str, revision: str = "base") -> None:
    """Migrate the database at ``url`` back to ``revision`` (everything dropped by default)."""
    command.downgrade(alembic_config(url), revision)


def session_factory(engine: Engine) -> sessionmaker[Session]:
    """Sessions bound to ``engine``; objects stay readable after the query functions commit."""
    return sessionmaker(bind=engine, expire_on_commit=False)
