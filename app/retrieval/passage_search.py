"""Free-text passage search, as staff and tools use it: the hybrid ranking with no relevance floor.

One ``PassageSearch`` serves every request; it shares the index and the micro-batching query
encoder with the chat turns, and each call says how many passages it wants.
"""

from __future__ import annotations

import asyncio

from app.retrieval.query_encoder import QueryEncoder
from app.retrieval.retriever import IndexSource, Retrieval, Retriever


class PassageSearch:
    def __init__(
        self, index: IndexSource, encoder: QueryEncoder, *, lexical_weight: float = 1.0
    ) -> None:
        self._index = index
        self._encoder = encoder
        self._retriever = Retriever(index, top_k=5, floor=-1.0, lexical_weight=lexical_weight)

    async def find(self, text: str, *, top_k: int) -> Retrieval:
        """The ``top_k`` best passages for ``text``, whatever their score; raises
        ``IndexNotPublishedError`` (or ``CorruptIndexVersionError``) when none can be searched."""
        await asyncio.to_thread(self._index.current)  # a new version loads off the event loop
        vector = await self._encoder.encode(text)
        return self._retriever.search([vector], [text], top_k=top_k)
