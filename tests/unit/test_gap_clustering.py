"""Grouping questions by meaning (app.gaps.clustering) and the groups the page shows
(app.gaps.groups): hand-written questions with the real packaged MiniLM fall into their obvious
groups, and the k-means path for many questions keeps well-separated topics apart."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from app.gaps.clustering import MAX_CELLS, by_centrality, group_vectors
from app.gaps.groups import build_groups
from app.transcripts.records import GapQuestion

TOPICS = {
    "gift": [
        "Do you offer gift wrapping?",
        "Can you gift wrap my order?",
        "Is gift wrap available for presents?",
        "Can I have my parcel wrapped as a gift?",
    ],
    "crypto": [
        "Can I pay with Bitcoin?",
        "Do you accept cryptocurrency?",
        "Is paying in crypto possible?",
    ],
    "australia": [
        "Do you ship to Australia?",
        "Can you deliver to Sydney, Australia?",
        "How long does delivery to Australia take?",
    ],
    "repair": [
        "My tent pole snapped, can you repair it?",
        "Do you fix broken tent poles?",
        "Is there a repair service for a torn tent?",
    ],
}
QUESTIONS = [q for asked in TOPICS.values() for q in asked]
TRUTH = [topic for topic, asked in TOPICS.items() for _ in asked]
AT = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def partition(labels: Any, names: list[str]) -> set[frozenset[str]]:
    groups: dict[int, set[str]] = {}
    for label, name in zip(labels, names, strict=True):
        groups.setdefault(int(label), set()).add(name)
    return {frozenset(group) for group in groups.values()}


@pytest.fixture(scope="module")
def vectors(embedder: Any) -> np.ndarray:
    return np.asarray(embedder.embed(QUESTIONS))


def test_hand_written_questions_fall_into_their_obvious_groups(vectors: np.ndarray) -> None:
    labels = group_vectors(vectors)
    assert len(set(labels.tolist())) == len(TOPICS)
    assert partition(labels, TRUTH) == {frozenset({topic}) for topic in TOPICS}
    assert labels[0] == 0  # the largest group (gift wrapping, 4 questions) is numbered first
    np.testing.assert_array_equal(group_vectors(vectors), labels)  # the same every time


def test_a_looser_threshold_merges_groups_and_a_tighter_one_splits_them(
    vectors: np.ndarray,
) -> None:
    assert len(set(group_vectors(vectors, distance=1.2).tolist())) < len(TOPICS)
    assert len(set(group_vectors(vectors, distance=0.2).tolist())) > len(TOPICS)


def test_many_questions_are_cut_into_cells_first_and_keep_their_topics_apart() -> None:
    """Above MAX_CELLS questions, Faiss k-means makes the cells that are then merged."""
    rng = np.random.default_rng(7)
    topics = rng.normal(size=(5, 384)).astype(np.float32)
    truth = rng.integers(0, 5, size=4 * MAX_CELLS)
    points = topics[truth] / np.linalg.norm(topics[truth], axis=1, keepdims=True)
    points += rng.normal(scale=0.02, size=points.shape).astype(np.float32)
    points /= np.linalg.norm(points, axis=1, keepdims=True)

    labels = group_vectors(points, seed=3)
    assert partition(labels, truth.tolist()) == {frozenset({t}) for t in range(5)}
    sizes = np.bincount(labels)
    assert list(sizes) == sorted(sizes, reverse=True)  # numbered largest first
    np.testing.assert_array_equal(group_vectors(points, seed=3), labels)


def test_no_question_or_one_question_needs_no_clustering() -> None:
    assert group_vectors(np.zeros((0, 384), dtype=np.float32)).tolist() == []
    assert group_vectors(np.ones((1, 384), dtype=np.float32)).tolist() == [0]


def test_groups_are_labelled_by_their_most_central_question(vectors: np.ndarray) -> None:
    reasons = [("declined",), ("thumbs_down",), ("declined", "handoff"), ("low_groundedness",)]
    questions = [
        GapQuestion(
            message_id=i,
            conversation_id=100 + i,
            question=q,
            asked_at=AT + timedelta(hours=i),
            reasons=reasons[i % 4],
            declined="floor" if "declined" in reasons[i % 4] else None,
        )
        for i, q in enumerate(QUESTIONS)
    ]
    labels = group_vectors(vectors)
    groups = build_groups(questions, vectors, labels)

    assert [g.number for g in groups] == [1, 2, 3, 4]
    assert [g.count for g in groups] == [4, 3, 3, 3]
    gift = groups[0]
    centre = int(by_centrality(vectors[:4])[0])
    assert gift.label == QUESTIONS[centre]
    assert gift.examples()[0] == gift.label and set(gift.examples()) == set(TOPICS["gift"])
    assert gift.examples(2) == [q.question for q in gift.questions[:2]]
    assert dict(gift.reasons) == {
        "declined": 2,
        "low_groundedness": 1,
        "thumbs_down": 1,
        "handoff": 1,
    }
    assert (gift.first_seen, gift.last_seen) == (AT, AT + timedelta(hours=3))
    assert gift.conversations() == [103, 102, 101, 100]  # newest question first
    assert build_groups([], vectors[:0], labels[:0]) == ()
