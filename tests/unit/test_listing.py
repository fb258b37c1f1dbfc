"""A question that asks what the shop sells of a kind is answered with the catalogue's products."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.chat.catalog import Catalog
from app.chat.listing import (
    Listed,
    asks_for_list,
    cut_and_kind,
    for_whom_only,
    listing_answer,
    picked_place,
    price,
)
from app.chat.products import cut_asked
from tests.unit.passages import FOOTPRINT, JACKET, RETURNS, TENT, hit

WAX = hit("Beeswax Leather Boot Wax", "Price (GBP): 9\nDescription: Wax for leather boots.")
BOOT = hit("Scafell Mid Waterproof Walking Boot Men's", "Price (GBP): 149.00")
POLES = hit("Striderlite Carbon Trekking Poles (pair)", "Price (GBP): 89")
TENT_3 = hit("Stormhollow 3 Tent", "Price (GBP): 349")
TROUSERS = hit("Kinder Softshell Trousers Men's", "Price (GBP): 75")
OVERTROUSERS = hit("Torridon 3L Waterproof Overtrousers", "Price (GBP): 159")


@pytest.fixture
def catalog() -> Catalog:
    shop = [TENT, FOOTPRINT, TENT_3, JACKET, WAX, BOOT, POLES, TROUSERS, OVERTROUSERS, RETURNS]
    return Catalog(h.passage for h in shop)


@pytest.mark.parametrize(
    ("question", "kind", "whether"),
    [
        ("What headlamps do you sell?", "headlamps", False),
        ("do you have any tents?", "tents", True),
        ("show me your backpacks", "backpacks", False),
        ("What sleeping bags have you got?", "sleeping bags", False),
        ("which tents are available?", "tents", False),
        ("Which waterproof jackets for kids do you sell?", "waterproof jackets for kids", False),
        # a second question after the kind is no part of it
        ("do you do a student discount and how much is it?", "student discount", True),
        ("do you sell gas canisters, and can you post them?", "gas canisters", True),
    ],
)
def test_a_question_asking_the_shops_range_of_a_kind_is_a_listing(
    question: str, kind: str, whether: bool
) -> None:
    listed = asks_for_list(question)
    assert listed is not None and listed.kind == kind and listed.asks_whether is whether


@pytest.mark.parametrize(
    "question",
    [
        "What do you sell?",
        "Can I hire a tent from you for a weekend?",
        "What sizes do you do the Trailrunner 5 in?",
        "What payment methods do you accept?",
        "How much is the Stormhollow 2 Tent?",
    ],
)
def test_other_questions_are_no_listing(question: str) -> None:
    assert asks_for_list(question) is None


def test_a_kind_is_the_products_whose_titles_end_in_it(catalog: Catalog) -> None:
    def titles(question: str) -> list[str]:
        listed = asks_for_list(question)
        assert listed is not None
        return [p.title for p in catalog.of_kind(listed.words)]

    # not the footprint (a tent's accessory), not a returns page
    assert titles("Do you sell tents?") == ["Stormhollow 2 Tent", "Stormhollow 3 Tent"]
    # the boot, not the boot wax; "Men's" and "(pair)" after the kind do not hide it
    assert titles("what boots do you sell") == ["Scafell Mid Waterproof Walking Boot Men's"]
    assert titles("do you stock trekking poles") == ["Striderlite Carbon Trekking Poles (pair)"]
    # a kind written as one word ending in another kind's name is of that kind too
    assert titles("do you have any waterproof trousers?") == ["Torridon 3L Waterproof Overtrousers"]
    assert titles("what trousers do you sell") == [
        "Kinder Softshell Trousers Men's",
        "Torridon 3L Waterproof Overtrousers",
    ]
    # a kind no title holds: answered as any other question
    assert titles("Do you have a loyalty points scheme?") == []
    assert titles("do u stock salomon trail shoes?") == []


def test_a_word_no_title_ends_in_is_the_products_whose_titles_hold_it(catalog: Catalog) -> None:
    """ "do you sell leather?": no product is a leather, two are leather ones."""
    listed = asks_for_list("do you sell leather?")
    assert listed is not None and catalog.of_kind(listed.words) == []
    assert [p.title for p in catalog.titled_with(listed.words)] == ["Beeswax Leather Boot Wax"]
    assert catalog.titled_with(frozenset({"salom"})) == []


@pytest.mark.parametrize(
    ("question", "place"),
    [
        ("how long does the battery last on the first one?", 0),
        ("and the 2nd?", 1),
        ("how much is the third", 2),
        ("is the last one waterproof?", 2),
        ("tell me about number 2", 1),
        ("what about the fourth one?", None),  # the listing named three
        ("can I return it after the first time I use it?", None),
        ("is it waterproof?", None),
    ],
)
def test_a_follow_up_picks_a_listed_product_by_its_place(question: str, place: int | None) -> None:
    assert picked_place(question, 3) == place


def test_a_follow_up_to_a_listing_is_about_the_product_it_picks(catalog: Catalog) -> None:
    tents = [TENT.passage.document_id, TENT_3.passage.document_id]

    def about(question: str, listed: list[str] = tents) -> str | None:
        focus = catalog.focus(question, listed=listed)
        return focus.product.title if focus is not None else None

    assert about("how heavy is the second one?") == "Stormhollow 3 Tent"
    assert about("is the first one freestanding?") == "Stormhollow 2 Tent"
    # by a word of its name the other listed products do not have
    assert about("does the 3 one have two doors?") == "Stormhollow 3 Tent"
    # a word every listed product has picks none; nothing listed, nothing picked
    assert about("how heavy is the tent?") is None
    assert about("how heavy is the second one?", listed=[]) is None
    # a product the question names wins over the listing
    assert about("how heavy is the first Scafell Mid boot?") == (
        "Scafell Mid Waterproof Walking Boot Men's"
    )


def test_the_listing_names_each_product_with_its_price_and_source() -> None:
    listed = Listed("tents", frozenset({"tent"}), asks_whether=True)
    answer = listing_answer(listed, [TENT.passage, TENT_3.passage])
    assert answer.startswith("Yes, we sell 2 tents:\n\n")
    assert "- Stormhollow 2 Tent, £289.00 [1]\n- Stormhollow 3 Tent, £349.00 [2]" in answer
    one = listing_answer(Listed("torches", frozenset({"torch"}), False), [POLES.passage])
    assert one.startswith("We sell one:\n\n") and one.endswith("Ask me about it for the details.")
    # a long range: the first of them, and how many there are
    many = listing_answer(listed, [TENT.passage, TENT_3.passage], of=12)
    assert many.startswith("Yes, we sell 12 tents; the first 2:\n\n")
    assert "tell me what you need it for" in many
    assert price(RETURNS.passage) == ""
    no_price = listing_answer(listed, [RETURNS.passage])
    assert "- Returns and refunds [1]" in no_price


def test_a_listing_that_names_whom_and_no_kind_asks_for_that_cut() -> None:
    """Seen in the twenty-ninth session: "do you have anything for kids?" quoted the privacy
    notice's line about children's data."""
    kids = hit("Little Fell Kids' Waterproof Jacket", "Price (GBP): 45")
    women = hit("Torridon 3L Waterproof Jacket Women's", "Price (GBP): 229")
    catalog = Catalog(h.passage for h in [kids, women, TENT, BOOT])
    for question, cut in [
        ("do you have anything for kids?", "kids"),
        ("do you have stuff for children", "kids"),
        ("do you sell anything for women?", "womens"),
    ]:
        listed = asks_for_list(question)
        assert listed is not None and for_whom_only(listed) == cut
    assert [p.title for p in catalog.cut_for("kids")] == [kids.passage.title]
    assert [p.title for p in catalog.cut_for("womens")] == [women.passage.title]
    tents = asks_for_list("do you have any tents?")
    assert tents is not None and for_whom_only(tents) is None


def test_a_listing_that_names_whom_and_a_kind_asks_for_that_cut_of_the_kind() -> None:
    """Seen in the forty-first session: "do you sell women's jackets?" quoted the fleece's page
    and the size guide's line on women's sizes; a title's cut is no word of its kind."""
    women = hit("Torridon 3L Waterproof Jacket Women's", "Price (GBP): 229")
    men = hit("Torridon 3L Waterproof Jacket Men's", "Price (GBP): 229")
    catalog = Catalog(h.passage for h in [women, men, TENT, BOOT])
    for question, words in [
        ("do you sell women's jackets?", {"jacke"}),
        ("do you have any waterproof jackets for women?", {"jacke", "waterproof"}),
    ]:
        listed = asks_for_list(question)
        assert listed is not None and not catalog.of_kind(listed.words)
        assert cut_and_kind(listed) == ("womens", frozenset(words)), question
        cut, kind = cut_and_kind(listed) or ("", frozenset())
        found = [r.title for r in catalog.of_kind(kind) if cut_asked(r.title) == cut]
        assert found == [women.passage.title]
    for question in ("do you have anything for kids?", "do you have any tents?"):
        listed = asks_for_list(question)
        assert listed is not None and cut_and_kind(listed) is None
    # whom it is for, after the verb
    listed = asks_for_list("what walking boots do you have for women?")
    assert listed is not None and listed.kind == "walking boots for women"
    assert cut_and_kind(listed) == ("womens", frozenset({"walk", "boot"}))


@pytest.mark.parametrize(
    ("question", "kind", "use"),
    [
        (
            "which jacket would you recommend for winter hiking in Scotland?",
            "jacket",
            "for winter hiking in Scotland",
        ),
        ("can you recommend a tent for two people?", "tent", "for two people"),
        (
            "I need a jacket for Scotland in November, what do you recommend?",
            "jacket",
            "for Scotland in November",
        ),
        ("what's the best sleeping bag for cold nights?", "sleeping bag", "for cold nights"),
        ("could you suggest some waterproof trousers?", "waterproof trousers", ""),
        ("I'm looking for a stove, which one do you recommend?", "stove", ""),
    ],
)
def test_a_question_asking_which_of_a_kind_to_choose_is_a_listing_of_what_each_is_for(
    question: str, kind: str, use: str
) -> None:
    listed = asks_for_list(question)
    assert listed is not None and (listed.kind, listed.use) == (kind, use)
    assert not listed.asks_whether


@pytest.mark.parametrize(
    "question",
    [
        "which one would you recommend?",  # of what the conversation is on
        "What's the most weight you'd recommend carrying in the Ridgeline 65+10?",
        "what do you recommend?",
    ],
)
def test_a_recommendation_naming_no_kind_is_no_listing(question: str) -> None:
    assert asks_for_list(question) is None


def test_a_recommendation_lists_each_product_with_its_descriptions_first_sentence() -> None:
    listed = Listed("tent", frozenset({"tent"}), asks_whether=False, use="for two people")
    answer = listing_answer(listed, [TENT.passage, TENT_3.passage])
    assert answer.startswith(
        "Our pages don't say which is best for two people. We sell 2 tents, with what each "
        "one's page says it is for:\n\n"
    ), answer
    # the description's first sentence, word for word; a record without one, its price alone
    assert "- Stormhollow 2 Tent, £289.00: A light two-person tent. [1]\n" in answer
    assert "- Stormhollow 3 Tent, £349.00 [2]" in answer
    one = listing_answer(replace(listed, use=""), [TENT.passage])
    assert one.startswith(
        "Our pages don't say which would suit you best. We sell one, with what its"
    )
