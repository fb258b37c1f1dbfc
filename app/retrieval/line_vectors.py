"""Embeddings of the passage lines the evidence selector compares with a question, cached.

Every quotable line of the served index is embedded once, in batches on a worker thread, when a
version is first served (at start-up and after each swap), so a turn only looks its lines up.
A line not warmed yet (a new version still warming, or past the cache's capacity) is embedded
on demand through the query encoder, which batches concurrent callers.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Iterable, Sequence

import numpy as np

from app.embedding.embedder import Embedder
from app.retrieval.query_encoder import QueryEncoder

logger = logging.getLogger(__name__)
WARM_BATCH = 256


class LineVectors:
    def __init__(
        self, encoder: QueryEncoder, embedder: Embedder, *, capacity: int = 200_000
    ) -> None:
        self._encoder = encoder
        self._embedder = embedder
        self._capacity = capacity
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self.warmed_version: str | None = None
        self._warming: asyncio.Task[None] | None = None

    async def vectors(self, texts: Sequence[str]) -> np.ndarray:
        """One normalised vector per text, in order: shape (len(texts), dimension)."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            found = await asyncio.gather(*(self._encoder.encode(t) for t in missing))
            self._store(zip(missing, found, strict=True))
        rows = []
        for text in texts:
            self._cache.move_to_end(text)
            rows.append(self._cache[text])
        return np.stack(rows)

    def warm_soon(self, version_id: str, texts: Sequence[str]) -> None:
        """Embed ``texts`` (every line of a newly served version) in the background, once."""
        if version_id == self.warmed_version:
            return
        self.warmed_version = version_id
        if self._warming is not None:
            self._warming.cancel()
        self._warming = asyncio.create_task(self.warm(texts), name=f"warm-lines-{version_id}")

    async def warm(self, texts: Sequence[str]) -> None:
        """Embed the ``texts`` not cached yet, in batches on a worker thread."""
        started = time.perf_counter()
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache][: self._capacity]
        for start in range(0, len(missing), WARM_BATCH):
            batch = missing[start : start + WARM_BATCH]
            vectors = await asyncio.to_thread(self._embedder.embed, batch)
            self._store(zip(batch, vectors, strict=True))
        logger.info(
            "embedded %d evidence lines in %.1f s", len(missing), time.perf_counter() - started
        )

    async def close(self) -> None:
        if self._warming is not None:
            self._warming.cancel()
            await asyncio.gather(self._warming, return_exceptions=True)

    def _store(self, pairs: Iterable[tuple[str, np.ndarray]]) -> None:
        for text, vector in pairs:
            self._cache[text] = vector
        while len(self._cache) > self._capacity:
            self._cache.popitem(last=False)
