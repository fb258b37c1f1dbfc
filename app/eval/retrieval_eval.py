"""Score retrieval on labelled cases with the service's own retriever and history blending."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from app.embedding.embedder import Embedder
from app.eval.datasets import Case
from app.eval.metrics import hit_at, ndcg_at, recall_at, reciprocal_rank, unique_in_order
from app.index import vector_index
from app.index.passage import Passage
from app.index.versions import IndexVersion
from app.retrieval.published_index import ServedIndex
from app.retrieval.retriever import IndexSource, Retriever
from app.sessions.memory import MemorySessionStore
from app.sessions.turn_vectors import TurnVectorCache

KS = (1, 5, 10)


class InMemoryIndex:
    """A flat index over a public set's passages, served like a published version."""

    def __init__(self, embedder: Embedder, passages: list[Passage], name: str) -> None:
        vectors = embedder.embed([p.embed_text for p in passages], progress=True)
        index = vector_index.build_index(vectors, vector_index.IndexChoice("flat"))
        self._served = ServedIndex(IndexVersion(name, {}, passages, index), index, "cpu")

    def current(self) -> ServedIndex:
        return self._served


async def evaluate_retrieval(
    cases: Sequence[Case],
    *,
    index: IndexSource,
    embedder: Embedder,
    weights: Sequence[float],
    floor: float,
    depth: int = 10,
) -> dict[str, Any]:
    """Mean metrics overall and per category; refusals measured against ``floor``."""
    retriever = Retriever(index, top_k=depth, floor=-1.0)
    cache = TurnVectorCache(MemorySessionStore(ttl_s=3600), capacity=100_000)
    questions = embedder.embed([c.question for c in cases])
    earlier = [t for c in cases for t in c.history]
    earlier_vectors = iter(embedder.embed(earlier) if earlier else np.zeros((0, 1)))
    rows: list[dict[str, Any]] = []
    for number, (case, vector) in enumerate(zip(cases, questions, strict=True)):
        session = f"eval-{number}"
        for turn, _ in enumerate(case.history):
            await cache.put(session, turn, next(earlier_vectors))
        queries = [vector]
        if case.history:
            previous = await cache.get(session, list(range(len(case.history)))[-2:])
            queries.append(cache.blend(vector, previous, tuple(weights)))
        found = retriever.search(queries)
        ranked = unique_in_order([h.passage.document_id for h in found.passages])
        rows.append(_scores(case, ranked, found.best_score, floor))
    return summarise(rows)


def _scores(case: Case, ranked: list[str], best: float, floor: float) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": case.id,
        "category": case.category,
        "answerable": case.answerable,
        "refused": best < floor,
        "best_score": best,
    }
    if case.answerable:
        relevant = set(case.relevant)
        for k in KS:
            row[f"recall@{k}"] = recall_at(ranked, relevant, k)
            row[f"hit@{k}"] = hit_at(ranked, relevant, k)
        row["mrr"] = reciprocal_rank(ranked, relevant)
        row["ndcg@10"] = ndcg_at(ranked, relevant, 10)
    return row


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def means(subset: list[dict[str, Any]]) -> dict[str, Any]:
        answerable = [r for r in subset if r["answerable"]]
        unanswerable = [r for r in subset if not r["answerable"]]
        result: dict[str, Any] = {"cases": len(subset)}
        if answerable:
            metrics = [*(f"recall@{k}" for k in KS), *(f"hit@{k}" for k in KS), "mrr", "ndcg@10"]
            for name in metrics:
                result[name] = round(statistics.fmean(r[name] for r in answerable), 3)
            result["wrongly_refused"] = round(
                statistics.fmean(float(r["refused"]) for r in answerable), 3
            )
        if unanswerable:
            result["refused_unanswerable"] = round(
                statistics.fmean(float(r["refused"]) for r in unanswerable), 3
            )
        return result

    by_category: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_category[row["category"]].append(row)
    return {
        "overall": means(rows),
        "by_category": {name: means(group) for name, group in sorted(by_category.items())},
        "rows": rows,
    }
