"""Group texts into length-sorted batches under a token budget (padding is paid per batch)."""

from __future__ import annotations

from collections.abc import Sequence


def token_budget_batches(
    lengths: Sequence[int], budget_tokens: int, max_batch: int = 512
) -> list[list[int]]:
    """Indices of ``lengths`` grouped longest first so that each padded batch fits the budget.

    A batch costs ``len(batch) * longest`` tokens once padded; sorting by length keeps the
    padding small, and starting with the longest surfaces an out-of-memory batch first.
    """
    order = sorted(range(len(lengths)), key=lambda i: lengths[i], reverse=True)
    batches: list[list[int]] = []
    current: list[int] = []
    longest = 0
    for index in order:
        length = max(1, lengths[index])
        widest = max(longest, length)
        if current and (widest * (len(current) + 1) > budget_tokens or len(current) >= max_batch):
            batches.append(current)
            current, widest = [], length
        current.append(index)
        longest = widest
    if current:
        batches.append(current)
    return batches
