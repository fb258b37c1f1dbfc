"""A real PostgreSQL server shut down and started again under the running service (issue 16).

tests/integration/test_faults.py cuts a TCP proxy in front of the machine's shared PostgreSQL;
here a private server of the test's own (``tests.faults.PostgresServer``: its own data folder and
port, never the shared one) is stopped with ``pg_ctl stop -m fast`` and started again on the same
data, under the composition root's own transcript set-up (``transcript_writes``) and the real
chat stack: the turns answered while it is down wait in the outbox, ``/readyz`` says degraded,
and once it is back every turn and rating is stored exactly once and ``/readyz`` says ready.
Each test prints a ``FAULT <case>: …`` line for the reliability report (run with ``-s``).
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal
from sqlalchemy import func, select

from app.api.ops_routes import readyz
from app.container import transcript_writes
from app.sessions.memory import MemorySessionStore
from app.settings import Settings
from app.transcripts.db import make_engine, session_factory
from app.transcripts.durable import DurableTranscripts
from app.transcripts.models import Conversation, Feedback, Message
from tests.faults import PostgresServer, postgres_server_missing
from tests.integration.test_faults import (
    QUESTIONS,
    conversation_service,
    report,
    send,
    staff_view,
    stored_turns,
    until,
)

MISSING = postgres_server_missing()
pytestmark = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")


@pytest.fixture
def postgres() -> Iterator[PostgresServer]:
    """A private PostgreSQL server with an empty database, stopped and removed afterwards."""
    with PostgresServer() as server:
        yield server


def settings_for(server: PostgresServer, data_dir: Path) -> Settings:
    return Settings(
        database_url=server.url,
        data_dir=data_dir,
        transcript_write_timeout_s=5,
        transcript_retry_max_s=1,
    )


async def serving(
    stack: Any, settings: Settings, exits: AsyncExitStack
) -> tuple[Any, DurableTranscripts, Any, Any]:
    """The composition root's transcript writes on ``settings``, the real chat stack writing
    through them, and what ``/readyz`` reads from the container: (sql, durable, service, ops)."""
    sql, durable = await transcript_writes(settings, exits)
    service = conversation_service(stack, store=MemorySessionStore(ttl_s=600), transcripts=durable)
    ops = SimpleNamespace(index=stack.index, engine=stack.engine, transcript_writes=durable.stats)
    return sql, durable, service, ops


async def back_and_flushed(durable: DurableTranscripts) -> None:
    await until(
        lambda: (
            durable.stats.schema_current and durable.stats.database_up and not durable.stats.depth
        )
    )


def rows_of(url: str, session_id: str) -> tuple[int, int]:
    """(messages, ratings) stored for the session, counted in the database."""
    engine = make_engine(url)
    try:
        with session_factory(engine)() as session:
            of_session = (
                select(Message.id)
                .join(Conversation, Message.conversation_id == Conversation.id)
                .where(Conversation.session_id == session_id)
            )
            messages = session.scalar(select(func.count()).select_from(of_session.subquery()))
            ratings = session.scalar(
                select(func.count())
                .select_from(Feedback)
                .where(Feedback.message_id.in_(of_session))
            )
    finally:
        engine.dispose()
    return messages or 0, ratings or 0


def test_postgres_stopped_and_started_under_the_service_loses_and_duplicates_nothing(
    portal: BlockingPortal, stack: Any, postgres: PostgresServer, tmp_path: Path
) -> None:
    """1 turn stored; the server shut down; 2 turns and a rating of the second answered and
    queued, /readyz degraded; the server started again: all stored once, /readyz ready."""
    session_id = secrets.token_urlsafe(16)
    settings = settings_for(postgres, tmp_path)

    async def scenario() -> dict[str, Any]:
        async with AsyncExitStack() as exits:
            sql, durable, service, ops = await serving(stack, settings, exits)
            started = {"migrated": sql.migrated, "up": durable.stats.database_up}
            before = await send(service, session_id, QUESTIONS[0])
            await asyncio.to_thread(postgres.stop)
            during = [await send(service, session_id, q) for q in QUESTIONS[1:3]]
            rated = during[1].turn.turn_index  # the second answer given while it is down
            rating = await service.rate(
                session_id, rating=-1, comment="not what I asked", turn_index=rated
            )
            queued = durable.stats.depth
            degraded = await readyz(ops)
            await asyncio.to_thread(postgres.start)
            await back_and_flushed(durable)
            return {
                "started": started,
                "before": before,
                "during": during,
                "rating": rating,
                "queued": queued,
                "degraded": degraded,
                "ready": await readyz(ops),
                "flushed": durable.stats.flushed,
            }

    result = portal.call(scenario)

    assert result["started"] == {"migrated": True, "up": True}
    before, during = result["before"], result["during"]
    assert before.message_id is not None  # stored at once
    assert all(r.message_id is None for r in during)  # answered, waiting in the outbox
    assert all(r.turn.answer and r.turn.failure is None for r in [before, *during])
    assert result["rating"] is None  # queued after the answer it rates
    assert result["queued"] == 3  # the two turns and the rating
    degraded = result["degraded"]
    assert degraded["status"] == "degraded", degraded
    assert "transcript database is unreachable" in degraded["reason"]
    assert "(3 queued)" in degraded["reason"]
    assert "schema is migrated" not in degraded["reason"]  # it was migrated at the start
    assert result["ready"]["status"] == "ready" and "reason" not in result["ready"]
    assert result["flushed"] == 3

    stored = stored_turns(postgres.url, session_id)
    assert [t.turn_index for t in stored] == [0, 1, 2]
    assert [t.question for t in stored] == QUESTIONS[:3]
    assert [t.answer for t in stored] == [r.turn.answer for r in [before, *during]]
    assert rows_of(postgres.url, session_id) == (3, 1)  # each once
    ratings = {
        m.turn_index: (m.feedback.rating, m.feedback.comment)
        for m in staff_view(postgres.url, session_id).messages
        if m.feedback
    }
    assert ratings == {2: (-1, "not what I asked")}
    report("postgres-restart", sent=3, answered=3, refused=0, lost=3 - len(stored))


def test_the_service_starts_while_postgres_is_stopped_and_migrates_it_once_it_starts(
    portal: BlockingPortal, stack: Any, postgres: PostgresServer, tmp_path: Path
) -> None:
    """The transcript set-up started with the server shut down, on an empty database: a turn is
    answered and queued, /readyz says degraded and why; once the server starts, the flusher
    migrates the database and stores the turn, and /readyz says ready."""
    session_id = secrets.token_urlsafe(16)
    postgres.stop()
    settings = settings_for(postgres, tmp_path)

    async def scenario() -> dict[str, Any]:
        async with AsyncExitStack() as exits:
            sql, durable, service, ops = await serving(stack, settings, exits)
            started = {"migrated": sql.migrated, "up": durable.stats.database_up}
            answered = await send(service, session_id, QUESTIONS[2])
            degraded = await readyz(ops)
            await asyncio.to_thread(postgres.start)
            await back_and_flushed(durable)
            return {
                "started": started,
                "answered": answered,
                "degraded": degraded,
                "ready": await readyz(ops),
                "migrated": sql.migrated,
            }

    result = portal.call(scenario)

    assert result["started"] == {"migrated": False, "up": False}
    answered = result["answered"]
    assert answered.message_id is None and answered.turn.answer  # answered, queued
    degraded = result["degraded"]
    assert degraded["status"] == "degraded", degraded
    assert "transcript database is unreachable" in degraded["reason"]
    assert "(1 queued)" in degraded["reason"] and "schema is migrated" in degraded["reason"]
    assert result["ready"]["status"] == "ready" and "reason" not in result["ready"]
    assert result["migrated"] is True
    stored = stored_turns(postgres.url, session_id)
    assert [(t.turn_index, t.answer) for t in stored] == [(0, answered.turn.answer)]
    assert rows_of(postgres.url, session_id) == (1, 0)
    report("start-while-postgres-stopped", sent=1, answered=1, refused=0, lost=1 - len(stored))
