"""Answerability: the evidence must hold what was asked, for the product and case asked."""

from __future__ import annotations

from app.chat.answerability import judge
from app.chat.evidence import select_evidence, units
from tests.unit.passages import FAQ, FOOTPRINT, JACKET, RETURNS, TENT


def verdict(
    question: str, passages: list, earlier: tuple[str, ...] = ()
) -> tuple[bool, str | None]:
    similarity = [0.0] * len(units(passages))
    selection = select_evidence(question, earlier, passages, similarity)
    found = judge(question, selection, passages)
    return found.answerable, found.reason


def test_a_plain_question_with_its_answer_is_answerable() -> None:
    assert verdict("How much does the Stormhollow 2 Tent weigh?", [TENT, FOOTPRINT]) == (True, None)
    assert verdict("Can I change my order?", [FAQ]) == (True, None)
    assert verdict("What does FH-TNT-7090 cost?", [FOOTPRINT, TENT]) == (True, None)


def test_a_size_the_evidence_does_not_state_is_declined() -> None:
    assert verdict("What does the Cairngorm 800 weigh in size XL?", [JACKET]) == (
        False,
        "other_size",
    )
    assert verdict("What does the Cairngorm 800 weigh in size M?", [JACKET]) == (True, None)


def test_a_code_or_name_the_pages_never_mention_is_declined() -> None:
    assert verdict("Do you sell FH-TNT-7095?", [TENT, FOOTPRINT]) == (False, "unknown_code")
    assert verdict("Do you have a shop in Manchester?", [RETURNS]) == (False, "unknown_name")
    assert verdict("Do you offer an NHS discount?", [RETURNS, FAQ]) == (False, "unknown_name")


def test_evidence_without_any_of_the_questions_own_words_is_declined() -> None:
    assert verdict("can i hire kayaks", [RETURNS]) == (False, "no_match")


def test_no_evidence_at_all_is_declined() -> None:
    assert verdict("anything", []) == (False, "no_match")
