"""The question as a turn reads it: what it asks of several products it names."""

from __future__ import annotations

from app.chat.evidence import asks_comparison
from app.chat.reading import among, of_each, of_models

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


def test_a_line_named_alone_is_asked_of_each_of_its_products() -> None:
    """Seen in the forty-fourth session: "how much is the helvellyn fleece?" showed the 300's
    price alone, as if it were the line's, and "how much do the scafell mid boots weigh?" the
    men's weight alone."""
    fleeces = ["Helvellyn 200 Fleece", "Helvellyn 300 Fleece"]
    read = of_models("how much is the helvellyn fleece?", fleeces)
    assert read == (
        "how much is the helvellyn fleece: the Helvellyn 200 Fleece and the Helvellyn 300 "
        "Fleece, both?"
    )
    assert asks_comparison(read)
    packs = ["Ridgeline 35 Backpack", "Ridgeline 45 Backpack", "Ridgeline 65+10 Backpack"]
    assert of_models("how heavy is the ridgeline backpack?", packs).endswith(
        "the Ridgeline 45 Backpack and the Ridgeline 65+10 Backpack, each of them?"
    )
    # a yes/no question, one relating them, one naming one or more than three: as it is
    for question, named in [
        ("is the helvellyn fleece warm?", fleeces),
        ("will the helvellyn fleece fit under the torridon?", fleeces),
        ("how much is the helvellyn 200?", fleeces[:1]),
        ("how much is a fleece?", [*fleeces, *packs]),
    ]:
        assert of_models(question, named) == question, question
