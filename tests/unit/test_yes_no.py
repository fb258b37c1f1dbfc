"""The yes or no said first, from the shop's own line, only when the line gives it plainly."""

from __future__ import annotations

from app.chat.catalog import Catalog
from app.chat.compose import composed_pieces
from app.chat.evidence import Evidence, answers_faq
from app.chat.service import _other_named
from app.chat.yes_no import plain_answer
from tests.unit.passages import hit


def test_a_clause_that_negates_every_word_asked_is_a_no() -> None:
    line = "Hand wash with lukewarm water and a mild soap; do not machine wash or use detergents."
    asked = "Can I put my Ridgeline 45 Backpack in the washing machine?"
    assert plain_answer(asked, line, product="Ridgeline 45 Backpack") == "no"


def test_a_line_holding_every_word_asked_with_no_negation_or_condition_is_a_yes() -> None:
    line = "Sensors: Barometric altimeter, 3-axis electronic compass"
    asked = "Does the Waymark 3 Handheld GPS have a barometric altimeter?"
    assert plain_answer(asked, line, product="Waymark 3 Handheld GPS") == "yes"
    made = "Is the Helvellyn 200 Fleece made from recycled material?"
    materials = "Materials: 200 g/m² microfleece, 100% recycled polyester."
    assert plain_answer(made, materials, product="Helvellyn 200 Fleece") == "yes"


def test_a_field_asked_by_name_answers_by_its_value_not_a_yes() -> None:
    """ "Is it in stock?" against "Stock: Out of stock …": the field's name is no yes."""
    asked = "Is the Waymark 3 Handheld GPS in stock?"
    line = "Stock: Out of stock: available to pre-order, dispatch within 3 weeks"
    assert plain_answer(asked, line, product="Waymark 3 Handheld GPS") is None
    assert plain_answer("Is it waterproof?", "Waterproof: No (water-resistant shell)") == "no"


def test_a_field_whose_name_negates_answers_no_by_its_value() -> None:
    """ "Does not remove: Viruses, …" had been read as a yes: the value holds "viruses" and the
    negation is in the field's name."""
    asked = "Will the ClearFlow Squeeze filter remove viruses?"
    line = "Does not remove: Viruses, chemicals, heavy metals or salt"
    assert plain_answer(asked, line, product="ClearFlow Squeeze Water Filter") == "no"
    removes = "Removes: 99.99999% of bacteria (log 7)"
    bacteria = "Will the ClearFlow Squeeze filter remove bacteria?"
    assert plain_answer(bacteria, removes, product="ClearFlow Squeeze Water Filter") == "yes"


def test_anything_less_than_plain_states_neither() -> None:
    down = "650 fill power duck down in a tougher 20D shell."
    assert plain_answer("Is the Cairngorm 650 filled with goose down?", down) is None
    conditional = "You can return it within 30 days, unless it has been used."
    assert plain_answer("Can I return a used tent?", conditional) is None
    assert plain_answer("Is it black or blue?", "Colours: Black") is None
    assert plain_answer("How heavy is it?", "Weight: 520 g") is None  # not a yes/no question
    # another question's FAQ answer opening with "Yes" is not this one's
    assert plain_answer("Can I cancel after dispatch?", "Yes, within 60 minutes.") is None
    assert plain_answer("Can I cancel?", "Yes, within 60 minutes.", faq_match=True) == "yes"


def test_the_composed_answer_says_it_first() -> None:
    page = hit("Ridgeline 45 Backpack", "Care: do not machine wash.")
    pieces = composed_pieces([Evidence(1, "Care: do not machine wash.")], [page], stated="no")
    assert pieces[0] == "No. Here is what our product page for the Ridgeline 45 Backpack says:"
    hedged = composed_pieces([Evidence(1, "Care: do not machine wash.")], [page], partial=True)
    assert not hedged[0].startswith(("Yes", "No"))


def test_an_asked_word_only_in_another_products_name_is_no_yes() -> None:
    """ "Is the Cairngorm 800 waterproof?" is not answered "Yes" by the down jacket's line that
    names the waterproof jacket it fits under; asked of that jacket, the line does say yes."""
    line = "Compatibility: Fits under the Torridon 3L Waterproof Jacket (FH-JKT-1042) in your size."
    down, shell = "Cairngorm 800 Down Jacket", "Torridon 3L Waterproof Jacket Men's"
    asked = "Is the Cairngorm 800 waterproof?"
    assert plain_answer(asked, line, product=down, other=shell) is None
    fits = "Does the Cairngorm 800 fit under the Torridon 3L Waterproof Jacket?"
    assert plain_answer(fits, line, product=down) == "yes"


def test_the_other_product_is_one_the_line_names_and_the_question_does_not() -> None:
    shell = hit(
        "Torridon 3L Waterproof Jacket Men's",
        "SKU: FH-JKT-1042\nSpecs: Waterproof rating: 20,000 mm hydrostatic head",
        doc="products/catalog.jsonl#FH-JKT-1042",
    )
    down = hit(
        "Cairngorm 800 Down Jacket",
        "SKU: FH-INS-2010\nCompatibility: Fits under the Torridon 3L Waterproof Jacket.",
        doc="products/catalog.jsonl#FH-INS-2010",
    )
    catalog = Catalog([shell.passage, down.passage])
    line = "Fits under the Torridon 3L Waterproof Jacket (FH-JKT-1042) in your usual size."
    title = "Cairngorm 800 Down Jacket"
    assert _other_named(line, "Is the Cairngorm 800 waterproof?", title, catalog) == (
        "Torridon 3L Waterproof Jacket Men's"
    )
    assert _other_named(line, "Does it fit under the Torridon 3L?", title, catalog) is None


def test_an_faq_that_counts_answers_only_a_question_that_counts() -> None:
    """Seen running the product (twenty-seventh session): "do you have a discount code?" was
    answered "No." with the FAQ "Can I use more than one discount code?"."""
    faq = hit(
        "Can I use more than one discount code?",
        "No, only one discount code can be used per order.",
        kind="faq",
    )
    line = Evidence(1, "No, only one discount code can be used per order.")
    assert not answers_faq("do you have a discount code?", line, [faq])
    assert answers_faq("can I use two discount codes?", line, [faq])
    assert answers_faq("can I use more than one discount code on an order?", line, [faq])


def test_a_line_whose_span_of_days_leaves_out_the_day_asked_is_no_yes() -> None:
    """Seen running the product (twenty-eighth session): "can i collect my order on a sunday?"
    opened "Yes." from a line naming Sunday as the span's exception."""
    line = (
        "Orders placed between 09:00 and 15:00 Monday to Saturday are ready within 2 hours; "
        "orders placed later, or on a Sunday or bank holiday, are ready to collect from 12:00 "
        "on the next opening day."
    )
    assert plain_answer("can i collect my order on a sunday?", line) is None
    assert plain_answer("can i collect my order on a saturday?", line) == "yes"


def test_a_sentence_end_ends_a_clause() -> None:
    # the negation belongs to the next sentence: "Not designed for … rain" says nothing of packing
    line = (
        "At 265 g it packs into its own chest pocket, small enough to live permanently in your "
        "pack. Not designed for sustained heavy rain on winter hills: for that, choose the "
        "Torridon 3L."
    )
    product = "Skiddaw 2.5L Packable Waterproof Jacket"
    assert plain_answer("does it pack small?", line, product=product) is None
    assert plain_answer("is it designed for heavy rain?", line, product=product) == "no"


def test_no_yes_against_the_line_the_shopper_was_shown_before() -> None:
    line = (
        "Start your return at fernhill-outfitters.example/returns with your order number and "
        "email address."
    )
    before = (
        "> “Personalised items take 2 extra working days to dispatch and can't be returned or "
        "exchanged unless they're faulty.” [3]"
    )
    assert plain_answer("can i return it?", line) == "yes"
    assert plain_answer("can i return it then?", line, before=before) is None
    assert plain_answer("can i return it?", line, before="> “Delivery is free over £50.”") == "yes"


def test_no_yes_from_a_line_under_a_heading_that_says_no() -> None:
    line = (
        "Consumable parts, such as filter cartridges, rubber pole feet, stove O-rings, laces and "
        "batteries after their 1-year warranty."
    )
    asked = "is there a warranty on the stove?"
    assert plain_answer(asked, line) == "yes"
    assert plain_answer(asked, line, heading="What the warranty does not cover") is None


def test_no_yes_from_words_held_only_in_a_name_the_question_does_not_write() -> None:
    line = (
        "Choose how to send it back: Royal Mail (any Post Office or Parcel Postbox), an Evri "
        "ParcelShop, or free drop-off at our Leeds Collection Point."
    )
    assert plain_answer("can i collect from a post office?", line) is None
    assert plain_answer("can i send it back from a post office?", line) == "yes"
    assert plain_answer("can i pay with apple pay?", "- **Apple Pay** and **Google Pay**") == "yes"
