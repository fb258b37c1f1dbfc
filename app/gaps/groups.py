"""The knowledge-gaps report: the grouped questions as the staff page and its CSV show them.
Plain data, built from the questions, their vectors and their group numbers."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from app.gaps.clustering import by_centrality
from app.transcripts.records import GAP_REASONS, GapQuestion

EXAMPLES = 5


@dataclass(frozen=True)
class GapGroup:
    """Questions of one meaning, the most central first (the first is the group's label)."""

    number: int  # 1 for the largest group
    questions: tuple[GapQuestion, ...]
    reasons: tuple[tuple[str, int], ...]  # (reason, questions with it), in GAP_REASONS order
    first_seen: datetime
    last_seen: datetime

    @property
    def label(self) -> str:
        return self.questions[0].question

    @property
    def count(self) -> int:
        return len(self.questions)

    def examples(self, count: int = EXAMPLES) -> list[str]:
        """Up to ``count`` different questions, the most central first."""
        seen: dict[str, None] = {}
        for question in self.questions:
            seen.setdefault(question.question.strip())
            if len(seen) == count:
                break
        return list(seen)

    def conversations(self) -> list[int]:
        """The conversations the group's questions were asked in, newest question first."""
        newest = sorted(self.questions, key=lambda q: q.asked_at, reverse=True)
        return list(dict.fromkeys(q.conversation_id for q in newest))


@dataclass(frozen=True)
class GapReport:
    """The groups of one window, largest first, and what computing them took."""

    groups: tuple[GapGroup, ...]
    embedded: int  # questions embedded for this report (the rest were cached)
    computed_at: datetime
    seconds: float

    @property
    def questions(self) -> int:
        return sum(group.count for group in self.groups)


def build_groups(
    questions: list[GapQuestion], vectors: np.ndarray, labels: np.ndarray
) -> tuple[GapGroup, ...]:
    """One group per label (labels number the groups largest first, as ``group_vectors``)."""
    groups = []
    for number in range(int(labels.max()) + 1 if len(labels) else 0):
        members = np.flatnonzero(labels == number)
        ordered = members[by_centrality(vectors[members])]
        chosen = tuple(questions[i] for i in ordered)
        counts = Counter(reason for q in chosen for reason in q.reasons)
        groups.append(
            GapGroup(
                number=number + 1,
                questions=chosen,
                reasons=tuple((r, counts[r]) for r in GAP_REASONS if counts[r]),
                first_seen=min(q.asked_at for q in chosen),
                last_seen=max(q.asked_at for q in chosen),
            )
        )
    return tuple(groups)
