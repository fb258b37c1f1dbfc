"""A session store that keeps conversations going when Redis does not.

Redis here keeps nothing on disk: a restart forgets every session, and while it is down no
session can be read. The transcripts hold every turn anyway, so this wrapper reads a session's
history from them when Redis cannot, and refills Redis with it when Redis comes back empty (or
missed turns while it was unreachable). Locks fall back to this process; turn vectors are
skipped (retrieval then uses the new question alone). Each fallback is logged and counted.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field

import numpy as np

from app.chat.turn import FinishedTurn
from app.errors import SessionStoreUnavailableError, TranscriptsUnavailableError
from app.sessions.base import SessionStore, Turn

logger = logging.getLogger(__name__)

RecordedTurns = Callable[[str], Awaitable[list[FinishedTurn]]]


@dataclass
class SessionFallbackStats:
    """Read by the metrics at scrape time."""

    fallbacks: Counter[str] = field(default_factory=Counter)  # operation → times Redis failed it
    restored: int = 0  # sessions refilled from the transcripts


@dataclass
class _LocalLock:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    holders: int = 0


class ResilientSessionStore:
    def __init__(
        self,
        primary: SessionStore,
        *,
        recorded: RecordedTurns,
        ttl_s: float,
        stale_capacity: int = 100_000,
    ) -> None:
        self._primary = primary
        self._recorded = recorded
        self._ttl = ttl_s
        self._stale: OrderedDict[str, None] = OrderedDict()  # sessions Redis may lack turns of
        self._stale_capacity = stale_capacity
        self._local: dict[str, _LocalLock] = {}
        self._degraded = False
        self.stats = SessionFallbackStats()

    async def turns(self, session_id: str) -> list[Turn]:
        try:
            held = await self._primary.turns(session_id)
        except SessionStoreUnavailableError as exc:
            self._fell_back("turns", exc)
            self._mark_stale(session_id)
            return await self._recorded_turns(session_id)
        self._answered()
        if held and session_id not in self._stale:
            return held
        return await self._refill(session_id, held)

    async def append(self, session_id: str, turn: Turn) -> int:
        try:
            index = await self._primary.append(session_id, turn)
        except SessionStoreUnavailableError as exc:
            self._fell_back("append", exc)
            self._mark_stale(session_id)
            return len(await self._recorded_turns(session_id))  # this turn is not recorded yet
        self._answered()
        return index

    @asynccontextmanager
    async def exclusive(self, session_id: str) -> AsyncIterator[None]:
        """This process's lock always, and Redis's lock (every replica) when it answers."""
        async with self._local_lock(session_id), AsyncExitStack() as shared:
            try:
                await shared.enter_async_context(self._primary.exclusive(session_id))
            except SessionStoreUnavailableError as exc:
                self._fell_back("lock", exc)
            yield

    async def set_page(self, session_id: str, product: str) -> None:
        try:
            await self._primary.set_page(session_id, product)
        except SessionStoreUnavailableError as exc:
            self._fell_back("set_page", exc)  # each message still gives its page's product

    async def page(self, session_id: str) -> str | None:
        try:
            return await self._primary.page(session_id)
        except SessionStoreUnavailableError as exc:
            self._fell_back("page", exc)
            return None

    async def save_vector(self, session_id: str, index: int, vector: np.ndarray) -> None:
        try:
            await self._primary.save_vector(session_id, index, vector)
        except SessionStoreUnavailableError as exc:
            self._fell_back("save_vector", exc)

    async def load_vectors(self, session_id: str, indices: list[int]) -> dict[int, np.ndarray]:
        try:
            return await self._primary.load_vectors(session_id, indices)
        except SessionStoreUnavailableError as exc:
            self._fell_back("load_vectors", exc)
            return {}

    async def ping(self) -> bool:
        return await self._primary.ping()

    async def close(self) -> None:
        await self._primary.close()

    async def _refill(self, session_id: str, held: list[Turn]) -> list[Turn]:
        """The longer of what Redis holds and what was recorded; Redis gets the missing turns."""
        recorded = await self._recorded_turns(session_id)
        if len(recorded) <= len(held):
            self._stale.pop(session_id, None)
            return held
        if session_id not in self._local:
            return recorded  # only a turn, holding the session, writes it back (no doubles)
        try:
            for turn in recorded[len(held) :]:
                await self._primary.append(session_id, turn)
        except SessionStoreUnavailableError as exc:
            self._fell_back("refill", exc)
            return recorded
        self._stale.pop(session_id, None)
        self.stats.restored += 1
        logger.info(
            "session %s: %d turns restored from the transcripts",
            session_id,
            len(recorded) - len(held),
        )
        return recorded

    async def _recorded_turns(self, session_id: str) -> list[Turn]:
        """The session as the transcripts hold it (texts masked), unless it expired."""
        try:
            records = await self._recorded(session_id)
        except TranscriptsUnavailableError as exc:
            logger.warning("session %s goes on without its history: %s", session_id, exc)
            return []
        if not records or records[-1].created_at.timestamp() < time.time() - self._ttl:
            return []  # forgotten on purpose, like the session store forgets it
        return [_turn(r) for r in records]

    @asynccontextmanager
    async def _local_lock(self, session_id: str) -> AsyncIterator[None]:
        entry = self._local.setdefault(session_id, _LocalLock())
        entry.holders += 1
        try:
            async with entry.lock:
                yield
        finally:
            entry.holders -= 1
            if entry.holders == 0:
                del self._local[session_id]

    def _mark_stale(self, session_id: str) -> None:
        self._stale[session_id] = None
        self._stale.move_to_end(session_id)
        while len(self._stale) > self._stale_capacity:
            self._stale.popitem(last=False)  # its turns still get stored: record_turn re-places

    def _fell_back(self, operation: str, exc: Exception) -> None:
        self.stats.fallbacks[operation] += 1
        if not self._degraded:
            logger.warning("sessions: %s; turns go on from the transcripts", exc)
        self._degraded = True

    def _answered(self) -> None:
        if self._degraded:
            logger.info("sessions: Redis answers again")
        self._degraded = False


def _turn(record: FinishedTurn) -> Turn:
    """A recorded turn as the session holds it: later prompts see only the model's own words
    (the whole answer for a turn recorded without parts); the shopper read the whole answer."""
    parts = record.parts
    return Turn(
        question=record.question,
        answer=parts.model_text if parts is not None else record.answer,
        passage_ids=tuple(p.passage_id for p in record.passages if p.cited),
        at=record.created_at.timestamp(),
        shown=record.answer,
    )
