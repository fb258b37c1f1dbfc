"""Sessions in Redis: shared by every app replica, surviving restarts, expiring after a TTL."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import numpy as np
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from app.errors import SessionStoreUnavailableError, ShopdeskError
from app.sessions.base import Turn


class SessionBusyError(ShopdeskError):
    """Another request of the same session held the session for too long."""


@contextlib.contextmanager
def _reachable() -> Iterator[None]:
    """Redis being down or unreachable, as the domain error the fallback store handles."""
    try:
        yield
    except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
        raise SessionStoreUnavailableError(f"Redis is unreachable: {exc}") from exc


class RedisSessionStore:
    """Keys per session: ``{prefix}{id}:turns`` (list of JSON turns), ``:vectors`` (hash of
    float32 bytes by turn index), ``:page`` (the product of the page it started from) and
    ``:lock``; every write renews the TTL. Losing Redis raises SessionStoreUnavailableError."""

    def __init__(
        self, client: Any, *, ttl_s: int, prefix: str = "shopdesk:session:", lock_s: float = 120
    ) -> None:
        self._redis = client
        self._ttl = ttl_s
        self._prefix = prefix
        self._lock_s = lock_s

    def _key(self, session_id: str, part: str) -> str:
        return f"{self._prefix}{session_id}:{part}"

    async def turns(self, session_id: str) -> list[Turn]:
        with _reachable():
            raw = await self._redis.lrange(self._key(session_id, "turns"), 0, -1)
        return [Turn.from_json(item) for item in raw]

    async def append(self, session_id: str, turn: Turn) -> int:
        key = self._key(session_id, "turns")
        with _reachable():
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.rpush(key, turn.to_json())
                pipe.expire(key, self._ttl)
                pipe.expire(self._key(session_id, "vectors"), self._ttl)
                pipe.expire(self._key(session_id, "page"), self._ttl)
                length, *_ = await pipe.execute()
        return int(length) - 1

    @asynccontextmanager
    async def exclusive(self, session_id: str) -> AsyncIterator[None]:
        lock = self._redis.lock(
            self._key(session_id, "lock"), timeout=self._lock_s, blocking_timeout=self._lock_s
        )
        with _reachable():
            acquired = await lock.acquire()
        if not acquired:
            raise SessionBusyError("this conversation is still busy with an earlier message")
        try:
            yield
        finally:
            # the lock may have expired meanwhile: then there is nothing of ours to release
            with contextlib.suppress(Exception):
                await lock.release()

    async def set_page(self, session_id: str, product: str) -> None:
        with _reachable():
            await self._redis.set(self._key(session_id, "page"), product, ex=self._ttl)

    async def page(self, session_id: str) -> str | None:
        with _reachable():
            raw = await self._redis.get(self._key(session_id, "page"))
        return raw.decode() if isinstance(raw, bytes) else raw

    async def save_vector(self, session_id: str, index: int, vector: np.ndarray) -> None:
        key = self._key(session_id, "vectors")
        with _reachable():
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.hset(key, str(index), np.asarray(vector, dtype=np.float32).tobytes())
                pipe.expire(key, self._ttl)
                await pipe.execute()

    async def load_vectors(self, session_id: str, indices: list[int]) -> dict[int, np.ndarray]:
        if not indices:
            return {}
        with _reachable():
            values = await self._redis.hmget(
                self._key(session_id, "vectors"), [str(i) for i in indices]
            )
        return {
            i: np.frombuffer(v, dtype=np.float32).copy()
            for i, v in zip(indices, values, strict=True)
            if v is not None
        }

    async def ping(self) -> bool:
        try:
            return bool(await self._redis.ping())
        except Exception:
            return False

    async def close(self) -> None:
        await self._redis.aclose()
