from __future__ import annotations

import pytest

from app.chat.citations import cited, content_words, groundedness, strip_invalid_markers
from app.chat.messages import clean_message
from app.errors import InvalidMessageError
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
