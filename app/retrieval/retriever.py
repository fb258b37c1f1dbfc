"""Hybrid, history-aware retrieval: dense and lexical rankings fused by rank.

Each turn brings one or more query vectors (the question, and the question blended with the
turns before it) and one or more query texts (the question, and for a follow-up the question
with the recent questions' words). The vectors give one ranking by each passage's best cosine,
every text a ranking by BM25; the rankings are fused with reciprocal-rank fusion, which needs no
score calibration between the two kinds. Cosine stays the passage's score: it is what the
relevance floor judges and what staff see, so a lexical match on a common word cannot drag in an
unrelated passage. A passage that names a product code the shopper typed is kept whatever its
cosine.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from app.retrieval.published_index import ScoredPassage, ServedIndex

RRF_K = 60  # the constant of Cormack et al.; flattens the gap between neighbouring ranks


class IndexSource(Protocol):
    """Anything that hands out the index to search now (PublishedIndex in the service)."""

    def current(self) -> ServedIndex: ...


@dataclass(frozen=True)
class Retrieval:
    passages: list[ScoredPassage]  # above the floor, best first, at most top_k
    best_score: float  # the best cosine among the candidates, kept or not
    index_version: str
    exact_match: bool = False  # a passage names a product code the question gives


class Retriever:
    def __init__(
        self,
        index: IndexSource,
        *,
        top_k: int,
        floor: float,
        lexical_weight: float = 1.0,
        depth: int = 0,
    ) -> None:
        self._index = index
        self._top_k = top_k
        self._floor = floor
        self._lexical_weight = lexical_weight
        self._depth = depth  # 0: four times the passages asked for, at least 20

    @property
    def index(self) -> IndexSource:
        return self._index

    def search(
        self, queries: list[np.ndarray], texts: Sequence[str] = (), *, top_k: int | None = None
    ) -> Retrieval:
        """Top passages for the query vectors and texts; ``texts[0]`` is the question itself.
        ``top_k`` asks for another number of passages than the configured one, for this call."""
        top_k = top_k or self._top_k
        depth = self._depth or max(20, top_k * 4)
        served = self._index.current()
        passages = served.version.passages
        stacked = np.stack(queries)
        cosine: dict[int, float] = {}
        for ranking in served.search(stacked, depth):
            for row, score in ranking:
                cosine[row] = max(score, cosine.get(row, -1.0))
        fused: dict[int, float] = defaultdict(float)
        for rank, row in enumerate(sorted(cosine, key=cosine.__getitem__, reverse=True)):
            fused[row] += 1.0 / (RRF_K + rank + 1)
        exact: set[int] = set()
        if self._lexical_weight > 0 and texts:
            for text in texts:
                for rank, (row, _) in enumerate(served.lexical.search(text, depth)):
                    fused[row] += self._lexical_weight / (RRF_K + rank + 1)
            exact = served.lexical.identifier_matches(texts[0])
            for row in exact:
                fused[row] += self._lexical_weight / RRF_K
        unscored = [row for row in fused if row not in cosine]
        if unscored:
            extra = served.similarity(unscored, stacked).max(axis=0)
            cosine.update(zip(unscored, (float(s) for s in extra), strict=True))
        ranked = sorted(fused, key=lambda row: (fused[row], cosine[row]), reverse=True)
        kept = [
            ScoredPassage(passages[row], cosine[row])
            for row in ranked
            if cosine[row] >= self._floor or row in exact
        ][:top_k]
        best = max(cosine.values(), default=0.0)
        return Retrieval(kept, best, served.version.id, bool(exact))
