"""Quality floors: retrieval on the shop's labelled questions, and answers from the real engine.

The floors were recorded from `python -m app.eval` runs (docs/QUALITY.md); a change to chunking,
retrieval or prompts that drops quality below them fails here.
"""

from __future__ import annotations

import asyncio
from typing import Any

from anyio.from_thread import BlockingPortal

from app.eval.answer_eval import evaluate_answers
from app.eval.datasets import shop_cases
from app.eval.retrieval_eval import SERVICE, evaluate_retrieval, variants
from app.retrieval.published_index import PublishedIndex
from app.settings import Settings
from ingest.pipeline import run_ingest

# Measured 2026-11-29 on the service's variant (hybrid+rewrite): hit@5 0.995, MRR 0.937,
# recall@10 0.982; follow-ups hit@5 0.966; product codes hit@1 1.0.
FLOORS = {"hit@5": 0.97, "mrr": 0.9, "recall@10": 0.95}
CATEGORY_FLOORS = {("follow_up", "hit@5"): 0.9, ("identifier", "hit@1"): 0.9}


def test_shop_retrieval_stays_above_its_floor(settings: Settings, embedder: Any) -> None:
    run_ingest(settings, embedder)
    configs = {c.name: c for c in variants(settings.lexical_weight, 2)}
    scores = asyncio.run(
        evaluate_retrieval(
            shop_cases(),
            index=PublishedIndex(settings.index_dir),
            embedder=embedder,
            weights=settings.history_weights,
            floor=settings.relevance_floor,
            config=configs[SERVICE],
        )
    )
    overall = scores["overall"]
    assert overall["cases"] >= 150
    for metric, floor in FLOORS.items():
        assert overall[metric] >= floor, (metric, overall[metric])
    for (category, metric), floor in CATEGORY_FLOORS.items():
        assert scores["by_category"][category][metric] >= floor, (category, metric)
    assert overall["wrongly_refused"] <= 0.02


def test_answers_from_the_real_engine_carry_facts_and_cite_their_sources(
    portal: BlockingPortal, stack: Any
) -> None:
    """A fixed sample across categories, answered by vLLM with the service's own pipeline."""
    cases = [c for c in shop_cases() if c.answerable][::12]
    result = portal.call(evaluate_answers, cases, stack.chat)
    overall = result["overall"]
    assert overall["cases"] == len(cases) >= 15
    # the quoted line and the answer together hold the expected facts this often (measured
    # 0.6+ on the full set); every answer cites, and what it cites is mostly the right source
    assert overall["key_facts"] >= 0.35, overall
    assert overall["cites"] >= 0.8, overall
    assert overall["citation_precision"] >= 0.6, overall
    assert overall["wrongly_declined"] <= 0.2, overall
