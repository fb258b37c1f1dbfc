"""Micro-batching of query embeddings: concurrent shoppers' questions share one encoder call."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass

import numpy as np

from app.embedding.embedder import Embedder

logger = logging.getLogger(__name__)


@dataclass
class EncoderStats:
    requests: int = 0
    batches: int = 0
    largest_batch: int = 0


class QueryEncoder:
    """Collects questions for at most ``max_wait_ms`` (or ``max_batch`` of them), embeds them in
    one call on a worker thread, and hands each caller its vector."""

    def __init__(self, embedder: Embedder, *, max_batch: int = 64, max_wait_ms: float = 4.0):
        self._embedder = embedder
        self._max_batch = max_batch
        self._max_wait = max_wait_ms / 1000
        self._queue: asyncio.Queue[tuple[str, asyncio.Future[np.ndarray]]] = asyncio.Queue()
        self._worker: asyncio.Task[None] | None = None
        self.stats = EncoderStats()

    async def encode(self, text: str) -> np.ndarray:
        if self._worker is None:
            self._worker = asyncio.create_task(self._run(), name="query-encoder")
        future: asyncio.Future[np.ndarray] = asyncio.get_running_loop().create_future()
        await self._queue.put((text, future))
        return await future

    async def close(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker
            self._worker = None

    async def _run(self) -> None:
        while True:
            batch = [await self._queue.get()]
            deadline = time.monotonic() + self._max_wait
            while len(batch) < self._max_batch:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                try:
                    batch.append(await asyncio.wait_for(self._queue.get(), remaining))
                except TimeoutError:
                    break
            self.stats.requests += len(batch)
            self.stats.batches += 1
            self.stats.largest_batch = max(self.stats.largest_batch, len(batch))
            try:
                vectors = await asyncio.to_thread(self._embedder.embed, [t for t, _ in batch])
            except Exception as exc:  # every waiting caller gets the failure, the loop goes on
                logger.exception("query embedding failed")
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                continue
            for (_, future), vector in zip(batch, vectors, strict=True):
                if not future.done():
                    future.set_result(vector)
