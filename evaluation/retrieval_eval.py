"""Score retrieval on labelled cases with the service's own retriever and history blending."""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.embedding.embedder import Embedder
from app.index import vector_index
from app.index.passage import Passage
from app.index.versions import IndexVersion
from app.retrieval.published_index import ServedIndex
from app.retrieval.retriever import IndexSource, Ranker, Retrieval, Retriever
from app.retrieval.rewrite import query_texts
from app.sessions.memory import MemorySessionStore
from app.sessions.turn_vectors import TurnVectorCache
from evaluation.datasets import Case
from evaluation.metrics import (
    hit_at,
    ndcg_at,
    overall_and_by_category,
    recall_at,
    reciprocal_rank,
    unique_in_order,
)

KS = (1, 5, 10)


@dataclass(frozen=True)
class RetrievalConfig:
    """One retrieval variant under test; the service's own is named ``SERVICE``."""

    name: str
    lexical_weight: float
    rewrite_turns: int
    use_history: bool = True
    ranker: Ranker | None = None
    page_product: bool = False  # the shopper's page gives the case's product (the widget)


SERVICE = "hybrid+rewrite"
RANKED_VARIANT = "hybrid+rewrite+ranker"
PAGE_VARIANT = "hybrid+rewrite, page product"
RANKED_PAGE_VARIANT = "hybrid+rewrite+ranker, page product"


def variants(
    lexical_weight: float, rewrite_turns: int, ranker: Ranker | None = None
) -> tuple[RetrievalConfig, ...]:
    """Each improvement added in turn: the question alone by embeddings, then blended with the
    conversation, then fused with BM25, then with a rewritten follow-up (the service), the
    service told the product of the shopper's page (as the widget does), then, given a learned
    ranker, its second stage over the service's candidates."""
    configs = (
        RetrievalConfig("question only", lexical_weight=0.0, rewrite_turns=0, use_history=False),
        RetrievalConfig("dense", lexical_weight=0.0, rewrite_turns=0),
        RetrievalConfig("hybrid", lexical_weight=lexical_weight, rewrite_turns=0),
        RetrievalConfig(SERVICE, lexical_weight=lexical_weight, rewrite_turns=rewrite_turns),
        RetrievalConfig(PAGE_VARIANT, lexical_weight, rewrite_turns, page_product=True),
    )
    if ranker is None:
        return configs
    ranked = RetrievalConfig(RANKED_VARIANT, lexical_weight, rewrite_turns, ranker=ranker)
    ranked_page = dataclasses.replace(ranked, name=RANKED_PAGE_VARIANT, page_product=True)
    return (*configs, ranked, ranked_page)


def recommended_floor(sweep: Sequence[dict[str, float]], *, max_wrongly_refused: float) -> float:
    """The highest floor that refuses at most ``max_wrongly_refused`` of answerable questions."""
    allowed = [p["floor"] for p in sweep if p.get("wrongly_refused", 0.0) <= max_wrongly_refused]
    return max(allowed, default=min(p["floor"] for p in sweep))


class InMemoryIndex:
    """A flat index over a public set's passages, served like a published version."""

    def __init__(self, embedder: Embedder, passages: list[Passage], name: str) -> None:
        vectors = embedder.embed([p.embed_text for p in passages], progress=True)
        index = vector_index.build_index(vectors, vector_index.IndexChoice("flat"))
        self._served = ServedIndex.serve(IndexVersion(name, None, passages, index), "cpu")

    def current(self) -> ServedIndex:
        return self._served


async def evaluate_retrieval(
    cases: Sequence[Case],
    *,
    index: IndexSource,
    embedder: Embedder,
    weights: Sequence[float],
    floor: float,
    config: RetrievalConfig,
    depth: int = 10,
) -> dict[str, Any]:
    """Mean metrics overall and per category; refusals measured against ``floor``."""
    retriever = Retriever(
        index,
        top_k=depth,
        floor=-1.0,
        lexical_weight=config.lexical_weight,
        ranker=config.ranker,
    )
    if not config.use_history:
        cases = [dataclasses.replace(case, history=()) for case in cases]
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
        texts = query_texts(case.question, case.history, turns=config.rewrite_turns)
        page = _page_product(case, index) if config.page_product else None
        if page:  # as the chat turn does: the question said of the page's product, preferred
            queries.append(embedder.embed([f"{page}: {case.question}"])[0])
            texts.append(f"{page}: {case.question}")
        found = retriever.search(queries, texts, prefer=page)
        ranked = unique_in_order([h.passage.document_id for h in found.passages])
        rows.append({**_scores(case, ranked, found, floor), "product_given": bool(page)})
    summary = summarise(rows)
    summary["floor_sweep"] = floor_sweep(rows)
    given = [r for r in rows if r["product_given"]]
    if config.page_product and given:
        summary["with_product"] = {k: v for k, v in summarise(given).items() if k != "rows"}
    return summary


def _page_product(case: Case, index: IndexSource) -> str | None:
    """The title of the product the case's page would show: the set's own (HetPQA's product
    id, its passages' title), else the product record among the labelled documents."""
    if case.product:
        return case.product
    for passage in index.current().version.passages:
        if passage.kind == "product" and passage.document_id in case.relevant:
            return passage.title
    return None


def _scores(case: Case, ranked: list[str], found: Retrieval, floor: float) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": case.id,
        "category": case.category,
        "answerable": case.answerable,
        "refused": refused(found.best_score, found.exact_match, floor),
        "best_score": round(found.best_score, 4),
        "exact_match": found.exact_match,
        "ranked": ranked[:5],
    }
    if case.answerable:
        relevant = set(case.relevant)
        for k in KS:
            row[f"recall@{k}"] = recall_at(ranked, relevant, k)
            row[f"hit@{k}"] = hit_at(ranked, relevant, k)
        row["mrr"] = reciprocal_rank(ranked, relevant)
        row["ndcg@10"] = ndcg_at(ranked, relevant, 10)
    return row


def refused(best_score: float, exact_match: bool, floor: float) -> bool:
    """What the service does: nothing kept when no passage clears the floor or names the code."""
    return best_score < floor and not exact_match


SWEPT_FLOORS = tuple(step / 100 for step in range(20, 62, 2))


def floor_sweep(
    rows: list[dict[str, Any]], floors: Sequence[float] = SWEPT_FLOORS
) -> list[dict[str, float]]:
    """For each candidate floor: answerable questions refused, unanswerable ones refused."""
    groups = {
        "wrongly_refused": [r for r in rows if r["answerable"]],
        "refused_unanswerable": [r for r in rows if not r["answerable"]],
    }
    sweep = []
    for floor in floors:
        point = {"floor": floor}
        for name, group in groups.items():
            if group:
                hits = [refused(r["best_score"], r["exact_match"], floor) for r in group]
                point[name] = round(statistics.fmean(hits), 3)
        sweep.append(point)
    return sweep


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

    return overall_and_by_category(rows, means)
