from __future__ import annotations

import math

from evaluation.answer_eval import answer_polarity, stated_polarity
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


def test_the_polarity_a_first_sentence_states() -> None:
    assert stated_polarity("Yes, it fits [1]. It is light.") == "yes"
    assert stated_polarity("You can't return a pitched tent [2].") == "no"
    assert stated_polarity("It fits the Stormhollow 2 Tent.") == "yes"
    assert stated_polarity("The fly is green.") is None
    # a clause each way states neither plainly
    both = "It is designed to breathe, but it does not have a waterproof membrane [1]."
    assert stated_polarity(both) is None
    assert stated_polarity("") is None


def test_the_polarity_read_is_the_answers_opening_yes_or_no_else_the_models() -> None:
    said = "No. Here is what our product page for the Ridgeline 45 Backpack says: …"
    assert answer_polarity(said, "") == "no"
    hedge = "The closest I can find is what our product page for the Glow says: …"
    assert answer_polarity(hedge, "") is None  # "I can find" is no yes
    assert answer_polarity(hedge, "You can't return a pitched tent [2].") == "no"
