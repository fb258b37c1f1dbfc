from __future__ import annotations

import json
import math

import pytest

from app.chat.outcome import TurnOutcome
from evaluation.answer_eval import answer_polarity, stated_polarity, unsupported_figures
from evaluation.datasets import BITEXT_INTENTS, intent_cases
from evaluation.metrics import hit_at, ndcg_at, recall_at, reciprocal_rank, unique_in_order
from tests.conftest import SHARED_EVAL
from tests.unit.passages import hit


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


def test_the_everyday_requests_are_drawn_the_same_way_and_split_by_halves() -> None:
    path = SHARED_EVAL / "bitext" / "Bitext_Sample_Customer_Support_Training_Dataset.csv"
    if not path.exists():
        pytest.skip("../shared/eval is not present")
    cases = intent_cases(path, per_intent=4)
    assert cases == intent_cases(path, per_intent=4)  # a fixed draw, not a random one
    intents = json.loads(BITEXT_INTENTS.read_text(encoding="utf-8"))["intents"]
    assert len(cases) == 4 * len(intents)
    for intent, facts in intents.items():
        own = [c for c in cases if c.category == f"intent:{intent}"]
        assert [c.part for c in own] == ["tuning", "tuning", "report", "report"]
        assert all(c.key_facts == tuple(facts) and c.any_fact and c.answerable for c in own)
        assert all("{{" not in c.question for c in own)  # the set's placeholders left out


def test_a_figure_is_supported_by_its_passages_heading_but_not_by_nothing() -> None:
    table = hit("Delivery", "| Standard | 2–3 working days |", kind="policy",
                section="Delivery › Zone 1: UK mainland")  # fmt: skip
    outcome = TurnOutcome("s", "How long does delivery take?", "", True, [table], [], 0.0, "v",
                          "e", 0)  # fmt: skip
    outcome.answer = "Here is what our page says under **Zone 1: UK mainland**: 2–3 days [1]"
    assert unsupported_figures(outcome) == []
    outcome.answer = "It takes 4 working days [1]."
    assert unsupported_figures(outcome) == ["4"]
