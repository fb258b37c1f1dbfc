"""The embedded default: sessions in this process's memory, expiring after a quiet TTL."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import numpy as np

from app.sessions.base import Turn


@dataclass
class _Session:
    turns: list[Turn] = field(default_factory=list)
    vectors: dict[int, np.ndarray] = field(default_factory=dict)
    page: str | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    touched: float = field(default_factory=time.monotonic)


class MemorySessionStore:
    def __init__(self, *, ttl_s: float) -> None:
        self._ttl = ttl_s
        self._sessions: dict[str, _Session] = {}

    def _get(self, session_id: str) -> _Session:
        self._expire()
        session = self._sessions.setdefault(session_id, _Session())
        session.touched = time.monotonic()
        return session

    def _expire(self) -> None:
        cutoff = time.monotonic() - self._ttl
        for sid in [s for s, v in self._sessions.items() if v.touched < cutoff]:
            if not self._sessions[sid].lock.locked():
                del self._sessions[sid]

    async def turns(self, session_id: str) -> list[Turn]:
        return list(self._get(session_id).turns)

    async def append(self, session_id: str, turn: Turn) -> int:
        session = self._get(session_id)
        session.turns.append(turn)
        return len(session.turns) - 1

    @asynccontextmanager
    async def exclusive(self, session_id: str) -> AsyncIterator[None]:
        async with self._get(session_id).lock:
            yield

    async def set_page(self, session_id: str, product: str) -> None:
        self._get(session_id).page = product

    async def page(self, session_id: str) -> str | None:
        return self._get(session_id).page

    async def save_vector(self, session_id: str, index: int, vector: np.ndarray) -> None:
        self._get(session_id).vectors[index] = vector

    async def load_vectors(self, session_id: str, indices: list[int]) -> dict[int, np.ndarray]:
        stored = self._get(session_id).vectors
        return {i: stored[i] for i in indices if i in stored}

    async def ping(self) -> bool:
        return True

    async def close(self) -> None:
        self._sessions.clear()
