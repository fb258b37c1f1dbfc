"""Which labelled questions a ranker may be trained on, and which it is scored on.

HetPQA evidence-ranking questions are split by product (ASIN): every question about a product
falls on the same side, fixed by a hash of the product id, so a held-out score never rests on a
product the model saw. MTRAG-UN and the shop's questions are never trained on.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from evaluation.datasets import Case

HELD_OUT_SHARE = 0.4  # of products; HetPQA has ~500 questions over a few hundred products
SALT = "shopdesk-ranker-v1"


def bucket(product: str, salt: str = SALT) -> float:
    """A fixed number in [0, 1) for a product id: the same on every machine and run."""
    digest = hashlib.sha256(f"{salt}:{product}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def is_held_out(product: str) -> bool:
    return bucket(product) < HELD_OUT_SHARE


def split_by_product(cases: Sequence[Case]) -> tuple[list[Case], list[Case]]:
    """(train, held out) by each case's product; a case without a product is refused."""
    missing = [c.id for c in cases if not c.product]
    if missing:
        raise ValueError(f"cases without a product cannot be split by product: {missing[:3]}")
    train = [c for c in cases if not is_held_out(c.product)]
    held_out = [c for c in cases if is_held_out(c.product)]
    return train, held_out


def folds(cases: Sequence[Case], k: int) -> list[tuple[list[int], list[int]]]:
    """``k`` (fit, check) index lists for grouped cross-validation: a product in one fold only."""
    fold_of = [int(bucket(c.product, f"{SALT}:folds") * k) for c in cases]
    return [
        (
            [i for i, f in enumerate(fold_of) if f != fold],
            [i for i, f in enumerate(fold_of) if f == fold],
        )
        for fold in range(k)
    ]
