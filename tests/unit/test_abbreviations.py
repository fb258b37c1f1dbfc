"""A shopper's abbreviation is read in the words the pages use, unless the pages use it."""

from __future__ import annotations

from app.chat.abbreviations import spelled_out


def test_an_abbreviation_is_read_in_full_words() -> None:
    pages: set[str] = set()
    assert spelled_out("do u take amex", pages.__contains__) == "do you take American Express"
    assert spelled_out("after a muddy DofE expedition", pages.__contains__) == (
        "after a muddy Duke of Edinburgh expedition"
    )
    assert spelled_out("whats ur phone number", pages.__contains__) == "whats your phone number"
    assert spelled_out("Max load w/ the lid?", pages.__contains__) == "maximum load with the lid?"
    assert spelled_out("comfort temp b4 xmas", pages.__contains__) == (
        "comfort temperature before Christmas"
    )


def test_a_word_that_only_starts_like_one_is_left_and_so_is_one_the_pages_use() -> None:
    pages = {"hrs"}
    assert spelled_out("maxed out, 3 hrs", pages.__contains__) == "maxed out, 3 hrs"
    assert spelled_out("a temporary fix", pages.__contains__) == "a temporary fix"
