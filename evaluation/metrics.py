"""Retrieval metrics over ranked document ids with binary relevance (pure functions)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any


def recall_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    """Share of the relevant documents found in the top ``k``."""
    if not relevant:
        return 0.0
    return len(relevant & set(ranked[:k])) / len(relevant)


def hit_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    """1 when any relevant document is in the top ``k`` (one is enough to answer)."""
    return float(bool(relevant & set(ranked[:k])))


def reciprocal_rank(ranked: Sequence[str], relevant: set[str]) -> float:
    for position, doc in enumerate(ranked, start=1):
        if doc in relevant:
            return 1.0 / position
    return 0.0


def ndcg_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    gains = sum(1 / math.log2(i + 2) for i, doc in enumerate(ranked[:k]) if doc in relevant)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(k, len(relevant))))
    return gains / ideal if ideal else 0.0


def unique_in_order(items: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(items))


Row = dict[str, Any]


def overall_and_by_category(rows: list[Row], means: Callable[[list[Row]], Row]) -> Row:
    """``means`` of all rows and of each category's rows, with the rows themselves."""
    by_category: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        by_category[row["category"]].append(row)
    return {
        "overall": means(rows),
        "by_category": {name: means(group) for name, group in sorted(by_category.items())},
        "rows": rows,
    }
