"""Hybrid, history-aware retrieval: dense and lexical rankings fused by rank.

Each turn brings one or more query vectors (the question, and the question blended with the
turns before it) and one or more query texts (the question, and for a follow-up the question
with the recent questions' words). The vectors give one ranking by each passage's best cosine,
every text a ranking by BM25; the rankings are fused with reciprocal-rank fusion, which needs no
score calibration between the two kinds. Cosine stays the passage's score: it is what the
relevance floor judges and what staff see, so a lexical match on a common word cannot drag in an
unrelated passage. A passage that names a product code the shopper typed is kept whatever its
cosine, and so is one of the few that hold a name of several words the shopper gave ("American
Express": it embeds far from "Do you take American Express?"); another section of the page the
best passage is on, a little under the floor. The passages of a product the question names fill
the places the floor leaves: the shopper named something the shop sells.

A shop page can give the product the shopper is looking at: its passages (every passage titled
with its name) are then ranked first, the best of them up to half the passages returned, and
kept whatever their cosine; the rest compete as usual, so a policy page still has its room. The
caller may also name passages it knows hold what was asked (the product record's "Price" line
for "how much is it?"): they come first.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from app.retrieval.published_index import ScoredPassage, ServedIndex
from app.retrieval.rank_features import Candidate

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


class Ranker(Protocol):
    """A second stage that reorders the first stage's candidates (app.retrieval.rerank)."""

    def reorder(self, question: str, candidates: Sequence[Candidate]) -> list[Candidate]: ...


RANKED = 50  # candidates a second-stage ranker reorders
# How far under the floor another section of the best passage's page may be and still be kept:
# "How do I contact you?" is answered by the contact page's Phone, Live chat and Email sections,
# each alone a little under the floor beside its Social media section.
SECTION_MARGIN = 0.05


class Retriever:
    def __init__(
        self,
        index: IndexSource,
        *,
        top_k: int,
        floor: float,
        lexical_weight: float = 1.0,
        depth: int = 0,
        ranker: Ranker | None = None,
    ) -> None:
        self._index = index
        self._top_k = top_k
        self._floor = floor
        self._lexical_weight = lexical_weight
        self._depth = depth  # 0: four times the passages asked for, at least 20 (50 with a ranker)
        self._ranker = ranker

    @property
    def index(self) -> IndexSource:
        return self._index

    def search(
        self,
        queries: list[np.ndarray],
        texts: Sequence[str] = (),
        *,
        top_k: int | None = None,
        served: ServedIndex | None = None,
        prefer: str | None = None,
        first: Sequence[str] = (),
        named: Sequence[str] = (),
    ) -> Retrieval:
        """Top passages for the query vectors and texts; ``texts[0]`` is the question itself.
        ``top_k`` asks for another number of passages than the configured one, for this call;
        ``prefer`` is the title of the product the shopper's page shows; ``first`` the ids of
        passages the caller knows hold what was asked (the product's "Price" line), put first;
        ``named`` the titles of the product the question names (or of the cuts it names alike: the
        men's and the women's), whose passages are kept in their ranked place whatever their
        cosine (the shopper named something the shop sells)."""
        top_k = top_k or self._top_k
        depth = self._depth or max(RANKED if self._ranker else 20, top_k * 4)
        served = served or self._index.current()
        given = [row for i in first if (row := served.row_of(i)) is not None]
        own = {*(served.rows_titled(prefer) if prefer else ()), *given}
        its = {row for title in named for row in served.rows_titled(title)}
        names = served.lexical.name_matches(texts[0]) if texts else set()
        ranked, best = self.candidates(served, queries, texts, depth, also=own | its | names)
        if self._ranker is not None and texts:
            ranked = self._ranker.reorder(texts[0], ranked[:RANKED]) + ranked[RANKED:]
        if own:
            by_row = {c.row: c for c in ranked}
            front = [by_row[row] for row in given]
            front += [c for c in ranked if c.row in own and c.row not in given]
            front = front[: max(1, top_k // 2, len(given))]
            placed = {c.row for c in front}
            ranked = front + [c for c in ranked if c.row not in placed]
        page = _best_page(ranked, self._floor)
        passing = [
            c
            for c in ranked
            if c.cosine >= self._floor
            or c.exact
            or c.row in own
            or c.row in names
            or (c.passage.document_id == page and c.cosine >= self._floor - SECTION_MARGIN)
        ]
        # the named product's passages under the floor fill the places the others leave
        passing += [c for c in ranked if c.row in its and c not in passing]
        kept = [ScoredPassage(c.passage, c.cosine) for c in passing[:top_k]]
        exact = any(c.exact for c in ranked)
        return Retrieval(kept, best, served.version.id, exact)

    def search_parts(
        self,
        searches: Sequence[tuple[list[np.ndarray], Sequence[str]]],
        *,
        prefer: str | None = None,
        first: Sequence[str] = (),
        named: Sequence[str] = (),
    ) -> Retrieval:
        """One retrieval for a question in parts ("will it fit in the Ridgeline 65+10, and how
        long is its warranty?"): each part searched on its own, in the same index version, and
        their passages taken in turn (the best of each part first), up to ``top_k``."""
        served = self._index.current()
        found = [
            self.search(queries, texts, served=served, prefer=prefer, first=first)
            for queries, texts in searches
        ]
        merged: dict[str, ScoredPassage] = {}
        for rank in range(self._top_k):
            for retrieval in found:
                if rank < len(retrieval.passages) and len(merged) < self._top_k:
                    hit = retrieval.passages[rank]
                    merged.setdefault(hit.passage.id, hit)
        if named and len(merged) < self._top_k:  # the named product's passages fill the rest
            whole = self.search(
                *searches[0], served=served, prefer=prefer, first=first, named=named
            )
            for hit in whole.passages:
                if len(merged) < self._top_k:
                    merged.setdefault(hit.passage.id, hit)
        return Retrieval(
            list(merged.values()),
            max(r.best_score for r in found),
            served.version.id,
            any(r.exact_match for r in found),
        )

    def candidates(
        self,
        served: ServedIndex,
        queries: list[np.ndarray],
        texts: Sequence[str],
        depth: int,
        *,
        also: set[int] | frozenset[int] = frozenset(),
    ) -> tuple[list[Candidate], float]:
        """Every passage either ranking found in its top ``depth``, and the rows ``also`` asks
        for, in fused order, with what the first stage measured of it; and the best cosine
        among them."""
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
        lexical_scores: list[np.ndarray] = []
        if self._lexical_weight > 0 and texts:
            for text in texts:
                scores = served.lexical.scores(text)
                if scores is not None:
                    lexical_scores.append(scores)
                for rank, (row, _) in enumerate(served.lexical.top(scores, depth)):
                    fused[row] += self._lexical_weight / (RRF_K + rank + 1)
            exact = served.lexical.identifier_matches(texts[0])
            for row in exact:
                fused[row] += self._lexical_weight / RRF_K
        for row in also:
            fused.setdefault(row, 0.0)  # ranked by its cosine after the rankings' finds
        unscored = [row for row in fused if row not in cosine]
        if unscored:
            extra = served.similarity(unscored, stacked).max(axis=0)
            cosine.update(zip(unscored, (float(s) for s in extra), strict=True))
        ranked = sorted(fused, key=lambda row: (fused[row], cosine[row]), reverse=True)
        best = max(cosine.values(), default=0.0)
        return [
            Candidate(
                row,
                passages[row],
                cosine[row],
                max((float(s[row]) for s in lexical_scores), default=0.0),
                rank,
                row in exact,
            )
            for rank, row in enumerate(ranked)
        ], best


def _best_page(ranked: Sequence[Candidate], floor: float) -> str | None:
    """The document of the passage with the best cosine, when that one is above ``floor``."""
    best = max(ranked, key=lambda c: c.cosine, default=None)
    return best.passage.document_id if best is not None and best.cosine >= floor else None
