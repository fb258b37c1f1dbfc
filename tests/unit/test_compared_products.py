"""The products a question compares, named in full or by their line's name."""

from __future__ import annotations

import pytest

from app.chat.products import compared

TITLES = [
    "Torridon 3L Waterproof Jacket Men's",
    "Torridon 3L Waterproof Jacket Women's",
    "Torridon 3L Waterproof Overtrousers",
    "Skiddaw 2.5L Packable Waterproof Jacket",
    "Nightjar 300 Down Sleeping Bag",
    "Nightjar 500 Down Sleeping Bag",
    "Fellsman Synthetic Sleeping Bag",
    "Little Fell Kids' Waterproof Jacket",
    "Little Fell Kids' Waterproof Walking Boot",
    "Stormhollow 2 Tent",
    "Stormhollow 3 Tent",
    "Stormhollow 2 Footprint",
    "Beacon 400 Headlamp",
    "Beacon 700R Rechargeable Headlamp",
    "Beacon 400 Rechargeable Battery Pack",
]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # a line with one product: its name alone names it
        (
            "which is warmer, the fellsman or the nightjar 300?",
            ["Nightjar 300 Down Sleeping Bag", "Fellsman Synthetic Sleeping Bag"],
        ),
        # the kind named picks the line's cuts of one product, not its overtrousers
        (
            "what's the difference between the torridon and the skiddaw jackets?",
            [
                "Torridon 3L Waterproof Jacket Men's",
                "Torridon 3L Waterproof Jacket Women's",
                "Skiddaw 2.5L Packable Waterproof Jacket",
            ],
        ),
        # a line of several products the words do not pick among names none of them
        (
            "which is lighter, the skiddaw or the stormhollow?",
            ["Skiddaw 2.5L Packable Waterproof Jacket"],
        ),
        # a model number no other product of the line has names that one
        (
            "which is brighter, the beacon 400 or the beacon 700r?",
            ["Beacon 400 Headlamp", "Beacon 700R Rechargeable Headlamp"],
        ),
        # the kind named picks between products named by the same words
        (
            "which is lighter, the little fell jacket or the skiddaw?",
            ["Little Fell Kids' Waterproof Jacket", "Skiddaw 2.5L Packable Waterproof Jacket"],
        ),
    ],
)
def test_a_comparison_names_products_by_their_lines_name(
    question: str, expected: list[str]
) -> None:
    assert compared(question, TITLES, loosely=True) == expected


def test_only_a_comparison_names_products_by_their_lines_name() -> None:
    question = "does the fellsman fit in the same stuff sack as the nightjar 300?"
    assert compared(question, TITLES) == ["Nightjar 300 Down Sleeping Bag"]
