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
from app.transcripts.db import make_engine, session_factory, upgrade

logger = logging.getLogger(__name__)


class SqlTranscripts:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.sessions: sessionmaker[Session] = session_factory(engine)

    @classmethod
    def open(cls, url: str) -> SqlTranscripts:
        """Migrate the database to the latest schema, then connect."""
        upgrade(url)
        engine = make_engine(url)
        logger.info("transcripts in %s", engine.url.render_as_string(hide_password=True))
        return cls(engine)

    async def record_turn(self, turn: FinishedTurn) -> int:
        return await asyncio.to_thread(self._record_turn, turn)

    async def record_feedback(
        self, *, session_id: str, message_id: int, rating: int, comment: str | None
    ) -> int:
        def run() -> int:
            with self.sessions() as session:
                return writes.record_feedback(
                    session=session,
                    session_id=session_id,
                    message_id=message_id,
                    rating=rating,
                    comment=comment,
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
