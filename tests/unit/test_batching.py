from __future__ import annotations

import random

from app.embedding.batching import token_budget_batches


def test_every_index_once_and_each_padded_batch_fits() -> None:
    rng = random.Random(7)
    lengths = [rng.randint(3, 256) for _ in range(1000)]
    batches = token_budget_batches(lengths, budget_tokens=4096)
    flat = [i for b in batches for i in b]
    assert sorted(flat) == list(range(1000))
    for batch in batches:
        assert max(lengths[i] for i in batch) * len(batch) <= 4096
        widths = [lengths[i] for i in batch]
        assert widths == sorted(widths, reverse=True)


def test_a_text_longer_than_the_budget_gets_a_batch_of_its_own() -> None:
    assert token_budget_batches([5000, 10, 10], budget_tokens=1000) == [[0], [1, 2]]


def test_no_texts_no_batches() -> None:
    assert token_budget_batches([], budget_tokens=100) == []
