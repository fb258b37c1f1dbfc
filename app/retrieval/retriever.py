"""History-aware retrieval: the question alone, and blended with the questions before it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from app.retrieval.published_index import ScoredPassage, ServedIndex


class IndexSource(Protocol):
    """Anything that hands out the index to search now (PublishedIndex in the service)."""

    def current(self) -> ServedIndex: ...


@dataclass(frozen=True)
class Retrieval:
    passages: list[ScoredPassage]  # above the floor, best first, at most top_k
    best_score: float
    index_version: str


class Retriever:
    def __init__(self, index: IndexSource, *, top_k: int, floor: float) -> None:
        self._index = index
        self._top_k = top_k
        self._floor = floor

    def search(self, queries: list[np.ndarray]) -> Retrieval:
        """Top passages over all query vectors, fused by each passage's best score."""
        served = self._index.current()
        best: dict[str, ScoredPassage] = {}
        for hits in served.search(np.stack(queries), self._top_k * 2):
            for hit in hits:
                held = best.get(hit.passage.id)
                if held is None or hit.score > held.score:
                    best[hit.passage.id] = hit
        ranked = sorted(best.values(), key=lambda h: h.score, reverse=True)
        top = ranked[0].score if ranked else 0.0
        kept = [h for h in ranked if h.score >= self._floor][: self._top_k]
        return Retrieval(kept, top, served.version.id)
