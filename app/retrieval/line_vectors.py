"""Embeddings of the passage lines the evidence selector compares with a question, cached.

The same product and policy lines come back turn after turn, so each is embedded once (through
the query encoder, which batches concurrent callers) and kept in a bounded LRU.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from app.retrieval.query_encoder import QueryEncoder


class LineVectors:
    def __init__(self, encoder: QueryEncoder, *, capacity: int = 50_000) -> None:
        self._encoder = encoder
        self._capacity = capacity
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()

    async def vectors(self, texts: Sequence[str]) -> np.ndarray:
        """One normalised vector per text, in order: shape (len(texts), dimension)."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            found = await asyncio.gather(*(self._encoder.encode(t) for t in missing))
            for text, vector in zip(missing, found, strict=True):
                self._cache[text] = vector
        rows = []
        for text in texts:
            self._cache.move_to_end(text)
            rows.append(self._cache[text])
        while len(self._cache) > self._capacity:
            self._cache.popitem(last=False)
        return np.stack(rows)
