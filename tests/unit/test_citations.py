from __future__ import annotations

import pytest

from app.chat.citations import attribute, cited, groundedness, strip_invalid_markers
from app.chat.messages import clean_message
from app.errors import InvalidMessageError
from app.retrieval.terms import content_words
from tests.unit.test_prompt import hit


def test_markers_map_to_passages_in_order_of_first_mention() -> None:
    passages = [hit(1), hit(2), hit(3)]
    found = cited("Yes [2], within 30 days [1][2]. See [9].", passages)
    assert [(c.number, c.passage.passage.id) for c in found] == [(2, "p2"), (1, "p1")]


def test_dangling_markers_are_removed() -> None:
    assert strip_invalid_markers("Yes [1] and [4].", 2) == "Yes [1] and ."


def test_groundedness_rewards_supported_words_and_punishes_invented_figures() -> None:
    passages = [hit(1, "Returns are accepted within 30 days; the label costs £3.95.")]
    supported = groundedness("Returns are accepted within 30 days [1].", passages)
    invented = groundedness("Returns are accepted within 90 days for a fee of £12.", passages)
    assert supported == 1.0
    assert invented < 0.75
    assert groundedness("", passages) == 0.0
    assert "£3.95" in content_words("It costs £3.95.")


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("", "empty"),
        (" \n\t ", "empty"),
        ("a" * 2001, "2,001 characters"),
        ("hello\x07", "control characters"),
        ("bad \ud800 surrogate", "control characters"),
    ],
)
def test_unanswerable_messages_say_what_to_change(text: str, error: str) -> None:
    with pytest.raises(InvalidMessageError, match=error):
        clean_message(text, max_chars=2000)


def test_ordinary_messages_are_normalised_not_mangled() -> None:
    assert (
        clean_message("  Cafe\u0301 opening\r\nhours? 👍 ", max_chars=100)
        == "Café opening\nhours? 👍"
    )


def test_attribution_marks_sentences_one_passage_supports_and_leaves_inventions_bare() -> None:
    passages = [
        hit(1, "The footprint weighs 210 g and fits the Stormhollow 2 only."),
        hit(2, "The Stormhollow 2 Tent has a minimum weight of 1,550 g."),
    ]
    answer = attribute(
        "The Stormhollow 2 Tent weighs 1,550 g. Dragons love it! It fits well [1].", passages
    )
    assert answer == "The Stormhollow 2 Tent weighs 1,550 g [2]. Dragons love it! It fits well [1]."
    assert [c.number for c in cited(answer, passages)] == [2, 1]
    assert attribute("Anything at all.", []) == "Anything at all."


def test_attribution_keeps_decimals_whole_and_drops_a_looping_repeat() -> None:
    passages = [hit(1, "Fill weight 103.5 grams; the Skiddaw 2.5L weighs 265 g.")]
    assert attribute("It has 103.5 grams of fill.", passages) == "It has 103.5 grams of fill [1]."
    looping = "The Skiddaw 2.5L weighs 265 g [1].The Skiddaw 2.5L weighs 265 g.No."
    assert attribute(looping, passages) == "The Skiddaw 2.5L weighs 265 g [1].No."


def test_attribution_points_a_marker_at_the_passage_that_holds_the_sentence() -> None:
    passages = [
        hit(1, "The Stormhollow 2 Tent sleeps two and packs into its own bag."),
        hit(2, "Pegs: 12 aluminium Y-pegs."),
        hit(3, "The Stormhollow 2 Tent costs £289."),
    ]
    # the model cited the first passage for the price the third states
    assert attribute("The Stormhollow 2 Tent costs £289 [1].", passages) == (
        "The Stormhollow 2 Tent costs £289 [3]."
    )
    # a passage holding fewer of the sentence's words than another is not its source
    assert attribute("The Stormhollow 2 Tent sleeps two [2].", passages) == (
        "The Stormhollow 2 Tent sleeps two [1]."
    )
    # a figure only one passage states decides between passages sharing the words
    assert attribute("The Stormhollow 2 Tent costs £289.", passages) == (
        "The Stormhollow 2 Tent costs £289 [3]."
    )
    # a marker a passage bears out stays; a sentence no passage holds keeps the model's own
    assert attribute("The Stormhollow 2 Tent sleeps two [1].", passages) == (
        "The Stormhollow 2 Tent sleeps two [1]."
    )
    assert attribute("The Stormhollow 2 Tent costs £199 [1].", passages) == (
        "The Stormhollow 2 Tent costs £199 [1]."
    )
    # a figure is the same with or without its thousands separator
    assert attribute("The tent weighs 1550 g.", [hit(1, "The tent weighs 1,550 g.")]) == (
        "The tent weighs 1550 g [1]."
    )
