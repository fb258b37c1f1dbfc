"""The question as a turn reads it: what it asks of several products it names."""

from __future__ import annotations

from app.chat.evidence import asks_comparison
from app.chat.reading import among, of_each

TENT, FOOTPRINT = "Stormhollow 2 Tent", "Stormhollow 2 Footprint"


def test_products_named_together_are_asked_the_same_of_each() -> None:
    """Seen in the forty-first session: "How much are the Stormhollow 2 Tent and the
    Stormhollow 2 Footprint?" showed the footprint's price alone."""
    read = of_each(
        "How much are the Stormhollow 2 Tent and the Stormhollow 2 Footprint?", [TENT, FOOTPRINT]
    )
    assert asks_comparison(read) and read.startswith("How much are the Stormhollow 2 Tent")
    # a question relating them is read as it is, as is one naming fewer than two
    for question, named in [
        (
            "Does the Stormhollow 2 Footprint fit the Stormhollow 2 Tent and the 3?",
            [FOOTPRINT, TENT],
        ),
        (
            "Can I use the Stormhollow 2 Footprint with the Stormhollow 2 Tent and poles?",
            [FOOTPRINT, TENT],
        ),
        ("How much are the Stormhollow 2 Tent and its pegs?", [TENT]),
        ("Is the Stormhollow 2 Tent or the Stormhollow 2 Footprint cheaper?", [TENT, FOOTPRINT]),
        # of an order holding them (seen on the tuning part: w060)
        (
            "If I order the Stormhollow 2 Tent and the Stormhollow 2 Footprint, is delivery free?",
            [TENT, FOOTPRINT],
        ),
    ]:
        assert of_each(question, named) == question, question


def test_a_comparison_naming_no_product_is_read_as_asked_of_those_listed() -> None:
    assert among("which one is lightest?", [TENT, "Stormhollow 3 Tent"]) == (
        "which one is lightest: the Stormhollow 2 Tent or the Stormhollow 3 Tent?"
    )
    assert among("which one is lightest?", [TENT]) == "which one is lightest?"
