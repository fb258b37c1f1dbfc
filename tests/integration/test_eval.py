"""Retrieval quality on the shop's labelled questions may not fall below the recorded floor."""

from __future__ import annotations

import asyncio
from typing import Any

from app.eval.datasets import shop_cases
from app.eval.retrieval_eval import evaluate_retrieval
from app.retrieval.published_index import PublishedIndex
from app.settings import Settings
from ingest.pipeline import run_ingest

# Measured with `python -m app.eval` on 2026-11-29 (hit@5 0.985, MRR 0.924, follow-ups hit@5
# 0.966); a change that drops retrieval below these fails here.
FLOORS = {"hit@5": 0.95, "mrr": 0.88, "recall@10": 0.95}
FOLLOW_UP_HIT_AT_5 = 0.9


def test_shop_retrieval_stays_above_its_floor(settings: Settings, embedder: Any) -> None:
    run_ingest(settings, embedder)
    scores = asyncio.run(
        evaluate_retrieval(
            shop_cases(),
            index=PublishedIndex(settings.index_dir),
            embedder=embedder,
            weights=settings.history_weights,
            floor=settings.relevance_floor,
        )
    )
    overall = scores["overall"]
    assert overall["cases"] >= 150
    for metric, floor in FLOORS.items():
        assert overall[metric] >= floor, (metric, overall[metric])
    assert scores["by_category"]["follow_up"]["hit@5"] >= FOLLOW_UP_HIT_AT_5
