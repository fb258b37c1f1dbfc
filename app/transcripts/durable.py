"""Transcript writes that outlive a database outage.

A turn is written to the database at once when it answers; when it does not (refused, dropped,
or slower than ``write_timeout_s``), the turn goes to the local outbox and the shopper still
gets the answer. A background flusher retries with back-off and writes every queued entry
exactly once (the database writes are idempotent). While the database is known to be down,
writes go straight to the outbox instead of waiting on it. A rating of an answer that waits in
the outbox (or given while the database is down) waits there too, after the answer. A service
started while the database was unreachable migrates it from the flusher once it answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from app.chat.turn import FinishedTurn
from app.errors import TranscriptNotFoundError, TranscriptsUnavailableError
from app.transcripts.db import is_unreachable
from app.transcripts.outbox import Escalation, Pending, Rating, TranscriptOutbox
from app.transcripts.store import SqlTranscripts

logger = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass
class OutboxStats:
    """Read by the metrics at scrape time."""

    depth: int = 0  # writes waiting in the outbox now
    queued: int = 0  # writes that had to wait since the start
    flushed: int = 0  # queued writes stored since the start
    database_up: bool = True
    schema_current: bool = True  # False from a start while the database was down until migrated


class DurableTranscripts:
    def __init__(
        self,
        sql: SqlTranscripts,
        outbox: TranscriptOutbox,
        *,
        write_timeout_s: float,
        retry_min_s: float = 0.5,
        retry_max_s: float = 30.0,
    ) -> None:
        self._sql = sql
        self._outbox = outbox
        self._timeout = write_timeout_s
        self._retry_min = retry_min_s
        self._retry_max = retry_max_s
        self._wake = asyncio.Event()
        self.stats = OutboxStats(
            depth=outbox.depth(), database_up=sql.migrated, schema_current=sql.migrated
        )

    @property
    def outbox(self) -> TranscriptOutbox:
        return self._outbox

    async def record_turn(self, turn: FinishedTurn) -> int | None:
        """The stored message's id, or None when the turn waits in the outbox."""
        if self.stats.database_up:
            try:
                return await self._bounded(self._sql.record_turn(turn))
            except Exception as exc:
                self._write_failed(exc, f"turn {turn.turn_index} of {turn.session_id}")
        await self._queue(turn)
        return None

    async def record_escalation(self, *, session_id: str, reason: str) -> int | None:
        """The stored escalation's id, or None when it waits in the outbox."""
        escalation = Escalation(session_id, reason, datetime.now(UTC))
        if self.stats.database_up:
            try:
                return await self._bounded(self._write(escalation))
            except Exception as exc:
                self._write_failed(exc, f"escalation of {session_id}")
        await self._queue(escalation)
        return None

    async def record_feedback(
        self,
        *,
        session_id: str,
        rating: int,
        comment: str | None,
        message_id: int | None = None,
        turn_index: int | None = None,
    ) -> int | None:
        """The stored rating's id, or None when it waits in the outbox: the database is down,
        or the rated turn itself still waits there (the rating is then stored after it).
        Raises TranscriptNotFoundError when the database says the session has no such answer."""
        given = Rating(session_id, rating, comment, datetime.now(UTC), turn_index, message_id)
        if turn_index is not None:
            waiting = await asyncio.to_thread(self._outbox.turns_of, session_id)
            rated = [t for t in waiting if t.turn_index == turn_index]
            if rated:
                given = replace(given, turn_created_at=rated[-1].created_at)
        if self.stats.database_up and given.turn_created_at is None:
            try:
                return await self._bounded(self._sql.record_feedback(given))
            except Exception as exc:
                if not is_unreachable(exc):
                    raise
                self._went_down(exc)
        await self._queue(given)
        return None

    async def session_turns(self, session_id: str) -> list[FinishedTurn]:
        """Every turn of a session, stored or queued, in order; raises
        TranscriptsUnavailableError while the database is down."""
        queued = await asyncio.to_thread(self._outbox.turns_of, session_id)
        if not self.stats.database_up:
            raise TranscriptsUnavailableError("the transcript database is unreachable")
        try:
            stored = await self._bounded(self._sql.session_turns(session_id))
        except Exception as exc:
            if not is_unreachable(exc):
                raise
            self._went_down(exc)
            raise TranscriptsUnavailableError("the transcript database is unreachable") from exc
        merged = {(t.turn_index, t.created_at): t for t in stored}
        for turn in queued:
            merged.setdefault((turn.turn_index, turn.created_at), turn)
        return sorted(merged.values(), key=lambda t: (t.turn_index, t.created_at))

    async def flush(self) -> bool:
        """Write what waits in the outbox; True when it is empty and the database answers.
        A database the service started without is migrated first."""
        if not await self._migrated():
            return False
        while True:
            batch = await asyncio.to_thread(self._outbox.pending)
            if not batch:
                return await self._probe()
            stored = dropped = 0
            for entry in batch:
                try:
                    await self._bounded(self._write(entry.record))
                except Exception as exc:
                    if is_unreachable(exc):
                        self._went_down(exc)
                        return False
                    if await self._unratable(entry.record, exc):
                        logger.warning("queued rating %d names no stored answer; dropped", entry.id)
                        await asyncio.to_thread(self._outbox.remove, entry.id)
                        dropped += 1
                        continue
                    logger.exception("queued transcript write %d refused; kept", entry.id)
                    await asyncio.to_thread(self._outbox.note_failure, entry.id, repr(exc))
                    continue
                await asyncio.to_thread(self._outbox.remove, entry.id)
                stored += 1
                self.stats.flushed += 1
                self._came_back()
            self.stats.depth = await asyncio.to_thread(self._outbox.depth)
            logger.info("flushed %d queued transcript writes, %d left", stored, self.stats.depth)
            if stored == dropped == 0:  # only refused writes are left: try them again later
                return False

    async def keep_flushing(self) -> None:
        """The background flusher: drains the outbox, backing off while the database is down."""
        delay = self._retry_min
        while True:
            try:
                emptied = await self.flush()
            except Exception:  # the outbox file itself failed: keep trying, loudly
                logger.exception("the transcript outbox flusher failed")
                emptied = False
            if emptied:
                delay = self._retry_min
                with contextlib.suppress(TimeoutError):
                    # also look now and then for entries another process queued in the file
                    await asyncio.wait_for(self._wake.wait(), timeout=self._retry_max)
                self._wake.clear()
            else:
                await asyncio.sleep(delay)
                delay = min(delay * 2, self._retry_max)

    async def _write(self, record: Pending) -> int:
        if isinstance(record, FinishedTurn):
            return await self._sql.record_turn(record)
        if isinstance(record, Rating):
            return await self._sql.record_feedback(record)
        return await self._sql.record_escalation(
            session_id=record.session_id, reason=record.reason, at=record.at
        )

    async def _bounded(self, work: Awaitable[T]) -> T:
        # On time-out the worker thread may still finish the write: the replay is idempotent.
        return await asyncio.wait_for(work, timeout=self._timeout)

    async def _migrated(self) -> bool:
        """Whether the schema is current, migrating it when the database answers now."""
        if self.stats.schema_current:
            return True
        try:
            await self._sql.migrate()  # not time-bounded: two migrations must never overlap
        except Exception as exc:
            if not is_unreachable(exc):
                raise
            return False
        self.stats.schema_current = True
        self._came_back()
        return True

    async def _unratable(self, record: Pending, exc: Exception) -> bool:
        """A queued rating of an answer the database does not hold, whose turn is not queued
        either: nothing will ever match it (a made-up turn index, another session's id)."""
        if not isinstance(record, Rating) or not isinstance(exc, TranscriptNotFoundError):
            return False
        waiting = await asyncio.to_thread(self._outbox.turns_of, record.session_id)
        return not any(t.turn_index == record.turn_index for t in waiting)

    async def _probe(self) -> bool:
        if self.stats.database_up:
            return True
        try:
            await self._bounded(self._sql.ping())
        except Exception as exc:
            if not is_unreachable(exc):
                raise
            return False
        self._came_back()
        return True

    async def _queue(self, record: Pending) -> None:
        await asyncio.to_thread(self._outbox.put, record)
        self.stats.queued += 1
        self.stats.depth = await asyncio.to_thread(self._outbox.depth)
        logger.warning(
            "transcript write for session %s queued in %s (%d waiting)",
            record.session_id,
            self._outbox.path,
            self.stats.depth,
        )
        self._wake.set()

    def _write_failed(self, exc: Exception, what: str) -> None:
        if is_unreachable(exc):
            self._went_down(exc)
        else:  # not the database being down: keep the write, and say loudly that it failed
            logger.error("%s could not be stored (%r); queued for another try", what, exc)

    def _went_down(self, exc: BaseException) -> None:
        if self.stats.database_up:
            logger.warning("transcript database unreachable (%s); writes go to the outbox", exc)
        self.stats.database_up = False
        self._wake.set()

    def _came_back(self) -> None:
        if not self.stats.database_up:
            logger.info("transcript database answers again")
        self.stats.database_up = True


@asynccontextmanager
async def durable_transcripts(
    sql: SqlTranscripts, outbox_path: Path, *, write_timeout_s: float, retry_max_s: float
) -> AsyncIterator[DurableTranscripts]:
    """The durable writer with its flusher running; entries left by an earlier run go first."""
    outbox = TranscriptOutbox(outbox_path)
    durable = DurableTranscripts(
        sql, outbox, write_timeout_s=write_timeout_s, retry_max_s=retry_max_s
    )
    if durable.stats.depth:
        logger.info("%d transcript writes wait in %s", durable.stats.depth, outbox_path)
    flusher = asyncio.create_task(durable.keep_flushing(), name="transcript-outbox-flusher")
    try:
        yield durable
    finally:
        flusher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await flusher
        left = await asyncio.to_thread(outbox.depth)
        if left:
            logger.warning("%d transcript writes stay in %s for the next start", left, outbox_path)
        outbox.close()
