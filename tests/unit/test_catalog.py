"""Finding the product a page gives, a question names, or a conversation is about."""

from __future__ import annotations

import logging
from dataclasses import replace

import pytest

from app.chat.catalog import Catalog
from app.sessions.base import ShownSource, Turn
from tests.unit.passages import FOOTPRINT, RETURNS, TENT, hit

TENT_URL = "https://fernhill-outfitters.example/products/stormhollow-2-tent"
TENT_DOC = "products/catalog.jsonl#FH-TNT-7020"
FOOTPRINT_DOC = "products/catalog.jsonl#FH-TNT-7090"


@pytest.fixture
def catalog() -> Catalog:
    tent = replace(TENT.passage, url=TENT_URL)
    second_chunk = replace(tent, id="p-tent-2", text="Colours: Fern Green")
    return Catalog([tent, second_chunk, FOOTPRINT.passage, RETURNS.passage])


def test_only_product_records_are_products(catalog: Catalog) -> None:
    assert len(catalog) == 2  # two chunks of the tent are one product; the policy page none


@pytest.mark.parametrize(
    "reference",
    [
        "FH-TNT-7020",
        "fh-tnt-7020",
        TENT_URL,
        f"{TENT_URL}/?utm_source=mail#reviews",
        "http://staging.fernhill.example/products/Stormhollow-2-Tent",
        "/products/stormhollow-2-tent",
        TENT_DOC,
        "Stormhollow 2 Tent",
    ],
)
def test_a_page_gives_its_product_by_sku_url_or_name(catalog: Catalog, reference: str) -> None:
    found = catalog.find(reference)
    assert found is not None and found.document_id == TENT_DOC and found.sku == "FH-TNT-7020"


@pytest.mark.parametrize("reference", ["", "  ", "FH-XXX-0000", "https://example.com/", "tent"])
def test_an_unknown_product_is_none(catalog: Catalog, reference: str) -> None:
    assert catalog.find(reference) is None


def test_a_question_names_a_product_by_code_or_distinctive_name(catalog: Catalog) -> None:
    assert catalog.named("does FH-TNT-7090 fit?").document_id == FOOTPRINT_DOC  # type: ignore[union-attr]
    assert catalog.named("how heavy is the Stormhollow 2 tent?").document_id == TENT_DOC  # type: ignore[union-attr]
    assert catalog.named("Stormhollow 2 Footprint price").document_id == FOOTPRINT_DOC  # type: ignore[union-attr]
    assert catalog.named("is it waterproof?") is None
    assert catalog.named("the Stormhollow 3") is None  # another model of the line


def test_focus_is_the_named_product_then_the_pages_then_the_conversations(
    catalog: Catalog, caplog: pytest.LogCaptureFixture
) -> None:
    named = catalog.focus("and the Stormhollow 2 Footprint?", given=TENT_URL, earlier=[TENT_DOC])
    assert named is not None and named.named and named.product.document_id == FOOTPRINT_DOC
    given = catalog.focus("is it waterproof?", given=TENT_URL, earlier=[FOOTPRINT_DOC])
    assert given is not None and not given.named and given.product.document_id == TENT_DOC
    with caplog.at_level(logging.INFO, logger="app.chat.catalog"):
        carried = catalog.focus("how heavy is it?", given="NO-SUCH-1", earlier=[FOOTPRINT_DOC])
    assert carried is not None and carried.product.document_id == FOOTPRINT_DOC
    assert "NO-SUCH-1" in caplog.text  # an unknown page product is logged, never an error
    assert catalog.focus("do you ship to Ireland?", earlier=[None]) is None
    assert catalog.focus("how heavy is it?", earlier=["products/gone.jsonl#X-1"]) is None


def test_after_a_help_topic_only_a_question_that_points_back_means_the_product(
    catalog: Catalog,
) -> None:
    """The last turn asked the returns page (it left no product): "How long do I have?" is
    about returns; "how heavy is it?" is still about the tent talked of before."""
    assert catalog.focus("How long do I have?", earlier=[None], before=[TENT_DOC]) is None
    carried = catalog.focus("how heavy is it?", earlier=[None], before=[TENT_DOC])
    assert carried is not None and carried.product.document_id == TENT_DOC


def test_a_turn_keeps_its_product_and_old_turns_have_none() -> None:
    turn = Turn("how heavy is it?", "", product=TENT_DOC)
    assert Turn.from_json(turn.to_json()) == turn
    assert Turn.from_json('{"question": "q", "answer": "a"}').product is None
    # a field a newer replica wrote is left out, not a failed conversation
    newer = Turn.from_json('{"question": "q", "answer": "a", "mood": "happy"}')
    assert newer == Turn("q", "a", shown="a")


def test_a_turn_keeps_the_sources_the_shopper_was_shown() -> None:
    shown = (ShownSource(2, "Stormhollow 2 Tent", "Specs", "https://example/tent"),)
    turn = Turn("how heavy is it?", "", shown="1,550 g [2]", sources=shown, answered=True)
    assert Turn.from_json(turn.to_json()) == turn
    old = Turn.from_json('{"question": "q", "answer": "a"}')  # stored before sources existed
    assert old.sources == () and old.answered


def test_a_product_made_of_a_sold_model_and_another_models_kind_is_unsold() -> None:
    three = replace(TENT.passage, id="p-tent-3", document_id="d3", title="Stormhollow 3 Tent")
    catalog = Catalog([TENT.passage, three, FOOTPRINT.passage])
    said = "The Stormhollow 3 footprint does not fit the Stormhollow 2 footprint [1]."
    assert catalog.unsold(said) == "Stormhollow 3 footprint"
    for sold in (
        "The Stormhollow 2 Footprint fits the Stormhollow 2 Tent.",
        "The Stormhollow 3 tent is roomier.",
        "Both Stormhollow tents pitch fly-first.",  # no model: nothing is named
        "The Stormhollow 3 has two porches.",  # a model with no kind after it
    ):
        assert catalog.unsold(sold) is None, sold


def test_a_short_follow_up_naming_another_model_by_its_number_is_about_that_model() -> None:
    three = replace(TENT.passage, id="p-tent-3", document_id="d3", title="Stormhollow 3 Tent")
    catalog = Catalog([TENT.passage, three, FOOTPRINT.passage])
    turn_before = [TENT_DOC]  # "How heavy is the Stormhollow 2 Tent?"
    for follow_up in ("and the 3?", "What about the 3 one?", "and the 3"):
        focus = catalog.focus(follow_up, earlier=turn_before)
        assert focus is not None and focus.product.title == "Stormhollow 3 Tent", follow_up
        assert not focus.named  # retrieval is told its name
    # the footprint's line has no model 3: the conversation's product stays
    focus = catalog.focus("and the 3?", earlier=[FOOTPRINT_DOC])
    assert focus is not None and focus.product.title == "Stormhollow 2 Footprint"
    # a number that is no model: a count, a size, a longer question
    for other in ("is it big enough for the 2 of us?", "does it come in size 3?", "and 3 of them?"):
        focus = catalog.focus(other, earlier=[three.document_id])
        assert focus is not None and focus.product.title == "Stormhollow 3 Tent", other


def test_a_follow_up_asking_for_the_small_or_the_big_one_is_about_that_model_of_the_line() -> None:
    three = replace(TENT.passage, id="p-tent-3", document_id="d3", title="Stormhollow 3 Tent")
    catalog = Catalog([TENT.passage, three, FOOTPRINT.passage])
    focus = catalog.focus("what about the bigger one?", earlier=[TENT_DOC])
    assert focus is not None and focus.product.title == "Stormhollow 3 Tent"
    focus = catalog.focus("and the small one?", earlier=["d3"])
    assert focus is not None and focus.product.title == "Stormhollow 2 Tent"
    # already the biggest: itself; a line of one model: none
    assert catalog.sized_model("and the bigger one?", catalog.titled("Stormhollow 3 Tent")) == (
        catalog.titled("Stormhollow 3 Tent")
    )
    footprint = catalog.titled("Stormhollow 2 Footprint")
    assert footprint is not None and catalog.sized_model("the bigger one?", footprint) is None
    assert catalog.sized_model("is it big enough for two of us?", footprint) is None


def test_a_follow_up_asking_by_kind_for_a_product_of_the_range_is_about_that_product(
    catalog: Catalog,
) -> None:
    """ "What does the footprint cost?" after the Stormhollow 2 Tent, or on its page: the
    Stormhollow 2 Footprint; "the tent" after the footprint: the tent. A question that points
    back ("do I need a footprint for it?") or names the product's own kind stays on it."""
    for asked in ("What does the footprint cost?", "and the footprint?"):
        focus = catalog.focus(asked, earlier=[TENT_DOC])
        assert focus is not None and focus.product.document_id == FOOTPRINT_DOC, asked
        assert not focus.named and not focus.page  # retrieval is told its name
    on_page = catalog.focus("What does the footprint cost?", given=TENT_URL)
    assert on_page is not None and on_page.product.document_id == FOOTPRINT_DOC
    back = catalog.focus("how heavy is the tent?", earlier=[FOOTPRINT_DOC])
    assert back is not None and back.product.document_id == TENT_DOC
    for stays in ("do I need a footprint for it?", "does the tent come with a footprint?"):
        focus = catalog.focus(stays, earlier=[TENT_DOC])
        assert focus is not None and focus.product.document_id == TENT_DOC, stays
    # another model's range: the Stormhollow 3 Tent has no footprint of its own
    three = replace(TENT.passage, id="p-tent-3", document_id="d3", title="Stormhollow 3 Tent")
    shop = Catalog([TENT.passage, three, FOOTPRINT.passage])
    focus = shop.focus("What does the footprint cost?", earlier=["d3"])
    assert focus is not None and focus.product.title == "Stormhollow 3 Tent"
    # a product that names no model belongs to every model of its range
    pack = hit("Ridgeline 45 Backpack", "Rain cover: Not included", doc="d-pack")
    cover = hit("Ridgeline Pack Rain Cover", "Sizes: S, M, L", doc="d-cover")
    packs = Catalog([pack.passage, cover.passage])
    focus = packs.focus("how much is the rain cover?", earlier=["d-pack"])
    assert focus is not None and focus.product.document_id == "d-cover"
    focus = packs.focus("Which size cover do I need for it then?", earlier=["d-pack"])
    assert focus is not None and focus.product.document_id == "d-pack"


def test_a_products_kind_settles_which_of_two_same_named_products_is_meant() -> None:
    jacket = replace(TENT.passage, id="j", document_id="dj", title="Little Fell Kids' Jacket")
    boot = replace(TENT.passage, id="b", document_id="db", title="Little Fell Kids' Walking Boot")
    catalog = Catalog([jacket, boot])
    named = catalog.named("Does the Little Fell kids jacket meet EN 343?")
    assert named is not None and named.title == "Little Fell Kids' Jacket"
    assert catalog.named("Is the Little Fell waterproof?") is None  # either: ambiguous


def test_a_products_description_is_found_in_its_record(catalog: Catalog) -> None:
    """ "Tell me about it": the passage of the record that holds its description."""
    tent = catalog.find("FH-TNT-7020")
    footprint = catalog.find("FH-TNT-7090")
    assert tent is not None and footprint is not None
    assert catalog.describing(tent) == [TENT.passage.id]
    assert catalog.describing(footprint) == []  # its record gives none


def test_a_product_is_named_without_its_kind_words() -> None:
    """ "the striderlite poles" names the poles: "trekking", "poles" and "(pair)" say what kind
    of thing it is, as "tent" does; the kit of the same line is named by its own words."""
    poles = hit("Striderlite Carbon Trekking Poles (pair)", "Price (GBP): 89").passage
    kit = hit("Striderlite Tip & Basket Kit", "Price (GBP): 15").passage
    gas = hit("Fernhill 230 g Gas Canister", "Price (GBP): 6").passage
    catalog = Catalog([poles, kit, gas])
    assert catalog.named("is there a max user weight on the striderlite poles?") == (
        catalog.titled(poles.title)
    )
    assert catalog.named("the striderlite kit") == catalog.titled(kit.title)
    assert catalog.named("can you post a 230 g canister?") == catalog.titled(gas.title)


def test_a_model_number_said_without_its_extra_names_the_model() -> None:
    """Shoppers say "the ridgeline 65" of the Ridgeline 65+10 Backpack; it had been declined as
    a model the shop does not sell."""
    packs = [
        hit(f"Ridgeline {model} Backpack", "Price (GBP): 120").passage
        for model in ("35", "45", "65+10")
    ]
    catalog = Catalog(packs)
    big = catalog.titled("Ridgeline 65+10 Backpack")
    assert catalog.named("i want to buy the ridgeline 65 but not sure it fits") == big
    assert catalog.unknown_model("how heavy is the ridgeline 65?") is None
    assert catalog.named("the ridgeline 45") == catalog.titled("Ridgeline 45 Backpack")
    assert catalog.unknown_model("is the ridgeline 6 any good?") == "ridgeline 6"


def test_a_short_follow_up_naming_another_cut_is_about_that_cut() -> None:
    mens = replace(TENT.passage, id="p-boot-m", document_id="dm", title="Scafell Mid Boot Men's")
    womens = replace(mens, id="p-boot-w", document_id="dw", title="Scafell Mid Boot Women's")
    catalog = Catalog([mens, womens, TENT.passage])
    for follow_up in ("what about the women's one?", "and for ladies?", "and the womens"):
        focus = catalog.focus(follow_up, earlier=["dm"])
        assert focus is not None and focus.product.title == "Scafell Mid Boot Women's", follow_up
    # its own cut, a product of no cuts, or a longer question keep the conversation's product
    assert catalog.other_cut("and for men?", catalog.titled("Scafell Mid Boot Men's")) is None
    assert catalog.other_cut("and the women's?", catalog.titled(TENT.passage.title)) is None
    long = "is this one also made for women who walk on rough ground a lot?"
    assert catalog.other_cut(long, catalog.titled("Scafell Mid Boot Men's")) is None


def test_a_comparison_pointing_back_compares_the_last_product_with_the_one_named() -> None:
    three = replace(TENT.passage, id="p-tent-3", document_id="d3", title="Stormhollow 3 Tent")
    catalog = Catalog([TENT.passage, three, FOOTPRINT.passage])
    question = "is it lighter than the stormhollow 3?"
    focus = catalog.focus(question, earlier=[TENT_DOC])
    assert catalog.compared_with(question, focus, TENT_DOC) == [
        "Stormhollow 2 Tent",
        "Stormhollow 3 Tent",
    ]
    # no pointing back, the same product, or no product before: nothing to compare with
    named = catalog.focus("is the stormhollow 3 lighter?", earlier=[TENT_DOC])
    assert catalog.compared_with("is the stormhollow 3 lighter?", named, TENT_DOC) == []
    assert catalog.compared_with(question, focus, "d3") == []
    assert catalog.compared_with(question, focus, None) == []


def test_a_comparison_pointing_at_the_product_shown_compares_it_with_the_one_named() -> None:
    """Seen running the widget (forty-third session): on the Skiddaw's page "what's the
    difference between this and the Torridon?" showed one Skiddaw line, "is this lighter than
    the Langdale?" the Langdale alone, "is this warmer than the 500?" the 300 alone."""
    records = {
        "FH-JKT-1050": "Skiddaw 2.5L Packable Waterproof Jacket",
        "FH-JKT-1042": "Torridon 3L Waterproof Jacket Men's",
        "FH-JKT-1043": "Torridon 3L Waterproof Jacket Women's",
        "FH-TRS-5030": "Torridon 3L Waterproof Overtrousers",
        "FH-JKT-1021": "Langdale 2L Waterproof Jacket",
        "FH-SLB-8003": "Nightjar 300 Down Sleeping Bag",
        "FH-SLB-8005": "Nightjar 500 Down Sleeping Bag",
    }
    passages = [hit(t, f"SKU: {sku}", doc=f"catalog#{sku}").passage for sku, t in records.items()]
    catalog, skiddaw = Catalog(passages), passages[0]
    question = "what's the difference between this and the Torridon?"
    shown = catalog.focus(question, given="FH-JKT-1050")
    assert shown is not None and shown.page
    # "the Torridon" of a jacket: the Torridon jackets, not the overtrousers
    assert catalog.compared_with(question, shown, None) == [
        "Skiddaw 2.5L Packable Waterproof Jacket",
        "Torridon 3L Waterproof Jacket Men's",
        "Torridon 3L Waterproof Jacket Women's",
    ]
    # the product named is the focus; the page's product is the one pointed back at
    question = "is this lighter than the Langdale?"
    named = catalog.focus(question, given="FH-JKT-1050")
    assert catalog.compared_with(question, named, skiddaw.document_id) == [
        "Skiddaw 2.5L Packable Waterproof Jacket",
        "Langdale 2L Waterproof Jacket",
    ]
    # another model of the page's line by its number alone
    other = catalog.focus("is this warmer than the 500?", given="FH-SLB-8003")
    assert other is not None and other.product.title == "Nightjar 500 Down Sleeping Bag"
    assert not other.page
    # a question comparing nothing, on the page, stays on the page's product
    assert catalog.compared_with("is this waterproof?", shown, None) == []


def test_a_lines_name_said_alone_names_its_one_product() -> None:
    """Seen in the twenty-ninth session: "what colours does the skiddaw come in?" named no
    product (one of the title's three distinctive words) and found nothing above the floor."""
    skiddaw = hit("Skiddaw 2.5L Packable Waterproof Jacket", "Colours: Lime, Navy, Red")
    torch = hit("Lumen 1200R Rechargeable Torch", "Weight: 140 g")
    catalog = Catalog([skiddaw.passage, torch.passage, TENT.passage, FOOTPRINT.passage])
    named = catalog.named("what colours does the skiddaw come in?")
    assert named is not None and named.title == skiddaw.passage.title
    # a word of the title that is not the line's name, or a line's name beside another
    # product's word, names nothing of itself
    assert catalog.named("is it packable?") is None
    assert catalog.named("does the lumen fit in the skiddaw pocket?") is None


def test_a_lines_name_several_products_share_is_named_with_the_kind_of_one() -> None:
    """Seen in the thirty-second session: "is the merino base layer itchy?" named no product
    ("merino" is two socks' name too), so the coverage check read its words as held."""
    layer = hit("Merino 150 Crew Base Layer", "Materials: 100% merino wool")
    sock = hit("Merino Hiker Sock", "Materials: 70% merino wool")
    catalog = Catalog([layer.passage, sock.passage, TENT.passage])
    named = catalog.named("is the merino base layer itchy?")
    assert named is not None and named.title == layer.passage.title
    assert catalog.named("is merino itchy?") is None  # no kind: either


def test_every_product_a_help_line_names_capitalised_is_read() -> None:
    """A help page's line names its products as the titles write them ("The Scafell Mid and
    Ben Nevis boots"); a kind in lower case ("pack rain covers") names no product."""
    titles = [
        "Ben Nevis Leather Mountain Boot",
        "Scafell Mid Waterproof Walking Boot Men's",
        "Haworth Lightweight Walking Boot",
        "Ridgeline Pack Rain Cover",
    ]
    catalog = Catalog([hit(t, "Weight: 1 g").passage for t in titles])
    line = "The Scafell Mid and Ben Nevis boots fit true to size; the Ben Nevis has a wide fitting."
    assert catalog.titles_named(line) == {titles[0], titles[1]}
    assert catalog.titles_named("| Backpacks and pack rain covers | 5 years |") == frozenset()


def test_a_products_category_is_its_records() -> None:
    sock = hit("Merino Hiker Sock", "SKU: FH-SCK-1301\nCategory: Socks\nPrice (GBP): 18.00")
    catalog = Catalog([sock.passage, TENT.passage])
    product = catalog.named("the merino hiker sock")
    assert product is not None and catalog.category(product) == "Socks"
