"""Quality floors: retrieval on the shop's labelled questions, and answers from the real engine.

The floors were recorded from `python -m evaluation` runs (docs/QUALITY.md); a change to chunking,
retrieval or prompts that drops quality below them fails here.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal

from app.retrieval.published_index import PublishedIndex
from app.settings import Settings
from evaluation.answer_eval import evaluate_answers
from evaluation.datasets import answer_cases, shop_cases
from evaluation.retrieval_eval import PAGE_VARIANT, SERVICE, evaluate_retrieval, variants
from ingest.pipeline import run_ingest

# Measured 2026-11-29 on the service's variant (hybrid+rewrite), 242 questions: hit@5 0.995,
# MRR 0.937, recall@10 0.982; follow-ups hit@5 0.966; product codes hit@1 1.0. On 2026-12-03,
# with the 140 tuning questions written by helpers (427 in all, sloppier by design; `python -m
# evaluation --no-answers --sets shop` on 44f7296): hit@5 0.985, MRR 0.895, recall@10 0.946,
# wrongly refused 0.018; follow-ups hit@5 0.977; the floors below were lowered for that set.
FLOORS = {"hit@5": 0.97, "mrr": 0.88, "recall@10": 0.93}
CATEGORY_FLOORS = {("follow_up", "hit@5"): 0.9, ("identifier", "hit@1"): 0.9}


def _retrieval(settings: Settings, embedder: Any, variant: str) -> dict[str, Any]:
    """One retrieval variant's scores on the shop's labelled questions."""
    configs = {c.name: c for c in variants(settings.lexical_weight, 2)}
    return asyncio.run(
        evaluate_retrieval(
            shop_cases(),
            index=PublishedIndex(settings.index_dir),
            embedder=embedder,
            weights=settings.history_weights,
            floor=settings.relevance_floor,
            config=configs[variant],
        )
    )


def test_shop_retrieval_stays_above_its_floor(settings: Settings, embedder: Any) -> None:
    run_ingest(settings, embedder)
    scores = _retrieval(settings, embedder, SERVICE)
    overall = scores["overall"]
    assert overall["cases"] >= 150
    for metric, floor in FLOORS.items():
        assert overall[metric] >= floor, (metric, overall[metric])
    for (category, metric), floor in CATEGORY_FLOORS.items():
        assert scores["by_category"][category][metric] >= floor, (category, metric)
    assert overall["wrongly_refused"] <= 0.02
    # the shopper's page gives the product (the widget): measured 2026-12-01, hit@1 1.0 on the
    # 133 questions with a product, follow-ups included
    page = _retrieval(settings, embedder, PAGE_VARIANT)["with_product"]
    assert page["overall"]["cases"] >= 120 and page["overall"]["hit@1"] >= 0.95, page["overall"]
    assert page["by_category"]["follow_up"]["hit@1"] >= 0.95


# A fixed sample of the report part (every fourth question: answerable, unanswerable, yes/no,
# follow-ups), answered by vLLM through the service's own pipeline. Floors sit under the figures
# of the full report part in docs/QUALITY.md by the spread seen between runs.
# Report part, 2026-12-01 (05:54 run on 2e8f9ea): key facts 0.765, all key facts 0.729,
# unanswerable declined 0.583, wrongly declined 0.133 (0.095 of them hedged: the closest lines
# shown with a person offered), unsupported figures 0, wrong polarity 0 (the verified policy
# shows a model sentence only when it restates a shown line); this sample in that run: 0.67,
# 0.65, 0.64, 0.09, 0, 0 (in the 2026-11-30 21:04 run: 0.64, 0.59, 0.55, 0.13, 0, 0).
ANSWER_FLOORS = {"key_facts": 0.62, "all_key_facts": 0.6, "declined_unanswerable": 0.55}
ANSWER_CEILINGS = {"wrongly_declined": 0.15, "unsupported_figures": 0.02, "wrong_polarity": 0.17}


@pytest.mark.timeout(1800)  # 65 answers from vLLM on a CPU: about 2 minutes alone on 2 vCPUs
def test_answers_from_the_real_engine_hold_their_floors(portal: BlockingPortal, stack: Any) -> None:
    cases = [c for c in answer_cases() if c.part == "report"][::4]
    result = portal.call(evaluate_answers, cases, stack.chat)
    overall = result["overall"]
    assert overall["cases"] == len(cases) >= 60
    assert overall["fabricated_quotes"] == 0, [r["fabricated_quotes"] for r in result["rows"]]
    assert overall["scaffolding_shown"] == 0, overall
    for metric, floor in ANSWER_FLOORS.items():
        assert overall[metric] >= floor, (metric, overall)
    for metric, ceiling in ANSWER_CEILINGS.items():
        assert overall[metric] <= ceiling, (metric, overall)
    assert overall["cites"] >= 0.8, overall
