"""A question asking the most or least of a kind is answered from every record of that kind."""

from __future__ import annotations

import pytest

from app.chat.catalog import Catalog
from app.chat.superlatives import asks_superlative, ranked_by
from tests.unit.passages import FOOTPRINT, RETURNS, TENT, hit

TENT_3 = hit(
    "Stormhollow 3 Tent",
    "Price (GBP): 349\nSpecs: Season: 3-season; Minimum weight: 2,050 g (flysheet, inner and "
    "poles); Berth: 3-person",
)
HUT = hit("Bothy 1 Tent", "Price (GBP): 99\nDescription: A one-person shelter.")
BAG_300 = hit("Nightjar 300 Down Sleeping Bag", "Specs: Comfort temperature: 6°C; Weight: 680 g")
BAG_500 = hit("Nightjar 500 Down Sleeping Bag", "Specs: Comfort temperature: 0°C; Weight: 920 g")
FELLSMAN = hit(
    "Fellsman Synthetic Sleeping Bag", "Specs: Comfort temperature: 5°C; Weight: 1.55 kg"
)
BOOT = hit("Haworth Lightweight Walking Boot", "Specs: Weight: 820 g per pair (UK 8)")
KIDS_BOOT = hit("Little Fell Kids' Waterproof Walking Boot", "Specs: Weight: 640 g per pair (UK 1)")
MEN_BOOT = hit("Scafell Mid Walking Boot Men's", "Specs: Weight: 1,180 g per pair (UK 8)")


@pytest.fixture
def catalog() -> Catalog:
    shop = [TENT, FOOTPRINT, TENT_3, HUT, BAG_300, BAG_500, FELLSMAN, BOOT, KIDS_BOOT, MEN_BOOT]
    return Catalog(h.passage for h in [*shop, RETURNS])


@pytest.mark.parametrize(
    ("question", "word", "kind"),
    [
        ("what's the lightest tent you sell?", "lightest", "tent"),
        ("Which is your cheapest sleeping bag?", "cheapest", "sleeping bag"),
        ("which headlamp is the brightest?", "brightest", "headlamp"),
        ("which of your jackets is the most waterproof", "most waterproof", "jackets"),
        ("lightest walking boots?", "lightest", "walking boots"),
        ("which one is the warmest?", "warmest", ""),
    ],
)
def test_a_superlative_and_its_kind_are_read(question: str, word: str, kind: str) -> None:
    asked = asks_superlative(question)
    assert asked is not None and (asked.word, asked.kind) == (word, kind)


@pytest.mark.parametrize(
    "question", ["what is the best tent for wild camping?", "how do I wash my down jacket?"]
)
def test_a_word_that_measures_nothing_is_no_superlative(question: str) -> None:
    assert asks_superlative(question) is None


def test_the_products_of_the_kind_are_ordered_by_the_field_that_measures_it(
    catalog: Catalog,
) -> None:
    ranking = ranked_by("what's the lightest tent you sell?", catalog)
    assert ranking is not None
    # the footprint is no tent; the Bothy's record gives no weight and is named as such
    assert [m.passage.title for m in ranking.ranked] == ["Stormhollow 2 Tent", "Stormhollow 3 Tent"]
    assert [p.title for p in ranking.missing] == ["Bothy 1 Tent"]
    answer = ranking.answer()
    assert answer.startswith("The lightest tent we sell is the **Stormhollow 2 Tent**")
    # each product's own line, verbatim and cited by its place
    assert "> “Minimum weight: 1,550 g (flysheet, inner and poles)” [1]" in answer
    assert "> “Minimum weight: 2,050 g (flysheet, inner and poles)” [2]" in answer
    assert "don't give a weight for the Bothy 1 Tent" in answer


def test_the_end_asked_depends_on_the_word_and_the_field(catalog: Catalog) -> None:
    warmest = ranked_by("what's your warmest sleeping bag?", catalog)
    heaviest = ranked_by("which is the heaviest sleeping bag?", catalog)
    assert warmest is not None and heaviest is not None
    # a lower comfort temperature is warmer; kilograms are read as grams
    assert warmest.ranked[0].passage.title == "Nightjar 500 Down Sleeping Bag"
    assert heaviest.ranked[0].passage.title == "Fellsman Synthetic Sleeping Bag"
    assert heaviest.ranked[0].value == 1550


def test_childrens_products_are_compared_only_when_children_are_asked_for(
    catalog: Catalog,
) -> None:
    adults = ranked_by("what are your lightest walking boots?", catalog)
    children = ranked_by("what are your lightest kids walking boots?", catalog)
    assert adults is not None and adults.ranked[0].passage.title.startswith("Haworth")
    assert all("Kids" not in m.passage.title for m in adults.ranked)
    # one kids' boot is nothing to rank
    assert children is None


def test_a_superlative_naming_no_kind_ranks_the_products_last_listed(catalog: Catalog) -> None:
    listed = [BAG_300.passage.document_id, FELLSMAN.passage.document_id]
    ranking = ranked_by("which is the warmest?", catalog, listed)
    assert ranking is not None
    assert [m.passage.title for m in ranking.ranked] == [
        "Fellsman Synthetic Sleeping Bag",
        "Nightjar 300 Down Sleeping Bag",
    ]
    assert ranking.answer().startswith("Of those, the warmest is the **Fellsman")
    assert ranked_by("which is the warmest?", catalog) is None


def test_a_comparative_asked_alone_ranks_the_products_last_listed(catalog: Catalog) -> None:
    """Seen running the widget (forty-third session): "which is lighter?" after two jackets
    were compared quoted one jacket's weight."""
    listed = [BAG_300.passage.document_id, FELLSMAN.passage.document_id]
    ranking = ranked_by("so which one is warmer?", catalog, listed)
    assert ranking is not None
    assert ranking.answer().startswith("Of those, the warmer is the **Fellsman")
    assert ranked_by("which is warmer?", catalog) is None  # nothing listed: no ranking
    # a comparative with the products named, or asked of one, is a comparison, not a ranking
    assert ranked_by("which is warmer, the nightjar 300 or the fellsman?", catalog, listed) is None
    assert ranked_by("is it warmer?", catalog, listed) is None
    # of three or more, the most
    three = [*listed, BAG_500.passage.document_id]
    ranking = ranked_by("which is warmer?", catalog, three)
    assert ranking is not None and ranking.answer().startswith("Of those, the warmest is")


def test_a_kind_the_catalogue_lacks_or_a_measure_no_record_gives_is_no_ranking(
    catalog: Catalog,
) -> None:
    assert ranked_by("what's the cheapest delivery option?", catalog) is None
    assert ranked_by("which boot is the brightest?", catalog) is None
