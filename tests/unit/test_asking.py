"""The part of a message that asks, apart from what the shopper tells of themselves."""

from __future__ import annotations

import pytest

from app.chat.asking import asking_part, told_places_matter


@pytest.mark.parametrize(
    ("message", "asking"),
    [
        (
            "I'm going backpacking in Snowdonia next month. What does the Stormhollow 2 weigh?",
            "What does the Stormhollow 2 weigh?",
        ),
        ("Do you do a student discount? I'm at uni in Sheffield.", "Do you do a student discount?"),
        # a request without a question's form asks too
        (
            "What is the sock made of? I want to know how much is wool.",
            "What is the sock made of? I want to know how much is wool.",
        ),
        # every sentence asks, or none does: the message as it is
        ("Can I return it? How long do I have?", "Can I return it? How long do I have?"),
        ("I'd like the tent's weight.", "I'd like the tent's weight."),
        ("how heavy is the tent", "how heavy is the tent"),
        # a lead that introduces the question with a colon only tells
        (
            "For night navigation I need to know: how far does the Lumen 1200R's beam reach?",
            "how far does the Lumen 1200R's beam reach?",
        ),
        (
            "Quick one: the Beacon 400, is it waterproof?",
            "Quick one: the Beacon 400, is it waterproof?",
        ),
    ],
)
def test_the_asking_sentences_are_apart_from_what_the_shopper_tells(
    message: str, asking: str
) -> None:
    assert asking_part(message) == asking


def test_a_place_told_of_matters_when_the_question_is_about_getting_it_there() -> None:
    assert told_places_matter("I live in Iceland. Do you ship there?")
    assert told_places_matter("I'm in Oslo. How much is delivery?")
    assert not told_places_matter("I'm at uni in Sheffield. Do you do a student discount?")


@pytest.mark.parametrize(
    ("message", "asking"),
    [
        # a clause that tells of the shopper before the question in the same sentence
        (
            "I'm a student at uni in Sheffield, do you do any discount for us?",
            "do you do any discount for us?",
        ),
        (
            "flying to Geneva next month - can the PowerCell go in my hold bag?",
            "can the PowerCell go in my hold bag?",
        ),
        # a condition the question is asked under is asked
        (
            "If I pre-order something, do you take the money straight away?",
            "If I pre-order something, do you take the money straight away?",
        ),
        # no question after it: the message as it is
        ("I'm 190cm tall, which is long", "I'm 190cm tall, which is long"),
    ],
)
def test_a_sentence_that_tells_before_it_asks_is_read_by_its_question(
    message: str, asking: str
) -> None:
    assert asking_part(message, clauses=True) == asking
    # by sentences alone, the sentence is one that asks
    assert asking_part(message) == message


def test_a_place_told_of_in_a_clause_matters_as_one_told_in_a_sentence() -> None:
    assert told_places_matter("I live in Iceland, do you ship there?")
    assert not told_places_matter("I'm at uni in Sheffield, do you do a student discount?")
