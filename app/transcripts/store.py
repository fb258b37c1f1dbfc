"""The chat side's transcripts, async: turns, ratings and escalations written, a session's turns
read back; the SQL runs on worker threads. Staff read through ``review.TranscriptReview``."""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime

from sqlalchemy import Engine, text
from sqlalchemy.orm import Session, sessionmaker

from app.chat.turn import FinishedTurn
from app.transcripts import reads, writes
from app.transcripts.db import is_unreachable, make_engine, session_factory, upgrade
from app.transcripts.outbox import Rating

logger = logging.getLogger(__name__)


class SqlTranscripts:
    """``migrated``: whether the schema is known to be current (False after a start while the
    database was unreachable, until ``migrate`` succeeds)."""

    def __init__(self, engine: Engine, *, migrated: bool = True) -> None:
        self.engine = engine
        self.sessions: sessionmaker[Session] = session_factory(engine)
        self.migrated = migrated

    @classmethod
    def open(cls, url: str) -> SqlTranscripts:
        """Connect, and migrate the database to the latest schema. A database that cannot be
        reached is migrated later (``migrate``); a URL that cannot work fails here."""
        engine = make_engine(url)
        transcripts = cls(engine, migrated=False)
        rendered = engine.url.render_as_string(hide_password=True)
        try:
            transcripts._upgrade()
        except Exception as exc:
            if not is_unreachable(exc):
                engine.dispose()
                raise
            logger.warning(
                "transcript database %s unreachable at start (%s); writes wait in the outbox "
                "and the schema is migrated once it answers",
                rendered,
                exc,
            )
        logger.info("transcripts in %s", rendered)
        return transcripts

    async def migrate(self) -> None:
        """Bring the schema up to date (once); raises as the database does."""
        if not self.migrated:
            await asyncio.to_thread(self._upgrade)
            logger.info("transcript database migrated")

    def _upgrade(self) -> None:
        upgrade(self.engine.url.render_as_string(hide_password=False))
        self.migrated = True

    async def record_turn(self, turn: FinishedTurn) -> int:
        return await asyncio.to_thread(self._record_turn, turn)

    async def record_feedback(self, rating: Rating) -> int:
        def run() -> int:
            with self.sessions() as session:
                return writes.record_feedback(
                    session=session,
                    session_id=rating.session_id,
                    rating=rating.rating,
                    comment=rating.comment,
                    message_id=rating.message_id,
                    turn_index=rating.turn_index,
                    turn_created_at=rating.turn_created_at,
                    at=rating.at,
                )

        return await asyncio.to_thread(run)

    async def record_escalation(
        self, *, session_id: str, reason: str, at: datetime | None = None
    ) -> int:
        def run() -> int:
            with self.sessions() as session:
                return writes.record_escalation(
                    session=session, session_id=session_id, reason=reason, at=at
                )

        return await asyncio.to_thread(run)

    async def session_turns(self, session_id: str) -> list[FinishedTurn]:
        def run() -> list[FinishedTurn]:
            with self.sessions() as session:
                return reads.session_turns(session=session, session_id=session_id)

        return await asyncio.to_thread(run)

    async def ping(self) -> None:
        """Raise unless the database answers a trivial query."""

        def run() -> None:
            with self.engine.connect() as connection:
                connection.execute(text("SELECT 1"))

        await asyncio.to_thread(run)

    def close(self) -> None:
        self.engine.dispose()

    def _record_turn(self, turn: FinishedTurn) -> int:
        with self.sessions() as session:
            return writes.record_turn(session=session, turn=turn)
