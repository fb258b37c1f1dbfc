"""Shoppers' conversations drawn from the sample shop's labelled questions.

Each labelled case is a short thread: its earlier questions (a follow-up case carries them) and
then its question. A conversation chains random threads until it has the wanted number of turns,
so it mixes stand-alone questions with real follow-ups ("how heavy is it?") and its history grows
turn by turn, as a shopper's does.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from evaluation.datasets import SHOP_QUESTIONS


@dataclass(frozen=True)
class Conversation:
    """The messages one shopper sends, in order, within one session."""

    number: int
    messages: tuple[str, ...]


def load_threads(path: Path = SHOP_QUESTIONS) -> list[tuple[str, ...]]:
    """Every labelled case as the thread of messages a shopper would send for it."""
    threads = []
    for line_number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            thread = (*row.get("history", []), row["question"])
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{line_number}: not a question case ({exc})") from exc
        threads.append(tuple(str(message) for message in thread))
    if not threads:
        raise ValueError(f"{path} holds no questions")
    return threads


def draw_conversations(
    threads: Sequence[tuple[str, ...]], *, turns: int, seed: int
) -> Iterator[Conversation]:
    """An endless, reproducible stream of ``turns``-message conversations."""
    if turns < 1:
        raise ValueError("a conversation needs at least one turn")
    if not threads:
        raise ValueError("no threads to draw conversations from")
    rng = random.Random(seed)
    number = 0
    while True:
        messages: list[str] = []
        while len(messages) < turns:
            messages.extend(rng.choice(threads))
        number += 1
        yield Conversation(number, tuple(messages[:turns]))
