from __future__ import annotations

import math

from evaluation.metrics import hit_at, ndcg_at, recall_at, reciprocal_rank, unique_in_order


def test_metrics_on_a_known_ranking() -> None:
    ranked = ["a", "x", "b", "y"]
    relevant = {"a", "b"}
    assert recall_at(ranked, relevant, 1) == 0.5 and recall_at(ranked, relevant, 3) == 1.0
    assert hit_at(ranked, relevant, 1) == 1.0 and hit_at(["x"], relevant, 1) == 0.0
    assert reciprocal_rank(["x", "b"], relevant) == 0.5 and reciprocal_rank(["x"], relevant) == 0
    ideal = 1 + 1 / math.log2(3)
    assert math.isclose(ndcg_at(ranked, relevant, 10), (1 + 1 / math.log2(4)) / ideal)
    assert ndcg_at(["a", "b"], relevant, 10) == 1.0
    assert unique_in_order(["a", "a", "b", "a"]) == ["a", "b"]
