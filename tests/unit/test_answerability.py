"""Answerability: the evidence must hold what was asked, for the product and case asked."""

from __future__ import annotations

import pytest

from app.chat.answerability import (
    Verdict,
    _asked_sizes,
    asks_measure,
    asks_price,
    asks_when,
    coverage,
    judge,
    names_in,
)
from app.chat.catalog import Catalog
from app.chat.compose import WITH_CLOSEST_LINES, decline
from app.chat.evidence import (
    Evidence,
    Selection,
    plain_words,
    select_evidence,
    stem,
    unit_names,
    units,
)
from app.chat.vocabulary import Vocabulary
from app.retrieval.published_index import ScoredPassage
from tests.unit.passages import FAQ, FOOTPRINT, JACKET, RETURNS, TENT, hit

SHOP = [FAQ, FOOTPRINT, JACKET, RETURNS, TENT]
STORES = hit("Our stores", "Our only store is the Leeds Collection Point.", kind="policy")


def verdict(
    question: str,
    passages: list[ScoredPassage],
    earlier: tuple[str, ...] = (),
    shop: list[ScoredPassage] = SHOP,
) -> tuple[bool, str | None, bool]:
    similarity = [0.0] * len(units(passages))
    selection = select_evidence(question, earlier, passages, similarity)
    found = judge(question, selection, passages, Vocabulary([h.passage for h in shop]))
    return found.answerable, found.reason, found.partial


def test_a_plain_question_with_its_answer_is_answerable() -> None:
    assert verdict("How much does the Stormhollow 2 Tent weigh?", [TENT, FOOTPRINT]) == (
        True,
        None,
        False,
    )
    assert verdict("Can I change my order?", [FAQ]) == (True, None, False)
    assert verdict("What does FH-TNT-7090 cost?", [FOOTPRINT, TENT]) == (True, None, False)


def test_a_size_the_evidence_does_not_state_is_declined() -> None:
    assert verdict("What does the Cairngorm 800 weigh in size XL?", [JACKET])[:2] == (
        False,
        "other_size",
    )
    assert verdict("What does the Cairngorm 800 weigh in size M?", [JACKET])[:2] == (True, None)
    # a size of two letters or more typed in lower case (seen in the twenty-ninth session:
    # "how much does the cairngorm 800 weigh in xl?" was answered with size M's weight)
    assert verdict("how much does the cairngorm 800 weigh in xl?", [JACKET])[:2] == (
        False,
        "other_size",
    )


def test_whether_a_size_is_still_to_be_had_is_answered_by_the_sizes_left() -> None:
    """ "Have you still got the Trailrunner 4 in a UK 9?": its "UK 7; UK 8.5" answers no."""
    shoe = hit(
        "Trailrunner 4 Trail Shoe",
        "Specs: Weight: 295 g per shoe (UK 8)\nSizes: UK 7; UK 8.5\n"
        "Stock: Discontinued: final stock in UK 7 and UK 8.5 only",
    )
    assert verdict("Have you still got the Trailrunner 4 in a UK 9?", [shoe])[:2] == (True, None)
    assert verdict("Is the Trailrunner 4 still available in a UK 9?", [shoe])[:2] == (True, None)
    # asked what it weighs in that size, the size is not covered
    assert verdict("What does the Trailrunner 4 weigh in a UK 9?", [shoe])[:2] == (
        False,
        "other_size",
    )


def test_a_day_an_order_is_placed_on_is_no_day_of_delivery() -> None:
    """ "can i get it delivered on a sunday?": "Orders placed … at the weekend … are dispatched on
    the next working day" names Sunday as a day of ordering only; "need it for the weekend" says
    when, and asks of no day."""
    delivery = hit(
        "Delivery",
        "Saturday delivery costs £9.95 for orders placed by 14:00 on Friday. Orders placed after "
        "14:00 on a Friday, at the weekend or on a bank holiday are dispatched on the next "
        "working day.",
        kind="policy",
    )
    asked = "can i get it delivered on a sunday??"
    assert verdict(asked, [delivery], shop=[delivery])[:2] == (False, "other_case")
    asked = "can i get it delivered on a saturday?"
    assert verdict(asked, [delivery], shop=[delivery])[:2] == (True, None)
    asked = "whens the cut off for saturday delivery, need it for the weekend"
    assert verdict(asked, [delivery], shop=[delivery])[1] != "other_case"
    # a line naming only the days an order is placed on states no day of delivery
    placed = hit(
        "Delivery",
        "Orders placed after 14:00 on a Friday, at the weekend or on a bank holiday are "
        "dispatched on the next working day.",
        kind="policy",
    )
    closed = hit("Collection", "The Collection Point is closed on Sundays.", kind="policy")
    asked = "do you do sunday delivery? i'm out all week."
    assert verdict(asked, [placed], shop=[placed, closed])[:2] == (False, "other_case")
    # ordering on a day is what such a line answers, as do those naming working days
    working = hit(
        "Dispatch",
        "Orders placed after 14:00, at the weekend or on a bank holiday are dispatched on the "
        "next working day. A working day is Monday to Friday, excluding UK bank holidays.",
        kind="policy",
    )
    for asked in ("if i order on a sunday, when will it be dispatched?",
                  "i ordered on saturday, when will it go out?"):  # fmt: skip
        assert verdict(asked, [working], shop=[working])[:2] == (True, None)


def test_a_day_of_the_year_the_lines_state_other_days_for_is_declined() -> None:
    hours = hit(
        "Contact us",
        "On 24 and 31 December, phone and live chat close at 14:00. We are closed on 25 December,"
        " 26 December and 1 January: phone, live chat and the Collection Point are all closed.",
        kind="policy",
    )
    asked = "When does the Collection Point close on 27 December?"
    assert verdict(asked, [hours], shop=[hours])[:2] == (False, "other_case")
    assert "other_case" in WITH_CLOSEST_LINES  # the lines for the other days are still shown
    asked = "Is the Collection Point open on 26 December?"
    assert verdict(asked, [hours], shop=[hours])[:2] == (True, None)
    # a span holds the days between its ends
    returns = hit(
        "Returns",
        "Orders delivered between 1 November and 24 December can be returned until 31 January.",
        kind="policy",
    )
    asked = "My order was delivered on 10 December. Until when can I return it?"
    assert verdict(asked, [returns], shop=[returns])[:2] == (True, None)


def test_a_code_or_name_the_pages_never_mention_is_declined() -> None:
    assert verdict("Do you sell FH-TNT-7095?", [TENT, FOOTPRINT])[:2] == (False, "unknown_code")
    assert verdict("Do you have a shop in Manchester?", [RETURNS])[:2] == (False, "unknown_name")
    asked = "Do you have a shop in Manchester?"
    selection = select_evidence(asked, (), [RETURNS], [0.0] * len(units([RETURNS])))
    found = judge(asked, selection, [RETURNS], Vocabulary([h.passage for h in SHOP]))
    assert found.missing == "Manchester"  # named in the decline
    assert verdict("Do you offer an NHS discount?", [RETURNS, FAQ])[:2] == (False, "unknown_name")


def test_a_name_with_a_capital_inside_is_a_name_wherever_it_is() -> None:
    """ "iPhone", "easyJet": names, though they open in lower case, at a sentence's start too."""
    assert names_in("How many times will it charge an iPhone 15?") == ["iPhone"]
    assert names_in("easyJet cabin bags: will it fit?") == ["easyJet"]
    assert verdict("will the tent fit in an easyJet cabin bag?", [TENT])[:2] == (
        False,
        "unknown_name",
    )


def test_a_way_of_paying_the_pages_never_name_is_unknown_in_lower_case_too() -> None:
    payments = hit("Payments", "We accept Visa, PayPal, Klarna and gift cards.", kind="policy")
    shop = [*SHOP, payments]
    assert verdict("can i pay wiv clearpay at checkout", [payments], shop=shop)[:2] == (
        False,
        "unknown_name",
    )
    assert verdict("can i pay with paypal?", [payments], shop=shop)[1] is None
    # a name that says only the kind of thing meant is not asked of
    assert verdict("can i pay with Amazon-style gift cards?", [payments], shop=shop)[1] is None


def test_a_place_typed_in_lower_case_is_a_name_too() -> None:
    """ "do u ship to canada?" on pages that name no country nor a region holding it: a place
    in lower case is as unknown as "Canada" (a word that is also a place, "turkey", is not)."""
    assert verdict("do u ship to canada?", [RETURNS])[:2] == (False, "unknown_name")
    assert verdict("Do you ship to Canada?", [RETURNS])[:2] == (False, "unknown_name")
    assert verdict("can I return a turkey roasting tent?", [RETURNS])[1] != "unknown_name"


def test_a_kind_asked_after_as_there_or_to_get_is_judged_by_its_words_too() -> None:
    """ "Is there a …", "do members get a …", "can I buy an …" ask whether the shop offers a
    kind of thing as "do you offer …" does: pages that hold discounts and not birthdays cannot
    say there is a birthday discount."""
    discounts = hit(
        "Student discount",
        "Students get 10% off full-price items. A discount code is valid for 30 days.",
        kind="policy",
    )
    shop = [*SHOP, discounts]
    assert verdict("Do account holders get a birthday discount?", [discounts], shop=shop)[:2] == (
        False,
        "unknown_kind",
    )
    asked = "Is there a loyalty discount when I shop with you often?"
    assert verdict(asked, [discounts], shop=shop)[:2] == (False, "unknown_kind")
    # the pages' own words are no unknown kind, whatever follows them
    assert verdict("Is there a student discount?", [discounts], shop=shop)[1] is None
    assert verdict("Can I get a discount code for my order?", [discounts], shop=shop)[1] is None


def test_a_kind_asked_after_in_words_no_page_holds_is_declined_by_that_word() -> None:
    """A brand in lower case ("salomon") escapes the capitalised names; asked whether the shop
    stocks tents of it, pages that hold tents and not it cannot answer."""
    asked = "do u stock salomon tents?"
    selection = select_evidence(asked, (), [TENT], [0.0] * len(units([TENT])))
    found = judge(asked, selection, [TENT], Vocabulary([h.passage for h in SHOP]))
    assert (found.answerable, found.reason, found.missing) == (False, "unknown_kind", "salomon")
    # declined without the closest lines: another product's "Stock: In stock" is not its answer
    assert found.reason not in WITH_CLOSEST_LINES
    assert "don't mention salomon" in decline(found.reason, shop="Fernhill", missing="salomon")
    # a kind the pages do not hold may be their synonym: left to the other checks
    assert verdict("Do you sell lanterns?", [TENT])[1] != "unknown_name"
    # the pages' own words, or a slip of them, are no unknown name
    assert verdict("do u stock tents?", [TENT])[:2] == (True, None)
    assert verdict("do you sell tnets?", [TENT])[:2] == (True, None)
    # nor is such a word in a question that does not ask whether the shop has it
    assert verdict("Is the Stormhollow 2 Tent salomon?", [TENT])[1] != "unknown_name"


def test_a_standard_the_pages_never_state_is_declined() -> None:
    shell = hit(
        "Torridon 3L Jacket",
        "Specs: Waterproof: 20,000 mm hydrostatic head; Standard: EN 14360; Seams: IPX-4 tape",
    )
    shop = [*SHOP, shell]
    asked = "Does the Torridon 3L Jacket meet the EN 343 standard?"
    assert verdict(asked, [shell], shop=shop)[:2] == (False, "unknown_name")
    selection = select_evidence(asked, (), [shell], [0.0] * len(units([shell])))
    found = judge(asked, selection, [shell], Vocabulary([h.passage for h in shop]))
    assert found.missing == "EN 343"  # named in the decline
    # one the pages state, spaced or hyphenated as they write it or not
    assert verdict("Does the Torridon 3L Jacket meet EN14360?", [shell], shop=shop)[:2] == (
        True,
        None,
    )
    assert verdict("Is the Torridon 3L Jacket IPX4?", [shell], shop=shop)[:2] == (True, None)


def test_a_follow_up_is_read_with_the_question_it_goes_on_from() -> None:
    asked = "I placed it two hours ago, is it too late?"
    selection = select_evidence(asked, (), [FAQ], [0.0] * len(units([FAQ])))
    vocabulary = Vocabulary([h.passage for h in SHOP])
    alone = judge(asked, selection, [FAQ], vocabulary)
    assert alone.answerable and alone.partial  # "placed", "hours", "late": not the lines' words
    after = judge(asked, selection, [FAQ], vocabulary, earlier="Can I change my order?")
    assert after.answerable and not after.partial
    # an earlier question the lines hold nothing of changes nothing
    other = judge(asked, selection, [FAQ], vocabulary, earlier="Do you sell tents?")
    assert other.partial
    # nor does one they hold, for a question none of whose own words they hold: it asks
    # something new ("is it noisy?" after "can I change my order?")
    new = judge("is it noisy?", selection, [FAQ], vocabulary, earlier="Can I change my order?")
    assert new.partial


def test_a_name_the_shop_mentions_elsewhere_is_no_unknown() -> None:
    question = "Do you have a shop in Leeds?"
    assert verdict(question, [RETURNS], shop=[*SHOP, STORES])[:2] == (True, None)
    assert verdict(question, [RETURNS])[:2] == (False, "unknown_name")


def test_a_name_is_known_by_its_whole_spelling_not_its_stem() -> None:
    # "Clearpay" cut to its stem is "clear", which the pages hold in other words
    clear = hit("Care", "Keep the filter clear of sand.", kind="policy")
    shop = [*SHOP, clear]
    assert verdict("Can I pay with Clearpay?", [RETURNS, FAQ], shop=shop)[:2] == (
        False,
        "unknown_name",
    )
    assert verdict("Do you deliver to Northern Ireland?", [RETURNS], shop=shop)[:2] == (True, None)


def test_what_the_shopper_tells_of_themselves_is_not_asked() -> None:
    told = "I'm at uni in Manchester. Can I return a tent that was pitched outdoors?"
    assert verdict(told, [RETURNS])[:2] == (True, None)
    # the same place asked about is unknown; and told of, where the question sends something
    assert verdict("Do you have a shop in Manchester?", [RETURNS])[:2] == (False, "unknown_name")
    where = "I live in Manchester. Do you deliver there?"
    assert verdict(where, [RETURNS])[:2] == (False, "unknown_name")
    # what the shopper tells may be what the lines are about: the message is read whole too
    told = "I pitched my tent outdoors once. Will you take it back?"
    assert verdict(told, [RETURNS]) == (True, None, False)


def test_evidence_without_the_questions_telling_words_is_partial() -> None:
    assert verdict("can i hire kayaks", [RETURNS]) == (True, None, True)
    # "tent" is held, but the telling "hire" is not: the closest lines are shown as such
    assert verdict("Can I hire a tent for the weekend?", [RETURNS, TENT]) == (True, None, True)
    assert verdict("Can I return a tent that was pitched outdoors?", [RETURNS])[2] is False


def test_the_shoppers_order_number_is_no_word_the_lines_must_hold() -> None:
    words = Vocabulary([h.passage for h in SHOP])
    selection = select_evidence("change order", (), [FAQ], [0.0] * len(units([FAQ])))
    assert coverage("change order 00123842", selection, words) == 1.0
    assert coverage("change order 1550", selection, words) < 1.0  # a figure may be asked


def test_shipping_is_held_by_delivering() -> None:
    bank = hit("Batteries", "Power banks can only be delivered to UK mainland.", kind="policy")
    words = Vocabulary([h.passage for h in [*SHOP, bank]])
    selection = select_evidence("ship power banks", (), [bank], [0.0] * len(units([bank])))
    assert coverage("can you ship power banks?", selection, words) == 1.0
    assert coverage("can you wrap power banks?", selection, words) < 1.0


def test_rare_words_weigh_more_than_common_ones() -> None:
    words = Vocabulary([h.passage for h in SHOP])
    assert words.weight("hire") > words.weight("pitch") > 0
    selection = select_evidence("pitched hire", (), [RETURNS], [0.0] * len(units([RETURNS])))
    assert 0 < coverage("pitched hire", selection, words) < 0.5


def test_taking_the_thing_somewhere_asks_of_the_place_not_of_taking() -> None:
    """ "can I take it on a plane?" is not answered by "The bag takes a 3 L reservoir"."""
    pack = hit("Ridgeline Pack", "The main compartment takes a 3 L reservoir.", kind="policy")
    words = Vocabulary([h.passage for h in [*SHOP, pack]])
    chosen = select_evidence("take", (), [pack], [0.0] * len(units([pack])))
    assert coverage("can I take it on a plane?", chosen, words) == 0.0
    assert coverage("how much does it take?", chosen, words) > 0  # what it takes is asked


def test_a_kind_of_product_is_what_is_asked_about_not_what_is_asked() -> None:
    """ "are tents windproof?": a line holding "tents" holds what is asked about, not what is
    asked of it; a question of kinds alone ("tents and footprints?") asks them."""
    words = Vocabulary([h.passage for h in SHOP])
    kinds = Catalog(h.passage for h in SHOP).kind_names()
    selection = select_evidence("tents", (), [RETURNS], [0.0] * len(units([RETURNS])))
    assert coverage("are tents windproof?", selection, words) > 0
    assert coverage("are tents windproof?", selection, words, kinds=kinds) == 0.0
    assert coverage("tents?", selection, words, kinds=kinds) == 1.0


def test_words_that_point_back_or_frame_the_asking_are_no_part_of_what_was_asked() -> None:
    """ "the second one", "at the moment", "how much does it weigh": nothing a line must hold."""
    words = Vocabulary([h.passage for h in SHOP])
    selection = select_evidence("weigh", (), [TENT], [0.0] * len(units([TENT])))
    plain = coverage("What does it weigh?", selection, words)
    assert coverage("How much does the second one weigh?", selection, words) == plain
    assert coverage("What does it weigh at the moment?", selection, words) == plain
    # "how much weight": an amount of weight is asked, "much" with it
    assert coverage("how much weight does it take?", selection, words) < 1.0
    # "how much?" alone, of the product talked about: a figure's framing, nothing asked
    assert coverage("how much?", selection, words) == 1.0
    # nor how exact the figure is wanted, nor "how much" before the next question
    assert coverage("Roughly what does it weigh?", selection, words) == plain
    assert coverage("how much, and what does it weigh?", selection, words) == plain
    # nor which of the shopper's own things is meant, nor a harm to avoid in doing it
    assert coverage("What does it weigh? my old one was heavy", selection, words) == coverage(
        "What does it weigh? my one was heavy", selection, words
    )
    assert coverage("What does it weigh without breaking it?", selection, words) == plain


def test_the_section_a_line_sits_under_holds_words_too() -> None:
    # a table row says "CCTV recordings | 30 days": how long it is *kept* is its section's heading
    kept = hit(
        "Privacy Notice",
        "| CCTV recordings | 30 days, unless needed to investigate an incident |",
        kind="policy",
        section="Privacy Notice › How long we keep your information",
    )
    bare = hit("Privacy Notice", kept.passage.text, kind="policy")
    question = "How long do you keep CCTV footage?"
    assert verdict(question, [kept], shop=[*SHOP, kept]) == (True, None, False)
    words = Vocabulary([h.passage for h in [*SHOP, kept]])

    def held(found: ScoredPassage) -> float:
        selection = select_evidence(question, (), [found], [0.0] * len(units([found])))
        return coverage(question, selection, words)

    assert held(bare) < held(kept)  # "keep" is held by the heading alone


def test_no_evidence_at_all_is_declined() -> None:
    assert verdict("anything", []) == (False, "no_match", False)


def test_chat_shorthand_does_not_count_and_a_slip_is_read_as_the_pages_spell_it() -> None:
    """Messy phrasing: "u" and "pls" are no part of what was asked, and "retrun" is "return"."""
    words = Vocabulary([h.passage for h in SHOP])

    def covered(question: str) -> float:
        selection = select_evidence(question, (), [RETURNS], [0.0] * len(units([RETURNS])))
        return coverage(question, selection, words)

    clean = covered("How long do I have to return unused items?")
    assert clean == covered("pls how long do u have to retrun unused items") > 0.5


def test_a_long_word_is_not_read_as_a_slip_of_its_first_letters() -> None:
    """The slip is looked for in the whole word: "wheelchair" (stem "wheel", one letter from
    "heel") is no word of the pages; a short one's in the stems ("diff": "different")."""
    heel = hit("Heel fit", "A snug heel. A different fit.")
    words = Vocabulary([h.passage for h in [*SHOP, heel]])
    assert words.spelled("retrun") == "retur"
    assert words.spelled("wheelchair") == "wheel"
    assert words.spelled("heels") == "heel"
    assert words.spelled("diff") == "diffe"
    assert plain_words("whats the diff") == ["diff"]  # no "what", read as "chat" before


HEADLAMP = hit(
    "Beacon 400 Headlamp",
    "SKU: FH-LMP-4400\nPrice (GBP): 45\nSpecs: Beam distance: 90 m; Runtime: 4 h (high)",
    doc="products/catalog.jsonl#FH-LMP-4400",
)
TORCH = hit(
    "Lumen 1200R Torch",
    "SKU: FH-LMP-4500\nPrice (GBP): 80\nSpecs: Beam distance: 200 m; Runtime: 2 h (high)",
    doc="products/catalog.jsonl#FH-LMP-4500",
)
KIDS = hit(
    "Glow Kids' Headlamp",
    "SKU: FH-LMP-4100\nPrice (GBP): 15\nSpecs: Runtime: 10 h (low); Colours: Blue, Pink",
    doc="products/catalog.jsonl#FH-LMP-4100",
)
LAMPS = [HEADLAMP, TORCH, KIDS, RETURNS]


def listed(question: str, passages: list[ScoredPassage]) -> tuple[bool, str | None, str]:
    catalog = Catalog(h.passage for h in LAMPS + SHOP)
    selection = select_evidence(question, (), passages, [0.0] * len(units(passages)))
    product = catalog.titled(selection.product) if selection.product else None
    vocabulary = Vocabulary([h.passage for h in LAMPS + SHOP])
    found = judge(question, selection, passages, vocabulary, catalog=catalog, product=product)
    return found.answerable, found.reason, found.missing


def test_a_field_other_records_list_and_this_ones_does_not_is_declined() -> None:
    assert listed("How far does the Glow Kids' Headlamp's beam reach?", [KIDS, HEADLAMP]) == (
        False,
        "not_listed",
        "beam",
    )
    # its own record lists it: answered
    assert listed("How far does the Beacon 400's beam reach?", [HEADLAMP, KIDS])[:2] == (True, None)
    # a policy page answers for the product, or its own record's line holds the question's words
    warranty = hit("Warranty", "A beam that fails within two years is repaired.", kind="policy")
    covered = listed("Is the Glow Kids' Headlamp's beam covered?", [warranty, KIDS])
    assert covered[:2] == (True, None)
    runtime = listed("What runtime does the Glow Kids' Headlamp's beam give?", [KIDS])
    assert runtime[:2] == (True, None)
    # a field no record lists is no field: the other checks judge it
    assert listed("Is the Glow Kids' Headlamp any good for reading?", [KIDS])[1] != "not_listed"


def test_a_model_the_shop_does_not_sell_is_declined() -> None:
    beacon_300 = listed("How much is the Beacon 300?", [HEADLAMP])
    assert beacon_300[1:] == ("unknown_product", "Beacon 300")
    assert listed("How much is the Beacon 400?", [HEADLAMP])[:2] == (True, None)
    # a number that is no model ("in 2 days") names nothing
    assert listed("Can the Beacon 400 arrive in 2 days?", [HEADLAMP])[1] != "unknown_product"


def test_a_figure_stated_for_another_case_is_declined_with_its_line() -> None:
    filter_ = hit("ClearFlow Squeeze Water Filter", "Specs: Weight: 85 g (filter only)")
    asked = "How much does the ClearFlow Squeeze Water Filter weigh with its 1 L pouch?"
    shop = [*SHOP, filter_]
    selection = select_evidence(asked, (), [filter_], [0.0] * len(units([filter_])))
    found = judge(asked, selection, [filter_], Vocabulary([h.passage for h in shop]))
    assert (found.answerable, found.reason, found.missing) == (
        False,
        "other_case",
        "with its 1 L pouch",
    )
    assert verdict("How much does the ClearFlow Squeeze Water Filter weigh?", [filter_], shop=shop)[
        :2
    ] == (True, None)


SHIPPING = hit(
    "Delivery information",
    "Zone 3: Northern Ireland. Standard delivery costs £6.95, free on orders of £75 or more.\n"
    "Zone 5: Rest of the world. Express delivery by DHL costs £24.95.",
    kind="policy",
)


def test_a_place_the_pages_cover_by_its_region_is_no_unknown_name() -> None:
    """The service reads "Belfast" as "Belfast (Northern Ireland)": answered from Zone 3; a
    place the pages cover by no region, or asked about as the shop's own, is still declined."""
    shop = [*SHOP, SHIPPING]
    asked = "How much is delivery to Belfast (Northern Ireland)?"
    assert verdict(asked, [SHIPPING], shop=shop) == (True, None, False)
    assert verdict("How much is delivery to Belfast?", [SHIPPING], shop=shop)[:2] == (True, None)
    assert verdict("Do you have a shop in Manchester?", [RETURNS], shop=shop)[:2] == (
        False,
        "unknown_name",
    )
    assert verdict("How much is delivery to Tokyo?", [RETURNS])[:2] == (False, "unknown_name")


def test_a_place_held_only_under_the_rest_of_the_world_is_answered_as_the_closest() -> None:
    """A shop with "rest of the world" rates may not ship to every country: "do u ship to
    iceland?" gets those lines as the closest the pages come, not as a yes."""
    shop = [*SHOP, SHIPPING]
    assert verdict("do u ship to iceland?", [SHIPPING], shop=shop) == (True, None, True)
    assert verdict("How much is delivery to Tokyo?", [SHIPPING], shop=shop)[2]
    assert not verdict("How much is delivery to Belfast?", [SHIPPING], shop=shop)[2]
    # the service judges the question as read ("the rest of the world"), told the shopper's words
    read = "do u ship to the rest of the world?"
    selection = select_evidence(read, (), [SHIPPING], [0.0] * len(units([SHIPPING])))
    vocabulary = Vocabulary([h.passage for h in shop])
    assert judge(read, selection, [SHIPPING], vocabulary, said="do u ship to iceland?").partial
    assert not judge(read, selection, [SHIPPING], vocabulary).partial


def test_another_products_record_line_is_no_answer_for_the_product_asked_about() -> None:
    """A sleeping bag's care line does not say whether the backpack asked about may be machine
    washed; a line of another record that names the asked product may answer for it."""
    bag = hit(
        "Fellsman Synthetic Sleeping Bag",
        "Care: Machine wash at 30°C on a gentle cycle with a mild detergent.",
        doc="products/catalog.jsonl#FH-SLP-2200",
    )
    pack = hit(
        "Ridgeline 45 Backpack",
        "Care: Hand wash only; do not machine wash.",
        doc="products/catalog.jsonl#FH-PCK-6045",
    )
    catalog = Catalog(h.passage for h in [bag, pack, *SHOP])
    asked = "Can I wash the Ridgeline 45 Backpack in the washing machine?"
    selection = select_evidence(asked, (), [bag], [0.0] * len(units([bag])))
    found = judge(asked, selection, [bag], Vocabulary([h.passage for h in [bag, pack]]),
                  catalog=catalog)  # fmt: skip
    assert (found.answerable, found.reason, found.missing) == (
        False, "other_product", "Ridgeline 45 Backpack",
    )  # fmt: skip
    own = select_evidence(asked, (), [pack, bag], [0.0] * len(units([pack, bag])))
    assert judge(asked, own, [pack, bag], Vocabulary([h.passage for h in [bag, pack]]),
                 catalog=catalog).answerable  # fmt: skip
    # the footprint's record names the tent: it may say what fits the tent
    fits = "Which footprint fits the Stormhollow 2 Tent?"
    chosen = select_evidence(fits, (), [FOOTPRINT], [0.0] * len(units([FOOTPRINT])))
    tent_catalog = Catalog(h.passage for h in SHOP)
    vocabulary = Vocabulary([h.passage for h in SHOP])
    assert judge(fits, chosen, [FOOTPRINT], vocabulary, catalog=tent_catalog).reason != (
        "other_product"
    )


def test_a_help_pages_line_about_another_product_is_no_answer_for_the_one_talked_about() -> None:
    """ "What hipbelt waist sizes does that one fit?" of the pack the conversation is on: the
    size guide's line on the overtrousers' waist sizes is not about the pack."""
    pack = hit(
        "Ridgeline 65+10 Backpack",
        "Pockets: Lid pocket, 2 zipped hipbelt pockets",
        doc="products/catalog.jsonl#FH-BPK-6065",
    )
    trousers = hit(
        "Torridon 3L Waterproof Overtrousers",
        "Sizes: S, M, L, XL",
        doc="products/catalog.jsonl#FH-TRS-1050",
    )
    guide = hit(
        "Size Guide",
        "To wear the Torridon 3L Waterproof Overtrousers over Kinder trousers, waist 30–32 "
        "normally takes S.",
        kind="policy",
    )
    shop = [pack, trousers, guide]
    catalog = Catalog(h.passage for h in shop)
    vocabulary = Vocabulary([h.passage for h in shop])
    asked = "What hipbelt waist sizes does that one fit?"
    selection = Selection((Evidence(1, guide.passage.text),), None, frozenset())
    found = judge(asked, selection, [guide, pack], vocabulary, catalog=catalog,
                  product=catalog.titled("Ridgeline 65+10 Backpack"))  # fmt: skip
    assert (found.reason, found.missing) == ("other_product", "Ridgeline 65+10 Backpack")
    # of the overtrousers, it is theirs
    found = judge(asked, selection, [guide, pack], vocabulary, catalog=catalog,
                  product=catalog.titled("Torridon 3L Waterproof Overtrousers"))  # fmt: skip
    assert found.reason != "other_product"


def test_a_question_that_only_frames_asks_about_the_product_and_is_answered() -> None:
    """ "Tell me about …" holds no word a line must hold: no hedge."""
    assert verdict("Tell me about the Stormhollow 2 Tent", [TENT]) == (True, None, False)


def test_a_price_question_answered_by_a_line_without_an_amount_is_partial() -> None:
    pegs = hit("Stormhollow 2 Tent", "Pegs: 12 aluminium Y-pegs.\nPoles: Aluminium")
    found = verdict("How much do replacement pegs for the Stormhollow 2 Tent cost?", [pegs])
    assert found == (True, None, True)
    delivery = hit("Delivery", "Next Working Day delivery costs £6.95.", kind="policy")
    assert verdict("How much does Next Working Day delivery cost?", [delivery]) == (
        True,
        None,
        False,
    )
    free = hit("Collection", "Click & Collect is free.", kind="policy")
    assert verdict("Is there a fee for Click & Collect?", [free])[2] is False
    match = hit("Prices", "We match the price of another UK retailer.", kind="policy")
    assert verdict("Will you price match another retailer?", [match])[2] is False
    # how much a thing holds, or by how much one is lighter, asks no price
    bottle = hit("ClearFlow 750 Filter Bottle", "Capacity: 750 ml\nWeight: 155 g")
    assert verdict("How much does the ClearFlow 750 bottle hold?", [bottle])[2] is False
    assert not asks_price("Which is lighter, the 800 or the 650, and by how much?")
    assert asks_price("how much does it cost?") and asks_price("how much is it?")
    # how much of it is a material is no price
    assert not asks_price("What is the sock made of? I want to know how much is actually wool.")


def test_a_question_of_how_long_answered_by_a_line_without_a_time_is_partial() -> None:
    care = hit("Airloft Mat", "Care: Inflate with the pump sack.\nWeight: 480 g", kind="policy")
    found = verdict("How long does the Airloft mat take to inflate?", [care])
    assert found == (True, None, True)
    timed = hit("Airloft Mat", "Inflate with the pump sack in about 2 minutes.", kind="policy")
    assert verdict("How long does the Airloft mat take to inflate?", [timed])[2] is False
    refund = hit("Refunds", "Refunds reach your card within 5 working days.", kind="policy")
    assert verdict("How soon will my refund reach my card?", [refund])[2] is False
    mat = hit("Airloft Mat", "Inflates to 183 × 51 cm.", kind="policy")  # a length, not a time
    assert verdict("How long is the Airloft mat when it inflates?", [mat])[2] is False


SHOE = hit(
    "Trailrunner 5 Trail Shoe",
    "SKU: FH-SHO-1202\nSizes: UK 6; UK 8; UK 11\nSpecs: Weight: 275 g per shoe (UK 8); Drop: 6 mm",
    doc="products/footwear.csv#FH-SHO-1202",
)
BAG = hit(
    "Fellsman Synthetic Sleeping Bag",
    "SKU: FH-SLB-8020\nSizes: Regular\nSpecs: Weight: 1,550 g; Comfort: 5°C",
    doc="products/catalog.jsonl#FH-SLB-8020",
)
SOCK = hit(
    "Merino Hiker Sock",
    "SKU: FH-SCK-1301\nSizes: S (UK 3–5.5); M (UK 6–8.5); L (UK 9–11.5)\nSpecs: Weight: 70 g",
    doc="products/catalog.jsonl#FH-SCK-1301",
)


def sized(question: str, record: ScoredPassage) -> tuple[bool, str | None]:
    catalog = Catalog(h.passage for h in [SHOE, BAG, SOCK, *SHOP])
    similarity = [0.0] * len(units([record]))
    selection = select_evidence(question, (), [record], similarity)
    vocabulary = Vocabulary([h.passage for h in [SHOE, BAG, SOCK, *SHOP]])
    product = catalog.titled(record.passage.title)
    found = judge(question, selection, [record], vocabulary, catalog=catalog, product=product)
    return found.answerable, found.reason


def test_the_field_asked_for_stated_for_another_size_is_declined() -> None:
    # "UK 11" is on the Sizes line; the weight is published for UK 8
    assert sized("How much does the Trailrunner 5 weigh in UK 11?", SHOE) == (False, "other_size")
    assert sized("How much does the Trailrunner 5 weigh in UK 8?", SHOE) == (True, None)


def test_trousers_asked_by_waist_and_leg_against_the_weights_stated_size() -> None:
    trousers = hit(
        "Kinder Softshell Trousers",
        "SKU: FH-TRS-5012\nSizes: 30; 32; 34; 36\nSpecs: Weight: 420 g (32 Regular)",
        doc="products/catalog.jsonl#FH-TRS-5012",
    )
    asked = "how much do the kinder trousers weigh in a 36 long?"
    assert sized(asked, trousers) == (False, "other_size")
    assert sized("how much do the kinder trousers weigh in a 32 regular?", trousers) == (
        True,
        None,
    )


def test_a_size_by_number_or_by_age_that_a_line_states_its_figure_for() -> None:
    """ "(size 12)" and "(7–8 years)" state the size a figure is for (seen in the thirty-ninth
    session: a size 16's and an 11–12 years' weight were answered with these)."""
    women = hit(
        "Torridon 3L Waterproof Jacket Women's",
        "SKU: FH-JKT-1043\nSizes: 8, 10, 12, 14, 16, 18\nSpecs: Weight: 380 g (size 12)",
        doc="products/catalog.jsonl#FH-JKT-1043",
    )
    asked = "How much does the women's Torridon jacket weigh in a size 16?"
    assert sized(asked, women) == (False, "other_size")
    assert sized("how heavy is the women's torridon in a 12?", women) == (True, None)
    kids = hit(
        "Little Fell Kids' Waterproof Jacket",
        "SKU: FH-JKT-1050\nSizes: 3–4 years, 7–8 years, 11–12 years\n"
        "Specs: Weight: 290 g (7–8 years)",
        doc="products/catalog.jsonl#FH-JKT-1050",
    )
    asked = "What does the Little Fell kids jacket weigh in the 11-12 years size?"
    assert sized(asked, kids) == (False, "other_size")
    assert sized("Little Fell jacket weight for 7 to 8 yrs?", kids) == (True, None)
    assert _asked_sizes("for 9 to 10 yrs?") == {"9-10 YEARS"}


def test_a_size_the_record_does_not_list_is_declined() -> None:
    assert sized("how heavy is the fellsman in the long size", BAG) == (False, "other_size")
    assert sized("how heavy is the fellsman in the regular size?", BAG) == (True, None)
    # sizes listed as ranges may hold a size asked in other terms: not judged by the list
    assert sized("How much does the Merino Hiker Sock weigh in UK 9?", SOCK)[1] != "other_size"


def test_a_size_given_as_a_bare_number_is_one_the_record_lists_by_system() -> None:
    """ "in size 8" asks the record's "UK 8" (the Sizes line and the line's "(UK 8)")."""
    assert sized("How much does the Trailrunner 5 weigh in size 8?", SHOE) == (True, None)
    assert sized("can i get the trailrunner 5 in size 11?", SHOE) == (True, None)
    assert sized("can i get the trailrunner 5 in size 13?", SHOE) == (False, "other_size")


def test_a_size_any_cut_named_alike_lists_is_listed() -> None:
    """ "do the scafell mid boots come in uk 12?": the men's lists it, the women's does not;
    neither lists UK 13."""
    boots = [
        hit(f"Scafell Mid Walking Boot {cut}", f"SKU: x\nSizes: {sizes}\nSpecs: Weight: 600 g",
            doc=f"products/catalog.jsonl#FH-BOOT-{cut}")
        for cut, sizes in (("Men's", "UK 7; UK 12"), ("Women's", "UK 3; UK 8"))
    ]  # fmt: skip
    catalog = Catalog(h.passage for h in [*boots, *SHOP])
    vocabulary = Vocabulary([h.passage for h in [*boots, *SHOP]])
    women = catalog.titled(boots[1].passage.title)

    def judged(question: str) -> tuple[bool, str | None]:
        selection = select_evidence(question, (), [boots[1]], [0.0] * len(units([boots[1]])))
        found = judge(question, selection, [boots[1]], vocabulary, catalog=catalog, product=women)
        return found.answerable, found.reason

    assert judged("do the scafell mid boots come in uk 12?")[1] != "other_size"
    assert judged("do the scafell mid boots come in uk 13?") == (False, "other_size")


def test_a_field_no_cut_of_the_named_product_lists_is_declined() -> None:
    boots = [
        hit(f"Scafell Mid Walking Boot {cut}", "SKU: x\nSpecs: Weight: 600 g; Waterproof: Yes",
            doc=f"products/catalog.jsonl#FH-BOOT-{cut}")
        for cut in ("Men's", "Women's")
    ]  # fmt: skip
    shells = [
        hit(
            name,
            f"SKU: x\nSpecs: Hydrostatic head: {head} mm; Weight: 400 g",
            doc=f"products/c.jsonl#{name}",
        )
        for name, head in (("Torridon Jacket", "20,000"), ("Skiddaw Jacket", "10,000"))
    ]
    shop = [*boots, *shells]
    catalog = Catalog(h.passage for h in shop)
    assert [p.title for p in catalog.cuts_named("the scafell mid boots")] == [
        "Scafell Mid Walking Boot Men's",
        "Scafell Mid Walking Boot Women's",
    ]
    # the decline names what the cuts share (it named "the " and nothing before)
    assert catalog.common_name("the scafell mid boots") == "Scafell Mid Walking Boot"
    assert catalog.common_name("the torridon jacket") == ""

    def judged(question: str) -> tuple[bool, str | None]:
        selection = select_evidence(question, (), boots, [0.0] * len(units(boots)))
        vocabulary = Vocabulary([h.passage for h in shop])
        found = judge(question, selection, boots, vocabulary, catalog=catalog)
        return found.answerable, found.reason

    assert judged("whats the hydrostatic head on the scafell mid boots") == (False, "not_listed")
    assert judged("how much do the scafell mid boots weigh?") == (True, None)


def test_a_field_name_used_as_a_verb_is_no_field_asked_for() -> None:
    lamp = hit(
        "Beacon 700R Rechargeable Headlamp",
        "SKU: FH-ELC-9702\nSpecs: Weight: 90 g; Water resistance: IPX7",
        doc="products/electronics.json#FH-ELC-9702",
    )
    shoes = [
        hit(name, "SKU: x\nSpecs: Heel-to-toe drop: 6 mm; Weight: 275 g", doc=f"p.csv#{name}")
        for name in ("Trailrunner 5 Trail Shoe", "Stanage Approach Shoe")
    ]
    asked = "is the beacon 700r ok if i drop it in a stream?"
    assert reason_for(asked, lamp, shoes) is None
    asked = "what's the heel to toe drop on the beacon 700r?"
    assert reason_for(asked, lamp, shoes) == "not_listed"


def reason_for(question: str, record: ScoredPassage, others: list[ScoredPassage]) -> str | None:
    """The verdict's reason for ``question`` asked of ``record``'s product, its lines chosen
    from that record alone, in a shop that also sells ``others``."""
    shop = [record, *others]
    catalog = Catalog(h.passage for h in shop)
    vocabulary = Vocabulary([h.passage for h in shop])
    product = catalog.titled(record.passage.title)
    selection = select_evidence(question, (), [record], [0.0] * len(units([record])))
    return judge(question, selection, [record], vocabulary, catalog=catalog, product=product).reason


def test_a_unit_asked_by_name_is_held_by_a_figure_stated_in_it() -> None:
    """ "how many litres" is answered by "600 L": the line names the unit by its symbol, and
    "how many" only frames the figure asked for."""
    bottle = hit("ClearFlow 750 Filter Bottle", "Specs: Cartridge life: Up to 600 L (membrane)")
    shop = [*SHOP, bottle]
    assert (
        verdict("how many litres does the ClearFlow 750 cartridge last?", [bottle], shop=shop)[2]
        is False
    )
    assert unit_names("Up to 600 L; 230 g; 6°C") == {
        stem(w) for w in ("litres", "liters", "grams", "grammes", "degrees", "celsius")
    }
    assert unit_names("Sizes: S, M, L") == frozenset()  # a size, no figure's unit


def test_a_childs_shoe_size_is_a_size_asked() -> None:
    """ "in a 12K" asks a child's size; the weight is published for UK 1."""
    boot = hit(
        "Little Fell Kids' Walking Boot",
        "Sizes: UK 10K; UK 12K; UK 1; UK 2\nSpecs: Weight: 640 g per pair (UK 1)",
    )
    shop = [*SHOP, boot]
    asked = "how heavy are the little fell boots in a 12K"
    assert verdict(asked, [boot], shop=shop)[:2] == (False, "other_size")
    assert verdict("how heavy are the little fell boots in a UK 1", [boot], shop=shop)[:2] == (
        True,
        None,
    )


def test_an_acronym_typed_in_lower_case_is_a_name() -> None:
    """ "an nhs discount": a name the pages never mention, though not capitalised; chat
    shorthand of the same shape is none."""
    assert verdict("is there an nhs discount? im a nurse", [RETURNS, FAQ])[:2] == (
        False,
        "unknown_name",
    )
    assert verdict("can i change my order thx", [FAQ])[:2] == (True, None)


def test_a_size_typed_in_lower_case_is_a_size_asked() -> None:
    assert verdict("What does the Cairngorm 800 weigh in size xl?", [JACKET])[:2] == (
        False,
        "other_size",
    )
    assert verdict("what does the cairngorm 800 weigh, size m?", [JACKET])[:2] == (True, None)


def test_a_field_asked_that_only_lines_of_another_case_give_is_declined() -> None:
    """The best line names the asked case ("Batteries: … (alkaline, lithium or NiMH)"), but the
    field asked is given for other cases only: declined. A field one line gives for the asked
    case is given, though another line gives it for another."""
    gps = hit(
        "Waymark 3 Handheld GPS",
        "Batteries: 2 × AA (alkaline, lithium or NiMH)\n"
        "Battery life: Up to 25 hours (lithium AA); about 18 hours (NiMH)",
        kind="product",
    )
    words = Vocabulary([h.passage for h in [*SHOP, gps]])

    def judged(question: str, *lines: str) -> tuple[bool, str | None]:
        selection = Selection(tuple(Evidence(1, t) for t in lines), None, frozenset())
        found = judge(question, selection, [gps], words)
        return found.answerable, found.reason

    asked = "How many hours of battery life will it run on alkaline AA batteries?"
    batteries, life = gps.passage.text.splitlines()
    assert judged(asked, batteries, life) == (False, "other_case")
    assert judged(asked.replace("alkaline", "lithium"), batteries, life)[1] is None
    canister = "Burn time: About 120 minutes on full power (Emberlite Canister Stove)"
    stove = "Burn time: About 60 minutes on full power with a 230 g canister"
    burns = "What burn time does the 450 g gas canister give on the Emberlite stove?"
    assert judged(burns, canister, stove)[1] != "other_case"


def test_words_a_line_holds_only_in_another_products_name_are_not_held() -> None:
    """ "Is the Cairngorm 800 waterproof?" is not answered by "Fits under the Torridon 3L
    Waterproof Jacket": the word is the other jacket's name; which jacket it fits under is."""
    down = hit(
        "Cairngorm 800 Down Jacket",
        "Compatibility: Fits under the Torridon 3L Waterproof Jacket (FH-JKT-1042) in your "
        "usual size.",
        doc="products/catalog.jsonl#FH-INS-2010",
    )
    shell = hit(
        "Torridon 3L Waterproof Jacket Men's",
        "Waterproof rating: 20,000 mm hydrostatic head",
        doc="products/catalog.jsonl#FH-JKT-1042",
    )
    shop = [down, shell]
    catalog = Catalog(h.passage for h in shop)
    vocabulary = Vocabulary([h.passage for h in shop])
    product = catalog.titled("Cairngorm 800 Down Jacket")

    def judged(asked: str, near: frozenset[str] = frozenset()) -> tuple[bool, bool]:
        selection = select_evidence(asked, (), [down], [0.0] * len(units([down])))
        found = judge(asked, selection, [down], vocabulary, catalog=catalog, product=product,
                      near=near)  # fmt: skip
        return found.answerable, found.partial

    # held neither by its spelling nor in other words: the line's only "waterproof" is a name's
    assert judged("Is the Cairngorm 800 waterproof?", frozenset({"waterproof"})) == (True, True)
    assert judged("Which jacket does the Cairngorm 800 fit under?") == (True, False)
    # a question that names the other product, whole or in part, keeps its words
    assert judged("Does the Cairngorm 800 fit under the Torridon 3L Waterproof Jacket?") == (
        True,
        False,
    )
    assert judged("Is the Cairngorm 800 right for under a Torridon 3L waterproof?") == (
        True,
        False,
    )


def test_a_quantity_in_a_written_product_name_is_no_case() -> None:
    """The "3L" of "the Torridon 3L Waterproof Jacket" is its name, not another quantity than
    the "2L" of the Langdale's name in the line that answers."""
    shell = hit(
        "Torridon 3L Waterproof Jacket Men's",
        "Compatibility: In your usual size it fits over the Cairngorm 800 Down Jacket "
        "(FH-INS-2010). Replaces the discontinued Langdale 2L Waterproof Jacket (FH-JKT-1021).",
        doc="products/catalog.jsonl#FH-JKT-1042",
    )
    down = hit("Cairngorm 800 Down Jacket", "Weight: 360 g", doc="products/catalog.jsonl#FH-I")
    shop = [shell, down]
    catalog = Catalog(h.passage for h in shop)
    asked = "Does the Cairngorm 800 fit under the Torridon 3L Waterproof Jacket?"
    # two products named: a comparison, about neither one
    selection = select_evidence(asked, (), shop, [0.0] * len(units(shop)))
    assert selection.product is None
    found = judge(asked, selection, shop, Vocabulary([h.passage for h in shop]), catalog=catalog)
    assert found.reason != "other_case"


def test_the_name_of_the_product_asked_about_is_no_word_asked_of_it() -> None:
    """ "are tents windproof?" of the tents: a help line holding "tents" holds the name, not
    what is asked of it."""
    words = Vocabulary([h.passage for h in SHOP])
    question = "tents windproof"
    selection = select_evidence(question, (), [RETURNS], [0.0] * len(units([RETURNS])))
    assert coverage(question, selection, words) > 0
    assert coverage(question, selection, words, titles=("Tents",)) == 0.0


def test_the_names_of_products_named_alike_are_no_words_asked_of_them() -> None:
    """ "is the cairngorm down jacket ethically sourced?" names the 650 and the 800: a line
    holding "cairngorm" and "jacket" holds what is asked about, not what is asked of it."""
    other = hit("Cairngorm 650 Down Jacket", "Price (GBP): 180\nSpecs: Fill: 650 duck down")
    shop = [*SHOP, other]
    catalog = Catalog(h.passage for h in shop)
    question = "is the cairngorm down jacket ethically sourced?"
    line = hit("Jackets", "Every Cairngorm jacket is sewn in Leeds.", kind="policy")
    chosen = select_evidence(question, (), [line], [0.0] * len(units([line])))
    vocabulary = Vocabulary([h.passage for h in [*shop, line]])
    assert judge(question, chosen, [line], vocabulary, catalog=catalog).partial


def test_it_asked_of_no_product_is_not_answered_by_a_line_about_one_never_named() -> None:
    """After the size guide's chest row, "is it true to size?" is not the tent's line."""
    guide = hit("Size guide", "The Stormhollow 2 Tent pitches true to size.", kind="policy")
    catalog = Catalog(h.passage for h in SHOP)
    vocabulary = Vocabulary([h.passage for h in [*SHOP, guide]])
    asked = "is it true to size?"
    chosen = select_evidence(asked, (), [guide], [0.0] * len(units([guide])))
    after = "what size jacket for a 104 cm chest?"
    assert judge(asked, chosen, [guide], vocabulary, catalog=catalog, earlier=after).partial
    # the conversation named it: the line may be about it
    named = "how big is the stormhollow 2 tent?"
    assert not judge(asked, chosen, [guide], vocabulary, catalog=catalog, earlier=named).partial


def test_a_help_topic_asked_of_another_pages_lines_is_partial() -> None:
    """ "can i return it from canada?" is not answered by the Delivery page's line on Canada:
    it asks the returns page's topic, which neither the line nor its page's title holds."""
    canada = hit("Delivery Information", "We deliver to Canada by DHL Express.", kind="policy")
    vocabulary = Vocabulary([h.passage for h in [*SHOP, canada]])
    topics = frozenset({"returns", "refunds", "delivery", "information", "warranty"})

    def partial(question: str, line: ScoredPassage) -> bool:
        chosen = select_evidence(question, (), [line], [0.0] * len(units([line])))
        return judge(question, chosen, [line], vocabulary, topics=topics).partial

    assert partial("can i return it from canada?", canada)
    assert not partial("do you deliver to canada?", canada)
    assert not partial("can i return unused items?", RETURNS)  # the page's title holds it
    assert not partial("is delivery to canada completely free?", canada)  # no "complaint"


def test_a_size_named_after_an_article_or_in_words_is_asked() -> None:
    """Seen in the thirty-seventh session's new tuning questions: "how long's the leg on the L
    then?" was answered with size M's inside leg."""
    assert _asked_sizes("so how long's the leg on the L then?") == {"L"}
    assert _asked_sizes("how much does it weigh in an XL?") == {"XL"}
    assert _asked_sizes("I'm more of a large though") == {"L"}
    assert _asked_sizes("what about a 16?") >= {"16"}
    # a large thing, a setting or an age is no size
    assert _asked_sizes("is it a large tent?") == set()
    assert _asked_sizes("how long does it last on the medium setting?") == set()
    assert _asked_sizes("my daughter is a 12 year old") == set()


def test_when_something_happens_is_not_answered_by_lines_that_tell_no_time() -> None:
    assert asks_when("When's the Cairngorm 800 coming back in XS?")
    assert asks_when("any idea when that's coming back in?")
    assert not asks_when("what if it breaks when I'm away?")
    stock = hit(
        "Cairngorm 800 Down Jacket",
        "SKU: FH-JKT-1101\nStock: In stock in S, M, L; out of stock in XS",
        doc="products/catalog.jsonl#FH-JKT-1101",
    )
    assert verdict("When's the Cairngorm 800 coming back in stock?", [stock]) == (
        True,
        None,
        True,
    )
    # a line that tells when, by a time or by the event it happens on, answers
    payment = hit("Payment Methods", "Pre-orders: payment is taken when the item is dispatched.")
    assert verdict("When do you take payment for a pre-order?", [payment])[2] is False


def test_a_record_line_holding_other_words_of_the_question_is_no_field_it_lacks() -> None:
    """The Glow's runtime line holds "low", not a beam distance: the field other headlamps list
    is asked for and its record does not list it (a torch's "strobe or SOS mode for
    emergencies" was answered with the torch's runtime modes)."""
    assert listed("How far does the Glow Kids' Headlamp's beam reach on low?", [KIDS]) == (
        False,
        "not_listed",
        "beam",
    )
    # a field the line itself names is answered by it
    runtime = listed("What runtime does the Glow Kids' Headlamp give on low?", [KIDS])
    assert runtime[:2] == (True, None)


def test_a_participle_after_be_or_still_is_no_field_asked_for() -> None:
    """ "still covered" asks of a warranty, not of the "Rain cover" two packs list."""
    packs = [
        hit(name, "SKU: x\nSpecs: Weight: 1 kg; Rain cover: Not included", doc=f"p.csv#{name}")
        for name in ("Ridgeline 35 Backpack", "Ridgeline 45 Backpack")
    ]
    jacket = hit(
        "Langdale 2L Waterproof Jacket",
        "SKU: FH-JKT-1021\nSpecs: Weight: 610 g\nCompatibility: Spare parts for the Langdale "
        "are no longer available.",
        doc="p.csv#langdale",
    )
    asked = "Is the Langdale still covered for spare parts?"
    assert reason_for(asked, jacket, packs) != "not_listed"
    assert reason_for("Does the Langdale come with a rain cover?", jacket, packs) == "not_listed"


def test_a_table_row_for_another_kind_of_product_is_another_case() -> None:
    """The repair price list has a tent's zip slider and a jacket's main zip, not a sleeping
    bag's zip: a figure for another case. A row naming no kind is for any; a row for the
    kind asked, or for the named product's kind, answers."""
    workshop = hit(
        "Warranty and Repairs",
        "| Repair | Price |\n| --- | --- |\n| Tent zip slider replacement | £10 |\n"
        "| Replace pocket zip | £18 |\n| Replace main jacket zip | £35 |",
        kind="policy",
    )
    bag = hit("Nightjar 500 Down Sleeping Bag", "SKU: FH-SLB-8005\nPrice (GBP): 220", doc="b")
    shop = [workshop, TENT, JACKET, bag]
    catalog = Catalog(h.passage for h in shop)
    vocabulary = Vocabulary([h.passage for h in shop])
    header = "| Repair | Price |"

    def judged(question: str, *rows: str, product: str | None = None) -> Verdict:
        lines = tuple(Evidence(1, t) for t in (header, *rows))
        selection = Selection(lines, product, frozenset())
        return judge(question, selection, [workshop], vocabulary, catalog=catalog)

    slider, pocket, main = workshop.passage.text.splitlines()[2:]
    sleeping = judged("How much to replace a broken zip on my sleeping bag?", slider, pocket)
    assert (sleeping.reason, sleeping.missing) == ("other_case", "sleeping bag")
    assert judged("How much to replace the zip on my tent?", slider).reason != "other_case"
    assert judged("How much is a pocket zip on my sleeping bag?", pocket).reason != "other_case"
    # "covered" is no Rain Cover; the jacket named is of the row's kind
    asked = "Is the zip on the Cairngorm 800 covered, and what does a new one cost?"
    named = judged(asked, main, product="Cairngorm 800 Down Jacket")
    assert named.reason != "other_case"


def test_a_thing_asked_whether_offered_must_be_in_the_lines_shown() -> None:
    """ "Is there a Fernhill app …?" answered with the tracking lines is hedged: they do not
    name an app. A figure word is held by a figure, and "any way" names no thing."""
    tracking = hit(
        "Order tracking",
        "If you have an account, you can also see tracking under My Account > Orders.",
        kind="policy",
    )
    asked = "Is there an app I can download to track my orders?"
    assert verdict(asked, [tracking], shop=[tracking]) == (True, None, True)
    delivery = hit(
        "Delivery",
        "Standard delivery costs £6.95, or is free on orders of £75 or more.",
        kind="policy",
    )
    asked = "how much is delivery? and is there a free delivery amount"
    assert verdict(asked, [delivery], shop=[delivery]) == (True, None, False)
    # a shopper's word for a field is held by the field's line ("accessories": Compatibility)
    lamp = hit(
        "Beacon 400 Headlamp",
        "Compatibility: Takes the Beacon 400 Rechargeable Battery Pack in place of the AAAs.",
    )
    asked = "are there any accessories for the beacon 400?"
    assert verdict(asked, [lamp], shop=[lamp]) == (True, None, False)
    stock = hit("Stock", "Out-of-stock items can be ordered as a back order.", kind="policy")
    asked = "The sweater I want is out of stock. Is there any way I can still order it?"
    assert verdict(asked, [stock], shop=[stock]) == (True, None, False)


def test_a_word_negated_by_its_prefix_is_held_by_what_it_negates() -> None:
    """ "before I'm uncomfortable in it?": "Comfort temperature: 6°C" holds it."""
    bag = hit("Nightjar 300 Down Sleeping Bag", "Specs: Comfort temperature: 6°C")
    words = Vocabulary([h.passage for h in [*SHOP, bag]])
    selection = select_evidence("comfort cold", (), [bag], [0.0] * len(units([bag])))
    assert coverage("uncomfortable", selection, words) == 1.0
    assert coverage("unzipped", selection, words) == 0.0  # "zipped" is not held either


def test_what_the_shopper_needs_frames_what_is_asked() -> None:
    """ "before I need a new one": the lines need not hold "need" or "want"."""
    words = Vocabulary([h.passage for h in SHOP])
    selection = select_evidence("change order", (), [FAQ], [0.0] * len(units([FAQ])))
    assert coverage("need to change my order", selection, words) == coverage(
        "change my order", selection, words
    )
    assert coverage("want to change my order", selection, words) == coverage(
        "change my order", selection, words
    )


def test_a_day_of_the_week_a_span_holds_is_no_unknown_name() -> None:
    """ "on a Tuesday": the pages' "Monday to Saturday" holds it; a place they never name is
    still unknown."""
    collect = hit(
        "Click & Collect",
        "Orders placed between 09:00 and 15:00 Monday to Saturday are ready within 2 hours.",
        kind="policy",
    )
    asked = "If I place a Click & Collect order on a Tuesday, how soon could I pick it up?"
    assert verdict(asked, [collect], shop=[*SHOP, collect])[:2] == (True, None)
    assert verdict(
        "If I place a Click & Collect order on a Tuesday, can I pick it up in Harrogate?",
        [collect],
        shop=[*SHOP, collect],
    )[:2] == (False, "unknown_name")


def test_a_comparisons_own_words_and_the_products_it_compares_are_no_words_asked() -> None:
    """ "what's the difference between the Stormhollow 2 Tent and the Footprint?": each one's
    description answers it; "difference", "between" and the names are not held by it."""
    catalog = Catalog([h.passage for h in SHOP])
    asked = "what's the difference between the Stormhollow 2 Tent and the Stormhollow 2 Footprint?"
    passages = [TENT, FOOTPRINT]
    selection = select_evidence(asked, (), passages, [0.0] * len(units(passages)))
    found = judge(
        asked, selection, passages, Vocabulary([h.passage for h in SHOP]), catalog=catalog
    )
    assert found == Verdict(True)
    # outside a comparison "between" is asked ("pitches between the trees?")
    words = Vocabulary([h.passage for h in SHOP])
    assert coverage("pitches between trees", selection, words) < 1.0


def test_a_measure_asked_of_lines_without_a_figure_is_partial() -> None:
    """ "What's the hydrostatic head of the membrane in the Little Fell boots?": their materials
    line names the membrane and gives no figure; shown as the closest, not as the answer."""
    boot = hit(
        "Little Fell Kids' Waterproof Walking Boot",
        "Specs: Materials: Synthetic leather and textile upper; waterproof breathable membrane",
    )
    asked = "What's the hydrostatic head of the membrane in the Little Fell kids' walking boots?"
    assert verdict(asked, [boot], shop=[*SHOP, boot]) == (True, None, True)
    # a figure answers it ("Minimum weight: 1,550 g")
    assert verdict("How much does the Stormhollow 2 Tent weigh?", [TENT]) == (True, None, False)
    assert asks_measure("how wide is it?") and asks_measure("what's the temperature rating?")
    assert asks_measure("how heavy is it in grams?") and asks_measure("weight in kg?")
    assert not asks_measure("how long does it take?") and not asks_measure("is it heavy?")


def test_a_sibling_products_line_is_no_line_on_the_product_named() -> None:
    """ "the waterproof rating of the Little Fell kids' boots?": the boots, named by their kind
    in the plural, not the Little Fell Kids' Waterproof Jacket, whose rating is no answer
    though its title shares the boots' name."""
    jacket = hit(
        "Little Fell Kids' Waterproof Jacket",
        "Specs: Waterproof rating: 8,000 mm hydrostatic head",
        doc="products/catalog.jsonl#FH-KID-1",
    )
    boot = hit(
        "Little Fell Kids' Waterproof Walking Boot",
        "Specs: Upper: Synthetic leather",
        doc="products/catalog.jsonl#FH-KID-2",
    )
    passages = [jacket, boot]
    catalog = Catalog([h.passage for h in passages])
    asked = "What's the waterproof rating of the Little Fell kids' boots?"
    named = catalog.named(asked)
    assert named is not None and named.title == "Little Fell Kids' Waterproof Walking Boot"
    selection = select_evidence(asked, (), passages, [0.0] * len(units(passages)))
    assert "Waterproof rating" in selection.lines[0].text  # the jacket's
    words = Vocabulary([h.passage for h in [*SHOP, *passages]])
    found = judge(asked, selection, passages, words, catalog=catalog)
    assert (found.answerable, found.reason) == (False, "other_product")


def test_a_phrase_the_pages_use_is_held_whole_or_not_at_all() -> None:
    """Seen on the Ridgeline 45's page (forty-third session): "will this fit as hand luggage?"
    was answered with "Hand wash …": the pages say "hand luggage" of a power bank, so the
    pack's "Hand wash" holds no part of it; a phrase held word by word is held."""
    pack = hit(
        "Ridgeline Pack", "Hand wash in lukewarm water. The tent fits inside.", kind="policy"
    )
    bank = hit("PowerCell", "Air travel: allowed in hand luggage only.", kind="policy")
    words = Vocabulary([h.passage for h in [*SHOP, pack, bank]])
    chosen = select_evidence("hand wash fits", (), [pack], [0.0] * len(units([pack])))
    assert coverage("does the tent fit inside?", chosen, words) == 1.0
    # "fit" alone is held: "hand" goes with the luggage the lines do not hold
    fit, hand, luggage = (words.weight(stem(w)) for w in ("fit", "hand", "luggage"))
    assert coverage("does it fit as hand luggage?", chosen, words) == pytest.approx(
        fit / (fit + hand + luggage)
    )
    both = hit("Ridgeline Pack", "Small enough for hand luggage on most airlines.", kind="policy")
    chosen = select_evidence("hand luggage", (), [both], [0.0] * len(units([both])))
    assert coverage("does it fit as hand luggage?", chosen, words) > 0.5
