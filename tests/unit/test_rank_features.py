"""The second stage's features, computed from the first stage's candidates."""

from __future__ import annotations

import math

import pytest

from app.index.passage import Passage
from app.retrieval.rank_features import FEATURES, Candidate, feature_rows, kind_one_hot, overlap
from app.retrieval.terms import index_terms


def candidate(
    rank: int,
    *,
    cosine: float,
    bm25: float,
    kind: str = "product",
    title: str = "",
    text: str = "",
    exact: bool = False,
) -> Candidate:
    passage = Passage(f"p{rank}", f"d{rank}", "s", title, "", "", "", kind, text, text, "h", 0)
    return Candidate(rank, passage, cosine, bm25, rank, exact)


def column(name: str) -> int:
    return FEATURES.index(name)


def test_each_candidate_gets_one_row_in_the_order_of_features() -> None:
    found = [
        candidate(
            0, cosine=0.8, bm25=6.0, title="Emberlite Stove", text="Weighs 82 g.", exact=True
        ),
        candidate(1, cosine=0.5, bm25=0.0, kind="review", text="Great stove for camping trips"),
    ]
    rows = feature_rows("How heavy is the Emberlite stove?", found)
    assert rows.shape == (2, len(FEATURES))
    assert rows[:, column("cosine")].tolist() == pytest.approx([0.8, 0.5])
    assert rows[:, column("cosine_gap")].tolist() == pytest.approx([0.0, 0.3])
    assert rows[:, column("bm25")].tolist() == [1.0, 0.0]  # divided by the query's best
    assert rows[:, column("fused_reciprocal_rank")].tolist() == [1.0, 0.5]
    assert rows[:, column("identifier_match")].tolist() == [1.0, 0.0]
    assert rows[:, column("kind_product")].tolist() == [1.0, 0.0]
    assert rows[:, column("kind_review")].tolist() == [0.0, 1.0]
    assert rows[0, column("title_overlap")] == pytest.approx(2 / 3)  # emberlite, stove of 3
    assert rows[1, column("text_overlap")] == pytest.approx(1 / 3)  # stove
    assert rows[1, column("log_words")] == pytest.approx(math.log1p(4))  # for: a stop word
    assert rows[0, column("question_terms")] == len(set(index_terms("heavy Emberlite stove")))


def test_no_lexical_match_and_no_candidates_give_zeros_not_errors() -> None:
    rows = feature_rows("anything", [candidate(0, cosine=0.2, bm25=0.0)])
    assert rows[0, column("bm25")] == 0.0
    assert feature_rows("anything", []).shape == (0, len(FEATURES))


def test_an_unknown_kind_is_other_and_overlap_of_nothing_is_zero() -> None:
    assert kind_one_hot("blog")[-1] == 1.0 and sum(kind_one_hot("blog")) == 1.0
    assert kind_one_hot("faq")[1] == 1.0 and sum(kind_one_hot("faq")) == 1.0
    assert overlap(set(), "some text") == 0.0


def test_passages_of_the_first_stages_product_vote_for_each_other() -> None:
    found = [
        candidate(0, cosine=0.7, bm25=1.0, title="Emberlite Stove", text="Weighs 82 g."),
        candidate(1, cosine=0.6, bm25=1.0, title="Trail Boot", text="Leather upper."),
        candidate(2, cosine=0.4, bm25=1.0, title="Emberlite Stove", text="Boils in 3 minutes."),
    ]
    rows = feature_rows("emberlite weight", found)
    assert rows[:, column("product_votes")].tolist() == pytest.approx([0.2, 0.1, 0.2])
    assert rows[:, column("same_product_as_first")].tolist() == [1.0, 0.0, 1.0]
    # the stove's best passage is the best overall; the boot's is 0.1 behind
    assert rows[:, column("product_best_cosine_gap")].tolist() == pytest.approx([0.0, 0.1, 0.0])
