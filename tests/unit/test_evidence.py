"""The quoted line: the right field of the right product, or nothing."""

from __future__ import annotations

from app.chat.evidence import best_evidence
from app.eval.answer_eval import declines, facts_found
from app.index.passage import Passage
from app.retrieval.published_index import ScoredPassage


def hit(title: str, text: str) -> ScoredPassage:
    return ScoredPassage(
        Passage("p", "d", "s", title, title, "", "", "product", text, text, "h", 9), 0.5
    )


FOOTPRINT = hit("Stormhollow 2 Footprint", "Specs: Weight: 210 g; Dimensions: 210 × 125 cm")
TENT = hit(
    "Stormhollow 2 Tent",
    "Description: A light two-person tent.\n"
    "Specs: Season: 3-season; Minimum weight: 1,550 g (flysheet, inner and poles); Berth: 2",
)


def test_the_named_products_field_is_quoted_even_below_a_neighbour() -> None:
    evidence = best_evidence("How much does the Stormhollow 2 Tent weigh?", [FOOTPRINT, TENT])
    assert evidence is not None
    assert evidence.number == 2
    assert evidence.text == "Minimum weight: 1,550 g (flysheet, inner and poles)"


HEADLAMP = hit(
    "Beacon 400 Headlamp",
    "SKU: FH-ELC-9701\nPrice (GBP): 39\nColours: Black, Orange\n"
    "Materials: Polycarbonate housing; polyester and elastic headband.",
)


def test_a_shoppers_word_for_a_field_finds_that_field() -> None:
    for question, line in [
        ("How much does the Beacon 400 headlamp cost?", "Price (GBP): 39"),
        ("What colors does the Beacon 400 come in?", "Colours: Black, Orange"),
        ("What is the Beacon 400 made of?", "Materials: Polycarbonate housing"),
    ]:
        evidence = best_evidence(question, [HEADLAMP])
        assert evidence is not None and evidence.text == line, question


def test_nothing_is_quoted_when_no_line_shares_a_word() -> None:
    assert best_evidence("Do you sell kayaks?", [FOOTPRINT, TENT]) is None
    assert best_evidence("anything", []) is None


def test_answer_scoring_helpers() -> None:
    assert facts_found("It weighs 1550 g and costs £289.", ["1,550 g", "289"]) == 1.0
    assert facts_found("It weighs about 2 kg.", ["1,550 g", "kg"]) == 0.5
    assert declines("I'm sorry, I don't know that.")
    assert declines("The information doesn't mention a kayak.")
    assert not declines("Yes, it fits the Stormhollow 2 Tent [1].")
